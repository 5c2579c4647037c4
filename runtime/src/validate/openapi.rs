//! The OpenAPI schema checks the apiserver runs on a custom resource before CEL
//! (kube-openapi's validator as `apiextensions-apiserver/pkg/apiserver/validation` maps its
//! results to field errors, CEL-SEMANTICS 5.1): types, nullability, `enum`, string lengths and
//! `pattern`, number bounds and `multipleOf`, item and property counts, `required`.
//!
//! String formats are checked as the apiserver's format registry does for the formats CRDs may
//! use (ipv4, ipv6, cidr, hostname, uri, email, uuid*, date, date-time, duration, byte, mac,
//! hexcolor, ssn, password, k8s-short-name, k8s-long-name). Not done yet, and failing open (no
//! error): the isbn, creditcard, rgbcolor and bsonobjectid formats, and the embedded-ObjectMeta
//! checks.

use serde_json::{Map, Value as Json};

use super::{BadValue, ErrorType, FieldError};
use crate::eval::stdlib::format_double;

fn field(path: &str) -> String {
    if path.is_empty() {
        "<nil>".to_owned()
    } else {
        path.to_owned()
    }
}

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// kube-openapi names the root `.` in its messages.
fn body_name(path: &str) -> &str {
    if path.is_empty() { "." } else { path }
}

fn invalid(path: &str, value: &Json, detail: String) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        path: field(path),
        value: BadValue::Value(value.clone()),
        detail,
    }
}

/// The JSON type name kube-openapi reports for data of the wrong type.
fn data_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

fn type_matches(ty: &str, v: &Json) -> bool {
    match ty {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "number" => v.is_number(),
        // JSON numbers with no fraction count as integers (1.0 is an integer).
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => true,
    }
}

fn num(schema: &Json, key: &str) -> Option<f64> {
    schema.get(key).and_then(Json::as_f64)
}

fn count(schema: &Json, key: &str) -> Option<u64> {
    schema.get(key).and_then(Json::as_u64)
}

fn flag(schema: &Json, key: &str) -> bool {
    schema.get(key).and_then(Json::as_bool) == Some(true)
}

