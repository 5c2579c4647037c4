//! Function implementations, one module per library of the CRD environment (CEL-SEMANTICS 6).

use super::functions::Function;

/// Every table [`super::functions::lookup`] searches.
pub(crate) const TABLES: &[&[Function]] = &[super::stdlib::FUNCTIONS];
