//! What the apiserver says about the validation rules of a CRD at creation
//! (CEL-SEMANTICS.md section 3): the schema walk, the rule field checks, compilation with the
//! shared checker, the `oldSelf` placement checks, and the gating between them.
//!
//! Only the rule-related parts of CRD validation are reproduced: the structural checks that
//! gate the rules (rules inside `allOf`/`anyOf`/`oneOf`/`not`, a constrained root `metadata`)
//! and a few schema checks next to the rules (list and map types, `uniqueItems`). Names,
//! versions and the rest of structural validation are not checked. The static cost of every rule
//! is estimated as the apiserver does and its per-expression and per-schema limits are applied
//! (CEL-SEMANTICS.md 4.5).

use crate::check::{CheckError, Node, Target, check_source};
use crate::cost;
use crate::gojson;
use crate::model::{Schema, Type};
use crate::rule_fields::{
    BadValue, ErrorKind, RuleInput, check_optional_old_self, check_rule_fields, go_quote,
};
use crate::schema::{OwnedSchema, SchemaArena};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// The Kubernetes release whose apiserver is emulated by default.
pub const DEFAULT_KUBERNETES_MINOR: u8 = 37;
/// The oldest release accepted by `--kubernetes-version` (CRD validation rules are GA in 1.25).
pub const MIN_KUBERNETES_MINOR: u8 = 25;

/// How to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The emulated apiserver is Kubernetes `1.<minor>`; new rules compile at compatibility
    /// version `1.<minor - 1>` (CEL-SEMANTICS.md 6.3).
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

/// apimachinery's `field.ErrorType`, the kinds CRD rule checks report.
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
}

impl Kind {
    /// The words apimachinery prints.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Required => "Required value",
            Kind::Invalid => "Invalid value",
            Kind::Unsupported => "Unsupported value",
            Kind::Forbidden => "Forbidden",
            Kind::Internal => "Internal error",
        }
    }

    /// The Status cause type (`FieldValueInvalid`, ...).
    pub const fn reason(self) -> &'static str {
        match self {
            Kind::Required => "FieldValueRequired",
            Kind::Invalid => "FieldValueInvalid",
            Kind::Unsupported => "FieldValueNotSupported",
            Kind::Forbidden => "FieldValueForbidden",
            Kind::Internal => "InternalError",
        }
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
    // `spec.validation` (CEL-SEMANTICS.md 3.3, "Error paths").
    let shared = versions
        .iter()
        .all(|v| v.get("schema") == versions[0].get("schema"));
    let roots: Vec<(String, &Value)> = if shared {
        vec![("spec.validation.openAPIV3Schema".to_owned(), schemas[0])]
    } else {
        schemas
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("spec.versions[{i}].schema.openAPIV3Schema"), *s))
            .collect()
    };
    let (errors, rules, checked_expressions) = check_roots(&roots, true, opts)?;
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
    let (errors, rules, checked_expressions) =
        check_roots(&[(path.to_owned(), schema)], resource_root, opts)?;
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
pub fn check_type<T: schemars::JsonSchema + ?Sized>(opts: &Options) -> Result<CrdReport, String> {
    let schema = crate::schema::try_generate::<T>()?;
    let name = T::schema_name();
    check_schema(&schema, &name, &name, false, opts)
}

type Checked = (Vec<CrdError>, Vec<RuleReport>, usize);

fn check_roots(
    roots: &[(String, &Value)],
    resource_root: bool,
    opts: &Options,
) -> Result<Checked, String> {
    let mut walker = Walker {
        compat: opts.compat(),
        schema_errors: Vec::new(),
        cel_errors: Vec::new(),
        rules: Vec::new(),
        checked: 0,
        total: 0,
        expensive: Vec::new(),
    };
    for (path, json) in roots {
        let owned = OwnedSchema::from_json(json).map_err(|e| {
            let at = if e.path.is_empty() {
                path.clone()
            } else {
                format!("{path}.{}", e.path)
            };
            format!("{at}: {}", e.message)
        })?;
        let arena = SchemaArena::new();
        let model = owned.with_model(&arena);
        let structural = structural_errors(json, path);
        let compile = structural.is_empty();
        walker.schema_errors.extend(structural);
        walker.total = 0;
        walker.expensive.clear();
        walker.walk(
            json,
            Some(model),
            path,
            Ctx {
                uncorrelatable: None,
                resource_root,
                compile,
                spine: true,
                cardinality: Some(1),
            },
        );
        walker.schema_total(path);
    }
    let mut errors = walker.schema_errors;
    errors.extend(walker.cel_errors);
    errors.sort_by(|a, b| a.field.cmp(&b.field));
    Ok((errors, walker.rules, walker.checked))
}