/// Validates `value` at `path` (`""` is the root) against `schema`, appending the apiserver's
/// field errors.
///
/// `old` is the correlated old value on update (object fields by name, map-list items by key):
/// where it equals the new value the subtree is not checked, as the apiserver's ratcheting
/// validator lets unchanged invalid values stand.
pub(crate) fn validate(
    schema: &Json,
    value: &Json,
    old: Option<&Json>,
    path: &str,
    out: &mut Vec<FieldError>,
) {
    if old.is_some_and(|o| o == value) {
        return;
    }
    let name = body_name(path);
    if value.is_null() {
        if !flag(schema, "nullable") && schema.get("type").is_some() {
            let ty = schema["type"].as_str().unwrap_or_default();
            out.push(FieldError {
                kind: ErrorType::TypeInvalid,
                path: field(path),
                value: BadValue::Value(Json::String("null".into())),
                detail: format!("{name} in body must be of type {ty}: \"null\""),
            });
        }
        return;
    }
    if flag(schema, "x-kubernetes-int-or-string") {
        let ok = value.is_string() || type_matches("integer", value);
        if !ok {
            let t = data_type(value);
            out.push(FieldError {
                kind: ErrorType::TypeInvalid,
                path: field(path),
                value: BadValue::Value(Json::String(t.into())),
                detail: format!("{name} in body must be of type integer,string: \"{t}\""),
            });
            return;
        }
    } else if let Some(ty) = schema.get("type").and_then(Json::as_str)
        && !type_matches(ty, value)
    {
        let t = data_type(value);
        out.push(FieldError {
            kind: ErrorType::TypeInvalid,
            path: field(path),
            value: BadValue::Value(Json::String(t.into())),
            detail: format!("{name} in body must be of type {ty}: \"{t}\""),
        });
        return;
    }
    if let Some(values) = schema.get("enum").and_then(Json::as_array)
        && !values.iter().any(|e| json_equal(e, value))
    {
        let supported: Vec<String> = values
            .iter()
            .map(|v| match v {
                Json::String(s) => go_quote(s),
                other => go_quote(&other.to_string()),
            })
            .collect();
        out.push(FieldError {
            kind: ErrorType::NotSupported,
            path: field(path),
            value: BadValue::Value(value.clone()),
            detail: format!("supported values: {}", supported.join(", ")),
        });
    }
    match value {
        Json::String(s) => string(schema, s, value, path, name, out),
        Json::Number(_) => number(schema, value, path, name, out),
        Json::Array(items) => {
            if let Some(max) = count(schema, "maxItems")
                && items.len() as u64 > max
            {
                out.push(FieldError {
                    kind: ErrorType::TooMany,
                    path: field(path),
                    value: BadValue::Value(Json::from(items.len())),
                    detail: format!(
                        "must have at most {max} {}",
                        if max == 1 { "item" } else { "items" }
                    ),
                });
            }
            if let Some(min) = count(schema, "minItems")
                && (items.len() as u64) < min
            {
                out.push(invalid(
                    path,
                    &Json::from(items.len()),
                    format!("{name} in body should have at least {min} items"),
                ));
            }
            if let Some(item_schema) = schema.get("items") {
                let keys: Vec<&str> = schema
                    .get("x-kubernetes-list-map-keys")
                    .and_then(Json::as_array)
                    .map(|k| k.iter().filter_map(Json::as_str).collect())
                    .unwrap_or_default();
                let map_list =
                    schema.get("x-kubernetes-list-type").and_then(Json::as_str) == Some("map");
                let old_items = old.and_then(Json::as_array);
                for (i, item) in items.iter().enumerate() {
                    let item_old = match old_items {
                        Some(olds) if map_list && !keys.is_empty() => olds.iter().find(|o| {
                            keys.iter()
                                .all(|k| o.get(k).is_some() && o.get(k) == item.get(k))
                        }),
                        _ => None,
                    };
                    validate(item_schema, item, item_old, &format!("{path}[{i}]"), out);
                }
            }
        }
        Json::Object(obj) => object(schema, obj, old, path, name, out),
        Json::Bool(_) | Json::Null => {}
    }
}

