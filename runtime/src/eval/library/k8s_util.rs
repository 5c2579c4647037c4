//! Small helpers shared by the Kubernetes library types (URL, IP, CIDR, Quantity, Semver,
//! Format).

use std::sync::Arc;

use super::super::error::EvalError;
use super::super::functions::{STRING_TRAVERSAL_FACTOR, traversal_cost};
use super::super::value::{Opaque, Value};

/// The library value of type `T` inside `v`, if `v` is one.
pub(crate) fn downcast<T: Opaque>(v: &Value) -> Option<&T> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<T>(),
        _ => None,
    }
}

/// Wraps a library value.
pub(crate) fn opaque<T: Opaque>(v: T) -> Value {
    Value::Opaque(Arc::new(v))
}

/// `==` between two library values of type `T`: `no such overload` when `other` is of another
/// type, as the Go `Equal` methods answer (`types.MaybeNoSuchOverloadErr`).
pub(crate) fn same_type<T: Opaque>(other: &dyn Opaque) -> Result<&T, EvalError> {
    other
        .as_any()
        .downcast_ref::<T>()
        .ok_or_else(EvalError::no_such_overload)
}

/// `ceil(size(args[0]) * 0.1)`: the Kubernetes cost of the parsing functions (`url`, `cidr`,
/// `quantity`, ...), whose first argument is the string parsed.
pub(crate) fn first_arg_traversal(args: &[Value], _result: &Value) -> u64 {
    args.first().map_or(1, |a| {
        traversal_cost(a.cost_size(), STRING_TRAVERSAL_FACTOR)
    })
}

/// A string quoted as Go's `%q` prints it.
pub(crate) fn quote(s: &str) -> String {
    crd_cel_core::rule_fields::go_quote(s)
}
