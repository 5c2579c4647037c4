//! The cel-go standard library: `common/stdlib/standard.go` (cel-go v0.29.2), declared in every
//! compatibility version. The only versioned part is the cross-type numeric comparisons
//! (`int < double`, `uint >= int`, ...): cel-go's checker filters those overload ids out unless
//! `CrossTypeNumericComparisons(true)` is set (checker/env.go), which the apiserver does from 1.28.
//!
//! Overloads are listed in cel-go's declaration order. `_?_:_` and the logical operators are
//! special-cased by cel-go's checker but still declared like this.

use super::{A, ALWAYS, B, LIST_A, MAP_AB, Overload, P, V28, global, member};

const BOOL: P = P::Bool;
const INT: P = P::Int;
const UINT: P = P::Uint;
const DOUBLE: P = P::Double;
const STRING: P = P::String;
const BYTES: P = P::Bytes;
const DURATION: P = P::Duration;
const TIMESTAMP: P = P::Timestamp;

// Logical operators, comprehension helper, equality.

pub(super) const CONDITIONAL: &[Overload] = &[global("conditional", &[BOOL, A, A], A, ALWAYS)];
pub(super) const LOGICAL_AND: &[Overload] = &[global("logical_and", &[BOOL, BOOL], BOOL, ALWAYS)];
pub(super) const LOGICAL_OR: &[Overload] = &[global("logical_or", &[BOOL, BOOL], BOOL, ALWAYS)];
pub(super) const LOGICAL_NOT: &[Overload] = &[global("logical_not", &[BOOL], BOOL, ALWAYS)];
pub(super) const NOT_STRICTLY_FALSE: &[Overload] =
    &[global("not_strictly_false", &[BOOL], BOOL, ALWAYS)];
pub(super) const EQUALS: &[Overload] = &[global("equals", &[A, A], BOOL, ALWAYS)];
pub(super) const NOT_EQUALS: &[Overload] = &[global("not_equals", &[A, A], BOOL, ALWAYS)];

// Arithmetic.

pub(super) const ADD: &[Overload] = &[
    global("add_bytes", &[BYTES, BYTES], BYTES, ALWAYS),
    global("add_double", &[DOUBLE, DOUBLE], DOUBLE, ALWAYS),
    global(
        "add_duration_duration",
        &[DURATION, DURATION],
        DURATION,
        ALWAYS,
    ),
    global(
        "add_duration_timestamp",
        &[DURATION, TIMESTAMP],
        TIMESTAMP,
        ALWAYS,
    ),
    global(
        "add_timestamp_duration",
        &[TIMESTAMP, DURATION],
        TIMESTAMP,
        ALWAYS,
    ),
    global("add_int64", &[INT, INT], INT, ALWAYS),
    global("add_list", &[LIST_A, LIST_A], LIST_A, ALWAYS),
    global("add_string", &[STRING, STRING], STRING, ALWAYS),
    global("add_uint64", &[UINT, UINT], UINT, ALWAYS),
];

pub(super) const DIVIDE: &[Overload] = &[
    global("divide_double", &[DOUBLE, DOUBLE], DOUBLE, ALWAYS),
    global("divide_int64", &[INT, INT], INT, ALWAYS),
    global("divide_uint64", &[UINT, UINT], UINT, ALWAYS),
];

pub(super) const MODULO: &[Overload] = &[
    global("modulo_int64", &[INT, INT], INT, ALWAYS),
    global("modulo_uint64", &[UINT, UINT], UINT, ALWAYS),
];

pub(super) const MULTIPLY: &[Overload] = &[
    global("multiply_double", &[DOUBLE, DOUBLE], DOUBLE, ALWAYS),
    global("multiply_int64", &[INT, INT], INT, ALWAYS),
    global("multiply_uint64", &[UINT, UINT], UINT, ALWAYS),
];

pub(super) const NEGATE: &[Overload] = &[
    global("negate_double", &[DOUBLE], DOUBLE, ALWAYS),
    global("negate_int64", &[INT], INT, ALWAYS),
];

pub(super) const SUBTRACT: &[Overload] = &[
    global("subtract_double", &[DOUBLE, DOUBLE], DOUBLE, ALWAYS),
    global(
        "subtract_duration_duration",
        &[DURATION, DURATION],
        DURATION,
        ALWAYS,
    ),
    global("subtract_int64", &[INT, INT], INT, ALWAYS),
    global(
        "subtract_timestamp_duration",
        &[TIMESTAMP, DURATION],
        TIMESTAMP,
        ALWAYS,
    ),
    global(
        "subtract_timestamp_timestamp",
        &[TIMESTAMP, TIMESTAMP],
        DURATION,
        ALWAYS,
    ),
    global("subtract_uint64", &[UINT, UINT], UINT, ALWAYS),
];

