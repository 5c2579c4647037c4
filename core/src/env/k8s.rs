//! The Kubernetes libraries: `k8s.io/apiserver/pkg/cel/library/*.go` (v0.37.2), enabled by
//! `environment/base.go`. Authz and AuthzSelectors are declared in `env.rs` (no `authorizer` variable in CRD
//! rules), as is `jsonpatch.go` (mutation environments only).

use super::{
    ALWAYS, CIDR, FORMAT, IP, LIST_STRING, Overload, QUANTITY, SEMVER, URL, V28, V30, V31, V33,
    V37, global, member,
};
use crate::decl::P;

const BOOL: P = P::Bool;
const INT: P = P::Int;
const STRING: P = P::String;

// ---------------------------------------------------------------------------------------------
// Lists: `library/lists.go`. Version 0 before 1.37, version 1 from 1.37; both declare `isSorted`,
// `sum`, `min`, `max` (one overload per element type, ids `list_<type>_...`), `indexOf` and
// `lastIndexOf` (one `list(A), A` overload each, merged with ext.Strings' entries there);
// version 1 adds `includes`.

/// The comparable element types, in the library's order, with their list types.
const L_INT: P = P::List(&P::Int);
const L_UINT: P = P::List(&P::Uint);
const L_DOUBLE: P = P::List(&P::Double);
const L_BOOL: P = P::List(&P::Bool);
const L_DURATION: P = P::List(&P::Duration);
const L_TIMESTAMP: P = P::List(&P::Timestamp);
const L_STRING: P = P::List(&P::String);
const L_BYTES: P = P::List(&P::Bytes);

pub(super) const IS_SORTED: &[Overload] = &[
    member("list_int_is_sorted_bool", &[L_INT], BOOL, ALWAYS),
    member("list_uint_is_sorted_bool", &[L_UINT], BOOL, ALWAYS),
    member("list_double_is_sorted_bool", &[L_DOUBLE], BOOL, ALWAYS),
    member("list_bool_is_sorted_bool", &[L_BOOL], BOOL, ALWAYS),
    member("list_duration_is_sorted_bool", &[L_DURATION], BOOL, ALWAYS),
    member(
        "list_timestamp_is_sorted_bool",
        &[L_TIMESTAMP],
        BOOL,
        ALWAYS,
    ),
    member("list_string_is_sorted_bool", &[L_STRING], BOOL, ALWAYS),
    member("list_bytes_is_sorted_bool", &[L_BYTES], BOOL, ALWAYS),
];

/// `sum()`: only the summable types (int, uint, double, duration).
pub(super) const SUM: &[Overload] = &[
    member("list_int_sum_int", &[L_INT], INT, ALWAYS),
    member("list_uint_sum_uint", &[L_UINT], P::Uint, ALWAYS),
    member("list_double_sum_double", &[L_DOUBLE], P::Double, ALWAYS),
    member(
        "list_duration_sum_duration",
        &[L_DURATION],
        P::Duration,
        ALWAYS,
    ),
];

pub(super) const MAX: &[Overload] = &[
    member("list_int_max_int", &[L_INT], INT, ALWAYS),
    member("list_uint_max_uint", &[L_UINT], P::Uint, ALWAYS),
    member("list_double_max_double", &[L_DOUBLE], P::Double, ALWAYS),
    member("list_bool_max_bool", &[L_BOOL], BOOL, ALWAYS),
    member(
        "list_duration_max_duration",
        &[L_DURATION],
        P::Duration,
        ALWAYS,
    ),
    member(
        "list_timestamp_max_timestamp",
        &[L_TIMESTAMP],
        P::Timestamp,
        ALWAYS,
    ),
    member("list_string_max_string", &[L_STRING], STRING, ALWAYS),
    member("list_bytes_max_bytes", &[L_BYTES], P::Bytes, ALWAYS),
];

