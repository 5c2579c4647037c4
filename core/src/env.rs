//! The function declarations of the Kubernetes CRD validation CEL environment, per compatibility
//! version (`k8s.io/apiserver/pkg/cel/environment/base.go` and 6.2).
//!
//! [`FUNCTIONS`] holds every function the environment declares at any compatibility version, with
//! the same names, overload ids, argument and result types, type parameters and call style
//! (global or member) as cel-go v0.29.2 and `k8s.io/apiserver` v0.37.2 declare them. Each overload
//! carries the compatibility versions it exists in (the "introduced" and "removed" columns of
//! `k8s.io/apiserver/pkg/cel/environment/base.go`, which are compatibility minors), so one table serves every target: a checker
//! at compatibility `1.N` keeps the overloads whose `versions.contains(N)`.
//!
//! As cel-go merges the overloads of one function name across libraries, a name that several
//! libraries declare (`string`, `indexOf`, `ip`, `isLessThan`, `_[_]`, ...) is one [`Function`]
//! here with all its overloads, each with its own versions.
//!
//! Not declared, on purpose: the Kubernetes Authz and AuthzSelectors libraries (CRD rules have no
//! `authorizer` variable), the JSON-patch, math, base64/encoders, protos and bindings extensions
//! (not in the CRD environment), the deprecated `_in_`, `in` and `__not_strictly_false__` (cel-go
//! declares them disabled: invisible to the checker), and ext.Strings `reverse` (version 3; the
//! apiserver uses version 2).
//!
//! The table is data for the `const fn` checker: look a function up with [`find`]; the macros the
//! parser expands are in [`MACROS`].

use crate::decl::{Function, Opaque, Overload, P, Versions};
use crate::model::bytes_eq;

mod ext;
mod k8s;
mod optional;
mod stdlib;

// ---------------------------------------------------------------------------------------------
// Building blocks shared by the sections.

/// Every compatibility version.
const ALWAYS: Versions = Versions::ALWAYS;
/// `CrossTypeNumericComparisons`, optional types, Quantity: 1.28.
const V28: Versions = Versions::since(28);
/// ext.Strings v2 additions (`format`, `strings.quote`), ext.Sets: 1.29.
const V29: Versions = Versions::since(29);
/// IP and CIDR: 1.30.
const V30: Versions = Versions::since(30);
/// Format: 1.31.
const V31: Versions = Versions::since(31);
/// Two-variable comprehensions (`cel.@mapInsert`): 1.32.
const V32: Versions = Versions::since(32);
/// Semver version 1: 1.33.
const V33: Versions = Versions::since(33);
/// ext.Lists version 3: 1.34.
const V34: Versions = Versions::since(34);
/// Kubernetes Lists version 1 (`includes`): 1.37.
const V37: Versions = Versions::since(37);

/// A global overload (`f(x, y)`).
const fn global(id: &'static str, args: &'static [P], result: P, versions: Versions) -> Overload {
    Overload {
        id,
        member: false,
        args,
        result,
        versions,
        arg_params: crate::decl::count_arg_params(args),
        argc: args.len() as u16,
        kinds: crate::decl::arg_kinds(args),
    }
}

/// A member overload (`x.f(y)`): `args[0]` is the receiver.
const fn member(id: &'static str, args: &'static [P], result: P, versions: Versions) -> Overload {
    Overload {
        id,
        member: true,
        args,
        result,
        versions,
        arg_params: crate::decl::count_arg_params(args),
        argc: args.len() as u16,
        kinds: crate::decl::arg_kinds(args),
    }
}

/// A function entry.
const fn function(name: &'static str, overloads: &'static [Overload]) -> Function {
    Function::new(name, overloads)
}

/// Type parameters, numbered per overload in order of first appearance (cel-go's names, `A`,
/// `B`, `K`, `V`, `T`, are not observable: the checker instantiates them freshly per call).
const A: P = P::Param(0);
const B: P = P::Param(1);
const LIST_A: P = P::List(&A);
const MAP_AB: P = P::Map(&A, &B);
const OPT_A: P = P::Optional(&A);
const OPT_B: P = P::Optional(&B);
const LIST_STRING: P = P::List(&P::String);
const LIST_DYN: P = P::List(&P::Dyn);

