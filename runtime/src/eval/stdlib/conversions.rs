//! `size`, `type`, `dyn` and the type conversions (`int()`, `string()`, `timestamp()`...).

use super::super::error::EvalError;
use super::super::go::float::go_g;
use super::super::time::{self, Duration, Timestamp};
use super::super::value::Value;
use super::args::*;
use crd_cel_core::convert;

pub(super) fn size(args: &[Value]) -> R {
    match one(args)?.size() {
        Some(n) => Ok(Value::Int(n)),
        None => Err(nso()),
    }
}

pub(super) fn type_of(args: &[Value]) -> R {
    let v = one(args)?;
    Ok(Value::Type(match v {
        Value::Map(_) => "map".into(),
        Value::List(_) => "list".into(),
        other => other.type_name().into(),
    }))
}

pub(super) fn dyn_(args: &[Value]) -> R {
    Ok(one(args)?.clone())
}

pub(super) fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::new(convert::conversion_error(from, to))
}

pub(super) fn to_bool(args: &[Value]) -> R {
    match one(args)? {
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) => convert::bool_of_string(s)
            .map(Value::Bool)
            .map_err(EvalError::new),
        _ => Err(nso()),
    }
}

pub(super) fn to_bytes(args: &[Value]) -> R {
    match one(args)? {
        Value::Bytes(b) => Ok(Value::Bytes(b.clone())),
        Value::String(s) => Ok(Value::Bytes(s.as_bytes().into())),
        _ => Err(nso()),
    }
}

pub(super) fn to_double(args: &[Value]) -> R {
    match one(args)? {
        Value::Double(d) => Ok(Value::Double(*d)),
        Value::Int(i) => Ok(Value::Double(*i as f64)),
        Value::Uint(u) => Ok(Value::Double(*u as f64)),
        Value::String(s) => convert::double_of_string(s)
            .map(Value::Double)
            .map_err(EvalError::new),
        _ => Err(nso()),
    }
}

pub(super) fn to_int(args: &[Value]) -> R {
    match one(args)? {
        Value::Int(i) => Ok(Value::Int(*i)),
        Value::Uint(u) => convert::int_of_uint(*u)
            .map(Value::Int)
            .map_err(EvalError::new),
        Value::Double(d) => convert::int_of_double(*d)
            .map(Value::Int)
            .map_err(EvalError::new),
        Value::String(s) => convert::int_of_string(s)
            .map(Value::Int)
            .map_err(EvalError::new),
        Value::Duration(d) => Ok(Value::Int(d.nanos)),
        Value::Timestamp(t) => Ok(Value::Int(t.secs)),
        _ => Err(nso()),
    }
}

pub(super) fn to_uint(args: &[Value]) -> R {
    match one(args)? {
        Value::Uint(u) => Ok(Value::Uint(*u)),
        Value::Int(i) => convert::uint_of_int(*i)
            .map(Value::Uint)
            .map_err(EvalError::new),
        Value::Double(d) => convert::uint_of_double(*d)
            .map(Value::Uint)
            .map_err(EvalError::new),
        Value::String(s) => convert::uint_of_string(s)
            .map(Value::Uint)
            .map_err(EvalError::new),
        _ => Err(nso()),
    }
}

pub(super) fn to_string(args: &[Value]) -> R {
    let v = one(args)?;
    Ok(match v {
        Value::String(s) => Value::String(s.clone()),
        Value::Bool(b) => Value::string(b.to_string()),
        Value::Int(i) => Value::string(i.to_string()),
        Value::Uint(u) => Value::string(u.to_string()),
        Value::Double(d) => Value::string(go_g(*d)),
        Value::Bytes(b) => Value::string(convert::string_of_bytes(b).map_err(EvalError::new)?),
        Value::Duration(d) => Value::string(d.to_cel_string()),
        Value::Timestamp(t) => Value::string(t.to_rfc3339()),
        Value::Opaque(o) => match o.to_cel_string() {
            Some(s) => Value::string(s),
            None => return Err(nso()),
        },
        _ => return Err(nso()),
    })
}

pub(super) fn duration_error() -> EvalError {
    conversion_error("string", "google.protobuf.Duration")
}

/// `duration(s)`'s nanoseconds: Go's duration syntax, within an int64 (`None`: a conversion
/// error). The viewed evaluation converts with it too.
pub(crate) fn duration_nanos(s: &str) -> Option<i64> {
    i64::try_from(crd_cel_core::literals::parse_go_duration(s)?).ok()
}

pub(super) fn to_duration(args: &[Value]) -> R {
    match one(args)? {
        Value::Duration(d) => Ok(Value::Duration(*d)),
        Value::String(s) => duration_nanos(s)
            .map(|nanos| Value::Duration(Duration { nanos }))
            .ok_or_else(duration_error),
        Value::Int(i) => Ok(Value::Duration(Duration { nanos: *i })),
        _ => Err(nso()),
    }
}

pub(super) fn to_timestamp(args: &[Value]) -> R {
    match one(args)? {
        Value::Timestamp(t) => Ok(Value::Timestamp(*t)),
        Value::String(s) => {
            let t = time::parse_rfc3339(s).ok_or_else(|| {
                EvalError::new("type conversion error from 'string' to 'google.protobuf.Timestamp'")
            })?;
            t.checked().map(Value::Timestamp)
        }
        Value::Int(i) => Timestamp::utc(*i, 0).checked().map(Value::Timestamp),
        _ => Err(nso()),
    }
}
