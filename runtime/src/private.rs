//! The only items generated code touches. Not a public API: names and signatures change
//! between any two releases.

pub use crate::derived_schema::{
    Decorate, decorate, finish_schema, int_or_string, structural_variants,
};
pub use crate::generated_test::assert_rules;
pub use crate::model::k8s;
pub use crate::model::{
    CelSchema, CostList, Costs, Decoration, ExprCosts, ListType, MapType, Property, Reason, Rule,
    Rules, Schema, Type,
};
pub use crate::validate::{CelValidate, ValidationErrors};
pub use ::core::option::Option::{None, Some};
pub use ::core::result::Result;
pub use schemars;
pub use serde::Serialize;
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
    let v = if T::MODEL.contains_unknown() {
        crate::schema::try_generate::<T>().and_then(|json| {
            Validator::from_schema_json(&json, resource_root)
                .map(Arc::new)
                .map_err(|e| format!("its generated schema cannot be read: {e}"))
        })
    } else {
        Ok(Arc::new(Validator::from_model(&T::MODEL, resource_root)))
    };
    if let Ok(mut c) = cache.write() {
        c.entry(TypeId::of::<T>()).or_insert_with(|| v.clone());
    }
    v
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

fn run<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    old: Option<&T>,
    type_name: &str,
    resource_root: bool,
) -> Result<(), ValidationErrors> {
    let to_json = |v: &T| {
        serde_json::to_value(v).map_err(|e| {
            internal_error(format!(
                "`{type_name}` could not be serialized for validation: {e}"
            ))
        })
    };
    let v = validator_of::<T>(resource_root)
        .map_err(|e| internal_error(format!("`{type_name}` cannot be validated: {e}")))?;
    // Valid objects are answered without JSON; anything to report goes the JSON way.
    if v.fast_valid(value, old) {
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

/// The body of every derived `CelValidate::validate`.
pub fn validate<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    type_name: &str,
) -> Result<(), ValidationErrors> {
    run(value, None, type_name, false)
}

/// The body of every derived `CelValidate::validate_update`.
pub fn validate_update<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    old: &T,
    type_name: &str,
) -> Result<(), ValidationErrors> {
    run(value, Some(old), type_name, false)
}

/// `CelValidate::validate` of a kube root type (a resource root).
pub fn validate_resource<T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static>(
    value: &T,
    type_name: &str,
) -> Result<(), ValidationErrors> {
    run(value, None, type_name, true)
}

/// `CelValidate::validate_update` of a kube root type.
pub fn validate_resource_update<
    T: CelSchema + schemars::JsonSchema + Serialize + ?Sized + 'static,
>(
    value: &T,
    old: &T,
    type_name: &str,
) -> Result<(), ValidationErrors> {
    run(value, Some(old), type_name, true)
}

