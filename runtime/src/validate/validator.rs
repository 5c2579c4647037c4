//! [`Validator`]: the rules of one schema compiled once, and validation of objects against them
//! with the apiserver's verdicts, messages and budget.

use std::sync::Arc;

use serde_json::Value as Json;

use super::compile::Nodes;
use super::fast::viewed::{self, Stop};
use super::metadata::{Refusal, Resource};
use super::path::Path;
use super::walk::{Data, Mode, Walk};
use super::{FieldError, ValidationErrors};
use crate::check::NEWEST_KUBERNETES_MINOR;
use crate::eval::interp::Miss;
use crate::eval::view::ViewRef;
use crate::model::Schema;
use crate::schema::{OwnedSchema, SchemaArena, SchemaError};
use crate::tree::SchemaNode;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// The runtime cost budget for validating one object (`RuntimeCELCostBudget`).
pub const RUNTIME_COST_BUDGET: i64 = 10_000_000;

/// The runtime cost limit of one evaluation of one expression (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// How one validation runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The field path of the schema root: `None` is the apiserver's nil path (errors on the root
    /// print `<nil>`, children print from the first property: `spec.replicas`).
    pub root_path: Option<String>,
    /// The runtime budget shared by every rule of the object.
    pub budget: i64,
    /// The runtime cost limit of each evaluation.
    pub per_call_limit: u64,
    /// CRDValidationRatcheting (on, and locked on, since Kubernetes 1.33): on update, errors of
    /// rules on unchanged nodes become warnings.
    pub ratcheting: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            root_path: None,
            budget: RUNTIME_COST_BUDGET,
            per_call_limit: PER_CALL_LIMIT,
            ratcheting: true,
        }
    }
}

/// What one validation found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The errors, in the order found (a node's own rules before its children's).
    pub errors: ValidationErrors,
    /// Errors that ratcheting turned into warnings (their text).
    pub warnings: Vec<String>,
    /// The budget left (`-1` once it ran out).
    pub remaining_budget: i64,
    /// The object's name after the request path (made from `generateName` on create), as the
    /// apiserver's `Kind.group "name" is invalid` text names it; `None` when the validator
    /// knows no [`Resource`] (see [`Validator::with_resource`]).
    pub name: Option<String>,
    /// The apiserver's answer when it refuses the request without field errors (an update of
    /// an object that is not stored, a conflict, a create with a resourceVersion); `errors`
    /// is then empty.
    pub refusal: Option<Refusal>,
}

impl Outcome {
    /// Whether the object is valid (no errors and no refusal).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty() && self.refusal.is_none()
    }
}

/// Why a validator could not be built from a CRD manifest.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ManifestError {
    /// The document is not a `CustomResourceDefinition`.
    #[error("not a CustomResourceDefinition: {0}")]
    NotACrd(String),
    /// The requested version is not in the CRD.
    #[error("the CRD has no version {version:?} (it has: {available})")]
    UnknownVersion {
        /// The version asked for.
        version: String,
        /// The versions it has.
        available: String,
    },
    /// The version has no `openAPIV3Schema`.
    #[error("version {0:?} of the CRD has no schema.openAPIV3Schema")]
    NoSchema(String),
    /// The schema cannot be read.
    #[error("{0}")]
    Schema(#[from] SchemaError),
}

/// How many valid objects the typed fast path's views may fail to answer for before they are
/// no longer tried for the type.
const MAX_VIEW_MISSES: u32 = 16;

