//! What cel-go makes of a call given the overload its checker resolved it to (the reference map,
//! [`Resolution`]): how the planner shapes it and what the runtime cost tracker charges.
//!
//! - **Shape** (`interpreter/planner.go`, `planCall`): a call of one or two arguments is planned
//!   as `evalUnary`/`evalBinary` (every argument evaluated, then the first error returned) unless
//!   the binding it finds has only a variadic implementation: an overload declared with
//!   `FunctionBinding` alone (`string_format`), or the dispatcher cel-go writes for a function
//!   of several bound overloads, which a call the checker could not resolve to one overload
//!   (`Many`) gets. Those, and every call of three or more arguments, are `evalVarArgs`: the
//!   arguments are evaluated up to the first error, which is the result. The constant-pattern
//!   `matches` the regex optimization plans is one too (`interpreter/optimizations.go`).
//! - **Cost** (`interpreter/runtimecost.go`, `costCall`): the tracker pops the call's arguments
//!   off its value stack by expression id, and charges nothing when one is missing: a variadic
//!   call that stopped at an error before its last argument is free. Otherwise the first of
//!   these that has an answer decides: the overload's own tracker (ext.Lists and ext.Sets, by
//!   overload id), the Kubernetes estimator (`k8s.io/apiserver/pkg/cel/library/cost.go`, by
//!   function name), cel-go's default (by overload id: string traversals, `in` on a list,
//!   `matches`, `contains`; 1 for everything else, and for an unresolved call). Errors among
//!   the arguments are sized 1, like any value that is not a `Sizer`: which formula applies is
//!   never decided by the values.
//!
//! The library tables' cost functions are the trackers' and the Kubernetes estimator's; the
//! default switch is written here, once. A program planned without the checker's resolution
//! ([`Resolution::Unresolved`] everywhere) charges what the library tables say of the values.

use crd_cel_core::check::Resolution;

use super::super::function::{
    CostFn, Function, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, traversal_cost,
};
use super::super::library::{lists, net};
use super::super::value::Value;
use super::ir::{Callee, MatchesCost};

/// The call of `function` with `argc` arguments (the receiver counted) that the checker
/// resolved to `resolution`; `constant_pattern`: its second argument is a constant string.
pub(super) fn callee(
    function: &'static Function,
    resolution: Resolution,
    argc: usize,
    constant_pattern: bool,
) -> Callee {
    let varargs = argc > 2
        || (constant_pattern && REGEX_OPTIMIZED.contains(&function.name))
        || match resolution {
            Resolution::One(id) => FUNCTION_BINDING_ONLY.contains(&id),
            Resolution::Many => !SINGLETONS.contains(&function.name),
            Resolution::Unresolved => false,
        };
    let k8s = KUBERNETES_COSTED.contains(&function.name);
    // The IP library's formulas that depend on the overload id the estimator is given.
    let by_overload = match resolution {
        Resolution::One(id) => net::overload_cost(function.name, Some(id)),
        Resolution::Many => net::overload_cost(function.name, None),
        Resolution::Unresolved => None,
    };
    let (cost, tracked) = match (resolution, by_overload) {
        (Resolution::Unresolved, _) => (function.cost, true),
        (Resolution::One(id), _) if is_tracked(id) => (function.cost, true),
        (_, Some(cost)) => (cost, false),
        _ if k8s => (function.cost, false),
        (Resolution::One(id), None) => (default_cost(id), false),
        (Resolution::Many, None) => (None, false),
    };
    let call = match resolution {
        Resolution::One(id) => lists::overload(id).unwrap_or(function.call),
        _ => function.call,
    };
    let cost_before_1_37 = match resolution {
        Resolution::One("starts_with_string" | "ends_with_string") => {
            Some(Some(first_traversal as CostFn))
        }
        Resolution::One("matches") => Some(None),
        _ if function.name == "includes" => Some(None),
        _ => None,
    };
    Callee {
        function,
        call,
        cost,
        cost_before_1_37,
        varargs,
        // Only an overload's own tracker asserts an argument's type.
        asserts_list: if tracked {
            lists::tracker_asserts_list(function.name)
        } else {
            None
        },
    }
}

/// How `matches` with a constant pattern the checker resolved to `resolution` is charged.
pub(super) fn matches_cost(resolution: Resolution) -> MatchesCost {
    match resolution {
        Resolution::One("matches") => MatchesCost::GlobalFormula,
        Resolution::One(_) => MatchesCost::Formula,
        Resolution::Many => MatchesCost::Unit,
        Resolution::Unresolved => MatchesCost::Legacy,
    }
}

/// The functions whose calls with a constant pattern a regex optimization replaces with a
/// variadic call (the Kubernetes Regex library's `FindRegexOptimization` and
/// `FindAllRegexOptimization`; `matches`' own is planned as [`super::ir::Op::Matches`]).
const REGEX_OPTIMIZED: &[&str] = &["find", "findAll"];

/// Overloads whose only binding is variadic (`cel.FunctionBinding`) among those of one or two
/// arguments.
const FUNCTION_BINDING_ONLY: &[&str] = &["string_format"];

