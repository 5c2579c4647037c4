//! The scale subresource's checks of the custom-resource strategy
//! (`k8s.io/apiextensions-apiserver/pkg/registry/customresource/validator.go`,
//! `ValidateScaleSpec` and `ValidateScaleStatus`): for a CRD version with `subresources.scale`,
//! the replicas at `specReplicasPath` and `statusReplicasPath` must be integers from 0 to
//! 2147483647, and the value at `labelSelectorPath` a string. They run after the schema check
//! (both on create and on an update of the main resource, the status part alone on a status
//! update); their errors are `Invalid` ones, so the CEL rules still run.

use serde_json::Value as Json;

use super::{BadValue, ErrorType, FieldError};
use crate::eval::go::float::go_g;

/// A CRD version's `subresources.scale`: the JSON paths as written (`.spec.replicas`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scale {
    spec_replicas_path: String,
    status_replicas_path: String,
    label_selector_path: Option<String>,
}

impl Scale {
    /// The `subresources.scale` of a CRD version (`version`), or the CRD-wide one of a
    /// `v1beta1` manifest (`spec.subresources.scale`); `None` when it has none.
    pub(crate) fn of_crd(crd: &Json, version: &Json) -> Option<Scale> {
        let scale = version
            .pointer("/subresources/scale")
            .or_else(|| crd.pointer("/spec/subresources/scale"))
            .filter(|s| s.is_object())?;
        let text = |k: &str| scale.get(k).and_then(Json::as_str).map(str::to_owned);
        Some(Scale {
            spec_replicas_path: text("specReplicasPath").unwrap_or_default(),
            status_replicas_path: text("statusReplicasPath").unwrap_or_default(),
            label_selector_path: text("labelSelectorPath"),
        })
    }

    /// The scale subresource of a typed resource (kube's `#[kube(scale(..))]`).
    pub(crate) fn of_paths(spec: &str, status: &str, selector: Option<&str>) -> Scale {
        Scale {
            spec_replicas_path: spec.to_owned(),
            status_replicas_path: status.to_owned(),
            label_selector_path: selector.map(str::to_owned),
        }
    }

    /// Whether a typed value has no scale error, read without serializing it whole: the
    /// value at each path picked ([`super::fast::pick`]) into an object of only those, which
    /// the checks below then read as they read the whole object. `false` also where the fast
    /// path does not answer (a scalar or a list on a path): the JSON path gives the error.
    pub(crate) fn typed_ok<T: serde::Serialize + ?Sized>(&self, value: &T) -> bool {
        let mut sparse = Json::Object(serde_json::Map::new());
        let paths = [
            Some(&self.spec_replicas_path),
            Some(&self.status_replicas_path),
            self.label_selector_path.as_ref(),
        ];
        for path in paths.into_iter().flatten() {
            let fields = fields(path);
            match super::fast::pick(value, &fields) {
                Ok(Some(v)) => {
                    let mut at = &mut sparse;
                    for f in &fields {
                        // One path under another's value (`.spec.r` and `.spec.r.x`): the
                        // JSON path answers.
                        let Some(object) = at.as_object_mut() else {
                            return false;
                        };
                        at = object
                            .entry(*f)
                            .or_insert_with(|| Json::Object(serde_json::Map::new()));
                    }
                    *at = v;
                }
                Ok(None) => {}
                Err(_) => return false,
            }
        }
        let mut errors = Vec::new();
        self.spec_errors(&sparse, &mut errors);
        self.status_errors(&sparse, &mut errors);
        errors.is_empty()
    }

    /// `ValidateScaleSpec`: the replicas at `specReplicasPath`.
    pub(crate) fn spec_errors(&self, object: &Json, out: &mut Vec<FieldError>) {
        replicas(object, &self.spec_replicas_path, out);
    }