/// The compiled rules of one schema, ready to validate any number of objects.
///
/// Build it once (per type, or per CRD version) and reuse it: every rule and messageExpression is
/// parsed, checked and planned here, never per object.
#[derive(Debug)]
pub struct Validator {
    pub(super) root: SchemaNode,
    /// The compiled rules and OpenAPI bounds of each node of `root`.
    pub(super) nodes: Nodes,
    resource_root: bool,
    /// The JSON schema, for the OpenAPI checks and [`Validator::decode`].
    json_schema: Option<Arc<Json>>,
    /// Whether objects are pruned and defaulted (a manifest's schema; not a Rust model's).
    pub(super) decodes: bool,
    /// Whether the typed fast path walks views of the value ([`super::fast::viewed`]): a
    /// model's validator.
    views: bool,
    /// Whether updates are walked on views too: not once the old items of a map list could not
    /// be found on views ([`super::fast::viewed::Stop::Uncorrelated`]).
    update_views: AtomicBool,
    /// Whether a rule read a value of this type that has no view (views are then not tried).
    unviewable: AtomicBool,
    /// How many valid objects the views could not answer for.
    view_misses: AtomicU32,
    /// Whether the schema checks stopped being read on views (the serde pass checks).
    unchecked: AtomicBool,
    /// How many objects passing the serde pass the checks on views could not answer for.
    check_misses: AtomicU32,
    /// The OpenAPI constraints, read once from the JSON schema.
    pub(super) checks: Option<super::openapi::Check>,
    /// The CRD version has the status subresource (`subresources.status`), which changes how
    /// the registry treats `status` before validation.
    pub(super) status_subresource: bool,
    /// The CRD version's scale subresource (`subresources.scale`), whose replicas and selector
    /// the strategy checks after the schema.
    pub(super) scale: Option<super::scale::Scale>,
    /// The Kubernetes minor version whose messages are printed
    /// ([`Validator::with_kubernetes_version`]).
    pub(super) kubernetes_minor: u8,
    /// The resource objects are, for the request path's metadata handling
    /// ([`Validator::with_resource`]).
    pub(super) resource: Option<Resource>,
    /// The namespace of requests for namespaced objects without one
    /// ([`Validator::with_default_namespace`]).
    pub(super) default_namespace: String,
    /// What unknown and repeated fields do ([`Validator::with_field_validation`]).
    pub(super) field_validation: FieldValidation,
    /// How updates are sent ([`Validator::with_update_method`]).
    pub(super) update_method: UpdateMethod,
}

/// How an update reaches the apiserver, where the answer depends on it: a PUT sends the whole
/// object, a PATCH is applied to the stored object by the server.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UpdateMethod {
    /// A patch (`kubectl apply`, `kubectl edit`, `kubectl patch`, a JSON merge patch,
    /// server-side apply): the server applies it to the object it read, so an update whose
    /// object has no `metadata.resourceVersion` carries the stored one.
    #[default]
    Patch,
    /// A PUT of the object as given (`kubectl replace`, a client's `replace`/`update`): without
    /// `metadata.resourceVersion` it is refused, as custom resources allow no unconditional
    /// update (`metadata.resourceVersion: Invalid value: 0: must be specified for an update`).
    Put,
}

/// The request's `fieldValidation`: what the apiserver does with the fields its strict
/// decoding finds, unknown ones (pruned from a custom resource) and repeated ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// The request is refused (400 BadRequest, `strict decoding error: ...`); what `kubectl`
    /// asks for unless told otherwise (`--validate=strict`).
    Strict,
    /// A warning per field (`unknown field "spec.x"`, `duplicate field "spec.y"`): the
    /// apiserver's default when the request does not say.
    #[default]
    Warn,
    /// Nothing is reported (unknown fields are still pruned; a repeated key keeps its last
    /// value).
    Ignore,
}