/// What a node inherits from its ancestors.
#[derive(Debug, Clone, Copy)]
struct Ctx<'p> {
    /// The path of the highest list (or map-typed object) below which items cannot be
    /// correlated with their old values (CEL-SEMANTICS.md 3.5).
    uncorrelatable: Option<&'p str>,
    /// The node is a resource root (the CRD root, or `x-kubernetes-embedded-resource`).
    resource_root: bool,
    /// Rules are compiled: the structural checks passed (the apiserver's CEL context is set).
    compile: bool,
    /// The node is on the structural spine (root, properties, items, additionalProperties),
    /// not inside `allOf` and friends.
    spine: bool,
    /// How many times the node can occur in one object (CEL-SEMANTICS.md 4.2): the product
    /// of the ancestors' factors, `None` below an unbounded list or map.
    cardinality: Option<u64>,
}

struct Walker {
    compat: u8,
    schema_errors: Vec<CrdError>,
    cel_errors: Vec<CrdError>,
    rules: Vec<RuleReport>,
    checked: usize,
    /// The estimated cost of the schema being walked, summed (saturating).
    total: u64,
    /// The most expensive expressions of the schema (at least 1% of the per-CRD limit), most
    /// expensive first, at most 4 (`TotalCost.MostExpensive`).
    expensive: Vec<(String, u64)>,
}

fn object(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}

fn sorted_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    keys
}

/// The rule struct the apiserver shows as the value of rule errors: the internal
/// `apiextensions.ValidationRule` as JSON with Go field names (apimachinery >= 1.34).
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct RuleStruct<'a> {
    rule: &'a str,
    message: &'a str,
    message_expression: &'a str,
    reason: Option<&'a str>,
    field_path: &'a str,
    optional_old_self: Option<bool>,
}

fn rule_struct(r: &RuleInput<'_>) -> String {
    gojson::to_string(&RuleStruct {
        rule: r.rule,
        message: r.message.unwrap_or(""),
        message_expression: r.message_expression.unwrap_or(""),
        reason: r.reason,
        field_path: r.field_path.unwrap_or(""),
        optional_old_self: r.optional_old_self,
    })
}

fn str_field<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

fn rule_input(v: &Value) -> RuleInput<'_> {
    match v.as_object() {
        Some(o) => RuleInput {
            rule: str_field(o, "rule").unwrap_or(""),
            message: str_field(o, "message"),
            message_expression: str_field(o, "messageExpression"),
            reason: str_field(o, "reason"),
            field_path: str_field(o, "fieldPath"),
            optional_old_self: o.get("optionalOldSelf").and_then(Value::as_bool),
        },
        None => RuleInput::default(),
    }
}

/// Whether the node has a CEL declaration type (CEL-SEMANTICS.md 1.1): rules on a node
/// without one cannot be compiled (3.1 step 4).
fn has_decl_type(s: &Schema<'_>) -> bool {
    if s.int_or_string {
        return true;
    }
    match s.ty {
        Type::Any | Type::Unknown => false,
        Type::Array => s.items.is_some_and(has_decl_type),
        Type::Object => s.additional_properties.is_none_or(has_decl_type),
        Type::Boolean | Type::Integer | Type::Number | Type::String => true,
    }
}