// Relations. The mixed int/uint/double overloads exist from 1.28 (CrossTypeNumericComparisons).

pub(super) const LESS: &[Overload] = &[
    global("less_bool", &[BOOL, BOOL], BOOL, ALWAYS),
    global("less_int64", &[INT, INT], BOOL, ALWAYS),
    global("less_int64_double", &[INT, DOUBLE], BOOL, V28),
    global("less_int64_uint64", &[INT, UINT], BOOL, V28),
    global("less_uint64", &[UINT, UINT], BOOL, ALWAYS),
    global("less_uint64_double", &[UINT, DOUBLE], BOOL, V28),
    global("less_uint64_int64", &[UINT, INT], BOOL, V28),
    global("less_double", &[DOUBLE, DOUBLE], BOOL, ALWAYS),
    global("less_double_int64", &[DOUBLE, INT], BOOL, V28),
    global("less_double_uint64", &[DOUBLE, UINT], BOOL, V28),
    global("less_string", &[STRING, STRING], BOOL, ALWAYS),
    global("less_bytes", &[BYTES, BYTES], BOOL, ALWAYS),
    global("less_timestamp", &[TIMESTAMP, TIMESTAMP], BOOL, ALWAYS),
    global("less_duration", &[DURATION, DURATION], BOOL, ALWAYS),
];

pub(super) const LESS_EQUALS: &[Overload] = &[
    global("less_equals_bool", &[BOOL, BOOL], BOOL, ALWAYS),
    global("less_equals_int64", &[INT, INT], BOOL, ALWAYS),
    global("less_equals_int64_double", &[INT, DOUBLE], BOOL, V28),
    global("less_equals_int64_uint64", &[INT, UINT], BOOL, V28),
    global("less_equals_uint64", &[UINT, UINT], BOOL, ALWAYS),
    global("less_equals_uint64_double", &[UINT, DOUBLE], BOOL, V28),
    global("less_equals_uint64_int64", &[UINT, INT], BOOL, V28),
    global("less_equals_double", &[DOUBLE, DOUBLE], BOOL, ALWAYS),
    global("less_equals_double_int64", &[DOUBLE, INT], BOOL, V28),
    global("less_equals_double_uint64", &[DOUBLE, UINT], BOOL, V28),
    global("less_equals_string", &[STRING, STRING], BOOL, ALWAYS),
    global("less_equals_bytes", &[BYTES, BYTES], BOOL, ALWAYS),
    global(
        "less_equals_timestamp",
        &[TIMESTAMP, TIMESTAMP],
        BOOL,
        ALWAYS,
    ),
    global("less_equals_duration", &[DURATION, DURATION], BOOL, ALWAYS),
];

pub(super) const GREATER: &[Overload] = &[
    global("greater_bool", &[BOOL, BOOL], BOOL, ALWAYS),
    global("greater_int64", &[INT, INT], BOOL, ALWAYS),
    global("greater_int64_double", &[INT, DOUBLE], BOOL, V28),
    global("greater_int64_uint64", &[INT, UINT], BOOL, V28),
    global("greater_uint64", &[UINT, UINT], BOOL, ALWAYS),
    global("greater_uint64_double", &[UINT, DOUBLE], BOOL, V28),
    global("greater_uint64_int64", &[UINT, INT], BOOL, V28),
    global("greater_double", &[DOUBLE, DOUBLE], BOOL, ALWAYS),
    global("greater_double_int64", &[DOUBLE, INT], BOOL, V28),
    global("greater_double_uint64", &[DOUBLE, UINT], BOOL, V28),
    global("greater_string", &[STRING, STRING], BOOL, ALWAYS),
    global("greater_bytes", &[BYTES, BYTES], BOOL, ALWAYS),
    global("greater_timestamp", &[TIMESTAMP, TIMESTAMP], BOOL, ALWAYS),
    global("greater_duration", &[DURATION, DURATION], BOOL, ALWAYS),
];