    /// `ValidateScaleStatus`: the replicas at `statusReplicasPath`, then the selector at
    /// `labelSelectorPath`.
    pub(crate) fn status_errors(&self, object: &Json, out: &mut Vec<FieldError>) {
        replicas(object, &self.status_replicas_path, out);
        if let Some(path) = &self.label_selector_path {
            let fields = fields(path);
            match nested(object, &fields) {
                Ok(Some(Json::String(_)) | None) => {}
                Ok(Some(v)) => out.push(invalid(
                    path,
                    Json::String(String::new()),
                    leaf_error(&fields, v, "string"),
                )),
                Err(e) => out.push(invalid(path, Json::String(String::new()), e)),
            }
        }
    }
}

/// The replicas at `path` (`unstructured.NestedInt64`), then their range.
fn replicas(object: &Json, path: &str, out: &mut Vec<FieldError>) {
    let fields = fields(path);
    let n = match nested(object, &fields) {
        Ok(None) => return,
        Ok(Some(v)) => match go_int64(v) {
            Some(n) => n,
            None => {
                return out.push(invalid(
                    path,
                    Json::from(0),
                    leaf_error(&fields, v, "int64"),
                ));
            }
        },
        Err(e) => return out.push(invalid(path, Json::from(0), e)),
    };
    let detail = if n < 0 {
        "should be a non-negative integer".to_owned()
    } else if n > i64::from(i32::MAX) {
        format!("should be less than or equal to {}", i32::MAX)
    } else {
        return;
    };
    out.push(invalid(path, Json::from(n), detail));
}

/// The path's fields: one leading `.` trimmed, split on `.`.
fn fields(path: &str) -> Vec<&str> {
    path.strip_prefix('.').unwrap_or(path).split('.').collect()
}

/// A `FieldValueInvalid` at the path as written (`field.NewPath(".spec.replicas")`).
fn invalid(path: &str, value: Json, detail: String) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        path: path.to_owned(),
        value: BadValue::Value(value),
        detail,
    }
}

/// `unstructured.NestedFieldNoCopy`: the value at `fields` (`None` when a field is missing or
/// a `null` is on the way), or the accessor error of a value on the way that is not an object.
fn nested<'a>(object: &'a Json, fields: &[&str]) -> Result<Option<&'a Json>, String> {
    let mut val = object;
    for (i, field) in fields.iter().enumerate() {
        match val {
            Json::Null => return Ok(None),
            Json::Object(m) => match m.get(*field) {
                Some(v) => val = v,
                None => return Ok(None),
            },
            other => {
                return Err(format!(
                    "{} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                    json_path(&fields[..=i]),
                    go_v(other),
                    go_t(other)
                ));
            }
        }
    }
    Ok(Some(val))
}

/// The accessor error of a value at the end of the path that is not of the Go type `expected`.
fn leaf_error(fields: &[&str], v: &Json, expected: &str) -> String {
    format!(
        "{} accessor error: {} is of the type {}, expected {expected}",
        json_path(fields),
        go_v(v),
        go_t(v)
    )
}

/// `"." + strings.Join(fields, ".")`.
fn json_path(fields: &[&str]) -> String {
    format!(".{}", fields.join("."))
}

/// The number as the apiserver's decoder holds it when that is an `int64`: a JSON integer
/// that fits; one written with a fraction or exponent (`1.0`), or beyond int64, is a float64.
fn go_int64(v: &Json) -> Option<i64> {
    match v {
        Json::Number(n) if !n.is_f64() => n.as_i64(),
        _ => None,
    }
}

