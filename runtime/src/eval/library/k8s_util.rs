//! Small helpers shared by the Kubernetes library types (URL, IP, CIDR, Quantity, Semver,
//! Format).

use std::sync::Arc;

use super::super::error::EvalError;
use super::super::function::{STRING_TRAVERSAL_FACTOR, traversal_cost};
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
    crd_cel_core::go::quote(s)
}

#[cfg(test)]
mod tests {
    use super::super::super::functions::lookup;
    use super::super::{named_format, net, quantity, semver, url};

    #[test]
    fn every_entry_is_a_declared_function_and_every_declared_one_is_implemented() {
        let tables = [
            url::FUNCTIONS,
            net::FUNCTIONS,
            quantity::FUNCTIONS,
            semver::FUNCTIONS,
            named_format::FUNCTIONS,
        ];
        for f in tables.iter().flat_map(|t| t.iter()) {
            assert!(
                crd_cel_core::env::find(f.name.as_bytes()).is_some(),
                "{} is not declared in crd_cel_core::env",
                f.name
            );
        }
        // The names library/{urls,ip,cidr,quantity,semverlib,format}.go declare.
        let declared = [
            "url",
            "isURL",
            "getScheme",
            "getHost",
            "getHostname",
            "getPort",
            "getEscapedPath",
            "getQuery",
            "quantity",
            "isQuantity",
            "sign",
            "isGreaterThan",
            "isLessThan",
            "compareTo",
            "asApproximateFloat",
            "asInteger",
            "isInteger",
            "add",
            "sub",
            "ip",
            "isIP",
            "ip.isCanonical",
            "family",
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast",
            "cidr",
            "isCIDR",
            "containsIP",
            "containsCIDR",
            "prefixLength",
            "masked",
            "format.named",
            "validate",
            "format.dns1123Label",
            "format.dns1123Subdomain",
            "format.dns1035Label",
            "format.qualifiedName",
            "format.dns1123LabelPrefix",
            "format.dns1123SubdomainPrefix",
            "format.dns1035LabelPrefix",
            "format.labelValue",
            "format.uri",
            "format.uuid",
            "format.byte",
            "format.date",
            "format.datetime",
            "semver",
            "isSemver",
            "major",
            "minor",
            "patch",
        ];
        for name in declared {
            assert!(lookup(name).is_some(), "{name} is not implemented");
        }
    }
}