impl Walker {
    /// Visits a node as `ValidateCustomResourceDefinitionOpenAPISchema` does: children first,
    /// then the node's own checks and rules. Returns how many schema errors (not CEL errors)
    /// were found in the subtree: any of them stops this node's rules from being compiled.
    fn walk(
        &mut self,
        json: &Value,
        model: Option<&Schema<'_>>,
        path: &str,
        ctx: Ctx<'_>,
    ) -> usize {
        let Some(obj) = object(json) else {
            return 0;
        };
        let mut found = 0;
        // What this node multiplies its children's cardinality by (`extractMaxElements`).
        let child = Ctx {
            cardinality: ctx
                .cardinality
                .and_then(|c| child_factor(obj).map(|f| cost::times_cardinality(c, f))),
            ..ctx
        };
        if let Some(ap) = obj.get("additionalProperties").filter(|v| v.is_object()) {
            let m = model.and_then(|m| m.additional_properties);
            found += self.walk(
                ap,
                m,
                &format!("{path}.additionalProperties"),
                Ctx {
                    resource_root: m.is_some_and(|m| m.embedded_resource),
                    ..child
                },
            );
        }
        if let Some(props) = obj.get("properties").and_then(object) {
            // Properties of an object whose map type is neither granular nor atomic cannot be
            // correlated.
            let map_type = str_field(obj, "x-kubernetes-map-type");
            let correlatable = matches!(map_type, None | Some("granular" | "atomic"));
            let uncorrelatable = match ctx.uncorrelatable {
                Some(p) => Some(p.to_owned()),
                None if !correlatable => Some(path.to_owned()),
                None => None,
            };
            for name in sorted_keys(props) {
                let m = model.and_then(|m| m.property(name)).map(|p| p.schema);
                found += self.walk(
                    &props[name],
                    m,
                    &format!("{path}.properties[{name}]"),
                    Ctx {
                        uncorrelatable: uncorrelatable.as_deref(),
                        resource_root: m.is_some_and(|m| m.embedded_resource),
                        ..child
                    },
                );
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            if let Some(subs) = obj.get(key).and_then(Value::as_array) {
                for (i, sub) in subs.iter().enumerate() {
                    found += self.walk_detached(sub, &format!("{path}.{key}[{i}]"), ctx);
                }
            }
        }
        if let Some(not) = obj.get("not") {
            found += self.walk_detached(not, &format!("{path}.not"), ctx);
        }
        if let Some(items) = obj.get("items").filter(|v| v.is_object()) {
            let m = model.and_then(|m| m.items);
            let is_map_list = str_field(obj, "x-kubernetes-list-type") == Some("map");
            let uncorrelatable = match ctx.uncorrelatable {
                Some(p) => Some(p.to_owned()),
                None if !is_map_list => Some(path.to_owned()),
                None => None,
            };
            found += self.walk(
                items,
                m,
                &format!("{path}.items"),
                Ctx {
                    uncorrelatable: uncorrelatable.as_deref(),
                    resource_root: m.is_some_and(|m| m.embedded_resource),
                    ..child
                },
            );
        }
        found += self.node_schema_errors(obj, path);
        if let Some(rules) = obj
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            && !rules.is_empty()
        {
            found += self.rules(rules, model, path, ctx, found);
        }
        found
    }

    /// A subschema of `allOf`/`anyOf`/`oneOf`/`not`: the apiserver runs the same checks on it
    /// without a CEL context, so its rules get the field checks but are never compiled.
    fn walk_detached(&mut self, json: &Value, path: &str, ctx: Ctx<'_>) -> usize {
        let owned = OwnedSchema::from_json(json).ok();
        let arena = SchemaArena::new();
        let model = owned.as_ref().map(|o| o.with_model(&arena));
        self.walk(
            json,
            model,
            path,
            Ctx {
                compile: false,
                spine: false,
                resource_root: false,
                ..ctx
            },
        )
    }

    /// The schema checks next to the rules that the apiserver reports at the same node (they
    /// count as schema errors, so they also keep the node's rules from compiling).
    fn node_schema_errors(&mut self, obj: &Map<String, Value>, path: &str) -> usize {
        let before = self.schema_errors.len();
        let mut push = |field: String, kind: Kind, value: Option<String>, detail: &str| {
            self.schema_errors.push(CrdError {
                field,
                kind,
                value,
                detail: detail.to_owned(),
            });
        };
        if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
            push(
                format!("{path}.uniqueItems"),
                Kind::Forbidden,
                None,
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            );
        }
        if obj.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            push(
                format!("{path}.x-kubernetes-preserve-unknown-fields"),
                Kind::Invalid,
                Some("false".to_owned()),
                "must be true or undefined",
            );
        }
        if let Some(mt) = str_field(obj, "x-kubernetes-map-type")
            && mt != "atomic"
            && mt != "granular"
        {
            push(
                format!("{path}.x-kubernetes-map-type"),
                Kind::Unsupported,
                Some(go_quote(mt)),
                "supported values: \"atomic\", \"granular\"",
            );
        }
        let list_type = str_field(obj, "x-kubernetes-list-type");
        if let Some(lt) = list_type
            && !matches!(lt, "atomic" | "set" | "map")
        {
            push(
                format!("{path}.x-kubernetes-list-type"),
                Kind::Unsupported,
                Some(go_quote(lt)),
                "supported values: \"atomic\", \"set\", \"map\"",
            );
        }
        let has_keys = obj
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .is_some_and(|k| !k.is_empty());
        match list_type {
            None if has_keys => push(
                format!("{path}.x-kubernetes-list-type"),
                Kind::Required,
                None,
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ),
            Some(lt) if has_keys && lt != "map" => push(
                format!("{path}.x-kubernetes-list-type"),
                Kind::Invalid,
                Some(go_quote(lt)),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ),
            Some("map") if !has_keys => push(
                format!("{path}.x-kubernetes-list-map-keys"),
                Kind::Required,
                None,
                "must not be empty if x-kubernetes-list-type is map",
            ),
            _ => {}
        }
        self.schema_errors.len() - before
    }

    /// The rules of one node: field checks, then (if nothing in the subtree was wrong with the
    /// schema) compilation and the `oldSelf` checks. Returns the schema errors found here.
    fn rules(
        &mut self,
        rules: &[Value],
        model: Option<&Schema<'_>>,
        path: &str,
        ctx: Ctx<'_>,
        found_below: usize,
    ) -> usize {
        let inputs: Vec<RuleInput<'_>> = rules.iter().map(rule_input).collect();
        let before = self.schema_errors.len();
        for (i, r) in inputs.iter().enumerate() {
            for e in check_rule_fields(r, model) {
                self.schema_errors.push(CrdError {
                    field: format!("{path}.x-kubernetes-validations[{i}].{}", e.field.as_str()),
                    kind: e.kind.into(),
                    value: bad_value(e.value),
                    detail: e.detail.to_owned(),
                });
            }
        }
        let found_here = self.schema_errors.len() - before;
        if !ctx.spine {
            return found_here;
        }
        let Some(model) = model else {
            return found_here;
        };
        // The oracle lists (and compiles) every rule on the spine, whatever gates the errors.
        let typed = has_decl_type(model);
        let compiled: Vec<Option<Compiled>> = inputs
            .iter()
            .map(|r| typed.then(|| self.compile(r, model, ctx)))
            .collect();
        for (i, (r, c)) in inputs.iter().zip(&compiled).enumerate() {
            let costs = self.costs(c.as_ref(), model, ctx);
            let compile_error = match c {
                None => Some(
                    "failed to construct type information: unable to convert structural schema to CEL declarations"
                        .to_owned(),
                ),
                Some(c) => {
                    let msgs: Vec<String> =
                        [c.rule.as_ref().err(), c.message_expression.as_ref().err()]
                            .into_iter()
                            .flatten()
                            .map(ToString::to_string)
                            .collect();
                    (!msgs.is_empty()).then(|| msgs.join("\n"))
                }
            };
            self.rules.push(RuleReport {
                path: format!("{path}.x-kubernetes-validations[{i}].rule"),
                rule: r.rule.to_owned(),
                estimated_cost: costs.estimated,
                max_cost: costs.max_cost,
                max_cardinality: costs.cardinality,
                message_expression_max_cost: costs.message_expression,
                compile_error,
            });
        }
        if found_below + found_here > 0 || !ctx.compile {
            return found_here;
        }
        if !typed {
            self.cel_errors.push(CrdError {
                field: format!("{path}.x-kubernetes-validations"),
                kind: Kind::Internal,
                value: None,
                detail: "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations".to_owned(),
            });
            return found_here;
        }
        for (i, (r, c)) in inputs.iter().zip(compiled).enumerate() {
            let Some(c) = c else { continue };
            let p = format!("{path}.x-kubernetes-validations[{i}]");
            let costs = self.costs(Some(&c), model, ctx);
            if costs.estimated > cost::PER_EXPRESSION_LIMIT {
                self.cel_errors.push(cost_error(
                    format!("{p}.rule"),
                    "estimated rule cost",
                    costs.estimated,
                    cost::PER_EXPRESSION_LIMIT,
                ));
            }
            self.observe(format!("{p}.rule"), costs.estimated);
            if let Err(e) = &c.rule {
                self.cel_errors.push(CrdError {
                    field: format!("{p}.rule"),
                    kind: Kind::Invalid,
                    value: Some(rule_struct(r)),
                    detail: e.to_string(),
                });
            }
            if let Err(e) = &c.message_expression {
                self.cel_errors.push(CrdError {
                    field: format!("{p}.messageExpression"),
                    kind: Kind::Invalid,
                    value: Some(rule_struct(r)),
                    detail: e.to_string(),
                });
            } else if let Some(me) = costs.message_expression {
                // Not multiplied by the cardinality (4.5 step 4).
                if me > cost::PER_EXPRESSION_LIMIT {
                    self.cel_errors.push(cost_error(
                        format!("{p}.messageExpression"),
                        "estimated messageExpression cost",
                        me,
                        cost::PER_EXPRESSION_LIMIT,
                    ));
                }
                self.observe(format!("{p}.messageExpression"), me);
            }
            let uses_old_self = c.rule.as_ref().is_ok_and(|ok| ok.0);
            if uses_old_self {
                if let Some(u) = ctx.uncorrelatable {
                    self.cel_errors.push(CrdError {
                        field: format!("{p}.rule"),
                        kind: Kind::Invalid,
                        value: Some(go_quote(r.rule)),
                        detail: format!(
                            "oldSelf cannot be used on the uncorrelatable portion of the schema within {u}"
                        ),
                    });
                }
            } else if let Some(e) = check_optional_old_self(r, false) {
                self.cel_errors.push(CrdError {
                    field: format!("{p}.{}", e.field.as_str()),
                    kind: e.kind.into(),
                    value: bad_value(e.value),
                    detail: e.detail.to_owned(),
                });
            }
        }
        found_here
    }

    /// The cost figures of a compiled rule (`getExpressionCost`): a rule that did not compile
    /// costs 0, and its cardinality is 0 below an unbounded ancestor (the apiserver only sets
    /// it on success).
    fn costs(&self, c: Option<&Compiled>, model: &Schema<'_>, ctx: Ctx<'_>) -> Costs {
        let (max_cost, compiled) = match c {
            Some(Compiled {
                rule: Ok((_, cost)),
                empty: false,
                ..
            }) => (*cost, true),
            _ => (0, false),
        };
        let cardinality = match ctx.cardinality {
            Some(c) => c,
            None if compiled => cost::cardinality(None, model),
            None => 0,
        };
        let message_expression = match c {
            Some(Compiled {
                message_expression: Ok(me),
                ..
            }) => *me,
            _ => None,
        };
        Costs {
            max_cost,
            cardinality,
            estimated: cost::times_cardinality(max_cost, cardinality),
            message_expression,
        }
    }

    /// `TotalCost.ObserveExpressionCost`.
    fn observe(&mut self, path: String, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < cost::EXPENSIVE {
            return;
        }
        self.expensive.push((path, cost));
        self.expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.expensive.truncate(4);
    }

    /// The per-schema limit, once the schema at `root` has been walked.
    fn schema_total(&mut self, root: &str) {
        if self.total <= cost::PER_CRD_LIMIT {
            return;
        }
        for (path, _) in std::mem::take(&mut self.expensive) {
            self.cel_errors.push(CrdError {
                field: path,
                kind: Kind::Forbidden,
                value: None,
                detail: "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema".to_owned(),
            });
        }
        self.cel_errors.push(cost_error(
            root.to_owned(),
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            self.total,
            cost::PER_CRD_LIMIT,
        ));
    }

    /// Compiles a rule and, if it compiled, its messageExpression (CEL-SEMANTICS.md 3.3).
    fn compile(&mut self, r: &RuleInput<'_>, model: &Schema<'_>, ctx: Ctx<'_>) -> Compiled {
        let node = Node {
            schema: model,
            resource_root: ctx.resource_root,
            optional_old_self: r.optional_old_self == Some(true),
            compat: self.compat,
            type_name: "selfType<N>",
        };
        // An empty rule yields no program and no error (it is reported as Required).
        if r.rule.trim().is_empty() {
            return Compiled {
                rule: Ok((false, 0)),
                message_expression: Ok(None),
                empty: true,
            };
        }
        self.checked += 1;
        let rule = check_source(r.rule, Target::Rule, &node).map(|c| (c.uses_old_self, c.max_cost));
        let message_expression = match (&rule, r.message_expression) {
            (Ok(_), Some(me)) if !me.is_empty() => {
                self.checked += 1;
                check_source(me, Target::MessageExpression, &node).map(|c| Some(c.max_cost))
            }
            _ => Ok(None),
        };
        Compiled {
            rule,
            message_expression,
            empty: false,
        }
    }
}

