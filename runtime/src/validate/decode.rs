//! What the apiserver's custom-resource handler does to an object before validating it
//! (`k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go`, the corpus README): unknown fields are pruned, `null`s of non-nullable
//! fields without a default are dropped, and structural defaults are applied, top-down.

use serde_json::{Map, Value as Json};

use super::path::Path;

fn props(schema: &Json) -> Option<&Map<String, Json>> {
    schema.get("properties").and_then(Json::as_object)
}

fn flag(schema: &Json, key: &str) -> bool {
    schema.get(key).and_then(Json::as_bool) == Some(true)
}

/// The warning for a pruned field.
fn unknown(at: &Path<'_>, name: &str) -> String {
    format!("unknown field \"{}\"", Path::Child(at, name).field())
}

/// Prunes, drops non-nullable nulls and defaults `value` in place, for the schema `schema`
/// (`resource`: a resource root, whose `apiVersion`, `kind` and `metadata` are kept). Each pruned
/// field is reported as the apiserver's warning (`unknown field "spec.x"`), named from `path`.
pub(crate) fn decode(
    value: &mut Json,
    schema: &Json,
    resource: bool,
    path: &str,
    warnings: &mut Vec<String>,
) {
    decode_at(value, schema, resource, &Path::Root(Some(path)), warnings);
}

/// [`decode`] at `at`: the path is rendered only for a pruned field's warning (building it for
/// every node cost a large part of decoding a valid object).
fn decode_at(
    value: &mut Json,
    schema: &Json,
    resource: bool,
    at: &Path<'_>,
    warnings: &mut Vec<String>,
) {
    match value {
        Json::Object(obj) => {
            let resource = resource || flag(schema, "x-kubernetes-embedded-resource");
            let properties = props(schema);
            let keys = keys(schema);
            if keys == Keys::Schemaless {
                for (k, v) in obj.iter_mut() {
                    prune_schemaless(v, &Path::Child(at, k), warnings);
                }
            } else if let Keys::Declared { prunes } = keys {
                if prunes {
                    obj.retain(|k, _| {
                        let keep = properties.is_some_and(|p| p.contains_key(k))
                            || (resource && crate::tree::is_type_or_object_meta(k));
                        if !keep {
                            warnings.push(unknown(at, k));
                        }
                        keep
                    });
                }
                if let Some(p) = properties {
                    for (name, prop) in p {
                        let default = default_of(prop);
                        let nullable = flag(prop, "nullable");
                        match obj.get(name) {
                            Some(Json::Null) if !nullable => match default {
                                Some(d) => {
                                    obj.insert(name.clone(), d.clone());
                                }
                                None => {
                                    obj.remove(name);
                                }
                            },
                            None => {
                                if let Some(d) = default {
                                    obj.insert(name.clone(), d.clone());
                                }
                            }
                            _ => {}
                        }
                        // The apiserver's pruning never descends into a resource's type and
                        // object meta, whatever the schema declares for them (`metaFields` in
                        // apiextensions-apiserver's `schema/pruning/algorithm.go`).
                        if resource && crate::tree::is_type_or_object_meta(name) {
                            continue;
                        }
                        if let Some(value) = obj.get_mut(name) {
                            decode_at(value, prop, false, &Path::Child(at, name), warnings);
                        }
                    }
                }
            } else if let Some(values) = schema.get("additionalProperties") {
                let nullable = flag(values, "nullable");
                let default = default_of(values);
                obj.retain(|_, v| !(v.is_null() && !nullable && default.is_none()));
                for (k, v) in obj.iter_mut() {
                    if v.is_null()
                        && !nullable
                        && let Some(d) = default
                    {
                        *v = d.clone();
                    }
                    // The apiserver names a map's keys as fields (`spec.m.key.x`).
                    decode_at(v, values, false, &Path::Child(at, k), warnings);
                }
            }
        }
        Json::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    decode_at(item, item_schema, false, &Path::Index(at, i), warnings);
                }
            }
        }
        _ => {}
    }
}

