//! The CR handler's decoding of `metadata` into Go's `metav1.ObjectMeta`
//! (`schemaobjectmeta.GetObjectMetaWithOptions` in apiextensions-apiserver, with
//! `sigs.k8s.io/json`): a field of the wrong JSON type fails the request before anything is
//! validated, with encoding/json's `UnmarshalTypeError` text.

use serde_json::Value as Json;

/// The Go type of each `ObjectMeta` field, by its JSON name, as an `UnmarshalTypeError` names it.
#[derive(Clone, Copy)]
enum Go {
    String(&'static str),
    Int64,
    /// `metav1.Time`: its `UnmarshalJSON` reads a string.
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

/// The error decoding `metadata` into `ObjectMeta` gives, if any. Go reports the first error
/// in the document's key order; keys are visited here in sorted order, so with several
/// wrongly typed fields the one named may differ.
pub(crate) fn object_meta_error(object: &Json) -> Option<String> {
    let metadata = object.get("metadata")?;
    match metadata {
        Json::Null => None,
        Json::Object(_) => fields(metadata, "ObjectMeta", "", OBJECT_META),
        other => Some(format!(
            "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
            json_kind(other)
        )),
    }
}

fn fields(object: &Json, strukt: &str, prefix: &str, table: &[(&str, Go)]) -> Option<String> {
    let map = object.as_object()?;
    map.iter().find_map(|(key, value)| {
        let (_, go) = table.iter().find(|(name, _)| name == key)?;
        let field = format!("{prefix}{key}");
        value_error(value, strukt, &field, *go)
    })
}

fn value_error(v: &Json, strukt: &str, field: &str, go: Go) -> Option<String> {
    if v.is_null() {
        return None;
    }
    match go {
        Go::String(ty) => (!v.is_string()).then(|| type_error(v, strukt, field, ty)),
        Go::Time => (!v.is_string()).then(|| type_error(v, strukt, field, "string")),
        Go::Bool => (!v.is_boolean()).then(|| type_error(v, strukt, field, "bool")),
        Go::Int64 => match v {
            Json::Number(n) if n.is_i64() => None,
            // A number that is not an int64 names its literal.
            Json::Number(n) => Some(format!(
                "json: cannot unmarshal number {n} into Go struct field {strukt}.{field} of type int64"
            )),
            _ => Some(type_error(v, strukt, field, "int64")),
        },
        Go::StringMap => match v {
            Json::Object(m) => m
                .values()
                .find(|x| !x.is_string() && !x.is_null())
                .map(|x| type_error(x, strukt, field, "string")),
            _ => Some(type_error(v, strukt, field, "map[string]string")),
        },
        Go::StringList => match v {
            Json::Array(items) => items
                .iter()
                .find(|x| !x.is_string() && !x.is_null())
                .map(|x| type_error(x, strukt, field, "string")),
            _ => Some(type_error(v, strukt, field, "[]string")),
        },
        Go::List(item_type, table) => match v {
            Json::Array(items) => items.iter().find_map(|item| match item {
                Json::Null => None,
                Json::Object(_) => {
                    let inner = item_type.trim_start_matches("v1.");
                    fields(item, inner, &format!("{field}."), table)
                }
                other => Some(type_error(other, strukt, field, item_type)),
            }),
            _ => Some(type_error(v, strukt, field, &format!("[]{item_type}"))),
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
}