/// Const check behind `list_map_keys`: every key must be a property of the list's items.
/// Panics (a compile error in const evaluation) with the apiserver's words and a hint.
pub const fn check_list_map_keys(
    field: &'static str,
    list: &Schema<'static>,
    keys: &[&'static str],
) {
    // Checked against the generated schema instead.
    if matches!(list.ty, Type::Unknown) {
        return;
    }
    let items = match list.items {
        Some(items) if matches!(items.ty, Type::Unknown) => return,
        Some(items) => items,
        None => {
            panic_field(
                field,
                " has `list_type = \"map\"` but its type is not a list",
            );
        }
    };
    let mut i = 0;
    while i < keys.len() {
        match items.property(keys[i]) {
            Some(p) => {
                if !p.required && !p.schema.has_default {
                    panic_key(
                        field,
                        keys[i],
                        "` must be required or have a default: make the field non-optional, or add #[serde(default)]",
                    );
                }
                if !matches!(
                    p.schema.ty,
                    Type::String | Type::Integer | Type::Boolean | Type::Number
                ) {
                    panic_key(
                        field,
                        keys[i],
                        "` must be a scalar (string, integer, number or boolean)",
                    );
                }
            }
            None if items.has_open_flatten() => {}
            None => panic_key(field, keys[i], "` is not a field of the list's items"),
        }
        i += 1;
    }
}

/// Const check behind list/map attributes on fields: the field's schema must be of that kind.
pub const fn check_decoration(
    field: &'static str,
    node: &Schema<'static>,
    d: &Decoration<'static>,
) {
    // Checked against the generated schema instead.
    if matches!(node.ty, Type::Unknown) {
        return;
    }
    let is_list = matches!(node.ty, Type::Array);
    let is_object = matches!(node.ty, Type::Object);
    if (d.list_type.is_some() || d.max_items.is_some() || d.min_items.is_some()) && !is_list {
        panic_field(
            field,
            " is not a list: `list_type`, `max_items` and `min_items` only apply to Vec/set fields",
        );
    }
    if (d.map_type.is_some() || d.max_properties.is_some() || d.min_properties.is_some())
        && !is_object
    {
        panic_field(
            field,
            " is not a map or object: `map_type`, `max_properties` and `min_properties` only apply to maps and structs",
        );
    }
    if let Some(ListType::Set) = d.list_type
        && let Some(items) = node.items
        && !matches!(
            items.ty,
            Type::String | Type::Integer | Type::Boolean | Type::Number | Type::Unknown
        )
    {
        panic_field(
            field,
            " has `list_type = \"set\"`, which needs scalar items (the apiserver requires it)",
        );
    }
}

/// Const check behind `field_path`: the path must resolve in the schema of the node the rule
/// is on (CEL-SEMANTICS.md 3.4), or the apiserver rejects the CRD with
/// `x-kubernetes-validations[i].fieldPath: Invalid value: "<path>": must be a valid path`.
/// Panics (a compile error in const evaluation) with that text, the reason, and a hint.
///
/// The derive calls it in one `const` item per rule that has a `field_path`, with the model of
/// the type or field the rule is on. An empty path is no `fieldPath` to the apiserver and
/// passes; blank or multi-line paths are reported at expansion (`rule_fields`).
pub const fn check_field_path(model: &Schema<'_>, path: &str) {
    // A path into a node known only by its generated schema is checked against that schema.
    if path.is_empty() || model.contains_unknown() {
        return;
    }
    if let Err(e) = crd_cel_core::field_path::valid_field_path(model, path) {
        let mut buf = crd_cel_core::msg::Buf::<1024>::new();
        buf.push("fieldPath: Invalid value: \"");
        buf.push(path);
        buf.push("\": must be a valid path: ");
        e.push_to(&mut buf);
        buf.push(
            "\n  = help: the path is resolved from the type the rule is on: `.name` or `['name']` \
             for a field, `.key` or `['key']` for a map entry; list items cannot be addressed",
        );
        buf.panic()
    }
}

const fn panic_field(field: &'static str, what: &'static str) -> ! {
    let mut buf = crd_cel_core::msg::Buf::<512>::new();
    buf.push("field `");
    buf.push(field);
    buf.push("`");
    buf.push(what);
    buf.panic()
}

const fn panic_key(field: &'static str, key: &'static str, what: &'static str) -> ! {
    let mut buf = crd_cel_core::msg::Buf::<512>::new();
    buf.push("list map key `");
    buf.push(key);
    buf.push("` of field `");
    buf.push(field);
    buf.push(what);
    buf.panic()
}

pub use crd_cel_core::ast;
pub use crd_cel_core::check;
pub use crd_cel_core::cost::RuleCost;
pub use crd_cel_core::fingerprint;

/// The compatibility version new rules are checked at: the targeted Kubernetes minor minus one
/// (CEL-SEMANTICS.md 6.3). The lowest enabled `k8s-1-NN` feature wins (features add up across
/// a dependency graph, and the oldest apiserver a CRD must work on is the one that matters).
pub const TARGET_COMPAT: u8 = crd_cel_core::target_compat!();

/// Const check behind every `#[cel(rule = ..)]` and `message_expression`: type-checks the
/// expression against the model of its node, as the apiserver does at CRD creation, and panics
/// (a compile error at the rule's literal) with the apiserver's message and crd-cel's help.
/// Returns the apiserver's estimated cost of one evaluation, and panics with its cost error when
/// that alone is over the per-expression limit.
#[allow(clippy::too_many_arguments)]
pub const fn check_expression(
    ast: &ast::Ast<'_>,
    schema: &Schema<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    resource_root: bool,
    optional_old_self: bool,
) -> u64 {
    let node = check::Node {
        schema,
        resource_root,
        optional_old_self,
        compat: TARGET_COMPAT,
        type_name: if resource_root { "selfType<N>" } else { place },
    };
    let report = check::check(ast, target, &node);
    // The rule reads a node known only by its generated schema: it is checked against that
    // schema by the test the derive generates and by `crd_cel::check_rules`.
    if report.deferred {
        return 0;
    }
    if report.is_ok() {
        let cost = match report.cost {
            Some(c) => c.max,
            None => 0,
        };
        // A rule's node occurs once per value of the type that declares it, so within the
        // type its cardinality is 1: what one evaluation costs is a lower bound of the
        // apiserver's figure wherever the type is used (`crd-cel check` on the generated CRD
        // applies the ancestors' maxItems/maxProperties exactly).
        if cost > crd_cel_core::cost::PER_EXPRESSION_LIMIT {
            cost_panic(ast, &node, target, place, index, cost);
        }
        return cost;
    }
    let mut m = crd_cel_core::msg::Buf::<16384>::new();
    m.push(match target {
        check::Target::Rule => "CEL rule #",
        check::Target::MessageExpression => "messageExpression of CEL rule #",
    });
    m.push_u64(index as u64);
    m.push(" on `");
    m.push(place);
    if let Some(what) = report.unsupported {
        m.push("` cannot be checked: not supported by crd-cel yet: ");
        m.push(what);
        m.push("\nhelp: remove the rule or rewrite it without this construct; please report it");
        m.panic();
    }
    m.push("` is rejected by the apiserver: ");
    if report.untyped_node {
        m.push(check::UNTYPED_NODE);
        m.push("\nhelp: the field's type has no CEL type (e.g. serde_json::Value, a bare x-kubernetes-preserve-unknown-fields node); put the rule on the containing type");
        m.panic();
    }
    if report.total > 0 {
        m.push(match target {
            check::Target::Rule => "compilation failed: ",
            check::Target::MessageExpression => "messageExpression compilation failed: ",
        });
        report.render(ast.source, &mut m);
    } else {
        m.push(match target {
            check::Target::Rule => "cel expression must evaluate to a bool",
            check::Target::MessageExpression => "messageExpression must evaluate to a string",
        });
    }
    if !report.help.is_empty() {
        m.push("\n");
        m.push(report.help.as_str());
    }
    if compat_hint(&report) {
        m.push("\nnote: checked for Kubernetes 1.");
        m.push_u64(TARGET_COMPAT as u64 + 1);
        m.push(" (new rules compile at compatibility version 1.");
        m.push_u64(TARGET_COMPAT as u64);
        m.push("); choose the target with the crd-cel features `k8s-1-NN`");
    }
    m.panic()
}

/// The const item of a rule the derive type-checked natively, against the model it predicted
/// from the source (`crd-cel-macros`' `predict`): `cost`, its estimate, when the real node has
/// the prediction's fingerprint over what the rule reads (and what the node's other such rules
/// read) and the targeted Kubernetes is the one it was checked for; otherwise the const check,
/// as for any other rule.
#[allow(clippy::too_many_arguments)]
pub const fn check_predicted(
    ast: &ast::PackedAst<'_>,
    schema: &Schema<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    optional_old_self: bool,
    prediction: Prediction,
) -> u64 {
    if prediction.compat == TARGET_COMPAT && prediction.node == prediction.predicted {
        return prediction.cost;
    }
    let words = ast.unpack();
    check_expression(
        &ast.ast(&words),
        schema,
        target,
        place,
        index,
        false,
        optional_old_self,
    )
}

/// What the derive's native check of a rule found, and what it assumed (see
/// [`check_predicted`]).
#[derive(Clone, Copy)]
pub struct Prediction {
    /// The compatibility version it checked at.
    pub compat: u8,
    /// The real node's fingerprint over what the node's natively checked rules read
    /// ([`crd_cel_core::fingerprint::of_node`]), computed once per node.
    pub node: u64,
    /// The same fingerprint of the predicted node.
    pub predicted: u64,
    /// The estimated cost it computed.
    pub cost: u64,
}

/// The root's CRD-wide cost check (CEL-SEMANTICS 4.5): every expression's estimated cost times
/// how many times its node can occur in one object within 10,000,000, and their sum within
/// 100,000,000. Panics (a compile error at the root's derive) with the apiserver's messages and
/// what to bound.
pub const fn check_crd_costs(model: &Schema<'static>, costs: &Costs<'static>, root: &str) {
    use crd_cel_core::cost::{PER_CRD_LIMIT, PER_EXPRESSION_LIMIT, push_cost_message};
    let report = crd_cel_core::crd_cost::check(model, costs);
    if report.is_ok() {
        return;
    }
    let mut m = crd_cel_core::msg::Buf::<8192>::new();
    let mut i = 0;
    while i < report.over_len {
        let e = &report.over[i];
        if i > 0 {
            m.push("\n");
        }
        m.push("CEL rule `");
        m.push(e.rule);
        m.push("` at `");
        push_path(&e.path, &mut m);
        m.push("` of `");
        m.push(root);
        m.push("` is rejected by the apiserver: Forbidden: ");
        push_cost_message("estimated rule cost", e.total, PER_EXPRESSION_LIMIT, &mut m);
        m.push("\nnote: one evaluation is estimated at ");
        m.push_u64(e.cost);
        m.push(", and the node can occur ");
        m.push_u64(e.cardinality);
        m.push(" times in one object");
        if e.unbounded {
            m.push(" (a list or map on its path has no maxItems/maxProperties, so the apiserver divides the maximum request size by the node's minimum size)");
        } else {
            m.push(
                " (the product of the maxItems/maxProperties of the lists and maps on its path)",
            );
        }
        m.push("\nhelp: bound the lists and maps on the path (`[*]`) with #[cel(max_items = ..)] / #[cel(max_properties = ..)] so that their product is at most ");
        m.push_u64(match PER_EXPRESSION_LIMIT.checked_div(e.cost) {
            Some(n) => n,
            None => 0,
        });
        m.push(", or make the rule cheaper (bound the strings it reads with #[schemars(length(max = ..))])");
        i += 1;
    }
    if report.over_count > report.over_len {
        m.push("\nnote: ");
        m.push_u64((report.over_count - report.over_len) as u64);
        m.push(" more rules are over the limit");
    }
    if report.total > PER_CRD_LIMIT {
        if report.over_len > 0 {
            m.push("\n");
        }
        m.push("`");
        m.push(root);
        m.push("` is rejected by the apiserver: Forbidden: ");
        push_cost_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            report.total,
            PER_CRD_LIMIT,
            &mut m,
        );
        m.push("\nnote: the estimated total is ");
        m.push_u64(report.total);
        m.push(
            "; the expressions that contribute most (one evaluation x occurrences in one object):",
        );
        let mut k = 0;
        while k < report.expensive_len {
            let e = &report.expensive[k];
            m.push("\n  ");
            if e.message_expression {
                m.push("messageExpression of ");
            }
            m.push("`");
            m.push(e.rule);
            m.push("` at `");
            push_path(&e.path, &mut m);
            m.push("`: ");
            m.push_u64(e.cost);
            if !e.message_expression {
                m.push(" x ");
                m.push_u64(e.cardinality);
            }
            m.push(" = ");
            m.push_u64(e.total);
            k += 1;
        }
        m.push("\nhelp: bound the lists, maps and strings these rules read or sit under (#[cel(max_items = ..)], #[cel(max_properties = ..)], #[schemars(length(max = ..))]) until the total is at most 100000000");
    }
    m.panic();
}

