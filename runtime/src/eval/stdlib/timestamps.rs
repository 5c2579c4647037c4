//! Timestamp and duration accessors (`getFullYear`, `getHours`...), with time zones (`zones.rs`).

use super::super::error::{ErrorKind, EvalError};
use super::super::time::{self};
use super::super::value::Value;
use super::args::*;
use super::zones;

/// cel-go's error for argument values no overload takes (`decls.noSuchOverload`):
/// `no such overload: getHours(google.protobuf.Timestamp, int)`.
fn mismatch(function: &str, args: &[Value]) -> EvalError {
    let types: Vec<&str> = args.iter().map(Value::type_name).collect();
    EvalError {
        kind: ErrorKind::NoSuchOverload,
        message: format!("no such overload: {function}({})", types.join(", ")),
    }
}

/// The calendar fields of a timestamp in UTC or in the time zone of the second argument.
fn civil_of(function: &str, args: &[Value]) -> Result<time::Civil, EvalError> {
    match args {
        [Value::Timestamp(t)] => Ok(t.civil(0)),
        [Value::Timestamp(t), Value::String(tz)] => Ok(t.civil(zones::offset_at(tz, *t)?)),
        _ => Err(mismatch(function, args)),
    }
}

pub(super) fn get_full_year(args: &[Value]) -> R {
    Ok(Value::Int(civil_of("getFullYear", args)?.year))
}

pub(super) fn get_month(args: &[Value]) -> R {
    Ok(Value::Int(civil_of("getMonth", args)?.month - 1))
}

pub(super) fn get_day_of_year(args: &[Value]) -> R {
    Ok(Value::Int(civil_of("getDayOfYear", args)?.day_of_year - 1))
}

pub(super) fn get_day_of_month(args: &[Value]) -> R {
    Ok(Value::Int(civil_of("getDayOfMonth", args)?.day - 1))
}

pub(super) fn get_date(args: &[Value]) -> R {
    Ok(Value::Int(civil_of("getDate", args)?.day))
}

pub(super) fn get_day_of_week(args: &[Value]) -> R {
    Ok(Value::Int(civil_of("getDayOfWeek", args)?.weekday))
}

pub(super) fn get_hours(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 3_600_000_000_000));
    }
    Ok(Value::Int(civil_of("getHours", args)?.hour))
}

pub(super) fn get_minutes(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 60_000_000_000));
    }
    Ok(Value::Int(civil_of("getMinutes", args)?.minute))
}

pub(super) fn get_seconds(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 1_000_000_000));
    }
    Ok(Value::Int(civil_of("getSeconds", args)?.second))
}

pub(super) fn get_milliseconds(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 1_000_000));
    }
    Ok(Value::Int(civil_of("getMilliseconds", args)?.millisecond))
}
