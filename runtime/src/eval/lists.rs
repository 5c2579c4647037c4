//! Equality, and `+` on lists, with the apiserver's list-type semantics (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`,
//! 5.5): a set or map list on the left of `==` or `+` compares and combines by element identity
//! or by key; everything else is CEL's ordinary (heterogeneous) equality.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::error::EvalError;
use super::value::{Key, List, ListKind, Map, Value};
use crd_cel_core::check::escaped_is;

/// The identity of a set element or map-list key field: the Go value the apiserver hashes.
/// `1` and `1.0` differ; lists and maps are not identities.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Ident {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(u64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    Duration(i64),
    Timestamp(i64, u32),
    Other(String),
}

fn ident(v: &Value) -> Result<Ident, EvalError> {
    Ok(match v {
        Value::List(_) | Value::Map(_) => {
            return Err(EvalError::new(
                "listSet operations are only supported on lists of scalar values",
            ));
        }
        Value::Null => Ident::Nil,
        Value::Bool(b) => Ident::Bool(*b),
        Value::Int(i) => Ident::Int(*i),
        Value::Uint(u) => Ident::Uint(*u),
        // Go map keys compare floats by value: 0.0 and -0.0 are one key.
        Value::Double(d) => Ident::Double(if *d == 0.0 { 0 } else { d.to_bits() }),
        Value::String(s) => Ident::String(s.clone()),
        Value::Bytes(b) => Ident::Bytes(b.clone()),
        Value::Duration(d) => Ident::Duration(d.nanos),
        Value::Timestamp(t) => Ident::Timestamp(t.secs, t.nanos),
        other => Ident::Other(format!("{other:?}")),
    })
}

/// A key field of a map-list element read through field lookup (merge), `nil` when absent or
/// not a plain value.
fn key_field(element: &Value, field: &str) -> Ident {
    let Value::Map(m) = element else {
        return Ident::Nil;
    };
    match m.get_str(field) {
        None | Some(Value::Error(_)) => Ident::Nil,
        Some(v) => ident(v).unwrap_or_else(|_| Ident::Other(format!("{v:?}"))),
    }
}

/// The key field as the apiserver's map-list *equality* reads it: from the raw item under the
/// field's escaped CEL name, so a name that needs escaping is never found (the inconsistency
/// 5.5 describes), and an element that is not CRD data gives a key no element has.
fn raw_key_field(element: &Value, field: &str, unique: usize) -> Ident {
    match element {
        Value::Map(m) if m.object => {
            if escaped_is(field.as_bytes(), field.as_bytes()) {
                key_field(element, field)
            } else {
                Ident::Nil
            }
        }
        _ => Ident::Other(format!("unexpected data format #{unique}")),
    }
}

fn map_key(element: &Value, keys: &[Arc<str>], raw: Option<usize>) -> Vec<Ident> {
    keys.iter()
        .map(|k| match raw {
            Some(unique) => raw_key_field(element, k, unique),
            None => key_field(element, k),
        })
        .collect()
}

/// `a == b`.
pub fn equals(a: &Value, b: &Value) -> Result<bool, EvalError> {
    if let Value::Error(e) = a {
        return Err((**e).clone());
    }
    if let Value::Error(e) = b {
        return Err((**e).clone());
    }
    Ok(match (a, b) {
        (Value::List(l), _) => return list_equals(l, b),
        (Value::Map(m), _) => return map_equals(m, b),
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Timestamp(x), Value::Timestamp(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::Optional(x), Value::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(x), Some(y)) => equals(x, y)?,
            _ => false,
        },
        (Value::Opaque(x), Value::Opaque(y)) => x.equals(&**y)?,
        // A library type's `Equal` takes only its own type (cel-go returns no such overload).
        (Value::Opaque(_), _) => return Err(EvalError::no_such_overload()),
        (Value::Unknown(x), _) => match b {
            Value::Unknown(y) => x == y,
            _ => false,
        },
        (x, y) => numeric_equals(x, y).unwrap_or(false),
    })
}