const fn push_path<const N: usize>(
    path: &crd_cel_core::msg::Buf<{ crd_cel_core::crd_cost::PATH_LEN }>,
    m: &mut crd_cel_core::msg::Buf<N>,
) {
    if path.is_empty() {
        m.push("(root)");
    } else {
        m.push(path.as_str());
    }
}

/// The apiserver's per-expression cost error, then which fields of the node are unbounded, the
/// attribute that bounds each and the largest value that fits.
const fn cost_panic(
    ast: &ast::Ast<'_>,
    node: &check::Node<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    cost: u64,
) -> ! {
    let schema = node.schema;
    let mut m = crd_cel_core::msg::Buf::<4096>::new();
    m.push(match target {
        check::Target::Rule => "CEL rule #",
        check::Target::MessageExpression => "messageExpression of CEL rule #",
    });
    m.push_u64(index as u64);
    m.push(" on `");
    m.push(place);
    m.push("` is rejected by the apiserver: Forbidden: ");
    crd_cel_core::cost::push_cost_message(
        match target {
            check::Target::Rule => "estimated rule cost",
            check::Target::MessageExpression => "estimated messageExpression cost",
        },
        cost,
        crd_cel_core::cost::PER_EXPRESSION_LIMIT,
        &mut m,
    );
    m.push("\nnote: one evaluation is estimated at ");
    m.push_u64(cost);
    m.push(" (the limit is 10000000 times the number of times the node can occur)");
    let sizing = Sizing { ast, target, node };
    let mut found = false;
    found |= bound_help(&sizing, None, place, &mut m);
    let mut i = 0;
    while i < schema.properties.len() {
        let p = &schema.properties[i];
        let mut field = crd_cel_core::msg::Buf::<256>::new();
        field.push(place);
        field.push(".");
        field.push(p.name);
        found |= bound_help(&sizing, Some(i), field.as_str(), &mut m);
        i += 1;
    }
    if !found {
        // Only the node and its own fields are sized here: what is unbounded may sit deeper
        // (a list's items' fields, a type of another crate, such as k8s-openapi's).
        m.push("\nhelp: the node and its own fields are bounded: the unbounded strings or lists the rule reads are deeper (list items' fields, other crates' types): read less of them (`size()` rather than a scan of each string), bound them where they are declared, or bound the enclosing list; nested loops multiply");
    }
    m.panic()
}