/// Go's `%T` of a decoded JSON value.
fn go_t(v: &Json) -> &'static str {
    match v {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(_) if go_int64(v).is_some() => "int64",
        Json::Number(_) => "float64",
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a decoded JSON value (`[1 a]`, `map[a:1 b:[x]]` with sorted keys, `<nil>`,
/// floats as `%g`).
fn go_v(v: &Json) -> String {
    match v {
        Json::Null => "<nil>".to_owned(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => match go_int64(v) {
            Some(i) => i.to_string(),
            None => go_g(n.as_f64().unwrap_or_default()),
        },
        Json::String(s) => s.clone(),
        Json::Array(items) => {
            let items: Vec<String> = items.iter().map(go_v).collect();
            format!("[{}]", items.join(" "))
        }
        Json::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .iter()
                .map(|k| format!("{k}:{}", go_v(&m[*k])))
                .collect();
            format!("map[{}]", entries.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scale() -> Scale {
        let crd = json!({"spec": {"versions": [{"name": "v1", "subresources": {"scale": {
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": ".status.selector",
        }}}]}});
        Scale::of_crd(&crd, &crd["spec"]["versions"][0]).unwrap()
    }

    fn errors(object: &Json) -> Vec<String> {
        let mut out = Vec::new();
        let s = scale();
        s.spec_errors(object, &mut out);
        s.status_errors(object, &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    // The texts of a real kube-apiserver v1.37.2 (tests/e2e/objects-cases/scale-*).
    #[test]
    fn the_apiservers_texts() {
        assert_eq!(
            errors(&json!({"spec": {"replicas": -1}})),
            [".spec.replicas: Invalid value: -1: should be a non-negative integer"]
        );
        assert_eq!(
            errors(&json!({"spec": {"replicas": 2147483648_i64}, "status": {"replicas": -1}})),
            [
                ".spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647",
                ".status.replicas: Invalid value: -1: should be a non-negative integer",
            ]
        );
        assert_eq!(
            errors(&json!({"spec": {"replicas": "x"}})),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64"
            ]
        );
        assert_eq!(
            errors(&json!({"spec": "x"})),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected map[string]interface{}"
            ]
        );
        assert_eq!(
            errors(&json!({"status": {"selector": 5}})),
            [
                ".status.selector: Invalid value: \"\": .status.selector accessor error: 5 is of the type int64, expected string"
            ]
        );
        // A body's `1.0` is a float64 to the apiserver's decoder.
        let float: Json = serde_json::from_str(
            r#"{"spec": {"replicas": 1.0}, "status": {"replicas": 2147483647}}"#,
        )
        .unwrap();
        assert_eq!(
            errors(&float),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1 is of the type float64, expected int64"
            ]
        );
    }

    // Through the request path, from a request body: a JSON body's `1.0` (or `1e2`, or an
    // integer beyond int64) stays a float, as the apiserver's decoder makes it a float64; YAML
    // reads `1.0` as 1, as kubectl does. The scale errors come after the schema's and do not
    // stop the rules.
    #[test]
    fn request_bodies_as_the_apiserver_decodes_them() {
        use crate::validate::{Body, Endpoint, Validator};
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "subresources": {"scale": {"specReplicasPath": ".spec.replicas",
                        "statusReplicasPath": ".status.replicas",
                        "labelSelectorPath": ".status.selector"}},
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object",
                            "x-kubernetes-validations": [{"rule": "self.replicas != 7"}],
                            "properties": {"replicas": {"type": "integer", "minimum": -2}}},
                        "status": {"type": "object", "properties": {
                            "replicas": {"type": "integer"}, "selector": {"type": "string"}}},
                    }}}}],
            },
        });
        let v = Validator::from_crd(&crd, None).unwrap();
        let head =
            r#"{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "#;
        let json = |spec: &str| -> String {
            let body: Body = serde_json::from_str(&format!("{head}{spec}}}")).unwrap();
            let out = v.validate_body(&body, None, Endpoint::Resource);
            out.errors.to_string()
        };
        // The server's texts as sent (a real kube-apiserver v1.37.2, these bodies as JSON): the
        // schema's errors, the scale subresource's, then the rules (which see a float where an
        // integer is declared).
        assert_eq!(
            json(r#""spec": {"replicas": 1.0}"#),
            "[.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1 is of the type float64, expected int64, \
             spec: Invalid value: \"object\": invalid data, expected int, got float64 evaluating rule: self.replicas != 7]"
        );
        assert_eq!(json(r#""spec": {"replicas": 1}"#), "");
        assert_eq!(
            json(r#""spec": {"replicas": 9223372036854775808}"#),
            "[spec.replicas: Invalid value: \"number\": spec.replicas in body must be of type integer: \"number\", \
             <nil>: Invalid value: \"\": Checked value must be of type integer (default format) in spec.replicas, \
             .spec.replicas: Invalid value: 0: .spec.replicas accessor error: 9.223372036854776e+18 is of the type float64, expected int64, \
             <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"
        );
        assert_eq!(
            json(r#""spec": {"replicas": -3}, "status": {"replicas": 7}"#),
            "[spec.replicas: Invalid value: -3: spec.replicas in body should be greater than or equal to -2, \
             .spec.replicas: Invalid value: -3: should be a non-negative integer]"
        );
        assert_eq!(
            json(r#""spec": {"replicas": 7}, "status": {"replicas": 2147483648}"#),
            "[.status.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647, \
             spec: Invalid value: failed rule: self.replicas != 7]"
        );
        assert_eq!(
            json(r#""spec": {"replicas": 3}, "status": {"replicas": 1e2, "selector": 1.0}"#),
            "[status.selector: Invalid value: \"number\": status.selector in body must be of type string: \"number\", \
             .status.replicas: Invalid value: 0: .status.replicas accessor error: 100 is of the type float64, expected int64, \
             .status.selector: Invalid value: \"\": .status.selector accessor error: 1 is of the type float64, expected string, \
             <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]"
        );
        let text = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 1.0}\n";
        let body = Body::from_yaml(serde_yaml::Deserializer::from_str(text), text).unwrap();
        assert!(v.validate_body(&body, None, Endpoint::Resource).is_valid());
        // A status update checks only the status part.
        let v = Validator::from_crd(&crd, None)
            .unwrap()
            .with_status_subresource(true);
        let old = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default", "resourceVersion": "1"},
            "spec": {"replicas": -1}, "status": {"replicas": 1}});
        let mut new = old.clone();
        new["status"]["replicas"] = json!(-1);
        let out = v.validate_request(&new, Some(&old), Endpoint::Status);
        assert_eq!(
            out.errors.to_string(),
            ".status.replicas: Invalid value: -1: should be a non-negative integer"
        );
    }

    #[test]
    fn missing_fields_and_nulls_on_the_way_are_not_errors() {
        assert!(errors(&json!({})).is_empty());
        assert!(
            errors(&json!({"spec": null, "status": {"replicas": 0, "selector": "a=b"}})).is_empty()
        );
        assert!(errors(&json!({"spec": {"replicas": 2147483647}})).is_empty());
    }

    // Go's `%v` and `%T` of what the decoder makes of each JSON value.
    #[test]
    fn values_print_as_go_prints_them() {
        let big: Json = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(
            errors(&json!({"spec": {"replicas": big}})),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1.8446744073709552e+19 is of the type float64, expected int64"
            ]
        );
        assert_eq!(
            errors(&json!({"spec": {"replicas": [1, "a", null, [], {}]}, "status": [true]})),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: [1 a <nil> [] map[]] is of the type []interface {}, expected int64",
                ".status.replicas: Invalid value: 0: .status.replicas accessor error: [true] is of the type []interface {}, expected map[string]interface{}",
                ".status.selector: Invalid value: \"\": .status.selector accessor error: [true] is of the type []interface {}, expected map[string]interface{}",
            ]
        );
        assert_eq!(
            errors(
                &json!({"spec": {"replicas": {"b": 1.5, "a": {"z": null}}}, "status": {"replicas": null, "selector": false}})
            ),
            [
                ".spec.replicas: Invalid value: 0: .spec.replicas accessor error: map[a:map[z:<nil>] b:1.5] is of the type map[string]interface {}, expected int64",
                ".status.replicas: Invalid value: 0: .status.replicas accessor error: <nil> is of the type <nil>, expected int64",
                ".status.selector: Invalid value: \"\": .status.selector accessor error: false is of the type bool, expected string",
            ]
        );
    }
}