const URL: P = P::Opaque(Opaque::Url);
const IP: P = P::Opaque(Opaque::Ip);
const CIDR: P = P::Opaque(Opaque::Cidr);
const QUANTITY: P = P::Opaque(Opaque::Quantity);
const SEMVER: P = P::Opaque(Opaque::Semver);
const FORMAT: P = P::Opaque(Opaque::Format);

// ---------------------------------------------------------------------------------------------
// The table.

/// The functions the runtime's viewed evaluation implements itself (a yes-or-no answer, or none,
/// on values read in place), by the name the checker resolves: the derive writes a rule as
/// Rust only when each call it makes is one of these (the runtime's `F` lists them in this
/// order).
pub const VIEWED_FUNCTIONS: [&str; 17] = [
    "size",
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
    "contains",
    "startsWith",
    "endsWith",
    "@in",
    "duration",
];

/// Every function the CRD environment declares at any version (filter with
/// [`crate::decl::Versions::contains`]). Names are unique; overload ids are unique.
pub static FUNCTIONS: &[Function] = &[
    // cel-go standard library (common/stdlib/standard.go), always.
    function("_?_:_", stdlib::CONDITIONAL),
    function("_&&_", stdlib::LOGICAL_AND),
    function("_||_", stdlib::LOGICAL_OR),
    function("!_", stdlib::LOGICAL_NOT),
    function("@not_strictly_false", stdlib::NOT_STRICTLY_FALSE),
    function("_==_", stdlib::EQUALS),
    function("_!=_", stdlib::NOT_EQUALS),
    function("_+_", stdlib::ADD),
    function("_/_", stdlib::DIVIDE),
    function("_%_", stdlib::MODULO),
    function("_*_", stdlib::MULTIPLY),
    function("-_", stdlib::NEGATE),
    function("_-_", stdlib::SUBTRACT),
    function("_<_", stdlib::LESS),
    function("_<=_", stdlib::LESS_EQUALS),
    function("_>_", stdlib::GREATER),
    function("_>=_", stdlib::GREATER_EQUALS),
    function("_[_]", stdlib::INDEX),
    function("@in", stdlib::IN),
    function("size", stdlib::SIZE),
    function("type", stdlib::TYPE),
    function("bool", stdlib::BOOL_FN),
    function("bytes", stdlib::BYTES_FN),
    function("double", stdlib::DOUBLE_FN),
    function("duration", stdlib::DURATION_FN),
    function("dyn", stdlib::DYN),
    function("int", stdlib::INT_FN),
    function("string", stdlib::STRING_FN),
    function("timestamp", stdlib::TIMESTAMP_FN),
    function("uint", stdlib::UINT_FN),
    function("contains", stdlib::CONTAINS),
    function("endsWith", stdlib::ENDS_WITH),
    function("startsWith", stdlib::STARTS_WITH),
    function("matches", stdlib::MATCHES),
    function("getFullYear", stdlib::GET_FULL_YEAR),
    function("getMonth", stdlib::GET_MONTH),
    function("getDayOfYear", stdlib::GET_DAY_OF_YEAR),
    function("getDayOfMonth", stdlib::GET_DAY_OF_MONTH),
    function("getDate", stdlib::GET_DATE),
    function("getDayOfWeek", stdlib::GET_DAY_OF_WEEK),
    function("getHours", stdlib::GET_HOURS),
    function("getMinutes", stdlib::GET_MINUTES),
    function("getSeconds", stdlib::GET_SECONDS),
    function("getMilliseconds", stdlib::GET_MILLISECONDS),
    // Optional types (cel-go cel/library.go, optionalLib, all versions), 1.28.
    function("optional.of", optional::OF),
    function("optional.ofNonZeroValue", optional::OF_NON_ZERO_VALUE),
    function("optional.none", optional::NONE),
    function("value", optional::VALUE),
    function("hasValue", optional::HAS_VALUE),
    function("or", optional::OR),
    function("orValue", optional::OR_VALUE),
    function("_?._", optional::OPT_SELECT),
    function("_[?_]", optional::OPT_INDEX),
    function("last", optional::LAST),
    function("first", optional::FIRST),
    function("optional.unwrap", optional::UNWRAP),
    function("unwrapOpt", optional::UNWRAP_OPT),
    // cel-go ext.Strings (ext/strings.go), version 0 before 1.29, version 2 from 1.29.
    function("charAt", ext::CHAR_AT),
    function("indexOf", ext::INDEX_OF),
    function("lastIndexOf", ext::LAST_INDEX_OF),
    function("lowerAscii", ext::LOWER_ASCII),
    function("replace", ext::REPLACE),
    function("split", ext::SPLIT),
    function("substring", ext::SUBSTRING),
    function("trim", ext::TRIM),
    function("upperAscii", ext::UPPER_ASCII),
    function("format", ext::FORMAT),
    function("strings.quote", ext::STRINGS_QUOTE),
    function("join", ext::JOIN),
    // cel-go ext.Sets (ext/sets.go), 1.29.
    function("sets.contains", ext::SETS_CONTAINS),
    function("sets.equivalent", ext::SETS_EQUIVALENT),
    function("sets.intersects", ext::SETS_INTERSECTS),
    // cel-go two-variable comprehensions (ext/comprehensions.go), 1.32.
    function("cel.@mapInsert", ext::MAP_INSERT),
    // cel-go ext.Lists version 3 (ext/lists.go), 1.34.
    function("slice", ext::SLICE),
    function("flatten", ext::FLATTEN),
    function("sort", ext::SORT),
    function("@sortByAssociatedKeys", ext::SORT_BY_ASSOCIATED_KEYS),
    function("lists.range", ext::LISTS_RANGE),
    function("reverse", ext::REVERSE),
    function("distinct", ext::DISTINCT),
    // Kubernetes Lists (library/lists.go), version 0 before 1.37, version 1 from 1.37.
    function("isSorted", k8s::IS_SORTED),
    function("sum", k8s::SUM),
    function("max", k8s::MAX),
    function("min", k8s::MIN),
    function("includes", k8s::INCLUDES),
    // Kubernetes Regex (library/regex.go), always.
    function("find", k8s::FIND),
    function("findAll", k8s::FIND_ALL),
    // Kubernetes URLs (library/urls.go), always.
    function("url", k8s::URL_FN),
    function("isURL", k8s::IS_URL),
    function("getScheme", k8s::GET_SCHEME),
    function("getHost", k8s::GET_HOST),
    function("getHostname", k8s::GET_HOSTNAME),
    function("getPort", k8s::GET_PORT),
    function("getEscapedPath", k8s::GET_ESCAPED_PATH),
    function("getQuery", k8s::GET_QUERY),
    // Kubernetes Quantity (library/quantity.go), 1.28.
    function("quantity", k8s::QUANTITY_FN),
    function("isQuantity", k8s::IS_QUANTITY),
    function("sign", k8s::SIGN),
    function("isGreaterThan", k8s::IS_GREATER_THAN),
    function("isLessThan", k8s::IS_LESS_THAN),
    function("compareTo", k8s::COMPARE_TO),
    function("asApproximateFloat", k8s::AS_APPROXIMATE_FLOAT),
    function("asInteger", k8s::AS_INTEGER),
    function("isInteger", k8s::IS_INTEGER),
    function("add", k8s::ADD),
    function("sub", k8s::SUB),
    // Kubernetes IP (library/ip.go), 1.30.
    function("ip", k8s::IP_FN),
    function("isIP", k8s::IS_IP),
    function("ip.isCanonical", k8s::IP_IS_CANONICAL),
    function("family", k8s::FAMILY),
    function("isUnspecified", k8s::IS_UNSPECIFIED),
    function("isLoopback", k8s::IS_LOOPBACK),
    function("isLinkLocalMulticast", k8s::IS_LINK_LOCAL_MULTICAST),
    function("isLinkLocalUnicast", k8s::IS_LINK_LOCAL_UNICAST),
    function("isGlobalUnicast", k8s::IS_GLOBAL_UNICAST),
    // Kubernetes CIDR (library/cidr.go), 1.30.
    function("cidr", k8s::CIDR_FN),
    function("isCIDR", k8s::IS_CIDR),
    function("containsIP", k8s::CONTAINS_IP),
    function("containsCIDR", k8s::CONTAINS_CIDR),
    function("prefixLength", k8s::PREFIX_LENGTH),
    function("masked", k8s::MASKED),
    // Kubernetes Format (library/format.go), 1.31.
    function("format.named", k8s::FORMAT_NAMED),
    function("validate", k8s::VALIDATE),
    function("format.dns1123Label", k8s::FORMAT_DNS1123_LABEL),
    function("format.dns1123Subdomain", k8s::FORMAT_DNS1123_SUBDOMAIN),
    function("format.dns1035Label", k8s::FORMAT_DNS1035_LABEL),
    function("format.qualifiedName", k8s::FORMAT_QUALIFIED_NAME),
    function(
        "format.dns1123LabelPrefix",
        k8s::FORMAT_DNS1123_LABEL_PREFIX,
    ),
    function(
        "format.dns1123SubdomainPrefix",
        k8s::FORMAT_DNS1123_SUBDOMAIN_PREFIX,
    ),
    function(
        "format.dns1035LabelPrefix",
        k8s::FORMAT_DNS1035_LABEL_PREFIX,
    ),
    function("format.labelValue", k8s::FORMAT_LABEL_VALUE),
    function("format.uri", k8s::FORMAT_URI),
    function("format.uuid", k8s::FORMAT_UUID),
    function("format.byte", k8s::FORMAT_BYTE),
    function("format.date", k8s::FORMAT_DATE),
    function("format.datetime", k8s::FORMAT_DATETIME),
    // Kubernetes Semver version 1 (library/semverlib.go), 1.33.
    function("semver", k8s::SEMVER_FN),
    function("isSemver", k8s::IS_SEMVER),
    function("major", k8s::MAJOR),
    function("minor", k8s::MINOR),
    function("patch", k8s::PATCH),
    // Kubernetes Authz (library/authz.go), 1.27, and AuthzSelectors, 1.31 (its feature gate is on
    // by default). CRD rules have no `authorizer` variable, so no call can succeed, but the
    // declarations decide cel-go's messages (`x.check('get')` is a known function).
    function("path", AUTHZ_PATH),
    function("group", AUTHZ_GROUP),
    function("serviceAccount", AUTHZ_SERVICE_ACCOUNT),
    function("resource", AUTHZ_RESOURCE),
    function("subresource", AUTHZ_SUBRESOURCE),
    function("namespace", AUTHZ_NAMESPACE),
    function("name", AUTHZ_NAME),
    function("check", AUTHZ_CHECK),
    function("allowed", AUTHZ_ALLOWED),
    function("errored", AUTHZ_ERRORED),
    function("error", AUTHZ_ERROR),
    function("reason", AUTHZ_REASON),
    function("fieldSelector", AUTHZ_FIELD_SELECTOR),
    function("labelSelector", AUTHZ_LABEL_SELECTOR),
];

