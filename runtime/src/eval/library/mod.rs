//! Function implementations, one module per library of the CRD environment (CEL-SEMANTICS 6).

use super::functions::Function;

mod decimal;
mod format;
mod k8s_util;
mod net;
mod quantity;
mod semver;
mod url;

/// Every table [`super::functions::lookup`] searches.
pub(crate) const TABLES: &[&[Function]] = &[
    url::FUNCTIONS,
    net::FUNCTIONS,
    quantity::FUNCTIONS,
    semver::FUNCTIONS,
    format::FUNCTIONS,
];
