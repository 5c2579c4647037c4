//! cel-go's standard library at runtime (operators, `size`, conversions, string functions,
//! timestamp and duration accessors) and the optional-types library, with cel-go's error texts
//! and runtime costs (`interpreter/runtimecost.go`).
//!
//! cel-go charges by the overload the checker resolved; when the checker could not pick one (an
//! argument of type `dyn`), cel-go charges 1. crd-cel charges by the overload the values select,
//! which is the same whenever the types are known when the rule is checked.

use std::sync::Arc;

use super::error::EvalError;
use super::functions::{
    Function, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, compiled_regex, traversal_cost,
};
use super::lists;
use super::time::{Duration, Timestamp};
use super::value::{Key, Map, Value};

type R = Result<Value, EvalError>;

fn overflow() -> EvalError {
    EvalError::new("integer overflow")
}

fn uint_overflow() -> EvalError {
    EvalError::new("unsigned integer overflow")
}

fn nso() -> EvalError {
    EvalError::no_such_overload()
}

fn size_of(v: Option<&Value>) -> u64 {
    v.map_or(1, Value::cost_size)
}

fn is_text(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(_) | Value::Bytes(_)))
}

/// The standard library and optional types.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "_+_",
        call: add,
        cost: Some(add_cost),
    },
    Function {
        name: "_-_",
        call: sub,
        cost: None,
    },
    Function {
        name: "_*_",
        call: mul,
        cost: None,
    },
    Function {
        name: "_/_",
        call: div,
        cost: None,
    },
    Function {
        name: "_%_",
        call: rem,
        cost: None,
    },
    Function {
        name: "-_",
        call: neg,
        cost: None,
    },
    Function {
        name: "!_",
        call: not,
        cost: None,
    },
    Function {
        name: "_<_",
        call: less,
        cost: Some(compare_cost),
    },
    Function {
        name: "_<=_",
        call: less_equals,
        cost: Some(compare_cost),
    },
    Function {
        name: "_>_",
        call: greater,
        cost: Some(compare_cost),
    },
    Function {
        name: "_>=_",
        call: greater_equals,
        cost: Some(compare_cost),
    },
    Function {
        name: "@in",
        call: in_op,
        cost: Some(in_cost),
    },
    Function {
        name: "size",
        call: size,
        cost: None,
    },
    Function {
        name: "type",
        call: type_of,
        cost: None,
    },
    Function {
        name: "dyn",
        call: dyn_,
        cost: None,
    },
    Function {
        name: "bool",
        call: to_bool,
        cost: None,
    },
    Function {
        name: "bytes",
        call: to_bytes,
        cost: Some(first_traversal_cost),
    },
    Function {
        name: "double",
        call: to_double,
        cost: None,
    },
    Function {
        name: "int",
        call: to_int,
        cost: None,
    },
    Function {
        name: "uint",
        call: to_uint,
        cost: None,
    },
    Function {
        name: "string",
        call: to_string,
        cost: Some(string_cost),
    },
    Function {
        name: "duration",
        call: to_duration,
        cost: None,
    },
    Function {
        name: "timestamp",
        call: to_timestamp,
        cost: None,
    },
    Function {
        name: "contains",
        call: contains,
        cost: Some(contains_cost),
    },
    Function {
        name: "startsWith",
        call: starts_with,
        cost: Some(prefix_cost),
    },
    Function {
        name: "endsWith",
        call: ends_with,
        cost: Some(prefix_cost),
    },
    Function {
        name: "matches",
        call: matches,
        cost: Some(matches_cost),
    },
    Function {
        name: "getFullYear",
        call: get_full_year,
        cost: None,
    },
    Function {
        name: "getMonth",
        call: get_month,
        cost: None,
    },
    Function {
        name: "getDayOfYear",
        call: get_day_of_year,
        cost: None,
    },
    Function {
        name: "getDayOfMonth",
        call: get_day_of_month,
        cost: None,
    },
    Function {
        name: "getDate",
        call: get_date,
        cost: None,
    },
    Function {
        name: "getDayOfWeek",
        call: get_day_of_week,
        cost: None,
    },
    Function {
        name: "getHours",
        call: get_hours,
        cost: None,
    },
    Function {
        name: "getMinutes",
        call: get_minutes,
        cost: None,
    },
    Function {
        name: "getSeconds",
        call: get_seconds,
        cost: None,
    },
    Function {
        name: "getMilliseconds",
        call: get_milliseconds,
        cost: None,
    },
    Function {
        name: "optional.of",
        call: optional_of,
        cost: None,
    },
    Function {
        name: "optional.ofNonZeroValue",
        call: optional_of_non_zero,
        cost: None,
    },
    Function {
        name: "optional.none",
        call: optional_none,
        cost: None,
    },
    Function {
        name: "value",
        call: optional_value,
        cost: None,
    },
    Function {
        name: "hasValue",
        call: has_value,
        cost: None,
    },
    Function {
        name: "or",
        call: optional_or,
        cost: None,
    },
    Function {
        name: "orValue",
        call: optional_or_value,
        cost: None,
    },
    Function {
        name: "first",
        call: first,
        cost: None,
    },
    Function {
        name: "last",
        call: last,
        cost: None,
    },
    Function {
        name: "optional.unwrap",
        call: unwrap_opt,
        cost: None,
    },
    Function {
        name: "unwrapOpt",
        call: unwrap_opt,
        cost: None,
    },
    Function {
        name: "cel.@mapInsert",
        call: map_insert,
        cost: None,
    },
];