/// Whether `s` is valid for the string format `format` (names normalized as go-openapi does:
/// `-` removed); `None` for formats the apiserver strips or crd-cel does not check.
fn format_ok(format: &str, s: &str) -> Option<bool> {
    let f = format.replace('-', "");
    let re = |p: &str| {
        crate::eval::functions::compiled_regex(p)
            .map(|r| r.is_match(s))
            .ok()
    };
    Some(match f.as_str() {
        "ipv4" => sloppy_ipv4(s) || (s.contains('.') && s.parse::<std::net::Ipv6Addr>().is_ok()),
        "ipv6" => s.contains(':') && (s.parse::<std::net::Ipv6Addr>().is_ok()),
        "cidr" => s.split_once('/').is_some_and(|(ip, bits)| {
            let max = if ip.contains(':') { 128 } else { 32 };
            (sloppy_ipv4(ip) || ip.parse::<std::net::Ipv6Addr>().is_ok())
                && !bits.is_empty()
                && bits.len() <= 3
                && bits.bytes().all(|b| b.is_ascii_digit())
                && bits.parse::<u32>().is_ok_and(|b| b <= max)
        }),
        "hostname" => {
            re(
                r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
            )? && s.len() <= 255
                && s.split('.').all(|p| p.len() <= 63)
        }
        "uri" => {
            let is_url = crate::eval::functions::lookup("isURL")?;
            matches!(
                (is_url.call)(&[crate::eval::value::Value::string(s)]),
                Ok(crate::eval::value::Value::Bool(true))
            )
        }
        "email" => {
            // net/mail.ParseAddress, for the plain `local@domain` form.
            s.split_once('@').is_some_and(|(l, d)| {
                !l.is_empty()
                    && !d.is_empty()
                    && !d.contains('@')
                    && !s.contains(char::is_whitespace)
            })
        }
        "uuid" => re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")?,
        "uuid3" => re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")?,
        "uuid4" => {
            re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")?
        }
        "uuid5" => {
            re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")?
        }
        "date" => crate::eval::time::parse_date(s).is_some(),
        "datetime" => crate::eval::time::parse_date_time(s).is_some(),
        "duration" => crate::eval::time::parse_data_duration(s).is_some(),
        "byte" => {
            re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")?
        }
        "mac" => {
            re(r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$")?
        }
        "hexcolor" => re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")?,
        "ssn" => re(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$")?,
        "password" => true,
        "k8sshortname" => re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")? && s.len() <= 63,
        "k8slongname" => {
            re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")?
                && s.len() <= 253
        }
        _ => return None,
    })
}

/// `netutils.ParseIPSloppy` for dotted IPv4: four decimal parts up to 255, leading zeros allowed.
fn sloppy_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn string(schema: &Json, s: &str, value: &Json, path: &str, name: &str, out: &mut Vec<FieldError>) {
    if let Some(format) = schema.get("format").and_then(Json::as_str)
        && format_ok(format, s) == Some(false)
    {
        out.push(FieldError {
            kind: ErrorType::TypeInvalid,
            path: field(path),
            value: BadValue::Value(value.clone()),
            detail: format!("{name} in body must be of type {format}: {}", go_quote(s)),
        });
    }
    let runes = s.chars().count() as u64;
    if let Some(max) = count(schema, "maxLength")
        && runes > max
    {
        return out.push(FieldError {
            kind: ErrorType::TooLong,
            path: field(path),
            value: BadValue::Value(Json::String("<value omitted>".into())),
            detail: format!(
                "may not be more than {max} {}",
                if max == 1 { "byte" } else { "bytes" }
            ),
        });
    }
    if let Some(min) = count(schema, "minLength")
        && runes < min
    {
        return out.push(invalid(
            path,
            value,
            format!("{name} in body should be at least {min} chars long"),
        ));
    }
    if let Some(p) = schema.get("pattern").and_then(Json::as_str) {
        // A pattern the regex engine cannot compile was rejected when the CRD was created.
        if let Ok(re) = crate::eval::functions::compiled_regex(p)
            && !re.is_match(s)
        {
            out.push(invalid(
                path,
                value,
                format!("{name} in body should match '{p}'"),
            ));
        }
    }
}

fn number(schema: &Json, value: &Json, path: &str, name: &str, out: &mut Vec<FieldError>) {
    let Some(v) = value.as_f64() else {
        return;
    };
    if let Some(m) = num(schema, "multipleOf")
        && m > 0.0
    {
        if let Some(i) = value.as_i64() {
            // kube-openapi checks integer data against the factor converted to an integer, so a
            // fractional factor below 1 becomes 0 and is reported as not positive.
            let factor = m as i64;
            if factor <= 0 {
                out.push(invalid(
                    path,
                    &Json::from(factor),
                    format!("factor MultipleOf declared for {name} must be positive: {factor}"),
                ));
            } else if i % factor != 0 {
                out.push(invalid(
                    path,
                    value,
                    format!("{name} in body should be a multiple of {factor}"),
                ));
            }
        } else if (v / m).fract() != 0.0 {
            out.push(invalid(
                path,
                value,
                format!(
                    "{name} in body should be a multiple of {}",
                    format_double(m)
                ),
            ));
        }
    }
    if let Some(max) = num(schema, "maximum") {
        let exclusive = flag(schema, "exclusiveMaximum");
        if (exclusive && v >= max) || (!exclusive && v > max) {
            let how = if exclusive {
                "less than"
            } else {
                "less than or equal to"
            };
            out.push(invalid(
                path,
                value,
                format!("{name} in body should be {how} {}", format_double(max)),
            ));
        }
    }
    if let Some(min) = num(schema, "minimum") {
        let exclusive = flag(schema, "exclusiveMinimum");
        if (exclusive && v <= min) || (!exclusive && v < min) {
            let how = if exclusive {
                "greater than"
            } else {
                "greater than or equal to"
            };
            out.push(invalid(
                path,
                value,
                format!("{name} in body should be {how} {}", format_double(min)),
            ));
        }
    }
}

fn object(
    schema: &Json,
    obj: &Map<String, Json>,
    old: Option<&Json>,
    path: &str,
    name: &str,
    out: &mut Vec<FieldError>,
) {
    if let Some(max) = count(schema, "maxProperties")
        && obj.len() as u64 > max
    {
        out.push(FieldError {
            kind: ErrorType::TooMany,
            path: field(path),
            value: BadValue::Value(Json::from(obj.len())),
            detail: format!(
                "must have at most {max} {}",
                if max == 1 { "item" } else { "items" }
            ),
        });
    }
    if let Some(min) = count(schema, "minProperties")
        && (obj.len() as u64) < min
    {
        out.push(invalid(
            path,
            &Json::from(obj.len()),
            format!("{name} in body should have at least {min} properties"),
        ));
    }
    if let Some(required) = schema.get("required").and_then(Json::as_array) {
        for r in required.iter().filter_map(Json::as_str) {
            if !obj.contains_key(r) {
                out.push(FieldError {
                    kind: ErrorType::Required,
                    path: child(path, r),
                    value: BadValue::Value(Json::String(String::new())),
                    detail: String::new(),
                });
            }
        }
    }
    let properties = schema.get("properties").and_then(Json::as_object);
    for (k, v) in obj {
        let child_old = old.and_then(|o| o.get(k));
        if let Some(p) = properties.and_then(|p| p.get(k)) {
            validate(p, v, child_old, &child(path, k), out);
        } else if let Some(values) = schema.get("additionalProperties").filter(|a| a.is_object()) {
            validate(values, v, child_old, &child(path, k), out);
        }
    }
}

/// JSON equality with numbers compared by value (`1` equals `1.0`, as decoded Go values do
/// after the apiserver's number normalization).
fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn go_quote(s: &str) -> String {
    struct Q<'a>(&'a str);
    impl std::fmt::Display for Q<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            super::write_go_quoted(f, self.0)
        }
    }
    Q(s).to_string()
}