/// The outcome of compiling one rule: whether it uses `oldSelf` and its estimated cost, or why
/// it failed; the messageExpression's cost if there is one and it compiled.
struct Compiled {
    rule: Result<(bool, u64), CheckError>,
    message_expression: Result<Option<u64>, CheckError>,
    /// A blank rule: no program, so no cost and no cardinality.
    empty: bool,
}

/// The cost figures of one rule, as the oracle reports them.
struct Costs {
    max_cost: u64,
    cardinality: u64,
    estimated: u64,
    message_expression: Option<u64>,
}

/// `extractMaxElements` on the JSON schema: what a node multiplies its children's cardinality
/// by, `None` when unbounded.
fn child_factor(obj: &Map<String, Value>) -> Option<u64> {
    let bound = |key: &str| {
        obj.get(key)
            .and_then(Value::as_i64)
            .map(|n| u64::try_from(n).unwrap_or(0))
    };
    match str_field(obj, "type") {
        Some("object")
            if obj
                .get("additionalProperties")
                .is_some_and(|v| !v.is_null()) =>
        {
            bound("maxProperties")
        }
        Some("array") => bound("maxItems"),
        _ => Some(1),
    }
}

fn cost_error(field: String, what: &str, cost: u64, limit: u64) -> CrdError {
    CrdError {
        field,
        kind: Kind::Forbidden,
        value: None,
        detail: cost::cost_message(what, cost, limit),
    }
}