/// What re-estimating a rule with a bound added needs (the help sizes each missing bound).
struct Sizing<'s, 'a> {
    ast: &'s ast::Ast<'a>,
    target: check::Target,
    node: &'s check::Node<'a>,
}

/// A bound a schema node can lack.
#[derive(Clone, Copy)]
enum Bound {
    Items,
    Length,
    Properties,
    /// `maxLength` of a list's string items.
    ItemLength,
}

const ANY: Schema<'static> = Schema::of(Type::Any);
const NO_PROPERTY: Property<'static> = Property {
    name: "",
    required: false,
    schema: &ANY,
};

impl Sizing<'_, '_> {
    /// The estimate with `bound` set to `n` on the node (`prop` `None`) or on its property
    /// `prop`; `None` when the rule then fails to check or the node is too wide to copy.
    const fn estimate(&self, prop: Option<usize>, bound: Bound, n: u64) -> Option<u64> {
        let parent = self.node.schema;
        let s = match prop {
            Some(i) => parent.properties[i].schema,
            None => parent,
        };
        let items;
        let mut bounded = *s;
        match bound {
            Bound::Items => bounded.max_items = Some(n),
            Bound::Length => bounded.max_length = Some(n),
            Bound::Properties => bounded.max_properties = Some(n),
            Bound::ItemLength => match s.items {
                Some(i) => {
                    items = Schema {
                        max_length: Some(n),
                        ..*i
                    };
                    bounded.items = Some(&items);
                }
                None => return None,
            },
        }
        let mut properties = [NO_PROPERTY; 64];
        let copied;
        let schema = match prop {
            None => &bounded,
            Some(i) => {
                let len = parent.properties.len();
                if len > properties.len() {
                    return None;
                }
                let mut k = 0;
                while k < len {
                    properties[k] = parent.properties[k];
                    k += 1;
                }
                properties[i].schema = &bounded;
                copied = Schema {
                    properties: properties.split_at(len).0,
                    ..*parent
                };
                &copied
            }
        };
        let node = check::Node {
            schema,
            ..*self.node
        };
        let report = check::check(self.ast, self.target, &node);
        match report.cost {
            Some(c) if report.is_ok() => Some(c.max),
            _ => None,
        }
    }