const AUTHORIZER: P = P::Opaque(Opaque::Authorizer);
const PATH_CHECK: P = P::Opaque(Opaque::PathCheck);
const GROUP_CHECK: P = P::Opaque(Opaque::GroupCheck);
const RESOURCE_CHECK: P = P::Opaque(Opaque::ResourceCheck);
const DECISION: P = P::Opaque(Opaque::Decision);
const V27: Versions = Versions::since(27);

const AUTHZ_PATH: &[Overload] = &[member(
    "authorizer_path",
    &[AUTHORIZER, P::String],
    PATH_CHECK,
    V27,
)];
const AUTHZ_GROUP: &[Overload] = &[member(
    "authorizer_group",
    &[AUTHORIZER, P::String],
    GROUP_CHECK,
    V27,
)];
const AUTHZ_SERVICE_ACCOUNT: &[Overload] = &[member(
    "authorizer_serviceaccount",
    &[AUTHORIZER, P::String, P::String],
    AUTHORIZER,
    V27,
)];
const AUTHZ_RESOURCE: &[Overload] = &[member(
    "groupcheck_resource",
    &[GROUP_CHECK, P::String],
    RESOURCE_CHECK,
    V27,
)];
const AUTHZ_SUBRESOURCE: &[Overload] = &[member(
    "resourcecheck_subresource",
    &[RESOURCE_CHECK, P::String],
    RESOURCE_CHECK,
    V27,
)];
const AUTHZ_NAMESPACE: &[Overload] = &[member(
    "resourcecheck_namespace",
    &[RESOURCE_CHECK, P::String],
    RESOURCE_CHECK,
    V27,
)];
const AUTHZ_NAME: &[Overload] = &[member(
    "resourcecheck_name",
    &[RESOURCE_CHECK, P::String],
    RESOURCE_CHECK,
    V27,
)];
const AUTHZ_CHECK: &[Overload] = &[
    member("pathcheck_check", &[PATH_CHECK, P::String], DECISION, V27),
    member(
        "resourcecheck_check",
        &[RESOURCE_CHECK, P::String],
        DECISION,
        V27,
    ),
];
const AUTHZ_ALLOWED: &[Overload] = &[member("decision_allowed", &[DECISION], P::Bool, V27)];
const AUTHZ_ERRORED: &[Overload] = &[member("decision_errored", &[DECISION], P::Bool, V27)];
const AUTHZ_ERROR: &[Overload] = &[member("decision_error", &[DECISION], P::String, V27)];
const AUTHZ_REASON: &[Overload] = &[member("decision_reason", &[DECISION], P::String, V27)];
const AUTHZ_FIELD_SELECTOR: &[Overload] = &[member(
    "resourcecheck_fieldselector",
    &[RESOURCE_CHECK, P::String],
    RESOURCE_CHECK,
    V31,
)];
const AUTHZ_LABEL_SELECTOR: &[Overload] = &[member(
    "resourcecheck_labelselector",
    &[RESOURCE_CHECK, P::String],
    RESOURCE_CHECK,
    V31,
)];