pub(super) const GREATER_EQUALS: &[Overload] = &[
    global("greater_equals_bool", &[BOOL, BOOL], BOOL, ALWAYS),
    global("greater_equals_int64", &[INT, INT], BOOL, ALWAYS),
    global("greater_equals_int64_double", &[INT, DOUBLE], BOOL, V28),
    global("greater_equals_int64_uint64", &[INT, UINT], BOOL, V28),
    global("greater_equals_uint64", &[UINT, UINT], BOOL, ALWAYS),
    global("greater_equals_uint64_double", &[UINT, DOUBLE], BOOL, V28),
    global("greater_equals_uint64_int64", &[UINT, INT], BOOL, V28),
    global("greater_equals_double", &[DOUBLE, DOUBLE], BOOL, ALWAYS),
    global("greater_equals_double_int64", &[DOUBLE, INT], BOOL, V28),
    global("greater_equals_double_uint64", &[DOUBLE, UINT], BOOL, V28),
    global("greater_equals_string", &[STRING, STRING], BOOL, ALWAYS),
    global("greater_equals_bytes", &[BYTES, BYTES], BOOL, ALWAYS),
    global(
        "greater_equals_timestamp",
        &[TIMESTAMP, TIMESTAMP],
        BOOL,
        ALWAYS,
    ),
    global(
        "greater_equals_duration",
        &[DURATION, DURATION],
        BOOL,
        ALWAYS,
    ),
];

// Indexing and membership.

/// `_[_]`: the standard list and map overloads, plus the two that the optional-types library
/// (cel/library.go) adds for an optional operand (`opt[i]`, `opt[k]`), from 1.28.
pub(super) const INDEX: &[Overload] = &[
    global("index_list", &[LIST_A, INT], A, ALWAYS),
    global("index_map", &[MAP_AB, A], B, ALWAYS),
    global(
        "optional_list_index_int",
        &[P::Optional(&LIST_A), INT],
        P::Optional(&A),
        V28,
    ),
    global(
        "optional_map_index_value",
        &[P::Optional(&MAP_AB), A],
        P::Optional(&B),
        V28,
    ),
];

pub(super) const IN: &[Overload] = &[
    global("in_list", &[A, LIST_A], BOOL, ALWAYS),
    global("in_map", &[A, MAP_AB], BOOL, ALWAYS),
];

pub(super) const SIZE: &[Overload] = &[
    global("size_bytes", &[BYTES], INT, ALWAYS),
    member("bytes_size", &[BYTES], INT, ALWAYS),
    global("size_list", &[LIST_A], INT, ALWAYS),
    member("list_size", &[LIST_A], INT, ALWAYS),
    global("size_map", &[MAP_AB], INT, ALWAYS),
    member("map_size", &[MAP_AB], INT, ALWAYS),
    global("size_string", &[STRING], INT, ALWAYS),
    member("string_size", &[STRING], INT, ALWAYS),
];

// Type conversions.

pub(super) const TYPE: &[Overload] = &[global("type", &[A], P::Type(&A), ALWAYS)];

pub(super) const BOOL_FN: &[Overload] = &[
    global("bool_to_bool", &[BOOL], BOOL, ALWAYS),
    global("string_to_bool", &[STRING], BOOL, ALWAYS),
];

pub(super) const BYTES_FN: &[Overload] = &[
    global("bytes_to_bytes", &[BYTES], BYTES, ALWAYS),
    global("string_to_bytes", &[STRING], BYTES, ALWAYS),
];

pub(super) const DOUBLE_FN: &[Overload] = &[
    global("double_to_double", &[DOUBLE], DOUBLE, ALWAYS),
    global("int64_to_double", &[INT], DOUBLE, ALWAYS),
    global("string_to_double", &[STRING], DOUBLE, ALWAYS),
    global("uint64_to_double", &[UINT], DOUBLE, ALWAYS),
];

pub(super) const DURATION_FN: &[Overload] = &[
    global("duration_to_duration", &[DURATION], DURATION, ALWAYS),
    global("string_to_duration", &[STRING], DURATION, ALWAYS),
];

pub(super) const DYN: &[Overload] = &[global("to_dyn", &[A], P::Dyn, ALWAYS)];

pub(super) const INT_FN: &[Overload] = &[
    global("int64_to_int64", &[INT], INT, ALWAYS),
    global("double_to_int64", &[DOUBLE], INT, ALWAYS),
    global("duration_to_int64", &[DURATION], INT, ALWAYS),
    global("string_to_int64", &[STRING], INT, ALWAYS),
    global("timestamp_to_int64", &[TIMESTAMP], INT, ALWAYS),
    global("uint64_to_int64", &[UINT], INT, ALWAYS),
];

