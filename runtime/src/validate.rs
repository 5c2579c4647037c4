//! Validating values: the [`CelValidate`] trait and the apiserver-shaped errors it returns.

use std::fmt;

mod body;
mod bounds;
mod compile;
mod correlate;
pub(crate) mod decode;
mod embedded;
mod fast;
mod listtype;
mod metadata;
pub(crate) mod openapi;
pub(crate) mod path;
mod release;
mod request;
mod scale;
mod validator;
mod walk;

pub use body::{Body, duplicate_field_error};
pub use compile::CompiledRule;
pub use metadata::{Conflict, GENERATED_NAME_SUFFIX, Refusal, Resource, Scope};
pub use request::Endpoint;
pub use validator::{
    FieldValidation, ManifestError, Options, Outcome, PER_CALL_LIMIT, RUNTIME_COST_BUDGET,
    UpdateMethod, Validator,
};

/// A type whose values can be validated against its CRD rules, as the apiserver would.
///
/// `#[derive(CelValidate)]` implements it for the spec types it is derived on and, for a
/// `CustomResource` spec, for the generated root type too.
///
/// Both methods run what the apiserver runs on the object's path through the custom-resource
/// handler: the OpenAPI checks of the type's schema (bounds, patterns, enums, `required`), list
/// set/map semantics, then every CEL rule with its message, `fieldPath`, `reason` and the
/// runtime cost limits. The errors are the apiserver's, in its order and wording.
///
/// ```
/// use crd_cel::CelValidate;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(CelValidate, Serialize, Deserialize)]
/// #[cel(rule = "self.min <= self.max", message = "min must not exceed max")]
/// struct Range {
///     min: i32,
///     max: i32,
/// }
///
/// assert!(Range { min: 1, max: 2 }.validate().is_ok());
/// let err = Range { min: 3, max: 2 }.validate().unwrap_err();
/// assert_eq!(err.to_string(), "<nil>: Invalid value: min must not exceed max");
/// ```
pub trait CelValidate: crate::CelSchema {
    /// Validates a value as the apiserver validates an object on create: the schema's checks,
    /// the list types and every rule except transition rules.
    ///
    /// The whole value is validated, a kube root type's `status` included. The apiserver
    /// drops `status` from a create (and leaves it unchanged on a main-resource update) when
    /// the CRD has the status subresource, and validates it on writes to `/status`; to
    /// validate exactly what a request would, serialize the object and use
    /// [`Validator::validate_request`](crate::Validator::validate_request) with an
    /// [`Endpoint`].
    fn validate(&self) -> Result<(), ValidationErrors>;

    /// Validates a value as the apiserver validates an update from `old` (transition rules see
    /// `oldSelf`), the whole value as [`validate`](CelValidate::validate) does.
    fn validate_update(&self, old: &Self) -> Result<(), ValidationErrors>;
}

/// The kind of a field error, as apimachinery's `field.ErrorType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// `FieldValueNotFound`.
    NotFound,
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueDuplicate`.
    Duplicate,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueNotSupported`.
    NotSupported,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueTooMany`.
    TooMany,
    /// `InternalError`.
    InternalError,
    /// `FieldValueTypeInvalid`.
    TypeInvalid,
}

impl ErrorType {
    /// The name used in JSON (`FieldValueInvalid`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::InternalError => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The words apimachinery prints (`Invalid value`, `Required value`, ...).
    pub const fn description(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::InternalError => "Internal error",
            ErrorType::TypeInvalid => "Invalid value",
        }
    }
}

/// The value shown in a field error.
#[derive(Debug, Clone, PartialEq)]
pub enum BadValue {
    /// Not shown (objects and arrays since 1.35, and every `Required`/`Forbidden` error).
    Omitted,
    /// A type name in quotes, as the apiserver prints for evaluation errors (`"object"`).
    TypeName(&'static str),
    /// The value itself.
    Value(serde_json::Value),
    /// A value as apimachinery before 1.34 printed it: `"null"` for none, Go's `%#v` for objects
    /// and arrays (`map[string]interface {}{"name":"a"}`).
    GoSyntax(serde_json::Value),
}

/// One error at one field, as apimachinery's `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// The kind of error.
    pub kind: ErrorType,
    /// The field path (`spec.ports[0].name`, `spec.labels[app]`).
    pub path: String,
    /// The offending value.
    pub value: BadValue,
    /// What is wrong.
    pub detail: String,
}

