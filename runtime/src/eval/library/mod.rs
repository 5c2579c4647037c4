//! Function implementations, one module per library of the CRD environment (CEL-SEMANTICS 6).

use super::functions::Function;

mod format;
pub(crate) mod lists;
mod regex;
mod sets;
mod strings;

/// Every table [`super::functions::lookup`] searches.
pub(crate) const TABLES: &[&[Function]] = &[
    super::stdlib::FUNCTIONS,
    strings::FUNCTIONS,
    lists::FUNCTIONS,
    sets::FUNCTIONS,
    regex::FUNCTIONS,
];