    const fn fits(&self, prop: Option<usize>, bound: Bound, n: u64) -> bool {
        match self.estimate(prop, bound, n) {
            Some(c) => c <= crd_cel_core::cost::PER_EXPRESSION_LIMIT,
            None => false,
        }
    }

    /// The largest value of `bound` (at most the request size) at which the rule fits the
    /// per-expression limit, the other bounds as they are; `None` if none does.
    const fn largest(&self, prop: Option<usize>, bound: Bound) -> Option<u64> {
        const MAX: u64 = 3 * 1024 * 1024;
        if !self.fits(prop, bound, 1) {
            return None;
        }
        let (mut lo, mut hi) = (1, MAX);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.fits(prop, bound, mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }
}

/// `N` of a help line: the largest value that fits, or why there is none.
const fn push_largest<const N: usize>(
    sizing: &Sizing<'_, '_>,
    prop: Option<usize>,
    bound: Bound,
    m: &mut crd_cel_core::msg::Buf<N>,
) {
    match sizing.largest(prop, bound) {
        Some(n) => {
            m.push(" with N at most ");
            m.push_u64(n);
            m.push(" (the other bounds as they are)");
        }
        None => m.push(" (no N fits while the other fields stay as they are: bound them too)"),
    }
}

/// One `help:` line per missing bound of the node or its property `prop` (named `what`), with
/// the largest value that would fit; whether there was one.
const fn bound_help<const N: usize>(
    sizing: &Sizing<'_, '_>,
    prop: Option<usize>,
    what: &str,
    m: &mut crd_cel_core::msg::Buf<N>,
) -> bool {
    let s = match prop {
        Some(i) => sizing.node.schema.properties[i].schema,
        None => sizing.node.schema,
    };
    let mut found = false;
    match s.ty {
        Type::String
            if s.max_length.is_none() && s.enum_values.is_empty() && s.format.is_none() =>
        {
            m.push("\nhelp: `");
            m.push(what);
            m.push("` is a string without maxLength (sized at 3145726): add #[schemars(length(max = N))]");
            push_largest(sizing, prop, Bound::Length, m);
            found = true;
        }
        Type::Array => {
            if s.max_items.is_none() {
                m.push("\nhelp: `");
                m.push(what);
                m.push("` is a list without maxItems: add #[cel(max_items = N)] (or #[schemars(length(max = N))])");
                push_largest(sizing, prop, Bound::Items, m);
                found = true;
            }
            if let Some(items) = s.items
                && matches!(items.ty, Type::String)
                && items.max_length.is_none()
                && items.enum_values.is_empty()
                && items.format.is_none()
            {
                m.push("\nhelp: the items of `");
                m.push(what);
                m.push("` are strings without maxLength: add #[schemars(inner(length(max = N)))]");
                push_largest(sizing, prop, Bound::ItemLength, m);
                found = true;
            }
        }
        Type::Object if s.additional_properties.is_some() && s.max_properties.is_none() => {
            m.push("\nhelp: `");
            m.push(what);
            m.push("` is a map without maxProperties: add #[cel(max_properties = N)]");
            push_largest(sizing, prop, Bound::Properties, m);
            found = true;
        }
        _ => {}
    }
    found
}

const fn compat_hint(report: &check::Report) -> bool {
    report.total > 0 && TARGET_COMPAT != check::DEFAULT_COMPAT
}

/// Const check behind `optional_old_self` (either value): the apiserver rejects the field on a
/// rule that does not use `oldSelf` (`x-kubernetes-validations[i].optionalOldSelf: Invalid
/// value: true: may not be set if oldSelf is not used in rule`).
pub const fn check_optional_old_self(rule: &str, value: bool, place: &str, index: usize) {
    if mentions_old_self(rule) {
        return;
    }
    let mut m = crd_cel_core::msg::Buf::<1024>::new();
    m.push("CEL rule #");
    m.push_u64(index as u64);
    m.push(" on `");
    m.push(place);
    m.push("` is rejected by the apiserver: optionalOldSelf: Invalid value: ");
    m.push(if value { "true" } else { "false" });
    m.push(": ");
    m.push(crd_cel_core::rule_fields::OPTIONAL_OLD_SELF_UNUSED);
    m.push("\nhelp: remove `optional_old_self`, or use `oldSelf` in the rule");
    m.panic()
}

/// Const check of CEL-SEMANTICS.md 3.5 for one field: a transition rule (one that uses
/// `oldSelf`) anywhere under the items of a list that is not `list_type = "map"` cannot be
/// correlated with the old object, and the apiserver rejects the CRD.
pub const fn check_correlatable(field: &str, node: &Schema<'_>) {
    if let Some(items) = node.items
        && !matches!(node.list_type, Some(ListType::Map))
        && uses_old_self_below(items, 0)
    {
        let mut m = crd_cel_core::msg::Buf::<1024>::new();
        m.push("a rule under `");
        m.push(field);
        m.push("` is rejected by the apiserver: oldSelf cannot be used on the uncorrelatable portion of the schema within `");
        m.push(field);
        m.push("`: list items are only correlated with the old object when the list has `list_type = \"map\"`");
        m.push("\nhelp: add #[cel(list_type = \"map\", list_map_keys = [..])] to the field, or move the transition rule onto the list itself");
        m.panic();
    }
}

const fn uses_old_self_below(s: &Schema<'_>, depth: u32) -> bool {
    // Recursive types nest without end; deeper than any real schema, stop.
    if depth > 32 {
        return false;
    }
    let mut r = 0;
    while r < s.validations.len() {
        if let Some(rule) = s.validations.get(r)
            && mentions_old_self(rule.rule)
        {
            return true;
        }
        r += 1;
    }
    let mut i = 0;
    while i < s.properties.len() {
        if uses_old_self_below(s.properties[i].schema, depth + 1) {
            return true;
        }
        i += 1;
    }
    let mut f = 0;
    while f < s.flatten.len() {
        if uses_old_self_below(s.flatten[f], depth + 1) {
            return true;
        }
        f += 1;
    }
    if let Some(items) = s.items
        && uses_old_self_below(items, depth + 1)
    {
        return true;
    }
    if let Some(values) = s.additional_properties
        && uses_old_self_below(values, depth + 1)
    {
        return true;
    }
    false
}

/// Whether the expression has the identifier `oldSelf` as a variable: a token outside string
/// literals and comments that is not a field selection (`x.oldSelf`).
const fn mentions_old_self(rule: &str) -> bool {
    let b = rule.as_bytes();
    let mut i = 0;
    let mut prev_dot = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' || c == b'"' {
            // Skip a string literal (triple quotes end at the same triple).
            let triple = i + 2 < b.len() && b[i + 1] == c && b[i + 2] == c;
            i += if triple { 3 } else { 1 };
            while i < b.len() {
                if b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if b[i] == c && (!triple || (i + 2 < b.len() && b[i + 1] == c && b[i + 2] == c)) {
                    i += if triple { 3 } else { 1 };
                    break;
                }
                i += 1;
            }
            prev_dot = false;
            continue;
        }
        if c == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let (_, tail) = b.split_at(start);
            let (word, _) = tail.split_at(i - start);
            if !prev_dot && crd_cel_core::types::bytes_eq(word, b"oldSelf") {
                return true;
            }
            prev_dot = false;
            continue;
        }
        if !c.is_ascii_whitespace() {
            prev_dot = c == b'.';
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const STR: Schema<'static> = Schema::of(Type::String);
    const MODEL: Schema<'static> = Schema {
        properties: &[Property {
            name: "a",
            required: false,
            schema: &STR,
        }],
        ..Schema::of(Type::Object)
    };

    // The check runs in const evaluation, where the derive puts it.
    const _: () = check_field_path(&MODEL, ".a");
    const _: () = check_field_path(&MODEL, "['a']");
    const _: () = check_field_path(&MODEL, "");

    #[test]
    #[should_panic(
        expected = "fieldPath: Invalid value: \".nope\": must be a valid path: does not refer to a valid field"
    )]
    fn unknown_field_panics_with_the_apiserver_text() {
        check_field_path(&MODEL, ".nope");
    }

    #[test]
    #[should_panic(expected = "must be a valid path: expected single quoted string but got 0")]
    fn list_index_panics() {
        check_field_path(&MODEL, ".a[0]");
    }
}
