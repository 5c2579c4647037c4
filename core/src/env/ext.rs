//! cel-go extension libraries (cel-go v0.29.2): ext.Strings, ext.Sets, the two-variable
//! comprehensions' helper and ext.Lists.

use super::{
    A, ALWAYS, B, LIST_A, LIST_DYN, LIST_STRING, MAP_AB, Overload, P, V29, V32, V34, global, member,
};

const INT: P = P::Int;
const STRING: P = P::String;

// ---------------------------------------------------------------------------------------------
// ext.Strings: `ext/strings.go`. The apiserver declares version 0 before 1.29 and version 2 from
// 1.29. Both versions declare the same `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`,
// `replace`, `split`, `substring`, `trim`, `upperAscii` and `join` overloads (version 2 only
// changes how `join` evaluates a dynamically typed list: the declarations are identical, both
// `list(string)`); version 1 adds `format` and `strings.quote`, hence 1.29. `reverse` is
// version 3: not in the apiserver.

pub(super) const CHAR_AT: &[Overload] =
    &[member("string_char_at_int", &[STRING, INT], STRING, ALWAYS)];

/// `indexOf`: ext.Strings' string overloads, plus Kubernetes Lists' `list_a_index_of_int`
/// (library/lists.go, every version), merged by cel-go.
pub(super) const INDEX_OF: &[Overload] = &[
    member("string_index_of_string", &[STRING, STRING], INT, ALWAYS),
    member(
        "string_index_of_string_int",
        &[STRING, STRING, INT],
        INT,
        ALWAYS,
    ),
    member("list_a_index_of_int", &[LIST_A, A], INT, ALWAYS),
];

/// `lastIndexOf`: ext.Strings' string overloads, plus Kubernetes Lists'
/// `list_a_last_index_of_int`.
pub(super) const LAST_INDEX_OF: &[Overload] = &[
    member(
        "string_last_index_of_string",
        &[STRING, STRING],
        INT,
        ALWAYS,
    ),
    member(
        "string_last_index_of_string_int",
        &[STRING, STRING, INT],
        INT,
        ALWAYS,
    ),
    member("list_a_last_index_of_int", &[LIST_A, A], INT, ALWAYS),
];

pub(super) const LOWER_ASCII: &[Overload] =
    &[member("string_lower_ascii", &[STRING], STRING, ALWAYS)];

pub(super) const REPLACE: &[Overload] = &[
    member(
        "string_replace_string_string",
        &[STRING, STRING, STRING],
        STRING,
        ALWAYS,
    ),
    member(
        "string_replace_string_string_int",
        &[STRING, STRING, STRING, INT],
        STRING,
        ALWAYS,
    ),
];

pub(super) const SPLIT: &[Overload] = &[
    member(
        "string_split_string",
        &[STRING, STRING],
        LIST_STRING,
        ALWAYS,
    ),
    member(
        "string_split_string_int",
        &[STRING, STRING, INT],
        LIST_STRING,
        ALWAYS,
    ),
];

pub(super) const SUBSTRING: &[Overload] = &[
    member("string_substring_int", &[STRING, INT], STRING, ALWAYS),
    member(
        "string_substring_int_int",
        &[STRING, INT, INT],
        STRING,
        ALWAYS,
    ),
];

pub(super) const TRIM: &[Overload] = &[member("string_trim", &[STRING], STRING, ALWAYS)];

pub(super) const UPPER_ASCII: &[Overload] =
    &[member("string_upper_ascii", &[STRING], STRING, ALWAYS)];

/// `'%d items'.format([n])`: version 1+, so from 1.29.
pub(super) const FORMAT: &[Overload] = &[member("string_format", &[STRING, LIST_DYN], STRING, V29)];

/// `strings.quote(s)`: version 1+, so from 1.29.
pub(super) const STRINGS_QUOTE: &[Overload] = &[global("strings_quote", &[STRING], STRING, V29)];

pub(super) const JOIN: &[Overload] = &[
    member("list_join", &[LIST_STRING], STRING, ALWAYS),
    member("list_join_string", &[LIST_STRING, STRING], STRING, ALWAYS),
];

// ---------------------------------------------------------------------------------------------
// ext.Sets: `ext/sets.go` (unversioned declarations), from 1.29. Global functions over two lists
// of the same element type.

pub(super) const SETS_CONTAINS: &[Overload] = &[global(
    "list_sets_contains_list",
    &[LIST_A, LIST_A],
    P::Bool,
    V29,
)];
pub(super) const SETS_EQUIVALENT: &[Overload] = &[global(
    "list_sets_equivalent_list",
    &[LIST_A, LIST_A],
    P::Bool,
    V29,
)];
pub(super) const SETS_INTERSECTS: &[Overload] = &[global(
    "list_sets_intersects_list",
    &[LIST_A, LIST_A],
    P::Bool,
    V29,
)];

