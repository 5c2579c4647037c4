//! Ordering (`< <= > >=`) across numeric types, and `in`.

use super::super::error::EvalError;
use super::super::lists;
use super::super::value::{Key, Value};
use super::args::*;

pub(super) fn compare(a: &Value, b: &Value) -> Result<std::cmp::Ordering, EvalError> {
    use std::cmp::Ordering;
    let nan = || EvalError::new("NaN values cannot be ordered");
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Uint(x), Value::Uint(y)) => x.cmp(y),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).ok_or_else(nan)?,
        (Value::Int(x), Value::Uint(y)) => {
            if *x < 0 {
                Ordering::Less
            } else {
                (*x as u64).cmp(y)
            }
        }
        (Value::Uint(x), Value::Int(y)) => {
            if *y < 0 {
                Ordering::Greater
            } else {
                x.cmp(&(*y as u64))
            }
        }
        (Value::Int(x), Value::Double(y)) => compare_int_double(*x as i128, *y).ok_or_else(nan)?,
        (Value::Uint(x), Value::Double(y)) => compare_int_double(*x as i128, *y).ok_or_else(nan)?,
        (Value::Double(x), Value::Int(y)) => compare_int_double(*y as i128, *x)
            .ok_or_else(nan)?
            .reverse(),
        (Value::Double(x), Value::Uint(y)) => compare_int_double(*y as i128, *x)
            .ok_or_else(nan)?
            .reverse(),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Duration(x), Value::Duration(y)) => x.cmp(y),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        _ => return Err(nso()),
    })
}

/// An integer against a double, exactly (no rounding of large integers).
pub(super) fn compare_int_double(i: i128, d: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if d.is_nan() {
        return None;
    }
    if d >= 1.8e19 {
        return Some(Ordering::Less);
    }
    if d <= -1.0e19 {
        return Some(Ordering::Greater);
    }
    let t = d.trunc() as i128;
    Some(match i.cmp(&t) {
        Ordering::Equal => {
            let frac = d - d.trunc();
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        o => o,
    })
}

pub(super) fn less(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_lt()))
}

pub(super) fn less_equals(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_le()))
}

pub(super) fn greater(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_gt()))
}

pub(super) fn greater_equals(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_ge()))
}

pub(super) fn in_op(args: &[Value]) -> R {
    let (x, c) = two(args)?;
    match c {
        Value::List(l) => {
            // An error comparing to one element only surfaces when nothing matched.
            let mut error = None;
            for item in &l.items {
                match lists::equals(item, x) {
                    Ok(true) => return Ok(Value::Bool(true)),
                    Ok(false) => {}
                    Err(e) => {
                        error.get_or_insert(e);
                    }
                }
            }
            match error {
                Some(e) => Err(e),
                None => Ok(Value::Bool(false)),
            }
        }
        Value::Map(m) => {
            let key = match x {
                Value::Double(d) if d.fract() == 0.0 && d.is_finite() => {
                    Key::of(&Value::Int(*d as i64))
                }
                other => Key::of(other),
            };
            Ok(Value::Bool(match key {
                Some(k) => match m.get(&k) {
                    Some(Value::Error(e)) => return Err((**e).clone()),
                    found => found.is_some(),
                },
                None => false,
            }))
        }
        _ => Err(nso()),
    }
}