fn bad_value(v: BadValue<'_>) -> Option<String> {
    match v {
        BadValue::None => None,
        BadValue::Str(s) => Some(go_quote(s)),
        BadValue::Bool(b) => Some(b.to_string()),
    }
}

/// The structural checks that gate every rule check of a schema (CEL-SEMANTICS.md 3.1 step 1):
/// rules inside `allOf`/`anyOf`/`oneOf`/`not` (at any depth below them), and a root `metadata`
/// that constrains anything but `name` and `generateName`.
fn structural_errors(root: &Value, path: &str) -> Vec<CrdError> {
    let mut out = Vec::new();
    spine_structural(root, path, &mut out);
    if let Some(meta) = root.pointer("/properties/metadata").and_then(object)
        && !metadata_is_implicit(meta)
    {
        out.push(CrdError {
            field: format!("{path}.properties[metadata]"),
            kind: Kind::Forbidden,
            value: None,
            detail: "must not specify anything other than name and generateName, but metadata is implicitly specified".to_owned(),
        });
    }
    out
}

/// Walks the spine looking for `allOf`/`anyOf`/`oneOf`/`not`.
fn spine_structural(node: &Value, path: &str, out: &mut Vec<CrdError>) {
    let Some(obj) = object(node) else { return };
    for_each_junctor(obj, path, &mut |sub, p| nested_rules(sub, &p, out));
    if let Some(props) = obj.get("properties").and_then(object) {
        for name in sorted_keys(props) {
            spine_structural(&props[name], &format!("{path}.properties[{name}]"), out);
        }
    }
    if let Some(items) = obj.get("items") {
        spine_structural(items, &format!("{path}.items"), out);
    }
    if let Some(ap) = obj.get("additionalProperties") {
        spine_structural(ap, &format!("{path}.additionalProperties"), out);
    }
}