pub(super) const MIN: &[Overload] = &[
    member("list_int_min_int", &[L_INT], INT, ALWAYS),
    member("list_uint_min_uint", &[L_UINT], P::Uint, ALWAYS),
    member("list_double_min_double", &[L_DOUBLE], P::Double, ALWAYS),
    member("list_bool_min_bool", &[L_BOOL], BOOL, ALWAYS),
    member(
        "list_duration_min_duration",
        &[L_DURATION],
        P::Duration,
        ALWAYS,
    ),
    member(
        "list_timestamp_min_timestamp",
        &[L_TIMESTAMP],
        P::Timestamp,
        ALWAYS,
    ),
    member("list_string_min_string", &[L_STRING], STRING, ALWAYS),
    member("list_bytes_min_bytes", &[L_BYTES], P::Bytes, ALWAYS),
];

/// `<dyn>.includes(<dyn>)`: version 1, from 1.37.
pub(super) const INCLUDES: &[Overload] = &[member(
    "list_includes_dyn_dyn",
    &[P::Dyn, P::Dyn],
    BOOL,
    V37,
)];

// ---------------------------------------------------------------------------------------------
// Regex: `library/regex.go`, every version.

pub(super) const FIND: &[Overload] = &[member(
    "string_find_string",
    &[STRING, STRING],
    STRING,
    ALWAYS,
)];

pub(super) const FIND_ALL: &[Overload] = &[
    member(
        "string_find_all_string",
        &[STRING, STRING],
        LIST_STRING,
        ALWAYS,
    ),
    member(
        "string_find_all_string_int",
        &[STRING, STRING, INT],
        LIST_STRING,
        ALWAYS,
    ),
];

// ---------------------------------------------------------------------------------------------
// URLs: `library/urls.go`, every version; the type is `kubernetes.URL`.

pub(super) const URL_FN: &[Overload] = &[global("string_to_url", &[STRING], URL, ALWAYS)];
pub(super) const IS_URL: &[Overload] = &[global("is_url_string", &[STRING], BOOL, ALWAYS)];
pub(super) const GET_SCHEME: &[Overload] = &[member("url_get_scheme", &[URL], STRING, ALWAYS)];
pub(super) const GET_HOST: &[Overload] = &[member("url_get_host", &[URL], STRING, ALWAYS)];
pub(super) const GET_HOSTNAME: &[Overload] = &[member("url_get_hostname", &[URL], STRING, ALWAYS)];
pub(super) const GET_PORT: &[Overload] = &[member("url_get_port", &[URL], STRING, ALWAYS)];
pub(super) const GET_ESCAPED_PATH: &[Overload] =
    &[member("url_get_escaped_path", &[URL], STRING, ALWAYS)];
pub(super) const GET_QUERY: &[Overload] = &[member(
    "url_get_query",
    &[URL],
    P::Map(&P::String, &LIST_STRING),
    ALWAYS,
)];

// ---------------------------------------------------------------------------------------------
// Quantity: `library/quantity.go`, from 1.28; the type is `kubernetes.Quantity`. Note that
// upstream declares `sign` as a *global* overload (`cel.Overload("quantity_sign", ...)`), although
// its documentation writes `<Quantity>.sign()`: cel-go's checker only accepts `sign(q)`.
// `isGreaterThan`, `isLessThan` and `compareTo` are shared with Semver (1.33).

pub(super) const QUANTITY_FN: &[Overload] =
    &[global("string_to_quantity", &[STRING], QUANTITY, V28)];
pub(super) const IS_QUANTITY: &[Overload] = &[global("is_quantity_string", &[STRING], BOOL, V28)];
pub(super) const SIGN: &[Overload] = &[global("quantity_sign", &[QUANTITY], INT, V28)];

pub(super) const IS_GREATER_THAN: &[Overload] = &[
    member("quantity_is_greater_than", &[QUANTITY, QUANTITY], BOOL, V28),
    member("semver_is_greater_than", &[SEMVER, SEMVER], BOOL, V33),
];