/// The copy of a schema a validator keeps for [`Validator::decode`]: the schema without the
/// `description`s of the nodes decoding walks (properties, additionalProperties, items), which
/// nothing reads after the validator is built and which are most of a CRD's schema (jobsets, the
/// largest corpus CRD: 256 of its schema's 365 KB; the copy held 1.5 of the validator's 2.8 MiB).
/// Everything else is kept as it is, defaults and enums included.
fn for_decoding(schema: &Json) -> Json {
    let Json::Object(node) = schema else {
        return schema.clone();
    };
    let schemas = |v: &Json| match v {
        Json::Object(by_name) => Json::Object(
            by_name
                .iter()
                .map(|(name, s)| (name.clone(), for_decoding(s)))
                .collect(),
        ),
        other => other.clone(),
    };
    Json::Object(
        node.iter()
            .filter(|(k, _)| *k != "description")
            .map(|(k, v)| {
                let v = match k.as_str() {
                    "properties" => schemas(v),
                    "additionalProperties" | "items" => for_decoding(v),
                    _ => v.clone(),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

impl Validator {
    /// A validator for a model whose rules were checked at `cargo build` (the derive's path).
    /// Its OpenAPI checks ([`Validator::validate_request`]) use the model's bounds, formats,
    /// enums and required fields; the model has no `default` values, so nothing is defaulted.
    pub fn from_model(schema: &Schema<'_>, resource_root: bool) -> Validator {
        let mut v = Validator::build(schema, resource_root, false);
        // A model's objects are Rust values: their rules may run on views.
        v.nodes.plan_views();
        v.views = true;
        v.update_views = AtomicBool::new(true);
        let json = OwnedSchema::from_model(schema).to_json();
        let checks = super::openapi::Check::compile(&json);
        v.nodes.attach_bounds(&v.root, &checks, None);
        v.checks = Some(checks);
        v.json_schema = Some(Arc::new(json));
        v
    }

    /// A validator for a structural schema in JSON (an `openAPIV3Schema`): its rules are checked
    /// as the apiserver's stored-expressions environment checks them, and one that fails is
    /// reported when an object is validated, as the apiserver does (`rule compile error`).
    pub fn from_schema_json(schema: &Json, resource_root: bool) -> Result<Validator, SchemaError> {
        let owned = OwnedSchema::from_json(schema)?;
        let arena = SchemaArena::new();
        let model = owned.with_model(&arena);
        let mut v = Validator::build(model, resource_root, true);
        v.json_schema = Some(Arc::new(for_decoding(schema)));
        v.checks = Some(super::openapi::Check::compile(schema));
        v.decodes = true;
        Ok(v)
    }

    /// A validator for the schema a Rust type generates, when its model is not known whole
    /// (`schema_with`, a hand-written `JsonSchema`, another crate's type): objects are decoded
    /// as a manifest's are, and the typed fast path runs on views as for a model, deferring
    /// wherever decoding would change what serde writes.
    pub(crate) fn from_generated_schema(
        schema: &Json,
        resource_root: bool,
    ) -> Result<Validator, SchemaError> {
        let mut v = Validator::from_schema_json(schema, resource_root)?;
        v.nodes.plan_views();
        v.views = true;
        v.update_views = AtomicBool::new(true);
        if let (Some(checks), Some(json)) = (&v.checks, &v.json_schema) {
            v.nodes.attach_bounds(&v.root, checks, Some(json));
        }
        Ok(v)
    }

    /// A validator for one version of a CRD manifest (`version: None` picks the storage version,
    /// else the first). The root is a resource root; the version's status and scale
    /// subresources (`subresources.status` and `subresources.scale`, or the CRD-wide
    /// `spec.subresources` of `v1beta1` manifests) and the [`Resource`] (group, version, kind,
    /// plural, scope: what the request path needs for `metadata`) are taken from the manifest.
    ///
    /// ```
    /// use crd_cel::validate::{Endpoint, Validator};
    /// use serde_json::json;
    ///
    /// let crd = json!({
    ///     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    ///     "metadata": {"name": "widgets.example.com"},
    ///     "spec": {
    ///         "group": "example.com", "scope": "Namespaced",
    ///         "names": {"plural": "widgets", "kind": "Widget"},
    ///         "versions": [{"name": "v1", "served": true, "storage": true,
    ///             "schema": {"openAPIV3Schema": {"type": "object"}}}],
    ///     },
    /// });
    /// let v = Validator::from_crd(&crd, None).unwrap();
    /// // The name is made from generateName, as the apiserver does (with a fixed suffix).
    /// let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
    ///     "metadata": {"generateName": "w-", "labels": {"bad key!": "x"}}});
    /// let out = v.validate_request(&object, None, Endpoint::Resource);
    /// assert_eq!(out.name.as_deref(), Some("w-00000"));
    /// assert!(out.errors.to_string().starts_with(r#"metadata.labels: Invalid value: "bad key!": name part must consist"#));
    /// ```
    pub fn from_crd(crd: &Json, version: Option<&str>) -> Result<Validator, ManifestError> {
        let kind = crd.get("kind").and_then(Json::as_str).unwrap_or_default();
        if kind != "CustomResourceDefinition" {
            return Err(ManifestError::NotACrd(if kind.is_empty() {
                "it has no kind".into()
            } else {
                format!("its kind is {kind}")
            }));
        }
        let spec = crd.get("spec");
        let versions = spec
            .and_then(|s| s.get("versions"))
            .and_then(Json::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let name_of = |v: &Json| {
            v.get("name")
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let chosen = match version {
            Some(want) => versions
                .iter()
                .find(|v| name_of(v) == want)
                .ok_or_else(|| ManifestError::UnknownVersion {
                    version: want.to_owned(),
                    available: versions.iter().map(name_of).collect::<Vec<_>>().join(", "),
                })?,
            None => versions
                .iter()
                .find(|v| v.get("storage").and_then(Json::as_bool) == Some(true))
                .or_else(|| versions.first())
                .ok_or_else(|| ManifestError::NotACrd("spec.versions is empty".into()))?,
        };
        let schema = chosen
            .pointer("/schema/openAPIV3Schema")
            .or_else(|| spec.and_then(|s| s.pointer("/validation/openAPIV3Schema")))
            .ok_or_else(|| ManifestError::NoSchema(name_of(chosen)))?;
        let status_subresource = chosen
            .pointer("/subresources/status")
            .or_else(|| spec.and_then(|s| s.pointer("/subresources/status")))
            .is_some();
        let resource = Resource::of_crd(crd, &name_of(chosen));
        let mut v = Validator::from_schema_json(schema, true)?
            .with_status_subresource(status_subresource)
            .with_resource(resource);
        v.scale = super::scale::Scale::of_crd(crd, chosen);
        Ok(v)
    }

    /// The validator, for objects of `resource`: [`Validator::validate_request`] then runs the
    /// apiserver's request path on `metadata` too (namespace cleared for a cluster-scoped kind
    /// and defaulted for a namespaced one, a name from `generateName`, ObjectMeta validation,
    /// `kind`/`apiVersion`, the finalizer warnings, and the [`Refusal`]s of the storage).
    /// [`Validator::from_crd`] sets it from the manifest; validators from a schema or a model
    /// (the derive's typed path) have none and leave `metadata` alone.
    ///
    /// ```
    /// use crd_cel::validate::{Endpoint, Resource, Scope, Validator};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object"});
    /// let v = Validator::from_schema_json(&schema, true).unwrap()
    ///     .with_resource(Resource::new("example.com", "v1", "Gadget", "gadgets", Scope::Cluster));
    /// let old = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}});
    /// let new = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g2"}});
    /// let out = v.validate_request(&new, Some(&old), Endpoint::Resource);
    /// assert_eq!(out.refusal.unwrap().to_string(), r#"gadgets.example.com "g2" not found"#);
    /// ```
    #[must_use]
    pub fn with_resource(mut self, resource: Resource) -> Validator {
        self.resource = Some(resource);
        self
    }

    /// The validator, sending requests for namespaced objects without `metadata.namespace` to
    /// `namespace` (as `kubectl` uses its context's namespace; `default` unless set). Only
    /// used with a [`Resource`] of [`Scope::Namespaced`](super::Scope::Namespaced).
    #[must_use]
    pub fn with_default_namespace(mut self, namespace: impl Into<String>) -> Validator {
        self.default_namespace = namespace.into();
        self
    }

    /// The validator, treating unknown and repeated fields as a request with `fieldValidation`
    /// set to `mode` ([`FieldValidation::Warn`], the apiserver's default, unless set).
    ///
    /// ```
    /// use crd_cel::validate::{Body, Endpoint, FieldValidation, Validator};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {"spec": {
    ///     "type": "object", "properties": {"n": {"type": "integer"}},
    /// }}});
    /// let body: Body =
    ///     serde_json::from_str(r#"{"kind": "X", "apiVersion": "x/v1", "spec": {"n": 1, "n": 2, "m": 3}}"#)
    ///         .unwrap();
    /// let v = Validator::from_schema_json(&schema, true).unwrap();
    /// let warn = v.validate_body(&body, None, Endpoint::Resource);
    /// assert!(warn.is_valid());
    /// assert_eq!(warn.warnings, [r#"duplicate field "spec.n""#, r#"unknown field "spec.m""#]);
    /// let strict = v.with_field_validation(FieldValidation::Strict);
    /// let out = strict.validate_body(&body, None, Endpoint::Resource);
    /// assert_eq!(
    ///     out.refusal.unwrap().to_string(),
    ///     r#"X in version "v1" cannot be handled as a X: strict decoding error: duplicate field "spec.n", unknown field "spec.m""#
    /// );
    /// ```
    #[must_use]
    pub fn with_field_validation(mut self, mode: FieldValidation) -> Validator {
        self.field_validation = mode;
        self
    }

    /// How updates are sent ([`UpdateMethod`]; default: a patch, as `kubectl apply` sends
    /// them). The request path of a validator with a [`Resource`] refuses a PUT without
    /// `metadata.resourceVersion` as the apiserver does.
    ///
    /// ```
    /// use crd_cel::validate::{Endpoint, Resource, Scope, UpdateMethod, Validator};
    /// use serde_json::json;
    ///
    /// let v = Validator::from_schema_json(&json!({"type": "object"}), true).unwrap()
    ///     .with_resource(Resource::new("example.com", "v1", "Gadget", "gadgets", Scope::Cluster));
    /// let old = json!({"apiVersion": "example.com/v1", "kind": "Gadget",
    ///     "metadata": {"name": "g1", "resourceVersion": "7"}});
    /// let new = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}});
    /// assert!(v.validate_request(&new, Some(&old), Endpoint::Resource).is_valid());
    /// let put = v.with_update_method(UpdateMethod::Put);
    /// let out = put.validate_request(&new, Some(&old), Endpoint::Resource);
    /// assert_eq!(
    ///     out.refusal.unwrap().to_string(),
    ///     r#"gadgets.example.com "g1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update"#
    /// );
    /// ```
    #[must_use]
    pub fn with_update_method(mut self, method: UpdateMethod) -> Validator {
        self.update_method = method;
        self
    }

    /// The resource objects are validated as ([`Validator::with_resource`]).
    pub fn resource(&self) -> Option<&Resource> {
        self.resource.as_ref()
    }

    /// The validator, printing the messages of Kubernetes `1.<minor>` (the newest by default,
    /// [`NEWEST_KUBERNETES_MINOR`]). What differs by release is the value an error shows: up
    /// to 1.34 a failed rule shows the schema type (`spec: Invalid value: "object": msg`), from
    /// 1.35 the value of a scalar and nothing for objects and arrays; up to 1.33 a missing value
    /// prints as `"null"` and an object or array in Go syntax
    /// (`Duplicate value: map[string]interface {}{"name":"a"}`), from 1.34 as JSON.
    ///
    /// ```
    /// use crd_cel::validate::{Endpoint, Validator};
    /// use serde_json::json;
    ///
    /// let schema = json!({"type": "object", "properties": {"spec": {
    ///     "type": "object",
    ///     "x-kubernetes-validations": [{"rule": "self.n > 0", "message": "n must be positive"}],
    ///     "properties": {"n": {"type": "integer"}},
    /// }}});
    /// let object = json!({"apiVersion": "x/v1", "kind": "X", "spec": {"n": 0}});
    /// let v = Validator::from_schema_json(&schema, true).unwrap();
    /// let newest = v.validate_request(&object, None, Endpoint::Resource);
    /// assert_eq!(newest.errors.to_string(), "spec: Invalid value: n must be positive");
    /// let v = v.with_kubernetes_version(33);
    /// let old = v.validate_request(&object, None, Endpoint::Resource);
    /// assert_eq!(old.errors.to_string(), "spec: Invalid value: \"object\": n must be positive");
    /// ```
    #[must_use]
    pub fn with_kubernetes_version(mut self, minor: u8) -> Validator {
        let was = std::mem::replace(&mut self.kubernetes_minor, minor);
        // A manifest's rules were compiled for the newest release; one that uses a function
        // or macro an older release lacks is a compile error there. Checked again only for an
        // older release, or to clear what one set: the newest, the default, costs nothing.
        let older = |m: u8| m < NEWEST_KUBERNETES_MINOR;
        if minor != was
            && (older(minor) || older(was))
            && let Some(json) = self.json_schema.clone()
            && let Ok(owned) = OwnedSchema::from_json(&json)
        {
            let arena = SchemaArena::new();
            self.nodes
                .set_release(owned.with_model(&arena), self.resource_root, minor);
        }
        self
    }

    /// The validator, for a CRD version with (or without) the status subresource: with it, a
    /// create drops `status` and an update keeps the old one, as the registry does
    /// ([`Validator::validate_request`]). Validators from a schema or a model have none unless
    /// set here; [`Validator::from_crd`] reads it from the manifest.
    #[must_use]
    pub fn with_status_subresource(mut self, status_subresource: bool) -> Validator {
        self.status_subresource = status_subresource;
        self
    }

    fn build(schema: &Schema<'_>, resource_root: bool, check: bool) -> Validator {
        let (root, nodes) = Nodes::build(schema, resource_root, check);
        Validator {
            views: false,
            update_views: AtomicBool::new(false),
            unviewable: AtomicBool::new(false),
            view_misses: AtomicU32::new(0),
            unchecked: AtomicBool::new(false),
            check_misses: AtomicU32::new(0),
            root,
            nodes,
            resource_root,
            json_schema: None,
            decodes: false,
            checks: None,
            status_subresource: false,
            scale: None,
            kubernetes_minor: NEWEST_KUBERNETES_MINOR,
            resource: None,
            default_namespace: "default".into(),
            field_validation: FieldValidation::default(),
            update_method: UpdateMethod::default(),
        }
    }

    /// The object as the apiserver's custom-resource handler hands it to validation: unknown
    /// fields pruned (except under `x-kubernetes-preserve-unknown-fields`), `null`s of
    /// non-nullable fields without a default dropped, and the schema's defaults applied. Needs
    /// the JSON schema (validators built from a manifest or JSON schema); a validator built from
    /// a Rust model returns the object unchanged (serde output already has every field).
    ///
    /// The warnings are the apiserver's for each pruned field (`unknown field "spec.x"`, what
    /// `kubectl` prints with the default field validation).
    pub fn decode(&self, object: &Json) -> (Json, Vec<String>) {
        let mut out = object.clone();
        let mut warnings = Vec::new();
        if let Some(schema) = self.json_schema.as_ref().filter(|_| self.decodes) {
            super::decode::decode(&mut out, schema, self.resource_root, "", &mut warnings);
        }
        (out, warnings)
    }

    /// The OpenAPI schema errors the apiserver reports before running CEL (types, `enum`,
    /// lengths, `pattern`, bounds, counts, `required`); on update, unchanged values are not
    /// re-checked (ratcheting).
    ///
    /// A status update (`status_update`) checks only `status`, against the status schema at
    /// the path `status`, as the status strategy's `ValidateStatusUpdate` does.
    pub(super) fn schema_errors(
        &self,
        object: &Json,
        old: Option<&Json>,
        status_update: bool,
    ) -> Vec<FieldError> {
        let mut errors = Vec::new();
        let Some(checks) = &self.checks else {
            return errors;
        };
        if status_update {
            if let (Some(check), Some(status)) = (checks.property("status"), object.get("status")) {
                let old = old.and_then(|o| o.get("status"));
                let minor = self.kubernetes_minor;
                let at = if super::release::status_errors_under_status(minor) {
                    Path::Root(Some("status"))
                } else {
                    Path::ROOT
                };
                super::openapi::validate(check, status, old, &at, minor, &mut errors);
            }
        } else {
            let minor = self.kubernetes_minor;
            super::openapi::validate(checks, object, old, &Path::ROOT, minor, &mut errors);
        }
        errors
    }

    /// The list-type errors the apiserver reports before running CEL (duplicate `set` items,
    /// duplicate `map` keys, non-object `map` items). On update they are reported only when the
    /// old object had none, as the apiserver does.
    pub(super) fn list_type_errors(&self, object: &Json, old: Option<&Json>) -> Vec<FieldError> {
        let mut errors = Vec::new();
        super::listtype::check(&self.root, &Path::ROOT, object, &mut errors);
        if let Some(old) = old
            && !errors.is_empty()
        {
            let mut old_errors = Vec::new();
            super::listtype::check(&self.root, &Path::ROOT, old, &mut old_errors);
            if !old_errors.is_empty() {
                errors.clear();
            }
        }
        errors
    }

    /// Validates `object` (create), or an update from `old`, with the apiserver's semantics.
    pub fn validate(&self, object: &Json, old: Option<&Json>, opts: &Options) -> Outcome {
        let mut walk = Walk::new(
            opts,
            &self.nodes,
            Mode::Report,
            old.is_some(),
            self.resource_root,
            self.kubernetes_minor,
        );
        // Values are converted where rules see them (the walk does it).
        walk.root(
            &self.root,
            &Path::Root(opts.root_path.as_deref()),
            Data::Json(object, None),
            old.map(|o| Data::Json(o, None)),
        );
        Outcome {
            errors: ValidationErrors {
                errors: walk.errors,
            },
            warnings: walk.warnings,
            remaining_budget: walk.remaining,
            name: None,
            refusal: None,
        }
    }

    /// Gives a typed resource's validator its scale subresource (kube's `#[kube(scale(..))]`),
    /// whose replicas and selector every write is checked for.
    pub(crate) fn set_scale(&mut self, spec: &str, status: &str, selector: Option<&str>) {
        self.scale = Some(super::scale::Scale::of_paths(spec, status, selector));
    }

    /// The typed fast path ([`super::fast`]): whether `value` (an update from `old`) is valid
    /// through [`Validator::validate_request`] without a status subresource, answered without
    /// JSON. `false` means "not known": validate through the JSON path for the errors.
    /// Whether the typed fast path runs every rule on views (and has not turned them off).
    pub(crate) fn runs_rules_on_views(&self) -> bool {
        self.views && !self.unviewable.load(Ordering::Relaxed)
    }

    /// Whether the typed fast path walks updates on views too.
    pub(crate) fn runs_updates_on_views(&self) -> bool {
        self.runs_rules_on_views() && self.update_views.load(Ordering::Relaxed)
    }

    /// Whether the typed fast path reads the schema checks on views too.
    pub(crate) fn runs_checks_on_views(&self) -> bool {
        self.runs_rules_on_views() && !self.unchecked.load(Ordering::Relaxed)
    }

    pub(crate) fn fast_valid<T: serde::Serialize + ?Sized>(
        &self,
        value: &T,
        old: Option<&T>,
        (view, old_view): (ViewRef<'_>, Option<ViewRef<'_>>),
    ) -> bool {
        // The scale subresource's replicas and selector, read from the paths alone.
        if self.scale.as_ref().is_some_and(|s| !s.typed_ok(value)) {
            return false;
        }
        // Every rule on views when it can, and the schema checks too, reading the value in
        // place and serializing only what has no view; values are built when a rule reads what
        // a view cannot describe, and for objects that may be invalid. Once a value a rule
        // reads has no view (another crate's type, a data-carrying enum), the type's objects
        // are no longer tried on views: that recurs, and each try would be paid twice.
        let views = self.views
            && !self.unviewable.load(Ordering::Relaxed)
            && (old.is_none() || self.update_views.load(Ordering::Relaxed));
        let mut missed = false;
        let tree = viewed::Tree {
            nodes: &self.nodes,
            root: &self.root,
            resource_root: self.resource_root,
            minor: self.kubernetes_minor,
        };
        // An update whose old value a transition rule reads past its bounds goes the value
        // way, which counts the cost; that is this object's, not the type's: views stay on.
        let old_ok = || old_view.is_none_or(|o| viewed::old_within_bounds(tree, o));
        if views && old_ok() {
            let checks = !self.unchecked.load(Ordering::Relaxed);
            let mut stop = if checks {
                viewed::valid(tree, view, old_view, true).err()
            } else {
                Some(Stop::Check)
            };
            if stop == Some(Stop::Check) {
                // The serde pass checks (hashing what the list-type checks compare); a failure
                // there is the JSON path's, as the value pass would check the same again.
                if self.serialize_fast(value, true, false).is_err() {
                    return false;
                }
                // Checks that views keep failing to read (a field serde writes its own way, a
                // `null` map value) are left to the serde pass.
                if checks && self.check_misses.fetch_add(1, Ordering::Relaxed) >= MAX_VIEW_MISSES {
                    self.unchecked.store(true, Ordering::Relaxed);
                }
                stop = viewed::valid(tree, view, old_view, false).err();
            }
            match stop {
                None => return true,
                Some(Stop::Rule(Miss::Unviewable)) => {
                    self.unviewable.store(true, Ordering::Relaxed)
                }
                Some(Stop::Uncorrelated) => self.update_views.store(false, Ordering::Relaxed),
                Some(Stop::Rule(Miss::Unknown) | Stop::Check) => missed = true,
            }
        }
        let valid = self.valid_by_values(value, old);
        // Views that keep failing on valid objects (a cost bound over the budget, a comparison
        // they leave to values) cost a second pass each time: they are turned off too.
        if missed && valid && self.view_misses.fetch_add(1, Ordering::Relaxed) >= MAX_VIEW_MISSES {
            self.unviewable.store(true, Ordering::Relaxed);
        }
        valid
    }

    /// [`super::fast::serialize`] of `v` from this validator's root.
    fn serialize_fast<T: serde::Serialize + ?Sized>(
        &self,
        v: &T,
        check: bool,
        values: bool,
    ) -> Result<Option<crate::eval::Value>, super::fast::Defer> {
        super::fast::serialize(
            v,
            &self.root,
            &self.nodes,
            self.resource_root,
            check,
            values,
        )
    }

    /// The fast path on built values: whether `value` (an update from `old`) is valid.
    fn valid_by_values<T: serde::Serialize + ?Sized>(&self, value: &T, old: Option<&T>) -> bool {
        let Ok(new) = self.serialize_fast(value, true, true) else {
            return false;
        };
        let old = match old.map(|o| self.serialize_fast(o, false, true)) {
            Some(Ok(v)) => v,
            Some(Err(_)) => return false,
            None => None,
        };
        let Some(new) = new else {
            // No rule needs a value.
            return !self.root.rules_below;
        };
        let opts = Options::default();
        let mut walk = Walk::new(
            &opts,
            &self.nodes,
            Mode::FirstFailure,
            old.is_some(),
            self.resource_root,
            self.kubernetes_minor,
        );
        walk.root(
            &self.root,
            &Path::ROOT,
            Data::Value(&new),
            old.as_ref().map(Data::Value),
        );
        walk.all_true()
    }
}