/// How decoding treats the keys of an object at `schema`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Keys {
    /// `additionalProperties: true` without properties: any key, each value pruned as having
    /// no schema.
    Schemaless,
    /// Declared properties (or none, and no `additionalProperties`): the others are pruned
    /// unless `x-kubernetes-preserve-unknown-fields` (a resource's type and object meta are
    /// kept); a `null` where the property is not nullable is dropped or defaulted, an absent
    /// property with a `default` is defaulted.
    Declared {
        /// Undeclared keys are pruned.
        prunes: bool,
    },
    /// A map (`additionalProperties` a schema): every key kept, `null` values dropped or
    /// defaulted where the values are not nullable.
    Map,
}

/// [`Keys`] of an object at `schema`.
pub(crate) fn keys(schema: &Json) -> Keys {
    let declared = props(schema).is_some();
    match schema.get("additionalProperties") {
        Some(Json::Bool(true)) if !declared => Keys::Schemaless,
        Some(values) if values.is_object() && !declared => Keys::Map,
        _ => Keys::Declared {
            prunes: !flag(schema, "x-kubernetes-preserve-unknown-fields"),
        },
    }
}

/// The `default` of a property's (or map values') schema, which decoding applies.
pub(crate) fn default_of(schema: &Json) -> Option<&Json> {
    schema.get("default")
}

/// The apiserver's `prune(x, nil)`: every field of an object is unknown, items of a list are
/// pruned the same way, scalars stay.
fn prune_schemaless(value: &mut Json, at: &Path<'_>, warnings: &mut Vec<String>) {
    match value {
        Json::Object(obj) => {
            for k in obj.keys() {
                warnings.push(unknown(at, k));
            }
            obj.clear();
        }
        Json::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                prune_schemaless(item, &Path::Index(at, i), warnings);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prunes_drops_nulls_and_defaults() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "default": "x"},
                "b": {"type": "string"},
                "n": {"type": "string", "nullable": true},
                "o": {"type": "object", "properties": {"k": {"type": "integer", "default": 3}}},
                "l": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "string", "default": "TCP"}}}},
                "m": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
            }
        });
        let mut v = json!({
            "b": null, "n": null, "unknown": 1, "o": {}, "l": [{}, {"p": "UDP"}],
            "m": {"x": null, "y": "z"}, "free": {"anything": true}
        });
        let mut warnings = Vec::new();
        decode(&mut v, &schema, true, "", &mut warnings);
        assert_eq!(warnings, ["unknown field \"unknown\""]);
        assert_eq!(
            v,
            json!({
                "a": "x", "n": null, "o": {"k": 3}, "l": [{"p": "TCP"}, {"p": "UDP"}],
                "m": {"y": "z"}, "free": {"anything": true}
            })
        );
        let mut root =
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "n"}, "junk": 1});
        decode(
            &mut root,
            &json!({"type": "object", "properties": {}}),
            true,
            "",
            &mut warnings,
        );
        assert_eq!(warnings[1], "unknown field \"junk\"");
        assert_eq!(
            root,
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "n"}})
        );
    }

    // controller-gen declares `metadata: {type: object}` at the root of every CRD: the root's
    // metadata is still not pruned by it (nor an embedded resource's).
    #[test]
    fn declared_metadata_of_a_resource_is_not_pruned() {
        let meta_declared = json!({"type": "object", "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {
                "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                    "properties": {"metadata": {"type": "object"}}},
                "plain": {"type": "object", "properties": {"metadata": {"type": "object"}}}
            }}
        }});
        let mut v = json!({
            "apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n", "labels": {"a": "b"}},
            "spec": {
                "template": {"metadata": {"name": "t"}},
                "plain": {"metadata": {"name": "p"}}
            }
        });
        let mut warnings = Vec::new();
        decode(&mut v, &meta_declared, true, "", &mut warnings);
        assert_eq!(warnings, ["unknown field \"spec.plain.metadata.name\""]);
        assert_eq!(v["metadata"], json!({"name": "n", "labels": {"a": "b"}}));
        assert_eq!(v["spec"]["template"]["metadata"], json!({"name": "t"}));
        assert_eq!(v["spec"]["plain"]["metadata"], json!({}));
    }
}