/// Renders a scalar the way apimachinery does (Go `%v` for numbers and bools, `%q` for strings,
/// JSON for the rest).
fn write_value(f: &mut fmt::Formatter<'_>, v: &serde_json::Value) -> fmt::Result {
    match v {
        serde_json::Value::String(s) => write_go_quoted(f, s),
        // Go's `%v` of a float64 (`5e+09`), of an integer as it is.
        serde_json::Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(x) => f.write_str(&crate::eval::go::float::go_g(x)),
            None => write!(f, "{n}"),
        },
        serde_json::Value::Bool(b) => write!(f, "{b}"),
        other => write!(f, "{other}"),
    }
}

/// Go's `%#v` of an unstructured value (`map[string]interface {}` with sorted keys,
/// `[]interface {}`, `int64`, `float64`, `string`, `bool`, nil).
fn write_go_syntax(f: &mut fmt::Formatter<'_>, v: &serde_json::Value) -> fmt::Result {
    match v {
        serde_json::Value::Null => f.write_str("interface {}(nil)"),
        serde_json::Value::Object(m) => {
            f.write_str("map[string]interface {}{")?;
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_go_quoted(f, k)?;
                f.write_str(":")?;
                write_go_syntax(f, &m[k])?;
            }
            f.write_str("}")
        }
        serde_json::Value::Array(items) => {
            f.write_str("[]interface {}{")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_go_syntax(f, item)?;
            }
            f.write_str("}")
        }
        scalar => write_value(f, scalar),
    }
}

/// Go's `strconv.Quote`, as `%q` prints string values in field errors.
pub(crate) fn write_go_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    crd_cel_core::go::write_quoted(f, s)
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.kind.description())?;
        let show_value = !matches!(
            self.kind,
            ErrorType::Required
                | ErrorType::Forbidden
                | ErrorType::TooLong
                | ErrorType::InternalError
        );
        match (&self.value, show_value) {
            (BadValue::TypeName(t), true) => write!(f, ": \"{t}\"")?,
            (BadValue::Value(v), true) => {
                f.write_str(": ")?;
                write_value(f, v)?;
            }
            (BadValue::GoSyntax(serde_json::Value::Null), true) => f.write_str(": \"null\"")?,
            (BadValue::GoSyntax(v), true) => {
                f.write_str(": ")?;
                write_go_syntax(f, v)?;
            }
            _ => {}
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for FieldError {}

/// The errors of one validation, in the order found. `Display` matches the apiserver's
/// aggregate: one error as it is, several as `[e1, e2]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValidationErrors {
    /// The field errors.
    pub errors: Vec<FieldError>,
}

/// The text of apimachinery's error aggregate (`ErrorList.ToAggregate`): each distinct message
/// once, in order, bracketed when there are several. The errors themselves (the Status causes)
/// keep every one.
impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut seen = std::collections::HashSet::new();
        let distinct: Vec<String> = self
            .errors
            .iter()
            .map(ToString::to_string)
            .filter(|m| seen.insert(m.clone()))
            .collect();
        match distinct.as_slice() {
            [] => Ok(()),
            [one] => f.write_str(one),
            many => write!(f, "[{}]", many.join(", ")),
        }
    }
}

impl std::error::Error for ValidationErrors {}

impl ValidationErrors {
    /// Whether there are no errors.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The message of the apiserver's `Invalid` status for a resource:
    /// `Kind.group "name" is invalid: [errors]` (the errors as [`ValidationErrors`] prints them).
    pub fn status_message(&self, kind: &str, group: &str, name: &str) -> String {
        let qualified = if group.is_empty() {
            kind.to_owned()
        } else {
            format!("{kind}.{group}")
        };
        let mut out = format!("{qualified} {} is invalid", go_quoted(name));
        if !self.errors.is_empty() {
            out.push_str(": ");
            out.push_str(&self.to_string());
        }
        out
    }
}

