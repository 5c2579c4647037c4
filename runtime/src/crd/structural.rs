//! The structural-schema checks that decide whether rules are compiled at all.

use super::*;

/// The structural checks that gate every rule check of a schema (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go` step 1):
/// rules inside `allOf`/`anyOf`/`oneOf`/`not` (at any depth below them), and a root `metadata`
/// that constrains anything but `name` and `generateName`.
pub(super) fn structural_errors(root: &Value, path: &str) -> Vec<CrdError> {
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
pub(super) fn spine_structural(node: &Value, path: &str, out: &mut Vec<CrdError>) {
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

pub(super) fn for_each_junctor(
    obj: &Map<String, Value>,
    path: &str,
    f: &mut dyn FnMut(&Value, String),
) {
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
pub(super) fn nested_rules(node: &Value, path: &str, out: &mut Vec<CrdError>) {
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
pub(super) fn metadata_is_implicit(meta: &Map<String, Value>) -> bool {
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
