//! What the apiserver says about the validation rules of a CRD at creation
//! (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`): the schema walk, the rule field checks, compilation with the
//! shared checker, the `oldSelf` placement checks, and the gating between them.
//!
//! A CRD manifest ([`check_crd`]) gets the apiserver's schema checks too: the structural-schema
//! rules (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/validation.go`: types where
//! they are required, what junctors may hold, resource metadata, embedded resources,
//! int-or-string, patterns that must compile) and the OpenAPI checks of
//! `ValidateCustomResourceDefinitionOpenAPISchema` (unsupported keywords, `properties` next to
//! `additionalProperties`, list and map types and what they require of their items, forbidden
//! defaults, the root fields allowed with the status subresource) and the checks of defaults
//! (`ValidateDefaults`: pruning, the OpenAPI checks and the rules of their node). A bare schema ([`check_schema`], [`check_resource`], [`check_type`]) gets only the
//! checks about rules and those that gate them (rules inside `allOf`/`anyOf`/`oneOf`/`not`, a
//! constrained root `metadata`, list and map types, `uniqueItems`), since a schema generated
//! from Rust types may be edited before it becomes a CRD. Not checked: defaults inside a
//! resource's metadata (which the apiserver checks as metadata), Go's size limits on patterns,
//! names, versions and the rest of the CRD object. The static cost of every rule is estimated as the
//! apiserver does and its per-expression and per-schema limits are applied
//! (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`).

use crate::check::{CheckError, Node, Target, check_source, hints};
use crate::cost;
use crate::gojson;
use crate::model::{Schema, Type};
use crate::rule_fields::{
    BadValue, ErrorKind, RuleInput, check_optional_old_self, check_rule_fields, go_quote,
};
use crate::schema::{OwnedSchema, SchemaArena};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;

mod defaults;
mod node_checks;
mod root_fields;
mod structural;
#[cfg(test)]
mod tests;
mod walker;

use defaults::*;
use node_checks::*;
use root_fields::*;
use structural::*;
use walker::*;

/// The Kubernetes release whose apiserver is emulated by default (the newest).
pub const DEFAULT_KUBERNETES_MINOR: u8 = crate::check::NEWEST_KUBERNETES_MINOR;
/// The oldest release accepted by `--kubernetes-version` (CRD validation rules are GA in 1.25).
pub const MIN_KUBERNETES_MINOR: u8 = crate::check::OLDEST_KUBERNETES_MINOR;

/// How to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The emulated apiserver is Kubernetes `1.<minor>`; new rules compile at compatibility
    /// version `1.<minor - 1>` (`k8s.io/apiserver/pkg/cel/environment/environment.go`).
    pub kubernetes_minor: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            kubernetes_minor: DEFAULT_KUBERNETES_MINOR,
        }
    }
}

impl Options {
    /// The compatibility version new expressions compile against.
    pub fn compat(&self) -> u8 {
        self.kubernetes_minor - 1
    }
}

/// apimachinery's `field.ErrorType`, the kinds CRD checks report (the last five from the
/// checks of defaults, which validate a value as an object is validated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `Required value`.
    Required,
    /// `Invalid value`.
    Invalid,
    /// `Unsupported value`.
    Unsupported,
    /// `Forbidden`.
    Forbidden,
    /// `Internal error`.
    Internal,
    /// `Invalid value` (`FieldValueTypeInvalid`).
    TypeInvalid,
    /// `Too long`.
    TooLong,
    /// `Too many`.
    TooMany,
    /// `Duplicate value`.
    Duplicate,
    /// `Not found`.
    NotFound,
}

impl Kind {
    /// The same kind as a [`validate::ErrorType`](crate::validate::ErrorType) (whose
    /// [`as_str`](crate::validate::ErrorType::as_str) is the `reason` of the Status cause).
    pub const fn error_type(self) -> crate::validate::ErrorType {
        use crate::validate::ErrorType;
        match self {
            Kind::Required => ErrorType::Required,
            Kind::Invalid => ErrorType::Invalid,
            Kind::Unsupported => ErrorType::NotSupported,
            Kind::Forbidden => ErrorType::Forbidden,
            Kind::Internal => ErrorType::InternalError,
            Kind::TypeInvalid => ErrorType::TypeInvalid,
            Kind::TooLong => ErrorType::TooLong,
            Kind::TooMany => ErrorType::TooMany,
            Kind::Duplicate => ErrorType::Duplicate,
            Kind::NotFound => ErrorType::NotFound,
        }
    }

    /// The words apimachinery prints.
    pub const fn as_str(self) -> &'static str {
        self.error_type().description()
    }

    /// The Status cause type (`FieldValueInvalid`, ...).
    pub const fn reason(self) -> &'static str {
        self.error_type().as_str()
    }
}

