//! Timestamp and duration accessors (`getFullYear`, `getHours`...), with time zones.

use super::super::error::EvalError;
use super::super::time::{self};
use super::super::value::Value;
use super::args::*;

/// The time-zone offset in seconds of a `tz` argument: `UTC`, or `±HH:MM`. IANA names would need
/// the time-zone database, which crd-cel does not ship yet.
pub(super) fn zone_offset(tz: &str) -> Result<i64, EvalError> {
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

pub(super) fn civil_of(args: &[Value]) -> Result<time::Civil, EvalError> {
    match args {
        [Value::Timestamp(t)] => Ok(t.civil(0)),
        [Value::Timestamp(t), Value::String(tz)] => Ok(t.civil(zone_offset(tz)?)),
        _ => Err(nso()),
    }
}

pub(super) fn get_full_year(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.year))
}

pub(super) fn get_month(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.month - 1))
}

pub(super) fn get_day_of_year(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.day_of_year - 1))
}

pub(super) fn get_day_of_month(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.day - 1))
}

pub(super) fn get_date(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.day))
}

pub(super) fn get_day_of_week(args: &[Value]) -> R {
    Ok(Value::Int(civil_of(args)?.weekday))
}

pub(super) fn get_hours(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 3_600_000_000_000));
    }
    Ok(Value::Int(civil_of(args)?.hour))
}

pub(super) fn get_minutes(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 60_000_000_000));
    }
    Ok(Value::Int(civil_of(args)?.minute))
}

pub(super) fn get_seconds(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 1_000_000_000));
    }
    Ok(Value::Int(civil_of(args)?.second))
}

pub(super) fn get_milliseconds(args: &[Value]) -> R {
    if let [Value::Duration(d)] = args {
        return Ok(Value::Int(d.nanos / 1_000_000));
    }
    Ok(Value::Int(civil_of(args)?.millisecond))
}