pub(super) const IS_LESS_THAN: &[Overload] = &[
    member("quantity_is_less_than", &[QUANTITY, QUANTITY], BOOL, V28),
    member("semver_is_less_than", &[SEMVER, SEMVER], BOOL, V33),
];

pub(super) const COMPARE_TO: &[Overload] = &[
    member("quantity_compare_to", &[QUANTITY, QUANTITY], INT, V28),
    member("semver_compare_to", &[SEMVER, SEMVER], INT, V33),
];

pub(super) const AS_APPROXIMATE_FLOAT: &[Overload] =
    &[member("quantity_get_float", &[QUANTITY], P::Double, V28)];
pub(super) const AS_INTEGER: &[Overload] = &[member("quantity_get_int", &[QUANTITY], INT, V28)];
pub(super) const IS_INTEGER: &[Overload] = &[member("quantity_is_integer", &[QUANTITY], BOOL, V28)];

pub(super) const ADD: &[Overload] = &[
    member("quantity_add", &[QUANTITY, QUANTITY], QUANTITY, V28),
    member("quantity_add_int", &[QUANTITY, INT], QUANTITY, V28),
];

pub(super) const SUB: &[Overload] = &[
    member("quantity_sub", &[QUANTITY, QUANTITY], QUANTITY, V28),
    member("quantity_sub_int", &[QUANTITY, INT], QUANTITY, V28),
];

// ---------------------------------------------------------------------------------------------
// IP: `library/ip.go`, from 1.30; the type is `net.IP`. `string(ip)` is merged into the standard
// `string` entry.

/// `ip(s)` (global, ip.go) and `<CIDR>.ip()` (member, cidr.go).
pub(super) const IP_FN: &[Overload] = &[
    global("string_to_ip", &[STRING], IP, V30),
    member("cidr_ip", &[CIDR], IP, V30),
];
pub(super) const IS_IP: &[Overload] = &[global("is_ip", &[STRING], BOOL, V30)];
pub(super) const IP_IS_CANONICAL: &[Overload] = &[global("ip_is_canonical", &[STRING], BOOL, V30)];
pub(super) const FAMILY: &[Overload] = &[member("ip_family", &[IP], INT, V30)];
pub(super) const IS_UNSPECIFIED: &[Overload] = &[member("ip_is_unspecified", &[IP], BOOL, V30)];
pub(super) const IS_LOOPBACK: &[Overload] = &[member("ip_is_loopback", &[IP], BOOL, V30)];
pub(super) const IS_LINK_LOCAL_MULTICAST: &[Overload] =
    &[member("ip_is_link_local_multicast", &[IP], BOOL, V30)];
pub(super) const IS_LINK_LOCAL_UNICAST: &[Overload] =
    &[member("ip_is_link_local_unicast", &[IP], BOOL, V30)];
pub(super) const IS_GLOBAL_UNICAST: &[Overload] =
    &[member("ip_is_global_unicast", &[IP], BOOL, V30)];

// ---------------------------------------------------------------------------------------------
// CIDR: `library/cidr.go`, from 1.30; the type is `net.CIDR`. `string(cidr)` is merged into the
// standard `string` entry and `<CIDR>.ip()` into `ip`.

pub(super) const CIDR_FN: &[Overload] = &[global("string_to_cidr", &[STRING], CIDR, V30)];
pub(super) const IS_CIDR: &[Overload] = &[global("is_cidr", &[STRING], BOOL, V30)];

pub(super) const CONTAINS_IP: &[Overload] = &[
    member("cidr_contains_ip_string", &[CIDR, STRING], BOOL, V30),
    member("cidr_contains_ip_ip", &[CIDR, IP], BOOL, V30),
];

pub(super) const CONTAINS_CIDR: &[Overload] = &[
    member("cidr_contains_cidr_string", &[CIDR, STRING], BOOL, V30),
    member("cidr_contains_cidr", &[CIDR, CIDR], BOOL, V30),
];