/// Error types that make the apiserver skip CEL (CEL-SEMANTICS 5.1).
pub(crate) fn is_blocking(kind: ErrorType) -> bool {
    matches!(
        kind,
        ErrorType::Required
            | ErrorType::NotSupported
            | ErrorType::TooLong
            | ErrorType::TooMany
            | ErrorType::TypeInvalid
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Json, value: Json) -> Vec<String> {
        let mut out = Vec::new();
        validate(&schema, &value, None, "", &mut out);
        out.iter().map(ToString::to_string).collect()
    }

    // Texts as the apiserver prints them (the oracle's `validate` output on the same schemas).
    #[test]
    fn messages_are_the_apiservers() {
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "replicas": {"type": "integer", "maximum": 10, "minimum": 1},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "name": {"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"},
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                "ip": {"type": "string", "format": "ipv4"}
            }
        });
        assert_eq!(
            errors(
                schema.clone(),
                json!({"replicas": 11, "mode": "c", "tags": ["x", "y", "z"], "ip": "1.2.3.4:80"})
            ),
            [
                "name: Required value",
                "ip: Invalid value: \"1.2.3.4:80\": ip in body must be of type ipv4: \"1.2.3.4:80\"",
                "mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
                "replicas: Invalid value: 11: replicas in body should be less than or equal to 10",
                "tags: Too many: 3: must have at most 2 items",
            ]
        );
        assert_eq!(
            errors(
                schema.clone(),
                json!({"name": "ABCDEFGHIJ", "replicas": "x"})
            ),
            [
                "name: Too long: may not be more than 8 bytes",
                "replicas: Invalid value: \"string\": replicas in body must be of type integer: \"string\"",
            ]
        );
        assert!(errors(schema, json!({"name": "ok", "replicas": 3.0})).is_empty());
    }

    #[test]
    fn unchanged_values_are_not_rechecked_on_update() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 1}}});
        let mut out = Vec::new();
        validate(
            &schema,
            &json!({"n": 5}),
            Some(&json!({"n": 5})),
            "",
            &mut out,
        );
        assert!(out.is_empty());
        validate(
            &schema,
            &json!({"n": 6}),
            Some(&json!({"n": 5})),
            "",
            &mut out,
        );
        assert_eq!(out.len(), 1);
    }
}