impl From<ErrorKind> for Kind {
    fn from(k: ErrorKind) -> Self {
        match k {
            ErrorKind::Required => Kind::Required,
            ErrorKind::Invalid => Kind::Invalid,
            ErrorKind::Unsupported => Kind::Unsupported,
        }
    }
}

/// One cause, as apimachinery's `field.Error`; `Display` is its `Error()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdError {
    /// The field path (`spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule`).
    pub field: String,
    /// The error type.
    pub kind: Kind,
    /// The value as printed (`".nope"`, `true`, the rule struct JSON), if shown.
    pub value: Option<String>,
    /// crd-cel's hints on a rule the apiserver rejects (`help: did you mean 'image'?`), one
    /// per line; not part of the apiserver's text.
    pub help: Option<String>,
    /// The detail.
    pub detail: String,
}

impl CrdError {
    /// The part after `<field>: ` (`field.Error.ErrorBody`).
    pub fn body(&self) -> String {
        let mut s = self.kind.as_str().to_owned();
        if let Some(v) = &self.value {
            s.push_str(": ");
            s.push_str(v);
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// Whether this error is crd-cel's checker failing closed on a construct it cannot check
    /// yet ([`CheckError::Unsupported`]), not a verdict of the apiserver's.
    pub fn is_unsupported_construct(&self) -> bool {
        self.detail.starts_with("not supported by crd-cel yet")
    }
}

impl fmt::Display for CrdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// One rule of the CRD, where it is and whether it compiled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleReport {
    /// The rule's error path, ending in `.rule`.
    pub path: String,
    /// The rule.
    pub rule: String,
    /// `maxCost × maxCardinality` (saturating): what the per-expression limit is compared with.
    #[serde(rename = "estimatedCost")]
    pub estimated_cost: u64,
    /// The estimated cost of one evaluation (`CompilationResult.MaxCost`).
    #[serde(rename = "maxCost")]
    pub max_cost: u64,
    /// The cardinality used: the product of the ancestors' `maxItems`/`maxProperties`, or when
    /// one is unbounded the node's own bound (0 when the rule did not compile there).
    #[serde(rename = "maxCardinality")]
    pub max_cardinality: u64,
    /// The estimated cost of the messageExpression (not multiplied), when it compiled.
    #[serde(
        rename = "messageExpressionMaxCost",
        skip_serializing_if = "Option::is_none"
    )]
    pub message_expression_max_cost: Option<u64>,
    /// The compile error details of the rule and its messageExpression, joined by a line
    /// break (as the oracle reports them), if any.
    #[serde(rename = "compileError", skip_serializing_if = "Option::is_none")]
    pub compile_error: Option<String>,
}

/// The verdict on one CRD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdReport {
    /// `metadata.name`.
    pub name: String,
    /// The causes, sorted by field (stable), as the oracle canonicalises them.
    pub errors: Vec<CrdError>,
    /// Every rule on the schema spine, in the oracle's walk order.
    pub rules: Vec<RuleReport>,
    /// How many expressions (rules and messageExpressions) were type-checked.
    pub checked_expressions: usize,
}

impl CrdReport {
    /// Whether the apiserver would accept the CRD (as far as its rules go).
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }

    /// The Status message: `CustomResourceDefinition.apiextensions.k8s.io "<name>" is invalid: <causes>`,
    /// one cause as it is, several as `[a, b]` (duplicates dropped, as apimachinery's aggregate
    /// does); empty when accepted.
    pub fn text(&self) -> String {
        if self.errors.is_empty() {
            return String::new();
        }
        let mut seen = std::collections::HashSet::new();
        let msgs: Vec<String> = self
            .errors
            .iter()
            .map(ToString::to_string)
            .filter(|m| seen.insert(m.clone()))
            .collect();
        let causes = if msgs.len() == 1 {
            msgs[0].clone()
        } else {
            format!("[{}]", msgs.join(", "))
        };
        format!(
            "CustomResourceDefinition.apiextensions.k8s.io {} is invalid: {causes}",
            go_quote(&self.name)
        )
    }
}

/// Whether a document is a CRD this tool checks, and if not, why.
pub fn crd_kind_problem(doc: &Value) -> Option<String> {
    let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    match (api_version, kind) {
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition") => None,
        ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition") => Some(
            "apiextensions.k8s.io/v1beta1 CustomResourceDefinitions are not served since Kubernetes 1.22: convert it to apiextensions.k8s.io/v1".to_owned(),
        ),
        _ => Some(format!(
            "not an apiextensions.k8s.io/v1 CustomResourceDefinition (apiVersion {}, kind {})",
            go_quote(api_version),
            go_quote(kind)
        )),
    }
}

/// Checks one `apiextensions.k8s.io/v1` CRD document. `Err` is input that cannot be checked
/// (not a CRD, no versions, a version without a schema, a schema that does not read).
pub fn check_crd(doc: &Value, opts: &Options) -> Result<CrdReport, String> {
    check_crd_with(doc, opts, None)
}