// ---------------------------------------------------------------------------------------------
// Costs.

fn add_cost(args: &[Value], _: &Value) -> u64 {
    if is_text(args.first()) && is_text(args.get(1)) {
        traversal_cost(
            size_of(args.first()) + size_of(args.get(1)),
            STRING_TRAVERSAL_FACTOR,
        )
    } else {
        1
    }
}

fn compare_cost(args: &[Value], _: &Value) -> u64 {
    if is_text(args.first()) && is_text(args.get(1)) {
        traversal_cost(
            size_of(args.first()).min(size_of(args.get(1))),
            STRING_TRAVERSAL_FACTOR,
        )
    } else {
        1
    }
}

fn in_cost(args: &[Value], _: &Value) -> u64 {
    match args.get(1) {
        Some(l @ Value::List(_)) => l.cost_size(),
        _ => 1,
    }
}

fn first_traversal_cost(args: &[Value], _: &Value) -> u64 {
    match args.first() {
        Some(v @ (Value::String(_) | Value::Bytes(_))) => {
            traversal_cost(v.cost_size(), STRING_TRAVERSAL_FACTOR)
        }
        _ => 1,
    }
}

fn string_cost(args: &[Value], r: &Value) -> u64 {
    match args.first() {
        Some(Value::Bytes(_)) => first_traversal_cost(args, r),
        _ => 1,
    }
}

fn contains_cost(args: &[Value], _: &Value) -> u64 {
    if !(matches!(args.first(), Some(Value::String(_)))
        && matches!(args.get(1), Some(Value::String(_))))
    {
        return 1;
    }
    traversal_cost(size_of(args.first()), STRING_TRAVERSAL_FACTOR)
        * traversal_cost(size_of(args.get(1)), STRING_TRAVERSAL_FACTOR)
}

fn prefix_cost(args: &[Value], _: &Value) -> u64 {
    if !matches!(args.first(), Some(Value::String(_))) {
        return 1;
    }
    traversal_cost(size_of(args.get(1)), STRING_TRAVERSAL_FACTOR)
}

fn matches_cost(args: &[Value], _: &Value) -> u64 {
    match args.first() {
        Some(target) => matches_cost_of(target, size_of(args.get(1))),
        None => 1,
    }
}

/// `matches`' cost from its target and the size of its pattern (planned programs know the
/// size of a constant pattern in advance).
pub(crate) fn matches_cost_of(target: &Value, pattern_size: u64) -> u64 {
    if !matches!(target, Value::String(_)) {
        return 1;
    }
    let s = ((1.0 + target.cost_size() as f64) * STRING_TRAVERSAL_FACTOR).ceil() as u64;
    let r = traversal_cost(pattern_size, REGEX_LENGTH_FACTOR);
    s.saturating_mul(r)
}

// ---------------------------------------------------------------------------------------------
// Arithmetic.

fn two(args: &[Value]) -> Result<(&Value, &Value), EvalError> {
    match args {
        [a, b] => Ok((a, b)),
        _ => Err(nso()),
    }
}

fn one(args: &[Value]) -> Result<&Value, EvalError> {
    match args {
        [a] => Ok(a),
        _ => Err(nso()),
    }
}

