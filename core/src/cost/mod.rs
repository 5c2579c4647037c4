//! The apiserver's static cost estimate (`github.com/google/cel-go/checker/cost.go`): cel-go's
//! `checker/cost.go` with the Kubernetes hooks (`library/cost.go` `EstimateCallCost`, the
//! schema-backed `sizeEstimator` of `apiextensions-apiserver` `compilation.go`) and the cost
//! estimators the enabled cel-go extensions register (`ext.Sets`, `ext.Lists` version 3), plus
//! the CRD-time arithmetic of 4.2 and 4.5 (cardinality, limits, the factor in messages).
//!
//! The estimator is one forward pass over the post-order AST after a successful check, reading
//! the checker's per-node types and resolved overloads; like the checker it is `const fn`, so
//! the derive estimates at `cargo build` with the same code the CLI runs.
//!
//! Numbers follow cel-go to the unit, including its quirks: every path is resolved from the
//! rule's node ignoring its first element (so any identifier, and a selection on a value without
//! a path, sizes as the node itself), schema-backed scalars have size 0, map keys size 0.

/// The range `{n, n}`, written out where it is used: the estimator builds many, and a call
/// costs several statements in const evaluation.
macro_rules! fixed {
    ($n:expr) => {{
        let n: u64 = $n;
        Range { min: n, max: n }
    }};
}

mod estimate;
mod functions;
mod limits;
mod range;
#[cfg(test)]
mod tests;

pub(crate) use estimate::{estimate, schema_nodes};
pub use limits::{
    EXPENSIVE, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT, RuleCost, cardinality, child_factor,
    cost_message, push_cost_message, push_factor, times_cardinality,
};
pub use range::Range;
