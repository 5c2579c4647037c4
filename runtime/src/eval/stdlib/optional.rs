//! The optional-types library: `optional.of`, `orValue`, `value`, list `first`/`last`...

use std::sync::Arc;

use super::super::error::EvalError;
use super::super::value::{Key, Map, Value};
use super::args::*;

pub(super) fn optional_of(args: &[Value]) -> R {
    Ok(Value::some(one(args)?.clone()))
}

/// Go's zero `time.Time`, 0001-01-01T00:00:00Z, in Unix seconds.
const GO_ZERO_TIME_SECONDS: i64 = -62_135_596_800;

/// Whether a value is its type's zero value (cel-go's `IsZeroValue`).
pub(super) fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::Duration(d) => d.nanos == 0,
        // Go's `time.Time.IsZero`: January 1 of year 1, not the Unix epoch.
        Value::Timestamp(t) => t.secs == GO_ZERO_TIME_SECONDS && t.nanos == 0,
        Value::List(l) => l.items.is_empty(),
        Value::Map(m) => m.raw_len() == 0,
        Value::Optional(o) => o.is_none(),
        _ => false,
    }
}

pub(super) fn optional_of_non_zero(args: &[Value]) -> R {
    let v = one(args)?;
    Ok(if is_zero(v) {
        Value::Optional(None)
    } else {
        Value::some(v.clone())
    })
}

pub(super) fn optional_none(args: &[Value]) -> R {
    if !args.is_empty() {
        return Err(nso());
    }
    Ok(Value::Optional(None))
}

pub(super) fn optional_value(args: &[Value]) -> R {
    match one(args)? {
        Value::Optional(Some(v)) => Ok((**v).clone()),
        Value::Optional(None) => Err(EvalError::new("optional.none() dereference")),
        _ => Err(nso()),
    }
}

pub(super) fn has_value(args: &[Value]) -> R {
    match one(args)? {
        Value::Optional(o) => Ok(Value::Bool(o.is_some())),
        _ => Err(nso()),
    }
}

pub(super) fn optional_or(args: &[Value]) -> R {
    match two(args)? {
        (Value::Optional(Some(_)), _) => Ok(args[0].clone()),
        (Value::Optional(None), b @ Value::Optional(_)) => Ok(b.clone()),
        _ => Err(nso()),
    }
}

pub(super) fn optional_or_value(args: &[Value]) -> R {
    match two(args)? {
        (Value::Optional(Some(v)), _) => Ok((**v).clone()),
        (Value::Optional(None), b) => Ok(b.clone()),
        _ => Err(nso()),
    }
}

pub(super) fn first(args: &[Value]) -> R {
    match one(args)? {
        Value::List(l) => Ok(match l.items.first() {
            Some(v) => Value::some(v.clone()),
            None => Value::Optional(None),
        }),
        _ => Err(nso()),
    }
}

pub(super) fn last(args: &[Value]) -> R {
    match one(args)? {
        Value::List(l) => Ok(match l.items.last() {
            Some(v) => Value::some(v.clone()),
            None => Value::Optional(None),
        }),
        _ => Err(nso()),
    }
}

pub(super) fn unwrap_opt(args: &[Value]) -> R {
    match one(args)? {
        Value::List(l) => {
            let mut out = Vec::with_capacity(l.items.len());
            for v in &l.items {
                match v {
                    Value::Optional(Some(v)) => out.push((**v).clone()),
                    Value::Optional(None) => {}
                    _ => return Err(nso()),
                }
            }
            Ok(Value::list(out))
        }
        _ => Err(nso()),
    }
}

/// `cel.@mapInsert(map, key, value)` and `cel.@mapInsert(map, other)` (the two-variable
/// `transformMap` expansions).
pub(super) fn map_insert(args: &[Value]) -> R {
    let mut entries: Vec<(Key, Value)> = match args.first() {
        Some(Value::Map(m)) => m.entries().to_vec(),
        _ => return Err(nso()),
    };
    let mut insert = |k: Key, v: Value| -> Result<(), EvalError> {
        if entries.iter().any(|(e, _)| *e == k) {
            return Err(EvalError::new(format!(
                "insert failed: key {k} already exists"
            )));
        }
        entries.push((k, v));
        Ok(())
    };
    match args {
        [_, k, v] => insert(Key::of(k).ok_or_else(nso)?, v.clone())?,
        [_, Value::Map(other)] => {
            for (k, v) in other.entries() {
                insert(k.clone(), v.clone())?;
            }
        }
        _ => return Err(nso()),
    }
    Ok(Value::Map(Arc::new(Map::new(entries))))
}