fn add(args: &[Value]) -> R {
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

fn sub(args: &[Value]) -> R {
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

fn mul(args: &[Value]) -> R {
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

fn div(args: &[Value]) -> R {
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

fn rem(args: &[Value]) -> R {
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

fn neg(args: &[Value]) -> R {
    Ok(match one(args)? {
        Value::Int(x) => Value::Int(x.checked_neg().ok_or_else(overflow)?),
        Value::Double(x) => Value::Double(-x),
        Value::Duration(d) => Value::Duration(Duration {
            nanos: d.nanos.checked_neg().ok_or_else(overflow)?,
        }),
        _ => return Err(nso()),
    })
}

fn not(args: &[Value]) -> R {
    match one(args)? {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        _ => Err(nso()),
    }
}

// ---------------------------------------------------------------------------------------------
// Comparison.

fn compare(a: &Value, b: &Value) -> Result<std::cmp::Ordering, EvalError> {
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
fn compare_int_double(i: i128, d: f64) -> Option<std::cmp::Ordering> {
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

fn less(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_lt()))
}

fn less_equals(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_le()))
}

fn greater(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_gt()))
}

fn greater_equals(args: &[Value]) -> R {
    let (a, b) = two(args)?;
    Ok(Value::Bool(compare(a, b)?.is_ge()))
}

fn in_op(args: &[Value]) -> R {
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

// ---------------------------------------------------------------------------------------------
// size, type, conversions.

fn size(args: &[Value]) -> R {
    match one(args)?.size() {
        Some(n) => Ok(Value::Int(n)),
        None => Err(nso()),
    }
}

fn type_of(args: &[Value]) -> R {
    let v = one(args)?;
    Ok(Value::Type(match v {
        Value::Map(_) => "map".into(),
        Value::List(_) => "list".into(),
        other => other.type_name().into(),
    }))
}

fn dyn_(args: &[Value]) -> R {
    Ok(one(args)?.clone())
}

fn conversion_error(from: &str, to: &str) -> EvalError {
    EvalError::new(format!("type conversion error from '{from}' to '{to}'"))
}

fn to_bool(args: &[Value]) -> R {
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

fn to_bytes(args: &[Value]) -> R {
    match one(args)? {
        Value::Bytes(b) => Ok(Value::Bytes(b.clone())),
        Value::String(s) => Ok(Value::Bytes(s.as_bytes().into())),
        _ => Err(nso()),
    }
}

fn to_double(args: &[Value]) -> R {
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
fn parse_go_float(s: &str) -> Option<f64> {
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

fn to_int(args: &[Value]) -> R {
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

fn to_uint(args: &[Value]) -> R {
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

/// Go's `fmt.Sprintf("%g", d)`: shortest digits, exponent form below 1e-4 and from 1e21.
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Shortest round-trip digits and the decimal exponent, from Rust's `{:e}`.
    let e = format!("{:e}", d.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if d < 0.0 { "-" } else { "" };
    // strconv's %g with the shortest precision uses the exponent form when exp < -4 || exp >= 6.
    let eprec = 6;
    if exp < -4 || exp >= eprec {
        let (first, rest) = digits.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let int_len = (exp + 1) as usize;
    if digits.len() <= int_len {
        format!("{sign}{digits}{}", "0".repeat(int_len - digits.len()))
    } else {
        let (i, fr) = digits.split_at(int_len);
        format!("{sign}{i}.{fr}")
    }
}

fn to_string(args: &[Value]) -> R {
    let v = one(args)?;
    Ok(match v {
        Value::String(s) => Value::String(s.clone()),
        Value::Bool(b) => Value::string(b.to_string()),
        Value::Int(i) => Value::string(i.to_string()),
        Value::Uint(u) => Value::string(u.to_string()),
        Value::Double(d) => Value::string(format_double(*d)),
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

fn duration_error() -> EvalError {
    conversion_error("string", "google.protobuf.Duration")
}

fn to_duration(args: &[Value]) -> R {
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

fn to_timestamp(args: &[Value]) -> R {
    match one(args)? {
        Value::Timestamp(t) => Ok(Value::Timestamp(*t)),
        Value::String(s) => {
            let t = super::time::parse_rfc3339(s).ok_or_else(|| {
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

// ---------------------------------------------------------------------------------------------
// Strings.

fn strings2(args: &[Value]) -> Result<(&str, &str), EvalError> {
    match args {
        [Value::String(a), Value::String(b)] => Ok((a, b)),
        _ => Err(nso()),
    }
}

fn contains(args: &[Value]) -> R {
    let (a, b) = strings2(args)?;
    Ok(Value::Bool(a.contains(b)))
}

fn starts_with(args: &[Value]) -> R {
    let (a, b) = strings2(args)?;
    Ok(Value::Bool(a.starts_with(b)))
}

fn ends_with(args: &[Value]) -> R {
    let (a, b) = strings2(args)?;
    Ok(Value::Bool(a.ends_with(b)))
}

fn matches(args: &[Value]) -> R {
    let (s, re) = strings2(args)?;
    Ok(Value::Bool(compiled_regex(re)?.is_match(s)))
}

// ---------------------------------------------------------------------------------------------
// Timestamps and durations.

/// The time-zone offset in seconds of a `tz` argument: `UTC`, or `±HH:MM`. IANA names would need
/// the time-zone database, which crd-cel does not ship yet.
fn zone_offset(tz: &str) -> Result<i64, EvalError> {
    if tz == "UTC" || tz.is_empty() {
        return Ok(0);
    }
    let b = tz.as_bytes();
    let (sign, rest) = match b.first() {
        Some(b'+') => (1, &tz[1..]),
        Some(b'-') => (-1, &tz[1..]),
        _ => (1, tz),
    };
    if let Some((h, m)) = rest.split_once(':')
        && let (Ok(h), Ok(m)) = (h.parse::<i64>(), m.parse::<i64>())
    {
        return Ok(sign * (h * 3600 + m * 60));
    }
    Err(EvalError::new(format!(
        "not supported by crd-cel yet: the time zone '{tz}' (only UTC and ±HH:MM offsets)"
    )))
}

fn civil_of(args: &[Value]) -> Result<super::time::Civil, EvalError> {
    match args {
        [Value::Timestamp(t)] => Ok(t.civil(0)),
        [Value::Timestamp(t), Value::String(tz)] => Ok(t.civil(zone_offset(tz)?)),
        _ => Err(nso()),
    }
}

fn get_full_year(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.year))
}

fn get_month(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.month - 1))
}

fn get_day_of_year(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.day_of_year - 1))
}

fn get_day_of_month(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.day - 1))
}

fn get_date(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.day))
}

fn get_day_of_week(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.weekday))
}

fn get_hours(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 3_600_000_000_000));
    }
    Ok(Value::Int(civil_of(args)?.hour))
}

fn get_minutes(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 60_000_000_000));
    }
    Ok(Value::Int(civil_of(args)?.minute))
}

