//! Function implementations, one module per library of the CRD environment (CEL-SEMANTICS 6).

use super::functions::Function;

mod decimal;
mod format;
mod k8s_util;
pub(crate) mod lists;
mod named_format;
mod net;
mod quantity;
mod regex;
mod semver;
mod sets;
mod strings;
mod url;

/// Every table [`super::functions::lookup`] searches.
pub(crate) const TABLES: &[&[Function]] = &[
    super::stdlib::FUNCTIONS,
    strings::FUNCTIONS,
    lists::FUNCTIONS,
    sets::FUNCTIONS,
    regex::FUNCTIONS,
    url::FUNCTIONS,
    net::FUNCTIONS,
    quantity::FUNCTIONS,
    semver::FUNCTIONS,
    named_format::FUNCTIONS,
];