fn for_each_junctor(obj: &Map<String, Value>, path: &str, f: &mut dyn FnMut(&Value, String)) {
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(subs) = obj.get(key).and_then(Value::as_array) {
            for (i, sub) in subs.iter().enumerate() {
                f(sub, format!("{path}.{key}[{i}]"));
            }
        }
    }
    if let Some(not) = obj.get("not") {
        f(not, format!("{path}.not"));
    }
}

/// Inside a junctor every `x-kubernetes-validations` is forbidden (`validateNestedValueValidation`).
fn nested_rules(node: &Value, path: &str, out: &mut Vec<CrdError>) {
    let Some(obj) = object(node) else { return };
    if obj
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty())
    {
        out.push(CrdError {
            field: format!("{path}.x-kubernetes-validations"),
            kind: Kind::Forbidden,
            value: None,
            detail: "must be empty to be structural".to_owned(),
        });
    }
    if let Some(props) = obj.get("properties").and_then(object) {
        for name in sorted_keys(props) {
            nested_rules(&props[name], &format!("{path}.properties[{name}]"), out);
        }
    }
    if let Some(items) = obj.get("items") {
        nested_rules(items, &format!("{path}.items"), out);
    }
    for_each_junctor(obj, path, &mut |sub, p| nested_rules(sub, &p, out));
}

