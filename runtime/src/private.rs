//! The only items generated code touches. Not a public API: names and signatures change
//! between any two releases.

pub use crate::derived_schema::{
    Decorate, decorate, finish_schema, int_or_string, structural_variants,
};
pub use crate::eval::view::{
    CelView, ListView, MapView, ObjView, SerValue, ViewKnown, ViewProbe, ViewRef, ViewSer,
    ViewUnknown,
};
pub use crate::generated_test::{assert_rules, model_disagreement};

/// Turns on (or off) checking every answer of the code the derive writes for rules against
/// the viewed interpreter and the interpreter on built values, in this process; returns what
/// this thread's validations checked since its last call: the number of answers, and each
/// disagreement. For tests.
pub fn cross_check_derived(on: bool) -> (u64, Vec<String>) {
    use std::sync::atomic::Ordering;
    crate::eval::interp::derived::CROSS_CHECK.store(on, Ordering::SeqCst);
    crate::eval::interp::derived::CROSS_CHECKED.with_borrow_mut(std::mem::take)
}

/// What the code the derive writes for a struct's rules calls (`eval/interp/derived.rs`).
pub mod rule {
    pub use crate::eval::interp::derived::*;
    pub use crate::eval::interp::viewed::{F, V};
    pub use crate::tree::SchemaNode;
}
pub use crate::model::k8s;
pub use crate::model::{
    CelSchema, CostList, Costs, Decoration, ExprCosts, ListType, MapType, Property, Reason, Rule,
    Rules, Schema, Type,
};
pub use crate::validate::{CelValidate, ValidationErrors};
pub use ::core::option::Option::{self, None, Some};
pub use ::core::result::Result;
pub use schemars;
pub use serde::Serialize;
pub use serde_json;
pub use std::borrow::Cow;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use crate::validate::{BadValue, ErrorType, FieldError, Validator};

/// The model of a field type as the derive names it: `Probe::<T>::MODEL` is `T`'s own when `T`
/// implements [`CelSchema`] (an inherent constant, which path resolution prefers) and
/// [`Schema::UNKNOWN`] otherwise (the [`Fallback`] trait's): a type known only by its
/// `JsonSchema` still compiles, and rules that read into it are checked against its generated
/// schema instead. In a generic context the bound cannot be proven, so a type parameter's
/// fields are unknown too.
pub struct Probe<T: ?Sized>(::core::marker::PhantomData<T>);

impl<T: CelSchema + ?Sized> Probe<T> {
    /// `T::MODEL`.
    pub const MODEL: Schema<'static> = T::MODEL;
    /// `T::OPTIONAL`.
    pub const OPTIONAL: bool = T::OPTIONAL;
    /// `T::COSTS`.
    pub const COSTS: Costs<'static> = T::COSTS;
}

/// What [`Probe`] gives for a type without a model (see there).
pub trait Fallback {
    /// [`Schema::UNKNOWN`].
    const MODEL: Schema<'static> = Schema::UNKNOWN;
    /// Not known to be optional: the derive tells `Option<_>` fields by their syntax.
    const OPTIONAL: bool = false;
    /// No rules known.
    const COSTS: Costs<'static> = Costs::NONE;
}

impl<T: ?Sized> Fallback for Probe<T> {}

/// The compiled validator of a type, built on first use and kept for the life of the process:
/// from the model when it is complete (its rules were checked at `cargo build`), from the
/// generated schema when part of it is known only there (`Type::Unknown`).
fn validator_of<T: CelSchema + schemars::JsonSchema + ?Sized + 'static>(
    resource_root: bool,
    scale: Option<&ScalePaths>,
) -> Result<Arc<Validator>, String> {
    type Cache = RwLock<HashMap<TypeId, Result<Arc<Validator>, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache
        .read()
        .ok()
        .and_then(|c| c.get(&TypeId::of::<T>()).cloned())
    {
        return v;
    }
    let from_schema = |json: &serde_json::Value| {
        Validator::from_generated_schema(json, resource_root)
            .map_err(|e| format!("its generated schema cannot be read: {e}"))
    };
    let v = if T::MODEL.contains_unknown() {
        crate::schema::try_generate::<T>().and_then(|json| from_schema(&json))
    } else {
        // The schema the type generates is the truth: where the build's model disagrees with it
        // (a crd-cel bug, which the generated test reports), the schema is validated against.
        match crate::schema::try_generate::<T>() {
            Ok(json) if !crate::generated_test::agrees(&T::MODEL, &json, resource_root) => {
                from_schema(&json)
            }
            _ => Ok(Validator::from_model(&T::MODEL, resource_root)),
        }
    };
    let v = v.map(|mut v| {
        if let Some(s) = scale {
            v.set_scale(
                s.spec_replicas_path,
                s.status_replicas_path,
                s.label_selector_path,
            );
        }
        Arc::new(v)
    });
    if let Ok(mut c) = cache.write() {
        c.entry(TypeId::of::<T>()).or_insert_with(|| v.clone());
    }
    v
}

