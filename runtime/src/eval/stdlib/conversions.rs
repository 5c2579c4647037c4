//! `size`, `type`, `dyn` and the type conversions (`int()`, `string()`, `timestamp()`...).

use super::super::error::EvalError;
use super::super::go::float::go_g;
use super::super::time::{self, Duration, Timestamp};
use super::super::value::Value;
use super::args::*;

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
    EvalError::new(format!("type conversion error from '{from}' to '{to}'"))
}

pub(super) fn to_bool(args: &[Value]) -> R {
    match one(args)? {
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) => match &**s {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
            _ => Err(conversion_error("string", "bool")),
        },
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
        Value::String(s) => parse_go_float(s)
            .map(Value::Double)
            .ok_or_else(|| conversion_error("string", "double")),
        _ => Err(nso()),
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for the forms CEL strings use (decimal, exponent, `Inf`,
/// `NaN`).
pub(super) fn parse_go_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        return s.parse().ok().or(Some(if lower.starts_with('-') {
            f64::NEG_INFINITY
        } else if body == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        }));
    }
    if body.is_empty()
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-' | b'_'))
    {
        return None;
    }
    s.parse::<f64>().ok()
}

pub(super) fn to_int(args: &[Value]) -> R {
    match one(args)? {
        Value::Int(i) => Ok(Value::Int(*i)),
        Value::Uint(u) => i64::try_from(*u).map(Value::Int).map_err(|_| overflow()),
        Value::Double(d) => {
            // cel-go: NaN and values outside (-2^63, 2^63) overflow.
            if d.is_nan() || *d <= -9.223_372_036_854_776e18 || *d >= 9.223_372_036_854_776e18 {
                Err(overflow())
            } else {
                Ok(Value::Int(*d as i64))
            }
        }
        Value::String(s) => s
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| conversion_error("string", "int")),
        Value::Duration(d) => Ok(Value::Int(d.nanos)),
        Value::Timestamp(t) => Ok(Value::Int(t.secs)),
        _ => Err(nso()),
    }
}

pub(super) fn to_uint(args: &[Value]) -> R {
    match one(args)? {
        Value::Uint(u) => Ok(Value::Uint(*u)),
        Value::Int(i) => u64::try_from(*i)
            .map(Value::Uint)
            .map_err(|_| uint_overflow()),
        Value::Double(d) => {
            if d.is_nan() || *d < 0.0 || *d >= 1.844_674_407_370_955_2e19 {
                Err(uint_overflow())
            } else {
                Ok(Value::Uint(*d as u64))
            }
        }
        Value::String(s) => s
            .parse::<u64>()
            .map(Value::Uint)
            .map_err(|_| conversion_error("string", "uint")),
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
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => Value::string(s),
            Err(_) => {
                return Err(EvalError::new(
                    "invalid UTF-8 in bytes, cannot convert to string",
                ));
            }
        },
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

pub(super) fn to_duration(args: &[Value]) -> R {
    match one(args)? {
        Value::Duration(d) => Ok(Value::Duration(*d)),
        Value::String(s) => match crd_cel_core::literals::parse_go_duration(s) {
            Some(n) => i64::try_from(n)
                .map(|nanos| Value::Duration(Duration { nanos }))
                .map_err(|_| duration_error()),
            None => Err(duration_error()),
        },
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
        Value::Int(i) => Timestamp { secs: *i, nanos: 0 }
            .checked()
            .map(Value::Timestamp),
        _ => Err(nso()),
    }
}
