//! The function table's types: what a library declares for each function it implements (the
//! name, the implementation and its runtime cost), and cel-go's cost factors they share.
//!
//! One entry serves every overload of a name: the implementation dispatches on the argument
//! values, the receiver of a member call first (`"abc".indexOf("b")` is called with
//! `["abc", "b"]`), as cel-go flattens them. The libraries depend on this module and nothing
//! else of the table; [`super::functions`] assembles their tables.

use super::error::EvalError;
use super::value::Value;
/// An implementation: receives the receiver (member calls) and the arguments, none of them an
/// error value (the interpreter propagates errors before calling). Returns the result, or the
/// error in cel-go's words (`no such overload` when no overload accepts the values).
pub type Impl = fn(&[Value]) -> Result<Value, EvalError>;

/// The runtime cost of one call given its arguments and result (cel-go's `CallCost` and the
/// Kubernetes library's `CallCost`, `github.com/google/cel-go/interpreter/runtimecost.go`).
pub type CostFn = fn(&[Value], &Value) -> u64;

/// One function name and its implementation.
#[derive(Debug)]
pub struct Function {
    /// The declared name (`indexOf`, `sets.contains`, `format.named`, `_+_`).
    pub name: &'static str,
    /// The implementation.
    pub call: Impl,
    /// The cost of a call; `None` is cel-go's default of 1.
    pub cost: Option<CostFn>,
}

#[cfg(test)]
impl Function {
    /// The cost of one call, as the library table prices it (the interpreter prices a call by
    /// the overload the checker resolved: `interp/overloads.rs`).
    pub fn cost_of(&self, args: &[Value], result: &Value) -> u64 {
        match self.cost {
            Some(f) => f(args, result),
            None => 1,
        }
    }
}

/// `ceil(x * factor)` on a size, as cel-go's cost functions round.
pub fn traversal_cost(size: u64, factor: f64) -> u64 {
    (size as f64 * factor).ceil() as u64
}

/// cel-go's `StringTraversalCostFactor` (0.1).
pub const STRING_TRAVERSAL_FACTOR: f64 = 0.1;

/// cel-go's `RegexStringLengthCostFactor` (0.25).
pub const REGEX_LENGTH_FACTOR: f64 = 0.25;