/// Cross-type numeric equality (`1 == 1u`, `1 == 1.0`), `None` when either is not a number.
fn numeric_equals(a: &Value, b: &Value) -> Option<bool> {
    Some(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y,
        (Value::Int(x), Value::Uint(y)) | (Value::Uint(y), Value::Int(x)) => {
            u64::try_from(*x).is_ok_and(|x| x == *y)
        }
        (Value::Int(x), Value::Double(y)) | (Value::Double(y), Value::Int(x)) => {
            *x as f64 == *y && y.fract() == 0.0 && (*y as i64) == *x
        }
        (Value::Uint(x), Value::Double(y)) | (Value::Double(y), Value::Uint(x)) => {
            *x as f64 == *y && y.fract() == 0.0 && *y >= 0.0 && (*y as u64) == *x
        }
        _ => return None,
    })
}

fn list_equals(l: &List, b: &Value) -> Result<bool, EvalError> {
    let Value::List(r) = b else {
        return match l.kind {
            ListKind::Plain => Ok(false),
            _ => Err(EvalError::no_such_overload()),
        };
    };
    if l.items.len() != r.items.len() {
        return Ok(false);
    }
    match &l.kind {
        ListKind::Plain => {
            for (x, y) in l.items.iter().zip(&r.items) {
                if !equals(x, y)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        ListKind::Set => {
            let set = l
                .items
                .iter()
                .map(ident)
                .collect::<Result<HashSet<_>, _>>()?;
            let mut seen = HashSet::with_capacity(set.len());
            for y in &r.items {
                let k = ident(y)?;
                if !set.contains(&k) {
                    return Ok(false);
                }
                seen.insert(k);
            }
            Ok(seen.len() == set.len())
        }
        ListKind::Map(keys) => {
            // The last item of a key wins, as when Go fills a map.
            let mut by_key: HashMap<Vec<Ident>, &Value> = HashMap::with_capacity(l.items.len());
            for (i, x) in l.items.iter().enumerate() {
                by_key.insert(map_key(x, keys, Some(i)), x);
            }
            let mut seen = HashSet::with_capacity(by_key.len());
            for (i, y) in r.items.iter().enumerate() {
                let k = map_key(y, keys, Some(l.items.len() + i));
                let Some(x) = by_key.get(&k) else {
                    return Ok(false);
                };
                if !equals(x, y)? {
                    return Ok(false);
                }
                seen.insert(k);
            }
            Ok(seen.len() == by_key.len())
        }
    }
}

fn map_equals(m: &Map, b: &Value) -> Result<bool, EvalError> {
    let Value::Map(o) = b else {
        return if m.object {
            Err(EvalError::no_such_overload())
        } else {
            Ok(false)
        };
    };
    if m.raw_len() != o.raw_len() {
        return Ok(false);
    }
    for (k, v) in m.entries() {
        match o.get(k) {
            Some(w) => {
                if !equals(v, w)? {
                    return Ok(false);
                }
            }
            None => return Ok(false),
        }
    }
    if m.object {
        // Presence must agree the other way too (a field null or absent on our side).
        for (k, _) in o.entries() {
            if m.get(k).is_none()
                && !m
                    .unknown()
                    .iter()
                    .any(|(u, _)| matches!(k, Key::String(s) if s == u))
            {
                return Ok(false);
            }
        }
        for (name, raw) in m.unknown() {
            if let Some((_, other)) = o.unknown().iter().find(|(n, _)| n == name)
                && raw != other
            {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// `l + r` for lists: concatenation, the union of a set list, the merge of a map list.
pub fn add(l: &List, r: &Value) -> Result<Value, EvalError> {
    let Value::List(r) = r else {
        return Err(EvalError::no_such_overload());
    };
    let mut items = l.items.clone();
    match &l.kind {
        ListKind::Plain => items.extend(r.items.iter().cloned()),
        ListKind::Set => {
            let mut set = items.iter().map(ident).collect::<Result<HashSet<_>, _>>()?;
            for y in &r.items {
                if set.insert(ident(y)?) {
                    items.push(y.clone());
                }
            }
        }
        ListKind::Map(keys) => {
            let mut at: HashMap<Vec<Ident>, usize> = HashMap::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                at.insert(map_key(x, keys, None), i);
            }
            for y in &r.items {
                let k = map_key(y, keys, None);
                match at.get(&k) {
                    Some(&i) => items[i] = y.clone(),
                    None => {
                        at.insert(k, items.len());
                        items.push(y.clone());
                    }
                }
            }
        }
    }
    Ok(Value::List(Arc::new(List {
        items,
        kind: l.kind.clone(),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::string(x)
    }

    fn list(kind: ListKind, items: Vec<Value>) -> Value {
        Value::List(Arc::new(List { items, kind }))
    }

    fn obj(fields: &[(&str, Value)]) -> Value {
        let entries = fields
            .iter()
            .map(|(k, v)| (Key::String((*k).into()), v.clone()))
            .collect();
        Value::Map(Arc::new(Map::object(entries, 0, Vec::new())))
    }

    #[test]
    fn set_equality_ignores_order_and_counts_distinct_elements() {
        let set = list(ListKind::Set, vec![s("a"), s("b"), s("c")]);
        let plain = |v: Vec<Value>| Value::list(v);
        assert!(equals(&set, &plain(vec![s("c"), s("a"), s("b")])).unwrap());
        assert!(
            !equals(&set, &plain(vec![s("a"), s("a"), s("b")])).unwrap(),
            "1.37+: duplicates make it unequal"
        );
        // Ordinary semantics when the set is on the right.
        assert!(!equals(&plain(vec![s("c"), s("a"), s("b")]), &set).unwrap());
        let nested = list(ListKind::Set, vec![Value::list(vec![])]);
        assert_eq!(
            equals(&nested, &Value::list(vec![Value::list(vec![])]))
                .unwrap_err()
                .message,
            "listSet operations are only supported on lists of scalar values"
        );
    }

    #[test]
    fn set_union_keeps_left_order_and_appends_new_right_elements() {
        let Value::List(set) = list(ListKind::Set, vec![s("a"), s("b")]) else {
            unreachable!()
        };
        let Value::List(u) = add(&set, &Value::list(vec![s("c"), s("a"), s("d"), s("c")])).unwrap()
        else {
            unreachable!()
        };
        let got: Vec<_> = u.items.iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(got.len(), 4);
        assert!(matches!(&u.items[2], Value::String(x) if &**x == "c"));
        assert!(matches!(&u.items[3], Value::String(x) if &**x == "d"));
        assert_eq!(u.kind, ListKind::Set);
    }

    #[test]
    fn map_list_merge_overwrites_in_place_and_equality_is_keyed() {
        let keys: Arc<[Arc<str>]> = Arc::from(vec![Arc::from("name")]);
        let a1 = obj(&[("name", s("a")), ("v", Value::Int(1))]);
        let b1 = obj(&[("name", s("b")), ("v", Value::Int(1))]);
        let a2 = obj(&[("name", s("a")), ("v", Value::Int(2))]);
        let c1 = obj(&[("name", s("c")), ("v", Value::Int(1))]);
        let Value::List(l) = list(ListKind::Map(keys.clone()), vec![a1.clone(), b1.clone()]) else {
            unreachable!()
        };
        let Value::List(m) = add(&l, &Value::list(vec![c1.clone(), a2.clone()])).unwrap() else {
            unreachable!()
        };
        assert_eq!(m.items.len(), 3);
        assert!(
            equals(&m.items[0], &a2).unwrap(),
            "a is replaced at its position"
        );
        assert!(equals(&m.items[2], &c1).unwrap(), "c is appended");
        let ml = Value::List(l);
        assert!(equals(&ml, &Value::list(vec![b1.clone(), a1.clone()])).unwrap());
        assert!(!equals(&ml, &Value::list(vec![b1, a2])).unwrap());
    }

    #[test]
    fn numbers_compare_across_types() {
        assert!(equals(&Value::Int(1), &Value::Uint(1)).unwrap());
        assert!(equals(&Value::Int(1), &Value::Double(1.0)).unwrap());
        assert!(!equals(&Value::Int(-1), &Value::Uint(u64::MAX)).unwrap());
        assert!(!equals(&Value::Int(1), &s("1")).unwrap());
    }
}