// ---------------------------------------------------------------------------------------------
// Two-variable comprehensions: `ext/comprehensions.go`, from 1.32. The library is mostly macros
// (see `MACROS`); `transformMap` and `transformMapEntry` expand to calls of this internal
// function, which users cannot write (`@` is not an identifier character).

pub(super) const MAP_INSERT: &[Overload] = &[
    global("@mapInsert_map_key_value", &[MAP_AB, A, B], MAP_AB, V32),
    global("@mapInsert_map_map", &[MAP_AB, MAP_AB], MAP_AB, V32),
];

// ---------------------------------------------------------------------------------------------
// ext.Lists: `ext/lists.go`, version 3, from 1.34 (versions 0 to 2 declare the functions; 3 adds
// cost estimates). `sort` and `@sortByAssociatedKeys` are declared once per comparable type, in
// cel-go's order (int, uint, double, bool, duration, timestamp, string, bytes), with ids built
// from the CEL type names (`list_google.protobuf.Duration_sort`). `sortBy(v, key)` is a macro:
// what the checker sees is `@sortByAssociatedKeys(list(A), list(T)) -> list(A)` on the bound
// receiver, with the keys list built by a `map` comprehension.

pub(super) const SLICE: &[Overload] = &[member("list_slice", &[LIST_A, INT, INT], LIST_A, V34)];

/// `flatten()` takes `list(list(A))`; `flatten(depth)` works on `list(dyn)`.
pub(super) const FLATTEN: &[Overload] = &[
    member("list_flatten", &[P::List(&LIST_A)], LIST_A, V34),
    member("list_flatten_int", &[LIST_DYN, INT], LIST_DYN, V34),
];

/// One `sort` overload on `list(T)` for a comparable `T`.
const fn sort(id: &'static str, list: &'static [P]) -> Overload {
    member(id, list, list[0], V34)
}

const LIST_INT: P = P::List(&P::Int);
const LIST_UINT: P = P::List(&P::Uint);
const LIST_DOUBLE: P = P::List(&P::Double);
const LIST_BOOL: P = P::List(&P::Bool);
const LIST_DURATION: P = P::List(&P::Duration);
const LIST_TIMESTAMP: P = P::List(&P::Timestamp);
const LIST_BYTES: P = P::List(&P::Bytes);

pub(super) const SORT: &[Overload] = &[
    sort("list_int_sort", &[LIST_INT]),
    sort("list_uint_sort", &[LIST_UINT]),
    sort("list_double_sort", &[LIST_DOUBLE]),
    sort("list_bool_sort", &[LIST_BOOL]),
    sort("list_google.protobuf.Duration_sort", &[LIST_DURATION]),
    sort("list_google.protobuf.Timestamp_sort", &[LIST_TIMESTAMP]),
    sort("list_string_sort", &[LIST_STRING]),
    sort("list_bytes_sort", &[LIST_BYTES]),
];

/// One `@sortByAssociatedKeys` overload: `list(A).@sortByAssociatedKeys(list(T)) -> list(A)`.
const fn sort_by(id: &'static str, args: &'static [P]) -> Overload {
    member(id, args, LIST_A, V34)
}

pub(super) const SORT_BY_ASSOCIATED_KEYS: &[Overload] = &[
    sort_by("list_int_sortByAssociatedKeys", &[LIST_A, LIST_INT]),
    sort_by("list_uint_sortByAssociatedKeys", &[LIST_A, LIST_UINT]),
    sort_by("list_double_sortByAssociatedKeys", &[LIST_A, LIST_DOUBLE]),
    sort_by("list_bool_sortByAssociatedKeys", &[LIST_A, LIST_BOOL]),
    sort_by(
        "list_google.protobuf.Duration_sortByAssociatedKeys",
        &[LIST_A, LIST_DURATION],
    ),
    sort_by(
        "list_google.protobuf.Timestamp_sortByAssociatedKeys",
        &[LIST_A, LIST_TIMESTAMP],
    ),
    sort_by("list_string_sortByAssociatedKeys", &[LIST_A, LIST_STRING]),
    sort_by("list_bytes_sortByAssociatedKeys", &[LIST_A, LIST_BYTES]),
];

pub(super) const LISTS_RANGE: &[Overload] = &[global("lists_range", &[INT], LIST_INT, V34)];

pub(super) const REVERSE: &[Overload] = &[member("list_reverse", &[LIST_A], LIST_A, V34)];

pub(super) const DISTINCT: &[Overload] = &[member("list_distinct", &[LIST_A], LIST_A, V34)];