/// Functions bound once for all their overloads (`SingletonUnaryBinding`,
/// `SingletonBinaryBinding`): an unresolved call still finds a unary or binary binding.
const SINGLETONS: &[&str] = &[
    "!_",
    "-_",
    "_+_",
    "_-_",
    "_*_",
    "_/_",
    "_%_",
    "_<_",
    "_<=_",
    "_>_",
    "_>=_",
    "_==_",
    "_!=_",
    "_&&_",
    "_||_",
    "_[_]",
    "@in",
    "size",
    "type",
    "dyn",
    "matches",
    "sort",
    "@sortByAssociatedKeys",
];

/// Whether an overload has its own cost tracker: ext.Lists version 3's and ext.Sets'.
fn is_tracked(id: &str) -> bool {
    matches!(
        id,
        "list_slice"
            | "list_flatten"
            | "list_flatten_int"
            | "lists_range"
            | "list_reverse"
            | "list_distinct"
            | "list_sets_contains_list"
            | "list_sets_intersects_list"
            | "list_sets_equivalent_list"
    ) || (id.starts_with("list_")
        && (id.ends_with("_sort") || id.ends_with("_sortByAssociatedKeys")))
}

/// The functions the Kubernetes estimator's `CallCost` prices, by name (`_==_` aside, which
/// the interpreter prices itself).
const KUBERNETES_COSTED: &[&str] = &[
    "check",
    "serviceAccount",
    "path",
    "group",
    "resource",
    "subresource",
    "namespace",
    "name",
    "allowed",
    "reason",
    "error",
    "errored",
    "fieldSelector",
    "labelSelector",
    "isSorted",
    "sum",
    "max",
    "min",
    "indexOf",
    "lastIndexOf",
    "includes",
    "url",
    "lowerAscii",
    "upperAscii",
    "substring",
    "trim",
    "jsonpatch.escapeKey",
    "replace",
    "split",
    "join",
    "find",
    "findAll",
    "cidr",
    "isIP",
    "isCIDR",
    "ip",
    "ip.isCanonical",
    "masked",
    "prefixLength",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "containsIP",
    "containsCIDR",
    "quantity",
    "isQuantity",
    "semver",
    "isSemver",
    "validate",
    "format.named",
    "sign",
    "asInteger",
    "isInteger",
    "asApproximateFloat",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "major",
    "minor",
    "patch",
    "getScheme",
    "getHostname",
    "getHost",
    "getPort",
    "getEscapedPath",
    "getQuery",
];

/// cel-go's default cost of an overload (`None`: 1).
fn default_cost(id: &str) -> Option<CostFn> {
    Some(match id {
        "starts_with_string" | "ends_with_string" => second_traversal,
        "string_to_bytes" | "bytes_to_string" | "strings_quote" | "string_format" => {
            first_traversal
        }
        "in_list" => list_size,
        "less_string"
        | "greater_string"
        | "less_equals_string"
        | "greater_equals_string"
        | "less_bytes"
        | "greater_bytes"
        | "less_equals_bytes"
        | "greater_equals_bytes" => min_traversal,
        "add_string" | "add_bytes" => sum_traversal,
        "matches" | "matches_string" => matches,
        "contains_string" => contains,
        _ => return None,
    })
}

/// cel-go's `actualSize` of argument `i`.
fn size(args: &[Value], i: usize) -> u64 {
    args.get(i).map_or(1, Value::cost_size)
}

fn first_traversal(args: &[Value], _: &Value) -> u64 {
    traversal_cost(size(args, 0), STRING_TRAVERSAL_FACTOR)
}

fn second_traversal(args: &[Value], _: &Value) -> u64 {
    traversal_cost(size(args, 1), STRING_TRAVERSAL_FACTOR)
}

fn list_size(args: &[Value], _: &Value) -> u64 {
    size(args, 1)
}

fn min_traversal(args: &[Value], _: &Value) -> u64 {
    traversal_cost(size(args, 0).min(size(args, 1)), STRING_TRAVERSAL_FACTOR)
}

fn sum_traversal(args: &[Value], _: &Value) -> u64 {
    traversal_cost(
        size(args, 0).saturating_add(size(args, 1)),
        STRING_TRAVERSAL_FACTOR,
    )
}

fn matches(args: &[Value], _: &Value) -> u64 {
    matches_formula(size(args, 0), size(args, 1))
}

/// `matches`' cost from the sizes of its target and pattern: `ceil((1 + n) * 0.1) *
/// ceil(m * 0.25)`.
pub(super) fn matches_formula(target: u64, pattern: u64) -> u64 {
    let s = traversal_cost(target.saturating_add(1), STRING_TRAVERSAL_FACTOR);
    s.saturating_mul(traversal_cost(pattern, REGEX_LENGTH_FACTOR))
}

fn contains(args: &[Value], _: &Value) -> u64 {
    traversal_cost(size(args, 0), STRING_TRAVERSAL_FACTOR)
        .saturating_mul(traversal_cost(size(args, 1), STRING_TRAVERSAL_FACTOR))
}

/// cel-go's default cost of `==` and `!=` (`ceil(min(size(a), size(b)) * 0.1)`), and the
/// Kubernetes estimator's 1 for `==` whose left operand is one of its types.
pub(super) fn equality_cost(l: &Value, r: &Value, ne: bool) -> u64 {
    if !ne && let Value::Opaque(_) = l {
        return 1;
    }
    traversal_cost(l.cost_size().min(r.cost_size()), STRING_TRAVERSAL_FACTOR)
}