/// Whether the rule `rule` is planned for evaluation on views of a Rust value (a test's probe:
/// the typed fast path runs such a rule without building CEL values).
pub fn plans_on_views(rule: &str) -> bool {
    crate::eval::interp::Program::compile(rule)
        .is_ok_and(|p| crate::eval::interp::ViewProgram::plan(&p).is_some())
}

/// Whether `T`'s typed fast path runs every rule on views, and has not turned them off
/// (`false` if it cannot be validated): for tests that must know which path they exercise.
pub fn typed_views<T: CelSchema + schemars::JsonSchema + ?Sized + 'static>() -> bool {
    validator_of::<T>(false, None).is_ok_and(|v| v.runs_rules_on_views())
}

/// Whether the typed fast path of `T` walks updates on views too (a test's probe, as
/// [`typed_views`]).
pub fn typed_update_views<T: CelSchema + schemars::JsonSchema + ?Sized + 'static>() -> bool {
    validator_of::<T>(false, None).is_ok_and(|v| v.runs_updates_on_views())
}

/// Whether the typed fast path of `T` also reads the schema checks on views (a test's probe,
/// as [`typed_views`]).
pub fn typed_view_checks<T: CelSchema + schemars::JsonSchema + ?Sized + 'static>() -> bool {
    validator_of::<T>(false, None).is_ok_and(|v| v.runs_checks_on_views())
}

/// [`typed_view_checks`] of a kube root type without a scale subresource.
pub fn typed_root_view_checks<T: CelSchema + schemars::JsonSchema + ?Sized + 'static>() -> bool {
    validator_of::<T>(true, None).is_ok_and(|v| v.runs_checks_on_views())
}

/// Whether the typed fast path answers "valid" for `value` (an update from `old`; a kube root
/// type without a scale subresource when `resource`) without the JSON path: for tests that
/// must know the objects they validate take it.
pub fn typed_fast_valid<T>(value: &T, old: Option<&T>, resource: bool) -> bool
where
    T: CelSchema + schemars::JsonSchema + Serialize + CelView + 'static,
{
    validator_of::<T>(resource, None).is_ok_and(|v| {
        let views = (value.cel_view(), old.map(CelView::cel_view));
        v.fast_valid(value, old, views)
    })
}

fn internal_error(detail: String) -> ValidationErrors {
    ValidationErrors {
        errors: vec![FieldError {
            kind: ErrorType::InternalError,
            path: "<nil>".into(),
            value: BadValue::Omitted,
            detail,
        }],
    }
}

/// What is validated: a type's value, or a kube root type's object (with its scale
/// subresource, if any).
#[derive(Clone, Copy)]
enum Root {
    Type,
    Resource(Option<&'static ScalePaths>),
}

/// The views of the value and of the old value (`ViewRef::Opaque` for a type without one).
type Views<'a> = (ViewRef<'a>, Option<ViewRef<'a>>);

fn run<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    old: Option<&T>,
    type_name: &str,
    root: Root,
    views: Views<'_>,
) -> Result<(), ValidationErrors> {
    let to_json = |v: &T| {
        serde_json::to_value(v).map_err(|e| {
            internal_error(format!(
                "`{type_name}` could not be serialized for validation: {e}"
            ))
        })
    };
    let v = match root {
        Root::Type => validator_of::<T>(false, None),
        Root::Resource(scale) => validator_of::<T>(true, scale),
    }
    .map_err(|e| internal_error(format!("`{type_name}` cannot be validated: {e}")))?;
    // Valid objects are answered without JSON; anything to report goes the JSON way.
    if v.fast_valid(value, old, views) {
        return Ok(());
    }
    let new = to_json(value)?;
    let old = old.map(to_json).transpose()?;
    // The whole custom-resource path: schema checks (the Rust type cannot express every bound
    // of the schema) before the rules.
    let out = v.validate_request(&new, old.as_ref(), crate::validate::Endpoint::Resource);
    if out.errors.is_empty() {
        Ok(())
    } else {
        Err(out.errors)
    }
}

/// The body of the `validate_cel(value, old)` that `#[x_kube(cel)]` generates: the value
/// validated as [`validate`] does, the errors in the shape of kube-core's
/// `cel::ValidationErrors` (`E`), which is built through its `Deserialize` (its fields are
/// not public to construct).
pub fn validate_cel_value<T, E>(
    value: &serde_json::Value,
    old: Option<&serde_json::Value>,
    type_name: &str,
) -> Result<(), E>
where
    T: CelSchema + schemars::JsonSchema + ?Sized + 'static,
    E: serde::de::DeserializeOwned,
{
    let errors = match validator_of::<T>(false, None) {
        Ok(v) => {
            v.validate_request(value, old, crate::validate::Endpoint::Resource)
                .errors
        }
        Err(e) => internal_error(format!("`{type_name}` cannot be validated: {e}")),
    };
    if errors.is_empty() {
        return Ok(());
    }
    let list: Vec<serde_json::Value> = errors
        .errors
        .iter()
        .map(|e| {
            let kind = if e.kind == ErrorType::InternalError {
                "EvaluationError"
            } else {
                "ValidationFailure"
            };
            serde_json::json!({
                "rule": "",
                "message": e.detail,
                "field_path": e.path,
                "reason": e.kind.as_str(),
                "kind": kind,
            })
        })
        .collect();
    Err(serde_json::from_value(serde_json::Value::Array(list)).unwrap_or_else(|e| {
        panic!(
            "crd-cel cannot build kube-core's cel::ValidationErrors ({e}); the errors were: {errors}"
        )
    }))
}

