#![doc = include_str!("../README.md")]
// Without `kube` (the command line's build) the typed path, which only the derive's code
// calls, is compiled but unused.
#![cfg_attr(not(feature = "kube"), allow(dead_code))]

pub mod crd;
#[cfg(feature = "kube")]
mod derived_schema;
pub mod eval;
#[cfg(feature = "kube")]
mod generated_test;
pub mod gojson;
pub mod guide;
pub mod schema;
#[cfg(feature = "testing")]
pub mod testing;
mod tree;
pub mod validate;
pub mod yaml;

/// The CEL/OpenAPI type model of Rust types ([`CelSchema`], [`model::Schema`]).
pub mod model {
    pub use crd_cel_core::model::*;
}

/// Go's string quoting (`strconv.Quote`, `%q`), as the apiserver's messages print strings.
pub mod go {
    pub use crd_cel_core::go::quote;
}

/// Parsing CEL as the apiserver does, with cel-go's error rendering.
pub mod syntax {
    pub use crd_cel_core::syntax::*;
}

/// The CEL type checker the derive runs at `cargo build`, callable on any schema.
pub mod check {
    pub use crd_cel_core::check::*;
}

/// The apiserver's static cost estimate of rules and its CRD-time limits (the estimate of one
/// rule is [`check::Report::cost`]; [`check::Checked::max_cost`] from `check_source`).
pub mod cost {
    pub use crd_cel_core::cost::*;
}

/// `fieldPath` resolution and normalization (the apiserver's `ValidFieldPath`).
pub mod field_path {
    pub use crd_cel_core::crd::field_path::*;
}

/// The rule field checks the apiserver runs before compiling a rule.
pub mod rule_fields {
    pub use crd_cel_core::crd::rule_fields::*;
}

pub use crate::model::CelSchema;
pub use crate::validate::{
    BadValue, CelValidate, ErrorType, FieldError, Options, Outcome, ValidationErrors, Validator,
};

/// Derives `schemars::JsonSchema` (with `x-kubernetes-validations`), [`CelSchema`] and
/// [`CelValidate`]. See the [crate documentation](crate) for the attributes.
#[cfg(feature = "derive")]
pub use crd_cel_macros::CelValidate;

/// The compatibility version new rules are checked at: the targeted Kubernetes minor minus one
/// (`k8s.io/apiserver/pkg/cel/environment/environment.go`). The lowest enabled `k8s-1-NN`
/// feature wins (features add up across a dependency graph, and the oldest apiserver a CRD must
/// work on is the one that matters).
pub(crate) const TARGET_COMPAT: u8 = crd_cel_core::target_compat!();

#[doc(hidden)]
#[cfg(feature = "kube")]
#[path = "private.rs"]
pub mod __private;
