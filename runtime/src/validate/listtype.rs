//! The list-type checks the apiserver runs before CEL (`schema/listtype/validation.go`,
//! `k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go`): `set` items unique, `map` items objects with unique key tuples.

use serde_json::{Map, Value as Json};

use super::{BadValue, ErrorType, FieldError};
use crate::eval::value::ListKind;
use crate::tree::SchemaNode;

use super::path::Path;

/// The errors of `value` under `s`, in the apiserver's order.
pub(crate) fn check(s: &SchemaNode, path: &Path<'_>, value: &Json, out: &mut Vec<FieldError>) {
    match value {
        Json::Object(obj) => {
            if let Some(values) = &s.additional_properties {
                for (k, v) in obj {
                    check(values, &Path::Key(path, k), v, out);
                }
            }
            for (k, v) in obj {
                if let Some(p) = s.property(k) {
                    check(p, &Path::Child(path, k), v, out);
                }
            }
        }
        Json::Array(items) => {
            match &s.list_kind {
                ListKind::Set => {
                    for i in second_occurrences(items) {
                        out.push(duplicate(Path::Index(path, i).field(), items[i].clone()));
                    }
                }
                ListKind::Map(keys) => map_list(path, keys, items, out),
                ListKind::Plain => {}
            }
            if let Some(item) = &s.items {
                for (i, v) in items.iter().enumerate() {
                    check(item, &Path::Index(path, i), v, out);
                }
            }
        }
        _ => {}
    }
}

fn duplicate(path: String, value: Json) -> FieldError {
    FieldError {
        kind: ErrorType::Duplicate,
        path,
        value: BadValue::Value(value),
        detail: String::new(),
    }
}

/// Indices of the second occurrence of each repeated item (later repeats are not reported).
fn second_occurrences<T: PartialEq>(items: &[T]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, x) in items.iter().enumerate() {
        let mut before = items[..i].iter().filter(|y| *y == x);
        if before.next().is_some() && before.next().is_none() {
            out.push(i);
        }
    }
    out
}

fn map_list(
    path: &Path<'_>,
    keys: &[std::sync::Arc<str>],
    items: &[Json],
    out: &mut Vec<FieldError>,
) {
    for (i, x) in items.iter().enumerate() {
        if !x.is_null() && !x.is_object() {
            out.push(FieldError {
                kind: ErrorType::Invalid,
                path: Path::Index(path, i).field(),
                value: BadValue::Value(x.clone()),
                detail: "must be an object for an array of list-type map".into(),
            });
            return;
        }
    }
    // Each item's key: the key fields it has (a missing one is "unspecified", so two items
    // without keys are duplicates of each other).
    let tuples: Vec<Vec<Option<&Json>>> = items
        .iter()
        .map(|x| keys.iter().map(|k| x.get(&**k)).collect())
        .collect();
    for i in second_occurrences(&tuples) {
        let mut m = Map::new();
        for (k, v) in keys.iter().zip(&tuples[i]) {
            if let Some(v) = v {
                m.insert(k.to_string(), (*v).clone());
            }
        }
        out.push(duplicate(Path::Index(path, i).field(), Json::Object(m)));
    }
}