/// The function named `name` (as the parser produces it: `_+_`, `size`, `sets.contains`, ...),
/// whatever the version; filter its overloads with [`Versions::contains`].
pub const fn find(name: &[u8]) -> Option<&'static Function> {
    match find_index(name) {
        Some(i) => Some(&FUNCTIONS[i]),
        None => None,
    }
}

/// The index in [`FUNCTIONS`] of the function named `name`. The lowering resolves calls with
/// it once ([`crate::ast::Ast::call_decls`]); the const checker then indexes.
pub const fn find_index(name: &[u8]) -> Option<usize> {
    let mut i = 0;
    let len_i = FUNCTIONS.len();
    while i < len_i {
        let f = FUNCTIONS[i].name.as_bytes();
        if f.len() == name.len() && !name.is_empty() && f[0] == name[0] && bytes_eq(f, name) {
            return Some(i);
        }
        i += 1;
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Macros.

/// A macro the parser expands: a call with this name, style and argument count (receiver not
/// counted) is rewritten into a comprehension (or, for `has`, a presence test) before checking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Macro {
    /// The call name.
    pub name: &'static str,
    /// Receiver style (`x.all(...)`) rather than global (`has(...)`).
    pub receiver: bool,
    /// The number of arguments, receiver not counted.
    pub args: u8,
    /// The compatibility versions whose parser expands it.
    pub versions: Versions,
}

/// A macro entry.
const fn mac(name: &'static str, receiver: bool, args: u8, versions: Versions) -> Macro {
    Macro {
        name,
        receiver,
        args,
        versions,
    }
}

/// The macros of the CRD environment, with the compatibility versions that have them:
///
/// * cel-go's standard macros (`cel.StandardMacros`, cel/macro.go): `has(x.f)`, `all`, `exists`,
///   `exists_one` (2 arguments), `map` (2 and 3 arguments), `filter`. The 2-argument `existsOne`
///   spelling is *not* among them.
/// * Optional types (cel/library.go), 1.28: `optMap`, `optFlatMap` (optional library version 1;
///   the apiserver enables every version). They expand to `_?_:_`, `hasValue`, `value` and
///   `optional.of`/`optional.none` calls, which [`FUNCTIONS`] declares.
/// * Two-variable comprehensions (ext/comprehensions.go), 1.32: `all`, `exists`, `existsOne`,
///   `exists_one` with 3 arguments; `transformList`, `transformMap`, `transformMapEntry` with 3 or
///   4 arguments. `transformMap`/`transformMapEntry` expand to calls of `cel.@mapInsert`.
/// * ext.Lists version 2+ (ext/lists.go), 1.34: `sortBy(v, key)`, which expands to a
///   comprehension binding the receiver to `@__sortBy_input__` and calling
///   `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(v, key))`.
///
/// A call that matches a macro by name, style and argument count is never resolved against
/// [`FUNCTIONS`].
pub const MACROS: &[Macro] = &[
    mac("has", false, 1, ALWAYS),
    mac("all", true, 2, ALWAYS),
    mac("exists", true, 2, ALWAYS),
    mac("exists_one", true, 2, ALWAYS),
    mac("map", true, 2, ALWAYS),
    mac("map", true, 3, ALWAYS),
    mac("filter", true, 2, ALWAYS),
    mac("optMap", true, 2, V28),
    mac("optFlatMap", true, 2, V28),
    mac("all", true, 3, V32),
    mac("exists", true, 3, V32),
    mac("existsOne", true, 3, V32),
    mac("exists_one", true, 3, V32),
    mac("transformList", true, 3, V32),
    mac("transformList", true, 4, V32),
    mac("transformMap", true, 3, V32),
    mac("transformMap", true, 4, V32),
    mac("transformMapEntry", true, 3, V32),
    mac("transformMapEntry", true, 4, V32),
    mac("sortBy", true, 2, V34),
];

/// The macro a call expands to at compatibility version `1.compat`, if any: `receiver` is the
/// call style, `args` the argument count without the receiver.
pub const fn find_macro(
    name: &[u8],
    receiver: bool,
    args: u8,
    compat: u8,
) -> Option<&'static Macro> {
    let mut i = 0;
    let len_i = MACROS.len();
    while i < len_i {
        let m = &MACROS[i];
        if m.receiver == receiver
            && m.args == args
            && m.versions.contains(compat)
            && bytes_eq(m.name.as_bytes(), name)
        {
            return Some(m);
        }
        i += 1;
    }
    None
}

