//! Whether a value is unchanged on update, for ratcheting, as the apiserver decides it
//! (`k8s.io/apiserver/pkg/cel/common/equality.go`, `CorrelatedObject.CachedDeepEqual`): not
//! plain JSON equality but a walk of the schema. An object is unchanged when it has the same
//! number of keys, each key of the new value is in the old one and declared by the schema (a
//! property, or an `additionalProperties` schema) and its value is unchanged; a key the schema
//! does not declare (kept by `x-kubernetes-preserve-unknown-fields`, or a resource's
//! `metadata.uid`) counts as a change. A `map` list is unchanged when each new item has an old
//! item with its keys and that item is unchanged, whatever the order; other lists and scalars
//! compare as values. So a resource root, whose stored `metadata` always holds fields no schema
//! declares, never ratchets, while `spec` does. Written once for the two trees that ratchet: the
//! rules' ([`SchemaNode`]) and the OpenAPI checks' ([`Check`]).

use super::openapi::Check;
use crate::model::Type;
use crate::tree::{ListKind, SchemaNode};
use serde_json::Value as Json;

/// A schema node as the comparison walks it.
pub(crate) trait Correlated: Sized {
    /// The schema of the value at `key` when the schema declares it.
    fn declared(&self, key: &str) -> Option<&Self>;
    /// The items' schema.
    fn item_schema(&self) -> Option<&Self>;
    /// The keys of a `x-kubernetes-list-type: map` list.
    fn list_map_keys(&self) -> Option<Vec<&str>>;
}

/// Whether `new` is unchanged from `old` under `schema` (see the module).
pub(crate) fn unchanged<S: Correlated>(schema: &S, new: &Json, old: &Json) -> bool {
    match (new, old) {
        (Json::Array(n), Json::Array(o)) => {
            if n.len() != o.len() {
                return false;
            }
            match (schema.list_map_keys(), schema.item_schema()) {
                (Some(keys), Some(items)) => n.iter().all(|item| {
                    let same_keys = |o: &&Json| {
                        keys.iter()
                            .all(|k| o.get(k).is_some() && o.get(k) == item.get(k))
                    };
                    o.iter()
                        .find(same_keys)
                        .is_some_and(|old_item| unchanged(items, item, old_item))
                }),
                _ => n == o,
            }
        }
        (Json::Object(n), Json::Object(o)) => {
            n.len() == o.len()
                && n.iter().all(|(k, v)| match (o.get(k), schema.declared(k)) {
                    (Some(ov), Some(child)) => unchanged(child, v, ov),
                    _ => false,
                })
        }
        (a, b) => a == b,
    }
}

impl Correlated for SchemaNode {
    fn declared(&self, key: &str) -> Option<&SchemaNode> {
        // A resource's implicit `apiVersion`, `kind` and `metadata` are not in the schema.
        if self.type_meta && crate::tree::is_type_or_object_meta(key) {
            return None;
        }
        self.property(key).or_else(|| {
            // `additionalProperties: true` has no schema: its keys are not declared.
            self.additional_properties.as_deref().filter(|a| {
                !matches!(a.ty, Type::Any) || a.int_or_string || a.preserve_unknown_fields
            })
        })
    }

    fn item_schema(&self) -> Option<&SchemaNode> {
        self.items.as_deref()
    }

    fn list_map_keys(&self) -> Option<Vec<&str>> {
        match &self.list_kind {
            ListKind::Map(keys) => Some(keys.iter().map(|k| &**k).collect()),
            _ => None,
        }
    }
}

impl Correlated for Check {
    fn declared(&self, key: &str) -> Option<&Check> {
        self.property(key).or(self.additional.as_deref())
    }

    fn item_schema(&self) -> Option<&Check> {
        self.items.as_deref()
    }

    fn list_map_keys(&self) -> Option<Vec<&str>> {
        self.map_keys
            .as_ref()
            .filter(|k| !k.is_empty())
            .map(|k| k.iter().map(String::as_str).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: Json) -> Check {
        Check::compile(&schema)
    }

    // What the real kube-apiserver 1.37 answered (tests/e2e/ratchet): an unchanged object with
    // keys its schema does not declare is changed; a map list reordered is not.
    #[test]
    fn undeclared_keys_are_changes_and_map_lists_correlate_by_key() {
        let spec = check(json!({
            "type": "object",
            "properties": {
                "x": {"type": "string"},
                "items": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}},
                },
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        }));
        let v = json!({"x": "a", "items": [{"name": "a", "v": 1}, {"name": "b", "v": 2}], "tags": ["p", "q"]});
        assert!(unchanged(&spec, &v, &v));
        let swapped = json!({"x": "a", "items": [{"name": "b", "v": 2}, {"name": "a", "v": 1}], "tags": ["p", "q"]});
        assert!(unchanged(&spec, &swapped, &v));
        let tags_swapped = json!({"x": "a", "items": [{"name": "a", "v": 1}, {"name": "b", "v": 2}], "tags": ["q", "p"]});
        assert!(!unchanged(&spec, &tags_swapped, &v));
        let undeclared = json!({"x": "a", "y": 1});
        assert!(!unchanged(&spec, &undeclared, &undeclared));
        let preserved = check(
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"x": {"type": "string"}}}),
        );
        assert!(!unchanged(&preserved, &undeclared, &undeclared));
        let map = check(json!({"type": "object", "additionalProperties": {"type": "integer"}}));
        assert!(unchanged(&map, &json!({"a": 1}), &json!({"a": 1})));
        assert!(!unchanged(&map, &json!({"a": 1}), &json!({"a": 2})));
        assert!(!unchanged(&map, &json!({"a": 1}), &json!({"b": 1})));
        assert!(unchanged(&spec, &json!(null), &json!(null)));
        assert!(!unchanged(&spec, &json!({}), &json!(null)));
    }
}