/// `string(x)`: the standard conversions, plus `string(ip)` (library/ip.go) and `string(cidr)`
/// (library/cidr.go) from 1.30, which cel-go merges into the same function.
pub(super) const STRING_FN: &[Overload] = &[
    global("string_to_string", &[STRING], STRING, ALWAYS),
    global("bool_to_string", &[BOOL], STRING, ALWAYS),
    global("bytes_to_string", &[BYTES], STRING, ALWAYS),
    global("double_to_string", &[DOUBLE], STRING, ALWAYS),
    global("duration_to_string", &[DURATION], STRING, ALWAYS),
    global("int64_to_string", &[INT], STRING, ALWAYS),
    global("timestamp_to_string", &[TIMESTAMP], STRING, ALWAYS),
    global("uint64_to_string", &[UINT], STRING, ALWAYS),
    global("ip_to_string", &[super::IP], STRING, super::V30),
    global("cidr_to_string", &[super::CIDR], STRING, super::V30),
];

pub(super) const TIMESTAMP_FN: &[Overload] = &[
    global("timestamp_to_timestamp", &[TIMESTAMP], TIMESTAMP, ALWAYS),
    global("int64_to_timestamp", &[INT], TIMESTAMP, ALWAYS),
    global("string_to_timestamp", &[STRING], TIMESTAMP, ALWAYS),
];

pub(super) const UINT_FN: &[Overload] = &[
    global("uint64_to_uint64", &[UINT], UINT, ALWAYS),
    global("double_to_uint64", &[DOUBLE], UINT, ALWAYS),
    global("int64_to_uint64", &[INT], UINT, ALWAYS),
    global("string_to_uint64", &[STRING], UINT, ALWAYS),
];

// String functions.

pub(super) const CONTAINS: &[Overload] =
    &[member("contains_string", &[STRING, STRING], BOOL, ALWAYS)];
pub(super) const ENDS_WITH: &[Overload] =
    &[member("ends_with_string", &[STRING, STRING], BOOL, ALWAYS)];
pub(super) const STARTS_WITH: &[Overload] = &[member(
    "starts_with_string",
    &[STRING, STRING],
    BOOL,
    ALWAYS,
)];
pub(super) const MATCHES: &[Overload] = &[
    global("matches", &[STRING, STRING], BOOL, ALWAYS),
    member("matches_string", &[STRING, STRING], BOOL, ALWAYS),
];

// Timestamp and duration accessors: an optional time-zone argument on timestamps.

pub(super) const GET_FULL_YEAR: &[Overload] = &[
    member("timestamp_to_year", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_year_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
];

pub(super) const GET_MONTH: &[Overload] = &[
    member("timestamp_to_month", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_month_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
];

pub(super) const GET_DAY_OF_YEAR: &[Overload] = &[
    member("timestamp_to_day_of_year", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_day_of_year_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
];

/// `getDayOfMonth` is 0-based (`timestamp_to_day_of_month`), `getDate` 1-based.
pub(super) const GET_DAY_OF_MONTH: &[Overload] = &[
    member("timestamp_to_day_of_month", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_day_of_month_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
];

pub(super) const GET_DATE: &[Overload] = &[
    member(
        "timestamp_to_day_of_month_1_based",
        &[TIMESTAMP],
        INT,
        ALWAYS,
    ),
    member(
        "timestamp_to_day_of_month_1_based_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
];

pub(super) const GET_DAY_OF_WEEK: &[Overload] = &[
    member("timestamp_to_day_of_week", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_day_of_week_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
];

pub(super) const GET_HOURS: &[Overload] = &[
    member("timestamp_to_hours", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_hours_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
    member("duration_to_hours", &[DURATION], INT, ALWAYS),
];

pub(super) const GET_MINUTES: &[Overload] = &[
    member("timestamp_to_minutes", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_minutes_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
    member("duration_to_minutes", &[DURATION], INT, ALWAYS),
];

/// Note cel-go's id for the zoned variant: `timestamp_to_seconds_tz` (no `_with`).
pub(super) const GET_SECONDS: &[Overload] = &[
    member("timestamp_to_seconds", &[TIMESTAMP], INT, ALWAYS),
    member("timestamp_to_seconds_tz", &[TIMESTAMP, STRING], INT, ALWAYS),
    member("duration_to_seconds", &[DURATION], INT, ALWAYS),
];

pub(super) const GET_MILLISECONDS: &[Overload] = &[
    member("timestamp_to_milliseconds", &[TIMESTAMP], INT, ALWAYS),
    member(
        "timestamp_to_milliseconds_with_tz",
        &[TIMESTAMP, STRING],
        INT,
        ALWAYS,
    ),
    member("duration_to_milliseconds", &[DURATION], INT, ALWAYS),
];