/// The macro entry for a call `name` with this style and argument count, at any version (its
/// `versions.since` is the compatibility version that introduced it).
pub const fn find_macro_any_version(
    name: &[u8],
    receiver: bool,
    args: u8,
) -> Option<&'static Macro> {
    let mut i = 0;
    let len_i = MACROS.len();
    while i < len_i {
        let m = &MACROS[i];
        if m.receiver == receiver && m.args == args && bytes_eq(m.name.as_bytes(), name) {
            return Some(m);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overloads_at(name: &str, compat: u8) -> Vec<&'static Overload> {
        find(name.as_bytes())
            .unwrap_or_else(|| panic!("{name} not declared"))
            .overloads
            .iter()
            .filter(|o| o.versions.contains(compat))
            .collect()
    }

    fn ids_at(name: &str, compat: u8) -> Vec<&'static str> {
        overloads_at(name, compat).iter().map(|o| o.id).collect()
    }

    #[test]
    fn function_names_are_unique() {
        for (i, f) in FUNCTIONS.iter().enumerate() {
            for g in &FUNCTIONS[i + 1..] {
                assert_ne!(f.name, g.name, "duplicate function entry");
            }
        }
    }

    #[test]
    fn overload_ids_are_unique() {
        let mut seen = std::collections::BTreeMap::new();
        for f in FUNCTIONS {
            for o in f.overloads {
                if let Some(other) = seen.insert(o.id, f.name) {
                    panic!("overload id {} in both {other} and {}", o.id, f.name);
                }
            }
        }
    }

    #[test]
    fn every_function_has_overloads_and_sane_versions() {
        for f in FUNCTIONS {
            assert!(!f.overloads.is_empty(), "{} has no overloads", f.name);
            for o in f.overloads {
                assert!(o.versions.since < o.versions.until, "{}", o.id);
                if o.member {
                    assert!(
                        !o.args.is_empty(),
                        "member overload {} without receiver",
                        o.id
                    );
                }
            }
        }
    }

    #[test]
    fn no_overload_collides_with_a_macro() {
        // cel-go rejects a declaration that a macro would shadow (checker/env.go setFunction).
        for f in FUNCTIONS {
            for o in f.overloads {
                for m in MACROS {
                    let argc = o.args.len() - usize::from(o.member);
                    assert!(
                        !(m.name == f.name
                            && m.receiver == o.member
                            && usize::from(m.args) == argc),
                        "{} collides with macro {}",
                        o.id,
                        m.name
                    );
                }
            }
        }
    }

    #[test]
    fn find_works_in_const_context() {
        const ADD: Option<&Function> = find(b"_+_");
        assert_eq!(ADD.map(|f| f.name), Some("_+_"));
        assert!(find(b"nope").is_none());
        assert!(find(b"").is_none());
        for f in FUNCTIONS {
            assert_eq!(find(f.name.as_bytes()).map(|g| g.name), Some(f.name));
        }
    }

    #[test]
    fn add_has_the_nine_standard_overloads() {
        let add = ids_at("_+_", 0);
        assert_eq!(add.len(), 9);
        for id in [
            "add_int64",
            "add_uint64",
            "add_double",
            "add_string",
            "add_bytes",
            "add_list",
            "add_timestamp_duration",
            "add_duration_timestamp",
            "add_duration_duration",
        ] {
            assert!(add.contains(&id), "{id}");
        }
        let list = find(b"_+_")
            .unwrap()
            .overloads
            .iter()
            .find(|o| o.id == "add_list")
            .unwrap();
        assert_eq!(list.args, &[LIST_A, LIST_A]);
        assert_eq!(list.result, LIST_A);
    }

    #[test]
    fn cross_type_numeric_comparisons_from_28() {
        for op in ["_<_", "_<=_", "_>_", "_>=_"] {
            assert_eq!(overloads_at(op, 27).len(), 8, "{op}");
            assert_eq!(overloads_at(op, 28).len(), 14, "{op}");
            assert!(overloads_at(op, 27).iter().all(|o| o.args[0] == o.args[1]));
        }
        assert!(!ids_at("_<_", 27).contains(&"less_int64_double"));
        assert!(ids_at("_<_", 28).contains(&"less_int64_double"));
        // Equality stays strictly typed.
        assert_eq!(ids_at("_==_", 37), ["equals"]);
    }

    #[test]
    fn includes_only_from_37() {
        assert!(overloads_at("includes", 36).is_empty());
        let inc = overloads_at("includes", 37);
        assert_eq!(inc.len(), 1);
        assert!(inc[0].member);
        assert_eq!(inc[0].args, &[P::Dyn, P::Dyn]);
    }

    #[test]
    fn format_since_31_and_string_format_since_29() {
        assert!(overloads_at("format.named", 30).is_empty());
        assert_eq!(ids_at("format.named", 31), ["format-named"]);
        assert_eq!(
            overloads_at("format.named", 31)[0].result,
            P::Optional(&FORMAT)
        );
        assert!(overloads_at("format.dns1123Label", 31)[0].args.is_empty());
        assert!(overloads_at("format", 28).is_empty());
        assert_eq!(ids_at("format", 29), ["string_format"]);
        assert!(overloads_at("strings.quote", 28).is_empty());
    }

    #[test]
    fn merged_functions() {
        // ext.Strings and Kubernetes Lists share indexOf / lastIndexOf.
        assert_eq!(
            ids_at("indexOf", 37),
            [
                "string_index_of_string",
                "string_index_of_string_int",
                "list_a_index_of_int"
            ]
        );
        assert_eq!(ids_at("lastIndexOf", 0).len(), 3);
        // string() of IP and CIDR from 1.30.
        assert_eq!(ids_at("string", 29).len(), 8);
        let s30 = ids_at("string", 30);
        assert_eq!(s30.len(), 10);
        assert!(s30.contains(&"ip_to_string") && s30.contains(&"cidr_to_string"));
        // ip(string) is global, cidr.ip() is a member.
        let ip = overloads_at("ip", 30);
        assert_eq!(ip.len(), 2);
        assert!(ip.iter().any(|o| !o.member && o.args == [P::String]));
        assert!(
            ip.iter()
                .any(|o| o.member && o.args == [CIDR] && o.result == IP)
        );
        // Quantity (1.28) and Semver (1.33) comparisons.
        assert_eq!(ids_at("isLessThan", 32), ["quantity_is_less_than"]);
        assert_eq!(ids_at("compareTo", 33).len(), 2);
        // _[_] gains the optional overloads with optional types.
        assert_eq!(ids_at("_[_]", 27), ["index_list", "index_map"]);
        assert_eq!(ids_at("_[_]", 28).len(), 4);
    }

    #[test]
    fn library_versions() {
        assert!(overloads_at("quantity", 27).is_empty());
        assert_eq!(overloads_at("quantity", 28).len(), 1);
        // Quantity's sign is declared as a global overload upstream.
        assert!(!overloads_at("sign", 28)[0].member);
        assert!(overloads_at("sets.contains", 28).is_empty());
        assert_eq!(overloads_at("sets.contains", 29).len(), 1);
        assert!(overloads_at("cidr", 29).is_empty());
        assert!(overloads_at("cel.@mapInsert", 31).is_empty());
        assert!(overloads_at("semver", 32).is_empty());
        assert_eq!(overloads_at("semver", 33).len(), 2);
        assert!(overloads_at("slice", 33).is_empty());
        assert_eq!(overloads_at("sort", 34).len(), 8);
        assert_eq!(overloads_at("@sortByAssociatedKeys", 34).len(), 8);
        assert_eq!(overloads_at("flatten", 34).len(), 2);
        // Kubernetes Lists v0 and v1 declare the same isSorted/sum/min/max.
        assert_eq!(overloads_at("isSorted", 0).len(), 8);
        assert_eq!(overloads_at("isSorted", 37).len(), 8);
        assert_eq!(overloads_at("sum", 36).len(), 4);
        // ext.Strings v0 and v2 declare the same core functions.
        assert_eq!(overloads_at("join", 0).len(), 2);
        assert_eq!(overloads_at("join", 29).len(), 2);
        assert_eq!(overloads_at("charAt", 0).len(), 1);
        assert!(find(b"optional.of").unwrap().overloads[0].versions == V28);
    }

    #[test]
    fn getters_and_conversions() {
        assert_eq!(overloads_at("getHours", 0).len(), 3);
        assert_eq!(overloads_at("getFullYear", 0).len(), 2);
        assert_eq!(overloads_at("int", 0).len(), 6);
        let ty = overloads_at("type", 0)[0];
        assert_eq!(ty.result, P::Type(&A));
        let q = overloads_at("getQuery", 0)[0];
        assert_eq!(q.result, P::Map(&P::String, &LIST_STRING));
    }

    #[test]
    fn macros() {
        assert!(find_macro(b"all", true, 2, 0).is_some());
        assert!(find_macro(b"all", true, 3, 31).is_none());
        assert!(find_macro(b"all", true, 3, 32).is_some());
        assert!(find_macro(b"existsOne", true, 2, 37).is_none());
        assert!(find_macro(b"has", false, 1, 0).is_some());
        assert!(find_macro(b"has", true, 1, 0).is_none());
        assert!(find_macro(b"sortBy", true, 2, 33).is_none());
        assert!(find_macro(b"sortBy", true, 2, 34).is_some());
        assert!(find_macro(b"optMap", true, 2, 28).is_some());
        for (i, m) in MACROS.iter().enumerate() {
            for n in &MACROS[i + 1..] {
                assert!(
                    !(m.name == n.name && m.receiver == n.receiver && m.args == n.args),
                    "duplicate macro {}",
                    m.name
                );
            }
        }
    }
}
