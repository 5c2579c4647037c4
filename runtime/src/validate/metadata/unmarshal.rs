//! The CR handler's decoding of `metadata` into Go's `metav1.ObjectMeta`
//! (`schemaobjectmeta.GetObjectMetaWithOptions` in apiextensions-apiserver, with
//! `sigs.k8s.io/json`): a field of the wrong JSON type, or a timestamp Go's `time.Parse` refuses,
//! fails the request before anything is validated, with encoding/json's `UnmarshalTypeError`
//! text or `time.Parse`'s.

use crd_cel_core::go::time::parse_rfc3339;
use serde_json::Value as Json;

/// The Go type of each `ObjectMeta` field, by its JSON name, as an `UnmarshalTypeError` names it.
#[derive(Clone, Copy)]
enum Go {
    String(&'static str),
    Int64,
    /// `metav1.Time`: its `UnmarshalJSON` reads a string and parses it as RFC 3339.
    Time,
    StringMap,
    StringList,
    List(&'static str, &'static [(&'static str, Go)]),
    Bool,
    /// `metav1.FieldsV1`: any JSON.
    Any,
}

const OWNER_REFERENCE: &[(&str, Go)] = &[
    ("apiVersion", Go::String("string")),
    ("kind", Go::String("string")),
    ("name", Go::String("string")),
    ("uid", Go::String("types.UID")),
    ("controller", Go::Bool),
    ("blockOwnerDeletion", Go::Bool),
];

const MANAGED_FIELDS_ENTRY: &[(&str, Go)] = &[
    ("manager", Go::String("string")),
    ("operation", Go::String("v1.ManagedFieldsOperationType")),
    ("apiVersion", Go::String("string")),
    ("time", Go::Time),
    ("fieldsType", Go::String("string")),
    ("fieldsV1", Go::Any),
    ("subresource", Go::String("string")),
];

const OBJECT_META: &[(&str, Go)] = &[
    ("name", Go::String("string")),
    ("generateName", Go::String("string")),
    ("namespace", Go::String("string")),
    ("selfLink", Go::String("string")),
    ("uid", Go::String("types.UID")),
    ("resourceVersion", Go::String("string")),
    ("generation", Go::Int64),
    ("creationTimestamp", Go::Time),
    ("deletionTimestamp", Go::Time),
    ("deletionGracePeriodSeconds", Go::Int64),
    ("labels", Go::StringMap),
    ("annotations", Go::StringMap),
    (
        "ownerReferences",
        Go::List("v1.OwnerReference", OWNER_REFERENCE),
    ),
    ("finalizers", Go::StringList),
    (
        "managedFields",
        Go::List("v1.ManagedFieldsEntry", MANAGED_FIELDS_ENTRY),
    ),
];

/// How encoding/json names a JSON value in `cannot unmarshal X`.
fn json_kind(v: &Json) -> String {
    match v {
        Json::Null => "null".to_owned(),
        Json::Bool(_) => "bool".to_owned(),
        Json::Number(_) => "number".to_owned(),
        Json::String(_) => "string".to_owned(),
        Json::Array(_) => "array".to_owned(),
        Json::Object(_) => "object".to_owned(),
    }
}

fn type_error(value: &Json, strukt: &str, field: &str, ty: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go struct field {strukt}.{field} of type {ty}",
        json_kind(value)
    )
}

/// What decoding one value found. encoding/json keeps the first type error and decodes on; an
/// error from a type's own `UnmarshalJSON` (`metav1.Time`'s time parsing) stops the decoding
/// and is the one reported, whatever type error came before.
enum Found {
    Type(String),
    Stop(String),
}

/// The error decoding `metadata` into `ObjectMeta` gives, if any. The apiserver marshals the
/// metadata map to JSON first (keys sorted, as they are here) and unmarshals that.
pub(crate) fn object_meta_error(object: &Json) -> Option<String> {
    metadata_error(object.get("metadata")?)
}

/// The error decoding `metadata` (the value itself, a resource's or an embedded one's) into
/// `ObjectMeta` gives, if any.
pub(crate) fn metadata_error(metadata: &Json) -> Option<String> {
    let found = match metadata {
        Json::Null => None,
        Json::Object(_) => fields(metadata, "ObjectMeta", "", OBJECT_META),
        other => Some(Found::Type(format!(
            "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
            json_kind(other)
        ))),
    };
    found.map(|(Found::Type(e) | Found::Stop(e))| e)
}

/// The first type error among the values, unless a later one stops the decoding.
fn first(found: impl Iterator<Item = Option<Found>>) -> Option<Found> {
    let mut saved = None;
    for f in found.flatten() {
        match f {
            Found::Stop(_) => return Some(f),
            Found::Type(_) if saved.is_none() => saved = Some(f),
            Found::Type(_) => {}
        }
    }
    saved
}

fn fields(object: &Json, strukt: &str, prefix: &str, table: &[(&str, Go)]) -> Option<Found> {
    let map = object.as_object()?;
    first(map.iter().map(|(key, value)| {
        let (_, go) = table.iter().find(|(name, _)| name == key)?;
        let field = format!("{prefix}{key}");
        value_error(value, strukt, &field, *go)
    }))
}

fn value_error(v: &Json, strukt: &str, field: &str, go: Go) -> Option<Found> {
    if v.is_null() {
        return None;
    }
    let mismatch = |x: &Json, ty: &str| Some(Found::Type(type_error(x, strukt, field, ty)));
    match go {
        Go::String(ty) if !v.is_string() => mismatch(v, ty),
        Go::String(_) => None,
        Go::Time => match v {
            Json::String(s) => parse_rfc3339(s).err().map(Found::Stop),
            _ => mismatch(v, "string"),
        },
        Go::Bool if !v.is_boolean() => mismatch(v, "bool"),
        Go::Bool => None,
        Go::Int64 => match v {
            Json::Number(n) if n.is_i64() => None,
            // A number that is not an int64 names its literal.
            Json::Number(n) => Some(Found::Type(format!(
                "json: cannot unmarshal number {n} into Go struct field {strukt}.{field} of type int64"
            ))),
            _ => mismatch(v, "int64"),
        },
        Go::StringMap => match v {
            Json::Object(m) => m
                .values()
                .find(|x| !x.is_string() && !x.is_null())
                .and_then(|x| mismatch(x, "string")),
            _ => mismatch(v, "map[string]string"),
        },
        Go::StringList => match v {
            Json::Array(items) => items
                .iter()
                .find(|x| !x.is_string() && !x.is_null())
                .and_then(|x| mismatch(x, "string")),
            _ => mismatch(v, "[]string"),
        },
        Go::List(item_type, table) => match v {
            Json::Array(items) => first(items.iter().map(|item| match item {
                Json::Null => None,
                Json::Object(_) => {
                    let inner = item_type.trim_start_matches("v1.");
                    fields(item, inner, &format!("{field}."), table)
                }
                other => mismatch(other, item_type),
            })),
            _ => mismatch(v, &format!("[]{item_type}")),
        },
        Go::Any => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(metadata: Json) -> Option<String> {
        object_meta_error(&json!({ "metadata": metadata }))
    }

    /// The texts of the oracle (the apiserver's decoding, v0.37.2) for each case.
    #[test]
    fn wrongly_typed_fields_give_go_s_unmarshal_errors() {
        let cases = [
            (
                json!({"name": "a", "labels": {"x": 1}}),
                "json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string",
            ),
            (
                json!({"name": "a", "generation": "1"}),
                "json: cannot unmarshal string into Go struct field ObjectMeta.generation of type int64",
            ),
            (
                json!({"name": "a", "finalizers": "x"}),
                "json: cannot unmarshal string into Go struct field ObjectMeta.finalizers of type []string",
            ),
            (
                json!({"name": "a", "ownerReferences": [{"apiVersion": 1, "kind": "K"}]}),
                "json: cannot unmarshal number into Go struct field OwnerReference.ownerReferences.apiVersion of type string",
            ),
            (
                json!({"name": "a", "creationTimestamp": 5}),
                "json: cannot unmarshal number into Go struct field ObjectMeta.creationTimestamp of type string",
            ),
            (
                json!({"name": "a", "uid": 5}),
                "json: cannot unmarshal number into Go struct field ObjectMeta.uid of type types.UID",
            ),
            (
                json!({"name": "a", "labels": []}),
                "json: cannot unmarshal array into Go struct field ObjectMeta.labels of type map[string]string",
            ),
            (
                json!("x"),
                "json: cannot unmarshal string into Go value of type v1.ObjectMeta",
            ),
        ];
        for (metadata, want) in cases {
            assert_eq!(error(metadata.clone()).as_deref(), Some(want), "{metadata}");
        }
        assert_eq!(
            error(json!({"name": "a", "labels": {"x": "y"}, "generation": 2})),
            None
        );
        assert_eq!(error(json!({"name": null, "unknown": 1})), None);
    }

    /// A timestamp's parse error stops the decoding: it is reported even after a type error
    /// (the oracle's texts, v0.37.2).
    #[test]
    fn a_bad_timestamp_stops_the_decoding() {
        assert_eq!(
            error(json!({"creationTimestamp": "2024-13-01T00:00:00Z", "labels": {"x": 1}}))
                .as_deref(),
            Some("parsing time \"2024-13-01T00:00:00Z\": month out of range")
        );
        assert_eq!(
            error(json!({"annotations": {"x": 1}, "managedFields": [{"time": "x"}]})).as_deref(),
            Some(
                "parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\""
            )
        );
        assert_eq!(
            error(json!({"deletionTimestamp": "2024-01-01T9:00:00,5+24:00"})),
            None
        );
    }
}
