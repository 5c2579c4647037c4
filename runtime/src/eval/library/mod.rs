//! Function implementations, one module per library of the CRD environment (`k8s.io/apiserver/pkg/cel/environment/base.go`).
//! Each declares its [`FUNCTIONS`](strings::FUNCTIONS) table with the types of
//! [`super::function`]; [`super::functions`] assembles the tables.

mod decimal;
mod format;
mod k8s_util;
mod limits;
pub(crate) mod lists;
pub(crate) mod named_format;
pub(crate) mod net;
pub(crate) mod quantity;
pub(crate) mod regex;
pub(crate) mod semver;
pub(crate) mod sets;
pub(crate) mod strings;
#[cfg(test)]
mod testing;
pub(crate) mod url;
