//! Ports of the Go standard library behaviour the apiserver's checks inherit, shared by the CEL
//! libraries and the OpenAPI schema checks (`validate::openapi`): `net/netip` and `net/url`
//! parsing, RE2 regular expressions, `%g` float formatting and base64 decoding. A leaf: it depends on nothing
//! else of the evaluator but its error type.

pub(crate) mod base64;
pub(crate) mod float;
pub(crate) mod netip;
pub(crate) mod regex;
pub(crate) mod url;

/// A string quoted as Go's `%q` prints it.
fn quote(s: &str) -> String {
    crd_cel_core::go::quote(s)
}