pub(super) const PREFIX_LENGTH: &[Overload] = &[member("cidr_prefix_length", &[CIDR], INT, V30)];
pub(super) const MASKED: &[Overload] = &[member("cidr_masked", &[CIDR], CIDR, V30)];

// ---------------------------------------------------------------------------------------------
// Format: `library/format.go`, from 1.31; the type is `kubernetes.NamedFormat`. One zero-argument
// global function per constant format (`format.dns1123Label()`, ...), whose overload id is the
// function name itself; `format.named(name)` returns an optional format; `<Format>.validate(s)`
// returns `optional.none()` when valid, else the list of errors.

pub(super) const FORMAT_NAMED: &[Overload] =
    &[global("format-named", &[STRING], P::Optional(&FORMAT), V31)];

pub(super) const VALIDATE: &[Overload] = &[member(
    "format-validate",
    &[FORMAT, STRING],
    P::Optional(&LIST_STRING),
    V31,
)];

/// A constant format function `format.<name>() -> kubernetes.NamedFormat`.
const fn constant_format(id: &'static str) -> Overload {
    global(id, &[], FORMAT, V31)
}

pub(super) const FORMAT_DNS1123_LABEL: &[Overload] = &[constant_format("format.dns1123Label")];
pub(super) const FORMAT_DNS1123_SUBDOMAIN: &[Overload] =
    &[constant_format("format.dns1123Subdomain")];
pub(super) const FORMAT_DNS1035_LABEL: &[Overload] = &[constant_format("format.dns1035Label")];
pub(super) const FORMAT_QUALIFIED_NAME: &[Overload] = &[constant_format("format.qualifiedName")];
pub(super) const FORMAT_DNS1123_LABEL_PREFIX: &[Overload] =
    &[constant_format("format.dns1123LabelPrefix")];
pub(super) const FORMAT_DNS1123_SUBDOMAIN_PREFIX: &[Overload] =
    &[constant_format("format.dns1123SubdomainPrefix")];
pub(super) const FORMAT_DNS1035_LABEL_PREFIX: &[Overload] =
    &[constant_format("format.dns1035LabelPrefix")];
pub(super) const FORMAT_LABEL_VALUE: &[Overload] = &[constant_format("format.labelValue")];
pub(super) const FORMAT_URI: &[Overload] = &[constant_format("format.uri")];
pub(super) const FORMAT_UUID: &[Overload] = &[constant_format("format.uuid")];
pub(super) const FORMAT_BYTE: &[Overload] = &[constant_format("format.byte")];
pub(super) const FORMAT_DATE: &[Overload] = &[constant_format("format.date")];
pub(super) const FORMAT_DATETIME: &[Overload] = &[constant_format("format.datetime")];

// ---------------------------------------------------------------------------------------------
// Semver: `library/semverlib.go`, version 1 (with the `normalize` argument), from 1.33; the type
// is `kubernetes.Semver`. `isGreaterThan`, `isLessThan` and `compareTo` are in the Quantity
// entries above.

pub(super) const SEMVER_FN: &[Overload] = &[
    global("string_to_semver", &[STRING], SEMVER, V33),
    global("string_bool_to_semver", &[STRING, BOOL], SEMVER, V33),
];

pub(super) const IS_SEMVER: &[Overload] = &[
    global("is_semver_string", &[STRING], BOOL, V33),
    global("is_semver_string_bool", &[STRING, BOOL], BOOL, V33),
];

pub(super) const MAJOR: &[Overload] = &[member("semver_major", &[SEMVER], INT, V33)];
pub(super) const MINOR: &[Overload] = &[member("semver_minor", &[SEMVER], INT, V33)];
pub(super) const PATCH: &[Overload] = &[member("semver_patch", &[SEMVER], INT, V33)];
