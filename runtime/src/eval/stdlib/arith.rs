//! Arithmetic: `+ - * / %`, negation and `!`, with cel-go's overflow errors.

use super::super::error::EvalError;
use super::super::lists;
use super::super::time::Duration;
use super::super::value::Value;
use super::args::*;

pub(super) fn add(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_add(*y).ok_or_else(overflow)?),
        (Value::Uint(x), Value::Uint(y)) => {
            Value::Uint(x.checked_add(*y).ok_or_else(uint_overflow)?)
        }
        (Value::Double(x), Value::Double(y)) => Value::Double(x + y),
        (Value::String(x), Value::String(y)) => {
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Value::string(s)
        }
        (Value::Bytes(x), Value::Bytes(y)) => {
            let mut v = x.to_vec();
            v.extend_from_slice(y);
            Value::Bytes(v.into())
        }
        (Value::List(l), _) => lists::add(l, b)?,
        (Value::Duration(x), Value::Duration(y)) => Value::Duration(Duration {
            nanos: x.nanos.checked_add(y.nanos).ok_or_else(overflow)?,
        }),
        (Value::Timestamp(t), Value::Duration(d)) | (Value::Duration(d), Value::Timestamp(t)) => {
            Value::Timestamp(t.plus(*d)?)
        }
        _ => return Err(nso()),
    })
}

pub(super) fn sub(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_sub(*y).ok_or_else(overflow)?),
        (Value::Uint(x), Value::Uint(y)) => {
            Value::Uint(x.checked_sub(*y).ok_or_else(uint_overflow)?)
        }
        (Value::Double(x), Value::Double(y)) => Value::Double(x - y),
        (Value::Duration(x), Value::Duration(y)) => Value::Duration(Duration {
            nanos: x.nanos.checked_sub(y.nanos).ok_or_else(overflow)?,
        }),
        (Value::Timestamp(t), Value::Duration(d)) => Value::Timestamp(t.plus(Duration {
            nanos: d.nanos.checked_neg().ok_or_else(overflow)?,
        })?),
        (Value::Timestamp(x), Value::Timestamp(y)) => Value::Duration(x.since(y)?),
        _ => return Err(nso()),
    })
}

pub(super) fn mul(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_mul(*y).ok_or_else(overflow)?),
        (Value::Uint(x), Value::Uint(y)) => {
            Value::Uint(x.checked_mul(*y).ok_or_else(uint_overflow)?)
        }
        (Value::Double(x), Value::Double(y)) => Value::Double(x * y),
        _ => return Err(nso()),
    })
}

pub(super) fn div(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(match (a, b) {
        (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
            return Err(EvalError::new("division by zero"));
        }
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_div(*y).ok_or_else(overflow)?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x / y),
        (Value::Double(x), Value::Double(y)) => Value::Double(x / y),
        _ => return Err(nso()),
    })
}

pub(super) fn rem(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(match (a, b) {
        (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
            return Err(EvalError::new("modulus by zero"));
        }
        (Value::Int(x), Value::Int(y)) => Value::Int(x.checked_rem(*y).ok_or_else(overflow)?),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x % y),
        _ => return Err(nso()),
    })
}

pub(super) fn neg(args: &[Value]) -> R {
    Ok(match one(args)? {
        Value::Int(x) => Value::Int(x.checked_neg().ok_or_else(overflow)?),
        Value::Double(x) => Value::Double(-x),
        Value::Duration(d) => Value::Duration(Duration {
            nanos: d.nanos.checked_neg().ok_or_else(overflow)?,
        }),
        _ => return Err(nso()),
    })
}

pub(super) fn not(args: &[Value]) -> R {
    match one(args)? {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        _ => Err(nso()),
    }
}
