//! The function declarations of the Kubernetes CEL environment, per compatibility version
//! (CEL-SEMANTICS.md 6.1 and 6.2).

use crate::decl::Function;

/// Every function the CRD environment declares at any version (filter with
/// [`crate::decl::Versions::contains`]).
pub const FUNCTIONS: &[Function] = &[];