fn get_seconds(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 1_000_000_000));
    }
    Ok(Value::Int(civil_of(args)?.second))
}

fn get_milliseconds(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 1_000_000));
    }
    Ok(Value::Int(civil_of(args)?.millisecond))
}

// ---------------------------------------------------------------------------------------------
// Optional types.

fn optional_of(args: &[Value]) -> R {
    Ok(Value::some(one(args)?.clone()))
}

/// Whether a value is its type's zero value (cel-go's `IsZeroValue`).
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::Duration(d) => d.nanos == 0,
        Value::Timestamp(t) => t.secs == 0 && t.nanos == 0,
        Value::List(l) => l.items.is_empty(),
        Value::Map(m) => m.raw_len() == 0,
        Value::Optional(o) => o.is_none(),
        _ => false,
    }
}

fn optional_of_non_zero(args: &[Value]) -> R {
    let v = one(args)?;
    Ok(if is_zero(v) {
        Value::Optional(None)
    } else {
        Value::some(v.clone())
    })
}

fn optional_none(args: &[Value]) -> R {
    if !args.is_empty() {
        return Err(nso());
    }
    Ok(Value::Optional(None))
}

fn optional_value(args: &[Value]) -> R {
    match one(args)? {
        Value::Optional(Some(v)) => Ok((**v).clone()),
        Value::Optional(None) => Err(EvalError::new("optional.none() dereference")),
        _ => Err(nso()),
    }
}

fn has_value(args: &[Value]) -> R {
    match one(args)? {
        Value::Optional(o) => Ok(Value::Bool(o.is_some())),
        _ => Err(nso()),
    }
}

fn optional_or(args: &[Value]) -> R {
    match two(args)? {
        (Value::Optional(Some(_)), _) => Ok(args[0].clone()),
        (Value::Optional(None), b @ Value::Optional(_)) => Ok(b.clone()),
        _ => Err(nso()),
    }
}

fn optional_or_value(args: &[Value]) -> R {
    match two(args)? {
        (Value::Optional(Some(v)), _) => Ok((**v).clone()),
        (Value::Optional(None), b) => Ok(b.clone()),
        _ => Err(nso()),
    }
}

fn first(args: &[Value]) -> R {
    match one(args)? {
        Value::List(l) => Ok(match l.items.first() {
            Some(v) => Value::some(v.clone()),
            None => Value::Optional(None),
        }),
        _ => Err(nso()),
    }
}

fn last(args: &[Value]) -> R {
    match one(args)? {
        Value::List(l) => Ok(match l.items.last() {
            Some(v) => Value::some(v.clone()),
            None => Value::Optional(None),
        }),
        _ => Err(nso()),
    }
}

fn unwrap_opt(args: &[Value]) -> R {
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
fn map_insert(args: &[Value]) -> R {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_go_percent_g() {
        assert_eq!(format_double(1.0), "1");
        assert_eq!(format_double(1.5), "1.5");
        assert_eq!(format_double(-0.25), "-0.25");
        assert_eq!(format_double(0.0001), "0.0001");
        assert_eq!(format_double(0.00001), "1e-05");
        assert_eq!(format_double(123456.0), "123456");
        assert_eq!(format_double(1234567.0), "1.234567e+06");
        assert_eq!(format_double(123456789.0), "1.23456789e+08");
        assert_eq!(format_double(1e21), "1e+21");
        assert_eq!(format_double(2.5e-7), "2.5e-07");
    }
}