/// The body of every derived `CelValidate::validate`.
pub fn validate<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    type_name: &str,
    view: ViewRef<'_>,
) -> Result<(), ValidationErrors> {
    run(value, None, type_name, Root::Type, (view, None))
}

/// The body of every derived `CelValidate::validate_update`.
pub fn validate_update<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    old: &T,
    type_name: &str,
    (view, old_view): (ViewRef<'_>, ViewRef<'_>),
) -> Result<(), ValidationErrors> {
    run(
        value,
        Some(old),
        type_name,
        Root::Type,
        (view, Some(old_view)),
    )
}

/// The view of a kube root type's `apiVersion` (`kind` when `kind`), as kube's derive
/// serializes it: `Resource::api_version` (`kind`), a constant string.
#[cfg(feature = "kube")]
pub fn resource_type_view<T: kube_core::Resource<DynamicType = ()>>(
    kind: bool,
) -> ViewRef<'static> {
    static UNIT: () = ();
    let text = if kind {
        T::kind(&UNIT)
    } else {
        T::api_version(&UNIT)
    };
    match text {
        std::borrow::Cow::Borrowed(s) => ViewRef::Str(s),
        std::borrow::Cow::Owned(_) => ViewRef::Opaque,
    }
}

/// kube's `#[kube(scale(..))]` of a root type: the apiserver checks the replicas at both paths
/// (integers from 0 to 2147483647) and the selector (a string) on every write.
#[derive(Debug)]
pub struct ScalePaths {
    pub spec_replicas_path: &'static str,
    pub status_replicas_path: &'static str,
    pub label_selector_path: Option<&'static str>,
}

/// `CelValidate::validate` of a kube root type (a resource root).
pub fn validate_resource<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    type_name: &str,
    scale: Option<&'static ScalePaths>,
    view: ViewRef<'_>,
) -> Result<(), ValidationErrors> {
    run(value, None, type_name, Root::Resource(scale), (view, None))
}

/// `CelValidate::validate_update` of a kube root type.
pub fn validate_resource_update<
    T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static,
>(
    value: &T,
    old: &T,
    type_name: &str,
    scale: Option<&'static ScalePaths>,
    (view, old_view): (ViewRef<'_>, ViewRef<'_>),
) -> Result<(), ValidationErrors> {
    run(
        value,
        Some(old),
        type_name,
        Root::Resource(scale),
        (view, Some(old_view)),
    )
}

// The const checks the derive's const items call, from `crd_cel_core::crd` (what the apiserver
// checks on a rule at CRD creation). Only what needs the targeted Kubernetes version, which
// is this crate's `k8s-1-NN` features, is wrapped here.
pub use crd_cel_core::ast;
pub use crd_cel_core::check;
pub use crd_cel_core::cost::RuleCost;
pub use crd_cel_core::crd::cost::check_crd_costs;
pub use crd_cel_core::crd::decoration::{check_decoration, check_list_map_keys};
pub use crd_cel_core::crd::expression::{Prediction, Rejection};
pub use crd_cel_core::crd::field_path::check_field_path;
pub use crd_cel_core::crd::old_self::{check_correlatable, check_optional_old_self};
pub use crd_cel_core::fingerprint;

/// `crate::TARGET_COMPAT`, for the const items the derive generates.
pub const TARGET_COMPAT: u8 = crate::TARGET_COMPAT;

/// [`crd_cel_core::crd::expression::check_expression`] at [`TARGET_COMPAT`]. Like every check
/// here, it returns the message of a rejected rule, which the derive's const item panics with:
/// rustc then reports the failure in that item, with no frames of these functions.
#[allow(clippy::too_many_arguments)]
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_expression(
    ast: &ast::Ast<'_>,
    schema: &Schema<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    resource_root: bool,
    optional_old_self: bool,
) -> Result<u64, Rejection> {
    crd_cel_core::crd::expression::check_expression(
        ast,
        schema,
        target,
        place,
        index,
        resource_root,
        optional_old_self,
        TARGET_COMPAT,
    )
}

/// [`crd_cel_core::crd::expression::check_predicted`] at [`TARGET_COMPAT`].
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_predicted(
    ast: &ast::PackedAst<'_>,
    schema: &Schema<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    optional_old_self: bool,
    prediction: Prediction,
) -> Result<u64, Rejection> {
    crd_cel_core::crd::expression::check_predicted(
        ast,
        schema,
        target,
        place,
        index,
        optional_old_self,
        prediction,
        TARGET_COMPAT,
    )
}