/// Checks `new` as an update of the stored CRD `old`, as the apiserver validates a CRD update
/// (`ValidateCustomResourceDefinitionUpdate`): a rule or messageExpression the stored CRD
/// already has compiles in the stored-expressions environment (every library of the release,
/// where a new one compiles at the compatibility version), and a version whose schema is
/// unchanged is not held to the per-expression cost limit (the per-CRD total still applies).
///
/// ```
/// use crd_cel::crd::{Options, check_crd, check_crd_update};
/// use serde_json::json;
///
/// let crd = |rule: &str| json!({
///     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
///     "metadata": {"name": "things.example.com"},
///     "spec": {"group": "example.com", "scope": "Namespaced",
///              "names": {"kind": "Thing", "plural": "things"},
///              "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
///                  "type": "object", "properties": {"spec": {"type": "object",
///                      "properties": {"items": {"type": "array", "maxItems": 2000,
///                          "items": {"type": "string", "maxLength": 8}}},
///                      "x-kubernetes-validations": [{"rule": rule}]}}}}}]}
/// });
/// // Too expensive for a new CRD (about 60,000,000: over the per-rule limit of 10,000,000,
/// // within the per-CRD 100,000,000) ...
/// let costly = crd("self.items.all(a, self.items.all(b, a != b || a == b))");
/// assert!(!check_crd(&costly, &Options::default()).unwrap().accepted());
/// // ... but an update that leaves the schema as it was is not held to the per-rule limit.
/// let report = check_crd_update(&costly, &costly, &Options::default()).unwrap();
/// assert!(report.accepted(), "{}", report.text());
/// ```
pub fn check_crd_update(new: &Value, old: &Value, opts: &Options) -> Result<CrdReport, String> {
    if let Some(problem) = crd_kind_problem(old) {
        return Err(format!("the stored CRD: {problem}"));
    }
    let name = |d: &Value| {
        d.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    if name(new) != name(old) {
        return Err(format!(
            "the stored CRD is {} and this one is {}: an update keeps the name",
            go_quote(&name(old)),
            go_quote(&name(new))
        ));
    }
    let mut previous = Previous::default();
    let versions = |d: &Value| {
        d.pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for v in versions(old) {
        if let Some(schema) = v.pointer("/schema/openAPIV3Schema") {
            collect_expressions(schema, &mut previous);
        }
    }
    let old_versions = versions(old);
    for v in versions(new) {
        let Some(n) = v.get("name").and_then(Value::as_str) else {
            continue;
        };
        let stored = old_versions
            .iter()
            .find(|o| o.get("name").and_then(Value::as_str) == Some(n));
        if stored.is_some_and(|o| same_schema(o.get("schema"), v.get("schema"))) {
            previous.unchanged_versions.insert(n.to_owned());
        }
    }
    check_crd_with(new, opts, Some(previous))
}

/// What a CRD update takes from the stored CRD.
#[derive(Debug, Default)]
struct Previous {
    rules: HashSet<String>,
    message_expressions: HashSet<String>,
    unchanged_versions: HashSet<String>,
}

/// The rules and messageExpressions anywhere in a schema (`SchemaHas` visits every node).
fn collect_expressions(v: &Value, into: &mut Previous) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
                for r in rules {
                    if let Some(rule) = r.get("rule").and_then(Value::as_str) {
                        into.rules.insert(rule.to_owned());
                    }
                    if let Some(me) = r.get("messageExpression").and_then(Value::as_str) {
                        into.message_expressions.insert(me.to_owned());
                    }
                }
            }
            m.values().for_each(|c| collect_expressions(c, into));
        }
        Value::Array(a) => a.iter().for_each(|c| collect_expressions(c, into)),
        _ => {}
    }
}

/// What the walker needs of an update: the stored expressions and the schema roots (paths)
/// whose version's schema is unchanged.
pub(super) struct Update {
    pub(super) rules: HashSet<String>,
    pub(super) message_expressions: HashSet<String>,
    pub(super) unchanged_roots: HashSet<String>,
}

