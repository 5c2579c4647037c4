//! The type and object metadata of embedded resources (`x-kubernetes-embedded-resource`), as
//! the CR strategy checks them after the schema (`schemaobjectmeta.Validate` in
//! apiextensions-apiserver's `pkg/apiserver/schema/objectmeta/validation.go`): `apiVersion`
//! and `kind` are required and well-formed, `metadata` decodes as `ObjectMeta` and passes
//! `ValidateObjectMeta`. The resource root's own are the request path's (`metadata/`).

use serde_json::Value as Json;

use super::metadata::{self, Meta, NameFn};
use super::path::Path;
use super::{BadValue, ErrorType, FieldError};
use crate::tree::SchemaNode;

/// Appends the errors of every embedded resource under `value` (the object, at the root).
pub(crate) fn check(node: &SchemaNode, value: &Json, minor: u8, out: &mut Vec<FieldError>) {
    walk(node, &Path::ROOT, value, minor, out, true);
}

fn walk(
    node: &SchemaNode,
    at: &Path<'_>,
    value: &Json,
    minor: u8,
    out: &mut Vec<FieldError>,
    root: bool,
) {
    match value {
        Json::Object(map) => {
            if node.embedded_resource && !root {
                resource(at, map, minor, out);
            }
            for (key, v) in map {
                if let Some(child) = node.property(key) {
                    walk(child, &Path::Child(at, key), v, minor, out, false);
                } else if let Some(values) = &node.additional_properties {
                    walk(values, &Path::Key(at, key), v, minor, out, false);
                }
            }
        }
        Json::Array(items) => {
            if let Some(item) = &node.items {
                for (i, v) in items.iter().enumerate() {
                    walk(item, &Path::Index(at, i), v, minor, out, false);
                }
            }
        }
        _ => {}
    }
}

/// The CR decoder's coercion of embedded resources (`schemaobjectmeta.CoerceWithOptions`): an
/// `apiVersion` or `kind` that is not a string, or a `metadata` that does not decode as
/// `ObjectMeta`, fails the request's decoding with that field error. The decoder stops at the
/// first it meets in Go's map order (random); keys are visited in sorted order here.
pub(crate) fn coerce_error(node: &SchemaNode, value: &Json) -> Option<FieldError> {
    coerce(node, &Path::ROOT, value, true)
}

fn coerce(node: &SchemaNode, at: &Path<'_>, value: &Json, root: bool) -> Option<FieldError> {
    match value {
        Json::Object(map) => map.iter().find_map(|(key, v)| {
            if node.embedded_resource && !root {
                let invalid = |detail: String| {
                    Some(error(
                        ErrorType::Invalid,
                        Path::Child(at, key).field(),
                        BadValue::Value(v.clone()),
                        detail,
                    ))
                };
                match key.as_str() {
                    "apiVersion" | "kind" if !v.is_string() => {
                        return invalid("must be a string".into());
                    }
                    "metadata" => {
                        if let Some(e) = metadata::metadata_error(v) {
                            return invalid(e);
                        }
                    }
                    _ => {}
                }
            }
            match (node.property(key), &node.additional_properties) {
                (Some(child), _) => coerce(child, &Path::Child(at, key), v, false),
                (None, Some(values)) => coerce(values, &Path::Key(at, key), v, false),
                (None, None) => None,
            }
        }),
        Json::Array(items) => node.items.as_ref().and_then(|item| {
            items
                .iter()
                .enumerate()
                .find_map(|(i, v)| coerce(item, &Path::Index(at, i), v, false))
        }),
        _ => None,
    }
}

fn error(kind: ErrorType, path: String, value: BadValue, detail: impl Into<String>) -> FieldError {
    FieldError {
        kind,
        path,
        value,
        detail: detail.into(),
    }
}

/// `validateEmbeddedResource`, on an object [`coerce_error`] let through: its `apiVersion` and
/// `kind` are strings and its `metadata` decodes (the decoder refused the others).
fn resource(
    at: &Path<'_>,
    map: &serde_json::Map<String, Json>,
    minor: u8,
    out: &mut Vec<FieldError>,
) {
    let field = |name: &str| Path::Child(at, name).field();
    for key in ["apiVersion", "kind"] {
        if !map.contains_key(key) {
            out.push(error(
                ErrorType::Required,
                field(key),
                BadValue::Value(Json::from("")),
                "",
            ));
        }
    }
    let invalid = |name: &str, v: &Json, detail: String| {
        error(
            ErrorType::Invalid,
            field(name),
            BadValue::Value(v.clone()),
            detail,
        )
    };
    for (key, v) in map {
        match key.as_str() {
            "apiVersion" => match v.as_str() {
                None => {}
                Some("") => out.push(invalid(key, v, "must not be empty".into())),
                // `schema.ParseGroupVersion`: at most one `/` ("/" alone is the empty version).
                Some(s) if s != "/" && s.matches('/').count() > 1 => {
                    out.push(invalid(
                        key,
                        v,
                        format!("unexpected GroupVersion string: {s}"),
                    ));
                }
                Some(_) => {}
            },
            "kind" => match v.as_str() {
                None => {}
                Some("") => out.push(invalid(key, v, "must not be empty".into())),
                Some(s) => {
                    let errs = metadata::is_dns1035_label(&s.to_lowercase());
                    if !errs.is_empty() {
                        out.push(invalid(
                            key,
                            v,
                            format!(
                                "may have mixed case, but should otherwise match: {}",
                                errs.join(",")
                            ),
                        ));
                    }
                }
            },
            "metadata" => {
                // `ValidateObjectMeta` with a made-up name when there is none, namespaced when
                // a namespace is given.
                let mut meta = match v {
                    Json::Object(m) => m.clone(),
                    _ => serde_json::Map::new(),
                };
                if meta
                    .get("name")
                    .and_then(Json::as_str)
                    .is_none_or(str::is_empty)
                {
                    meta.insert("name".into(), Json::from("fakename"));
                }
                let namespaced = meta
                    .get("namespace")
                    .and_then(Json::as_str)
                    .is_some_and(|n| !n.is_empty());
                let object = serde_json::json!({ "metadata": meta });
                let mut errors = Vec::new();
                metadata::validate(
                    Meta::of(&object),
                    namespaced,
                    NameFn::PathSegment,
                    minor,
                    &mut errors,
                );
                // Those paths start at `metadata`: put them under the embedded resource.
                let prefix = at.field();
                for mut e in errors {
                    if prefix != "<nil>" {
                        e.path = format!("{prefix}.{}", e.path);
                    }
                    out.push(e);
                }
            }
            _ => {}
        }
    }
}
