//! The apiserver's checks of a CRD schema's defaults
//! (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/validation.go`,
//! `ValidateDefaults`): a default must survive pruning unchanged, be valid against its node's
//! schema and satisfy its node's rules. Any error here keeps every rule of the schema from
//! being compiled, as a structural error does.

use super::*;
use crate::validate::openapi::{self, Check};
use crate::validate::path::Path;
use crate::validate::{ErrorType, FieldError, Options as ValidateOptions, Validator};

/// The errors of every default of a structural schema whose root is `root` (at `path`).
pub(super) fn default_errors(root: &Value, path: &str, minor: u8) -> Vec<CrdError> {
    let mut out = Vec::new();
    // The root is checked as a resource: its `apiVersion`, `kind` and `metadata` are
    // resource metadata.
    node(root, path, true, false, minor, &mut out);
    out
}

/// `validate` of `defaulting/validation.go`: the node's own default, then its items and
/// properties (not `additionalProperties`).
fn node(
    json: &Value,
    path: &str,
    embedded: bool,
    inside_meta: bool,
    minor: u8,
    out: &mut Vec<CrdError>,
) {
    let Some(obj) = object(json) else { return };
    let embedded = embedded || is_true(obj, "x-kubernetes-embedded-resource");
    let inside_meta = inside_meta && !embedded;
    // A default inside resource metadata is checked as metadata; not reproduced.
    if let Some(default) = present(obj, "default")
        && !inside_meta
    {
        check_default(json, default, path, embedded, minor, out);
    }
    if let Some(items) = obj.get("items").filter(|i| i.is_object()) {
        node(
            items,
            &format!("{path}.items"),
            false,
            inside_meta,
            minor,
            out,
        );
    }
    if let Some(props) = obj.get("properties").and_then(object) {
        for name in sorted_keys(props) {
            let meta = embedded && matches!(name.as_str(), "metadata" | "apiVersion" | "kind");
            let p = &props[name];
            node(
                p,
                &format!("{path}.properties[{name}]"),
                false,
                inside_meta || meta,
                minor,
                out,
            );
        }
    }
}

fn check_default(
    schema: &Value,
    default: &Value,
    path: &str,
    embedded: bool,
    minor: u8,
    out: &mut Vec<CrdError>,
) {
    let at = format!("{path}.default");
    // Pruning reports each field it drops: a default must have none.
    let mut pruned = default.clone();
    let mut dropped = Vec::new();
    crate::validate::decode::decode(&mut pruned, schema, embedded, "", &mut dropped);
    if !dropped.is_empty() {
        out.push(CrdError {
            help: None,
            field: at.clone(),
            kind: Kind::Invalid,
            value: Some(gojson::to_string(default)),
            detail: "must not have unknown fields".to_owned(),
        });
    }
    // An embedded resource's default names its apiVersion and kind (`objectmeta.Validate`),
    // before anything else is checked.
    if embedded && let Some(o) = default.as_object() {
        let missing: Vec<CrdError> = ["apiVersion", "kind"]
            .into_iter()
            .filter(|k| o.get(*k).and_then(Value::as_str).is_none_or(str::is_empty))
            .map(|k| CrdError {
                help: None,
                field: format!("{at}.{k}"),
                kind: Kind::Required,
                value: None,
                detail: String::new(),
            })
            .collect();
        if !missing.is_empty() {
            out.extend(missing);
            return;
        }
    }
    // The OpenAPI checks first (`ValidateCustomResource`); the rules only on a default that
    // passes them.
    let mut errors = Vec::new();
    // The validator the apiserver builds for defaults (`ToKubeOpenAPI`) keeps
    // `x-kubernetes-int-or-string` as an extension only: no type check comes of it.
    let mut openapi_schema = schema.clone();
    strip_int_or_string(&mut openapi_schema);
    let checks = Check::compile(&openapi_schema);
    openapi::validate(
        &checks,
        default,
        None,
        &Path::Root(Some(&at)),
        minor,
        &mut errors,
    );
    // Only rules are left to run: no validator for a subtree without any.
    if errors.is_empty()
        && has_rules(schema)
        && let Ok(v) = Validator::from_schema_json(schema, embedded)
    {
        let v = v.with_kubernetes_version(minor);
        let opts = ValidateOptions {
            root_path: Some(at.clone()),
            ..ValidateOptions::default()
        };
        // As an update from itself (transition rules run), then, with ratcheting, as a create.
        errors = v.validate(default, Some(default), &opts).errors.errors;
        if errors.is_empty() {
            errors = v.validate(default, None, &opts).errors.errors;
        }
    }
    out.extend(errors.into_iter().map(|e| crd_error(e, &at)));
}

/// Whether a schema has a rule anywhere in it.
fn has_rules(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("x-kubernetes-validations")
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty())
                || m.values().any(has_rules)
        }
        Value::Array(a) => a.iter().any(has_rules),
        _ => false,
    }
}

/// Every `x-kubernetes-int-or-string` of a schema removed.
fn strip_int_or_string(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("x-kubernetes-int-or-string");
            m.values_mut().for_each(strip_int_or_string);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_int_or_string),
        _ => {}
    }
}

/// A runtime field error as a CRD error, its text unchanged (kube-openapi names the root of
/// the value it validates ``, a default's as an object's).
fn crd_error(e: FieldError, at: &str) -> CrdError {
    let text = e.to_string();
    let head = format!("{}: {}", e.path, e.kind.description());
    let detail = text
        .strip_prefix(&head)
        .map(|rest| rest.strip_prefix(": ").unwrap_or(rest).to_owned())
        .unwrap_or(text);
    // kube-openapi names an item of a list default `[0]`, which becomes a child: `default.[0]`.
    let field = match e.path.strip_prefix(at) {
        Some(rest) if rest.starts_with('[') => format!("{at}.{rest}"),
        _ => e.path,
    };
    CrdError {
        help: None,
        field,
        kind: Kind::from(e.kind),
        value: None,
        detail,
    }
}

impl From<ErrorType> for Kind {
    fn from(t: ErrorType) -> Self {
        match t {
            ErrorType::NotFound => Kind::NotFound,
            ErrorType::Required => Kind::Required,
            ErrorType::Duplicate => Kind::Duplicate,
            ErrorType::Invalid => Kind::Invalid,
            ErrorType::NotSupported => Kind::Unsupported,
            ErrorType::Forbidden => Kind::Forbidden,
            ErrorType::TooLong => Kind::TooLong,
            ErrorType::TooMany => Kind::TooMany,
            ErrorType::InternalError => Kind::Internal,
            ErrorType::TypeInvalid => Kind::TypeInvalid,
        }
    }
}