/// Go's `%q` of a string, as a `String`.
pub(crate) use crd_cel_core::go::quote as go_quoted;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Two rules with one message on one node: the text lists it once, the causes keep both
    // (the oracle: `[spec: Invalid value: bad spec, spec: Invalid value: other]`, 3 causes).
    #[test]
    fn the_text_lists_each_distinct_error_once() {
        let e = |detail: &str| err(ErrorType::Invalid, "spec", BadValue::Omitted, detail);
        let errors = ValidationErrors {
            errors: vec![e("bad spec"), e("bad spec"), e("other")],
        };
        assert_eq!(
            errors.to_string(),
            "[spec: Invalid value: bad spec, spec: Invalid value: other]"
        );
        assert_eq!(errors.errors.len(), 3);
        let twice = ValidationErrors {
            errors: vec![e("bad spec"), e("bad spec")],
        };
        assert_eq!(twice.to_string(), "spec: Invalid value: bad spec");
    }

    // apimachinery before 1.34 (`field.Error.ErrorBody` of 1.33): nil as "null", compound
    // values with %#v, map keys sorted.
    #[test]
    fn values_of_older_apiservers_print_in_go_syntax() {
        let e = err(
            ErrorType::Duplicate,
            "spec.items[1]",
            BadValue::GoSyntax(json!({"name": "a", "id": 1, "on": true, "x": [1.5, null]})),
            "",
        );
        assert_eq!(
            e.to_string(),
            r#"spec.items[1]: Duplicate value: map[string]interface {}{"id":1, "name":"a", "on":true, "x":[]interface {}{1.5, interface {}(nil)}}"#
        );
        let null = err(
            ErrorType::Invalid,
            "<nil>",
            BadValue::GoSyntax(json!(null)),
            "d",
        );
        assert_eq!(null.to_string(), r#"<nil>: Invalid value: "null": d"#);
    }

    fn err(kind: ErrorType, path: &str, value: BadValue, detail: &str) -> FieldError {
        FieldError {
            kind,
            path: path.into(),
            value,
            detail: detail.into(),
        }
    }

    // The ≥1.35 renderings of `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`.
    #[test]
    fn display_matches_apimachinery() {
        let cases = [
            (
                err(
                    ErrorType::Invalid,
                    "root.foo",
                    BadValue::Value(json!("baz")),
                    "gotta be bar",
                ),
                r#"root.foo: Invalid value: "baz": gotta be bar"#,
            ),
            (
                err(
                    ErrorType::Invalid,
                    "root[1]",
                    BadValue::Value(json!(2)),
                    "gotta be odd",
                ),
                "root[1]: Invalid value: 2: gotta be odd",
            ),
            (
                err(
                    ErrorType::Invalid,
                    "root.f",
                    BadValue::Omitted,
                    "failed rule: self.m == 2",
                ),
                "root.f: Invalid value: failed rule: self.m == 2",
            ),
            (
                err(
                    ErrorType::Required,
                    "root.field3",
                    BadValue::Value(json!("x")),
                    "failed rule: x",
                ),
                "root.field3: Required value: failed rule: x",
            ),
            (
                err(ErrorType::Duplicate, "root.field2", BadValue::Omitted, ""),
                "root.field2: Duplicate value",
            ),
            (
                err(
                    ErrorType::Invalid,
                    "root",
                    BadValue::TypeName("object"),
                    "no such key: c evaluating rule: self.val['c'] == 1",
                ),
                r#"root: Invalid value: "object": no such key: c evaluating rule: self.val['c'] == 1"#,
            ),
        ];
        for (e, want) in cases {
            assert_eq!(e.to_string(), want);
        }
    }

    #[test]
    fn strings_are_go_quoted() {
        let e = err(
            ErrorType::Invalid,
            "a",
            BadValue::Value(json!("é\"\\\n\u{1}")),
            "d",
        );
        assert_eq!(e.to_string(), r#"a: Invalid value: "é\"\\\n\x01": d"#);
    }

    #[test]
    fn aggregate_is_bracketed_when_several() {
        let one = err(ErrorType::Forbidden, "a", BadValue::Omitted, "no");
        let mut errs = ValidationErrors {
            errors: vec![one.clone()],
        };
        assert_eq!(errs.to_string(), "a: Forbidden: no");
        errs.errors
            .push(err(ErrorType::Forbidden, "b", BadValue::Omitted, "no"));
        assert_eq!(errs.to_string(), "[a: Forbidden: no, b: Forbidden: no]");
    }

    // A manifest's rule that uses a function newer than the release emulated is a compile
    // error there, as the stored-expressions environment of that release reports it (the
    // 1.34.2 oracle: `includes` came with 1.35's environment); on the newest it runs.
    #[test]
    fn a_rule_newer_than_the_release_is_its_compile_error() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"words": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-validations": [
                    {"rule": "self.includes('stop') == false", "message": "no stop"}]}}}}});
        let object = json!({"apiVersion": "x/v1", "kind": "X", "spec": {"words": ["go"]}});
        let text = |minor| {
            let v = Validator::from_schema_json(&schema, true)
                .unwrap()
                .with_kubernetes_version(minor);
            v.validate_request(&object, None, Endpoint::Resource)
                .errors
                .to_string()
        };
        assert_eq!(text(37), "");
        assert_eq!(
            text(34),
            "spec.words: Invalid value: \"array\": rule compile error: compilation failed: ERROR: <input>:1:14: undeclared reference to 'includes' (in container '')\n | self.includes('stop') == false\n | .............^"
        );
        // Back to the newest: the program runs again.
        let v = Validator::from_schema_json(&schema, true)
            .unwrap()
            .with_kubernetes_version(34)
            .with_kubernetes_version(37);
        assert!(
            v.validate_request(&object, None, Endpoint::Resource)
                .errors
                .is_empty()
        );
    }
}