fn check_crd_with(
    doc: &Value,
    opts: &Options,
    previous: Option<Previous>,
) -> Result<CrdReport, String> {
    if let Some(problem) = crd_kind_problem(doc) {
        return Err(problem);
    }
    let name = doc
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let versions = match doc.pointer("/spec/versions").and_then(Value::as_array) {
        Some(v) if !v.is_empty() => v,
        _ => return Err("spec.versions is missing or empty".to_owned()),
    };
    let mut schemas = Vec::with_capacity(versions.len());
    for (i, v) in versions.iter().enumerate() {
        match v.pointer("/schema/openAPIV3Schema") {
            Some(s @ Value::Object(_)) => schemas.push(s),
            Some(_) => {
                return Err(format!(
                    "spec.versions[{i}].schema.openAPIV3Schema is not an object"
                ));
            }
            None => {
                return Err(format!(
                    "spec.versions[{i}] has no schema.openAPIV3Schema (apiextensions.k8s.io/v1 requires one)"
                ));
            }
        }
    }
    // The conversion to the internal version lifts a schema shared by all versions to
    // `spec.validation` (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`, "Error paths").
    let shared = versions
        .iter()
        .all(|v| same_schema(v.get("schema"), versions[0].get("schema")));
    // Whether a version has the status subresource (a shared schema: whether any has).
    let status = |v: &Value| {
        v.pointer("/subresources/status")
            .is_some_and(|s| !s.is_null())
    };
    let roots: Vec<(String, &Value, bool)> = if shared {
        let any_status = versions.iter().any(status);
        vec![(
            "spec.validation.openAPIV3Schema".to_owned(),
            schemas[0],
            any_status,
        )]
    } else {
        schemas
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let path = format!("spec.versions[{i}].schema.openAPIV3Schema");
                (path, *s, status(&versions[i]))
            })
            .collect()
    };
    let version_unchanged = |i: usize| {
        previous.as_ref().is_some_and(|p| {
            versions[i]
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| p.unchanged_versions.contains(n))
        })
    };
    // A shared schema is checked as the internal top-level version's (the first).
    let unchanged_roots = roots
        .iter()
        .enumerate()
        .filter(|(i, _)| version_unchanged(*i))
        .map(|(_, (path, _, _))| path.clone())
        .collect();
    let update = previous.map(|p| Update {
        rules: p.rules,
        message_expressions: p.message_expressions,
        unchanged_roots,
    });
    let (errors, rules, checked_expressions) =
        check_roots(&roots, true, true, opts, update.as_ref())?;
    Ok(CrdReport {
        name,
        errors,
        rules,
        checked_expressions,
    })
}

/// Checks the rules of one `openAPIV3Schema`-like schema as the apiserver checks them at CRD
/// creation, reporting errors under `path` (`spec.validation.openAPIV3Schema` for a CRD's);
/// `resource_root` when the schema is a resource's root (implicit `apiVersion`, `kind`,
/// `metadata`). `name` is what [`CrdReport::text`] names. `Err` is a schema that does not read.
///
/// ```
/// use crd_cel::crd::{Options, check_schema};
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"replicas": {"type": "integer"}},
///     "x-kubernetes-validations": [{"rule": "self.replica > 0"}],
/// });
/// let report = check_schema(&schema, "spec", "example", false, &Options::default()).unwrap();
/// assert!(!report.accepted());
/// assert!(report.errors[0].detail.contains("undefined field 'replica'"));
/// ```
pub fn check_schema(
    schema: &Value,
    path: &str,
    name: &str,
    resource_root: bool,
    opts: &Options,
) -> Result<CrdReport, String> {
    let (errors, rules, checked_expressions) = check_roots(
        &[(path.to_owned(), schema, false)],
        resource_root,
        false,
        opts,
        None,
    )?;
    Ok(CrdReport {
        name: name.to_owned(),
        errors,
        rules,
        checked_expressions,
    })
}

/// Checks every rule in the schema `T` generates (as kube's `CustomResource` generates it, see
/// [`crate::schema::generate`]) as the apiserver checks them at CRD creation, with `T` as a
/// resource's root: use it on the kube root type (`Foo` of `#[kube(kind = "Foo")]`), whose
/// report has the paths `kubectl apply` prints (`spec.validation.openAPIV3Schema...`).
///
/// The derive runs it in a generated `#[test]` for every kube root type it sees, so rules the
/// build could not check (they read into types known only by their `JsonSchema`) are checked
/// by `cargo test`.
#[cfg(feature = "kube")]
pub fn check_resource<T: schemars::JsonSchema + ?Sized>(
    opts: &Options,
) -> Result<CrdReport, String> {
    let schema = crate::schema::try_generate::<T>()?;
    check_schema(
        &schema,
        "spec.validation.openAPIV3Schema",
        &T::schema_name(),
        true,
        opts,
    )
}

/// [`check_resource`] for a type that is not a resource's root (a spec, or a type fields
/// use): its rules as they would be checked wherever it is embedded, errors reported under
/// the type's name.
///
/// ```
/// use crd_cel::crd::{Options, check_type};
/// let report = check_type::<Vec<String>>(&Options::default()).unwrap();
/// assert!(report.accepted());
/// ```
#[cfg(feature = "kube")]
pub fn check_type<T: schemars::JsonSchema + ?Sized>(opts: &Options) -> Result<CrdReport, String> {
    let schema = crate::schema::try_generate::<T>()?;
    let name = T::schema_name();
    check_schema(&schema, &name, &name, false, opts)
}