/// The root `metadata` may only be `type: object` (with a `default`) and list `name` and/or
/// `generateName` as properties; anything else is rejected. Zero values (`false`, `""`,
/// `null`) count as absent, as in the apiserver's comparison with an empty schema.
fn metadata_is_implicit(meta: &Map<String, Value>) -> bool {
    meta.iter().all(|(k, v)| match k.as_str() {
        "type" | "default" => true,
        "properties" => match v.as_object() {
            Some(p) => {
                let names: Vec<&str> = p.keys().map(String::as_str).collect();
                matches!(
                    names.as_slice(),
                    [] | ["name"]
                        | ["generateName"]
                        | ["name", "generateName"]
                        | ["generateName", "name"]
                )
            }
            None => v.is_null(),
        },
        _ => matches!(v, Value::Bool(false) | Value::Null) || v.as_str() == Some(""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(schema: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": schema}}]}
        })
    }

    fn errors(schema: Value) -> Vec<String> {
        check_crd(&crd(schema), &Options::default())
            .expect("checks")
            .errors
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn rule_struct_is_go_json() {
        let r = RuleInput {
            rule: "self.a < 1 && b",
            reason: Some("FieldValueForbidden"),
            optional_old_self: Some(true),
            ..RuleInput::default()
        };
        assert_eq!(
            rule_struct(&r),
            r#"{"Rule":"self.a \u003c 1 \u0026\u0026 b","Message":"","MessageExpression":"","Reason":"FieldValueForbidden","FieldPath":"","OptionalOldSelf":true}"#
        );
    }

    #[test]
    fn schema_error_hides_compilation_of_the_node_and_its_ancestors() {
        let errs = errors(json!({
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self.nope == 1"}],
            "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}},
                "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".nope"}]}}
        }));
        assert_eq!(
            errs,
            [
                "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[0].fieldPath: Invalid value: \".nope\": must be a valid path"
            ]
        );
    }

    #[test]
    fn several_versions_with_different_schemas_keep_their_paths() {
        let mut c = crd(json!({"type": "object", "x-kubernetes-validations": [{"rule": " "}]}));
        let v2 = json!({"name": "v2", "served": true, "storage": false,
            "schema": {"openAPIV3Schema": {"type": "object"}}});
        c["spec"]["versions"].as_array_mut().expect("list").push(v2);
        let r = check_crd(&c, &Options::default()).expect("checks");
        assert_eq!(
            r.errors[0].to_string(),
            "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified"
        );
        assert_eq!(
            r.text(),
            "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified"
        );
    }

    #[test]
    fn rules_in_junctors_are_not_structural() {
        let errs = errors(json!({
            "type": "object",
            "properties": {"a": {"type": "string",
                "anyOf": [{"properties": {"x": {"x-kubernetes-validations": [{"rule": "true"}]}}}],
                "not": {"x-kubernetes-validations": [{"rule": ""}]}}}
        }));
        assert_eq!(
            errs,
            [
                "spec.validation.openAPIV3Schema.properties[a].anyOf[0].properties[x].x-kubernetes-validations: Forbidden: must be empty to be structural",
                "spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-validations: Forbidden: must be empty to be structural",
                "spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-validations[0].rule: Required value: rule is not specified",
            ]
        );
    }

    #[test]
    fn root_metadata() {
        assert!(metadata_is_implicit(
            json!({"type": "object"}).as_object().expect("object")
        ));
        assert!(metadata_is_implicit(
            json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}})
                .as_object()
                .expect("object")
        ));
        assert!(!metadata_is_implicit(
            json!({"type": "object", "properties": {"labels": {"type": "object"}}})
                .as_object()
                .expect("object")
        ));
        assert!(!metadata_is_implicit(
            json!({"type": "object", "x-kubernetes-validations": [{"rule": "true"}]})
                .as_object()
                .expect("object")
        ));
    }

    #[test]
    fn node_schema_checks() {
        let errs = errors(json!({
            "type": "object",
            "properties": {
                "l": {"type": "array", "items": {"type": "string"}, "uniqueItems": true,
                      "x-kubernetes-list-type": "bag"},
                "m": {"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "map"},
                "o": {"type": "object", "x-kubernetes-map-type": "odd"}
            }
        }));
        assert_eq!(
            errs,
            [
                "spec.validation.openAPIV3Schema.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
                "spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"",
                "spec.validation.openAPIV3Schema.properties[m].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
                "spec.validation.openAPIV3Schema.properties[o].x-kubernetes-map-type: Unsupported value: \"odd\": supported values: \"atomic\", \"granular\"",
            ]
        );
    }

    #[test]
    fn bad_input() {
        let mut c = crd(json!({"type": "object"}));
        c["spec"]["versions"][0]
            .as_object_mut()
            .expect("object")
            .remove("schema");
        assert!(
            check_crd(&c, &Options::default())
                .expect_err("no schema")
                .contains("has no schema.openAPIV3Schema")
        );
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        assert_eq!(
            check_crd(&cm, &Options::default()).expect_err("not a CRD"),
            "not an apiextensions.k8s.io/v1 CustomResourceDefinition (apiVersion \"v1\", kind \"ConfigMap\")"
        );
    }

    #[test]
    fn type_information_failure() {
        let r = check_crd(
            &crd(json!({"type": "object", "properties": {
                "any": {"x-kubernetes-preserve-unknown-fields": true,
                        "x-kubernetes-validations": [{"rule": "true"}]}}})),
            &Options::default(),
        )
        .expect("checks");
        assert_eq!(
            r.errors[0].to_string(),
            "spec.validation.openAPIV3Schema.properties[any].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"
        );
        assert_eq!(r.checked_expressions, 0);
    }
}
