//! Optional types: cel-go `cel/library.go` (`optionalLib`, v0.29.2), from 1.28. The apiserver
//! calls `cel.OptionalTypes()` without a version, so every version of the library is enabled:
//! version 0 (`optional.of`, `optional.ofNonZeroValue`, `optional.none`, `value`, `hasValue`,
//! `or`, `orValue`, `_?._`, `_[?_]` and the optional `_[_]` overloads, which are merged into the
//! standard `_[_]` entry), version 1 (the `optFlatMap` macro) and version 2 (`first`, `last`,
//! `optional.unwrap`, `unwrapOpt`).
//!
//! `optMap` and `optFlatMap` are parser macros (see [`super::MACROS`]), not functions.
//! `_?._` (`x.?f`) is declared as `(dyn, string) -> optional_type(V)`, but cel-go's checker
//! special-cases it (checkOptSelect: the field type of the operand decides the result), and it
//! never resolves it against this declaration.

use super::{A, LIST_A, MAP_AB, OPT_A, OPT_B, Overload, P, V28, global, member};

pub(super) const OF: &[Overload] = &[global("optional_of", &[A], OPT_A, V28)];
pub(super) const OF_NON_ZERO_VALUE: &[Overload] =
    &[global("optional_ofNonZeroValue", &[A], OPT_A, V28)];
pub(super) const NONE: &[Overload] = &[global("optional_none", &[], OPT_A, V28)];
pub(super) const VALUE: &[Overload] = &[member("optional_value", &[OPT_A], A, V28)];
pub(super) const HAS_VALUE: &[Overload] = &[member("optional_hasValue", &[OPT_A], P::Bool, V28)];
pub(super) const OR: &[Overload] = &[member("optional_or_optional", &[OPT_A, OPT_A], OPT_A, V28)];
pub(super) const OR_VALUE: &[Overload] = &[member("optional_orValue_value", &[OPT_A, A], A, V28)];

pub(super) const OPT_SELECT: &[Overload] = &[global(
    "select_optional_field",
    &[P::Dyn, P::String],
    OPT_A,
    V28,
)];

/// `_[?_]`: `list[?i]`, `map[?k]`, and the same on an optional operand.
pub(super) const OPT_INDEX: &[Overload] = &[
    global("list_optindex_optional_int", &[LIST_A, P::Int], OPT_A, V28),
    global(
        "optional_list_optindex_optional_int",
        &[P::Optional(&LIST_A), P::Int],
        OPT_A,
        V28,
    ),
    global("map_optindex_optional_value", &[MAP_AB, A], OPT_B, V28),
    global(
        "optional_map_optindex_optional_value",
        &[P::Optional(&MAP_AB), A],
        OPT_B,
        V28,
    ),
];

// Version 2.

pub(super) const LAST: &[Overload] = &[member("list_last", &[LIST_A], OPT_A, V28)];
pub(super) const FIRST: &[Overload] = &[member("list_first", &[LIST_A], OPT_A, V28)];
pub(super) const UNWRAP: &[Overload] =
    &[global("optional_unwrap", &[P::List(&OPT_A)], LIST_A, V28)];
pub(super) const UNWRAP_OPT: &[Overload] = &[member(
    "optional_unwrapOpt",
    &[P::List(&OPT_A)],
    LIST_A,
    V28,
)];
