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
//! rules' ([`SchemaNode`]) and the OpenAPI checks' (`openapi::Check`, which implements
//! [`Correlated`] beside its definition).

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
