//! The functions rules can call at runtime, by the name the CRD environment declares them under
//! (`crd_cel_core::env::FUNCTIONS`), with the apiserver's runtime cost for each call: the
//! libraries' tables assembled into one lookup.
//!
//! The interpreter resolves every call of a program to one [`Function`] when the program is
//! built, so evaluation never looks a name up.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::function::Function;
use super::{library, stdlib};

/// Every table [`lookup`] searches.
const TABLES: &[&[Function]] = &[
    stdlib::FUNCTIONS,
    library::strings::FUNCTIONS,
    library::lists::FUNCTIONS,
    library::sets::FUNCTIONS,
    library::regex::FUNCTIONS,
    library::url::FUNCTIONS,
    library::net::FUNCTIONS,
    library::quantity::FUNCTIONS,
    library::semver::FUNCTIONS,
    library::named_format::FUNCTIONS,
];

/// The function declared under `name`, if crd-cel implements it at runtime. A declared function
/// that is missing here makes the program fail to build with "not supported by crd-cel yet".
pub fn lookup(name: &str) -> Option<&'static Function> {
    static TABLE: OnceLock<HashMap<&'static str, &'static Function>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut m = HashMap::new();
            for table in TABLES {
                for f in table.iter() {
                    let previous = m.insert(f.name, f);
                    debug_assert!(previous.is_none(), "{} is implemented twice", f.name);
                }
            }
            m
        })
        .get(name)
        .copied()
}

#[cfg(test)]
mod tests {
    /// Operators the interpreter evaluates itself (short-circuits, equality, selection).
    const BUILT_INTO_THE_INTERPRETER: &[&str] = &[
        "_&&_",
        "_||_",
        "_?_:_",
        "_==_",
        "_!=_",
        "@not_strictly_false",
        "_[_]",
        "_[?_]",
        "_?._",
    ];

    #[test]
    fn every_declared_function_runs_except_the_authorizer_library() {
        let mut missing = Vec::new();
        for f in crd_cel_core::env::FUNCTIONS {
            if BUILT_INTO_THE_INTERPRETER.contains(&f.name) || super::lookup(f.name).is_some() {
                continue;
            }
            missing.push(f.name);
        }
        // The Authz library is declared (rules that call it get cel-go's errors at check time)
        // but CRD rules have no `authorizer` variable, so nothing can reach it at runtime.
        let authz = [
            "path",
            "group",
            "serviceAccount",
            "resource",
            "subresource",
            "namespace",
            "name",
            "check",
            "allowed",
            "reason",
            "errored",
            "error",
            "fieldSelector",
            "labelSelector",
        ];
        missing.retain(|m| !authz.contains(m));
        assert!(
            missing.is_empty(),
            "declared but not implemented: {missing:?}"
        );
    }
}
