//! cel-go's standard library at runtime (operators, `size`, conversions, string functions,
//! timestamp and duration accessors) and the optional-types library, with cel-go's error texts
//! and runtime costs (`interpreter/runtimecost.go`).
//!
//! cel-go charges by the overload the checker resolved; when the checker could not pick one (an
//! argument of type `dyn`), cel-go charges 1. The cost functions here price a call by the values
//! (what a program planned without the checker uses); a planned rule's calls are priced by their
//! resolved overload (`interp/overloads.rs`), which replaces the ones of cel-go's default switch.

mod args;
mod arith;
mod compare;
mod conversions;
mod optional;
mod strings;
mod timestamps;
mod zones;

pub(crate) use conversions::duration_nanos;

use super::function::{Function, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, traversal_cost};
use super::value::Value;
use arith::*;
use compare::*;
use conversions::*;
use optional::*;
use strings::*;
use timestamps::*;

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

/// A string argument, or an error in its place: cel-go's tracker costs a call whose argument
/// is an error with the error's size, 1.
fn is_string_or_error(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(_) | Value::Error(_)))
}

fn contains_cost(args: &[Value], _: &Value) -> u64 {
    if !(is_string_or_error(args.first()) && is_string_or_error(args.get(1))) {
        return 1;
    }
    traversal_cost(size_of(args.first()), STRING_TRAVERSAL_FACTOR)
        * traversal_cost(size_of(args.get(1)), STRING_TRAVERSAL_FACTOR)
}

fn prefix_cost(args: &[Value], _: &Value) -> u64 {
    if !is_string_or_error(args.first()) {
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
