//! The interpreter: a checked expression ([`crd_cel_core::ast::Ast`], macros already expanded as
//! cel-go expands them) planned once into a [`Program`], then evaluated with cel-go's semantics
//! (errors as values, short-circuiting `&&`/`||`/`?:`, comprehensions that test their condition
//! before each step) and the apiserver's runtime cost (`github.com/google/cel-go/interpreter/runtimecost.go`): cel-go's
//! `interpreter/runtimecost.go` as the planner shapes the program with `OptOptimize`.
//!
//! How cel-go plans decides what costs what, so the plan here mirrors it:
//! - an *attribute* is a variable (or any non-attribute operand) followed by qualifiers (`.f`,
//!   `[i]`, `.?f`, `[?k]`): evaluating it costs 1, plus 1 per qualifier applied;
//! - a qualifier that is itself an attribute (`m[k]`) costs 1 plus its own qualifiers, not its base;
//! - `has(a.f)` costs only the qualifiers (the presence test has no cost of its own);
//! - a branch of `?:` that is an attribute does not pay for its base;
//! - list and map literals cost 10 and 30 unless all their elements are constants (folded to a
//!   constant when planned, cost 0), `x in [constants]` becomes a set lookup with no call cost, and
//!   type conversions of constants are folded;
//! - `or`/`orValue` on optionals short-circuit and cost nothing themselves;
//! - every other call is shaped and costed as cel-go does for the overload the checker resolved
//!   (`overloads.rs`: a variadic call stops at its first error argument uncharged; the cost is
//!   the overload's tracker's, the Kubernetes estimator's or cel-go's default), after its
//!   arguments.
//!
//! The per-call limit is checked after every step, as cel-go's tracker does.

pub(crate) mod derived;
mod evaluate;
mod ir;
mod overloads;
mod plan;
mod reads;
#[cfg(test)]
mod tests;
pub(crate) mod viewed;

use crd_cel_core::ast::Ast;
use crd_cel_core::check::{Node, Resolution, resolve_overloads};

use super::error::{ErrorKind, EvalError};
use super::value::Value;
use evaluate::Evaluator;
use ir::{Halt, Op, Step};
pub use plan::PlanError;
pub use reads::Need;
pub(crate) use viewed::{Miss, ViewProgram};

/// A planned expression, ready to evaluate any number of times.
#[derive(Debug)]
pub struct Program {
    ops: Vec<Op>,
    root: usize,
    slots: usize,
    uses_old_self: bool,
    /// Whether evaluation needs the variable frame or the argument stack (comprehensions,
    /// calls of three or more arguments); other programs run without touching them.
    buffers: bool,
    /// What the expression reads of `self`.
    self_need: Need,
    /// What the expression reads of `oldSelf`.
    old_self_need: Need,
}

/// The result of one evaluation.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The value, or the evaluation error (cost-limit errors included).
    pub result: Result<Value, EvalError>,
    /// The runtime cost, as the apiserver's tracker counts it.
    pub cost: u64,
}

impl Program {
    /// Plans an expression. Fails on a function crd-cel does not implement or a constant that does
    /// not fold (the apiserver fails such programs when they are planned too).
    pub fn plan(ast: &Ast<'_>) -> Result<Program, PlanError> {
        Program::plan_resolved(ast, &[])
    }

    /// Plans an expression whose calls the checker resolved (`resolved`, indexed by node, as
    /// [`crd_cel_core::check::resolve_overloads`] gives them): each call is shaped and charged
    /// as cel-go does for that overload, also when an argument is an error or of type `dyn`.
    pub fn plan_resolved(ast: &Ast<'_>, resolved: &[Resolution]) -> Result<Program, PlanError> {
        let p = plan::plan(ast, resolved)?;
        let buffers = p.slots > 2 || p.ops.iter().any(|o| matches!(o, Op::Call { .. }));
        Ok(Program {
            buffers,
            ops: p.ops,
            root: p.root,
            slots: p.slots,
            uses_old_self: p.uses_old_self,
            self_need: reads::self_need(ast),
            old_self_need: reads::old_self_need(ast),
        })
    }

    /// What the expression reads of `self`: the typed fast path builds only that of a node
    /// (rules that select fields, or iterate a list and select fields of its items).
    pub fn self_need(&self) -> &Need {
        &self.self_need
    }

    /// What the expression reads of `oldSelf`, as [`Program::self_need`] says of `self`: the
    /// typed fast path checks only that of an old value against the schema's bounds.
    pub fn old_self_need(&self) -> &Need {
        &self.old_self_need
    }

    /// Parses and plans `source` (already checked against its schema).
    pub fn compile(source: &str) -> Result<Program, PlanError> {
        let ast = crd_cel_core::syntax::parse_ast(source).map_err(|e| PlanError {
            message: e.to_string(),
        })?;
        Program::plan(&ast.as_ast())
    }

    /// Parses and plans `source` with its calls resolved as the checker resolves them against
    /// `node` (unresolved when it does not type-check there: such a rule never runs).
    pub fn compile_on(source: &str, node: &Node<'_>) -> Result<Program, PlanError> {
        let ast = crd_cel_core::syntax::parse_ast(source).map_err(|e| PlanError {
            message: e.to_string(),
        })?;
        Program::plan_on(&ast.as_ast(), node)
    }

    /// Plans an expression already parsed, with its calls resolved as the checker resolves
    /// them against `node` ([`Program::compile_on`] without the parse).
    pub fn plan_on(ast: &Ast<'_>, node: &Node<'_>) -> Result<Program, PlanError> {
        let resolved = resolve_overloads(ast, node).unwrap_or_default();
        Program::plan_resolved(ast, &resolved)
    }

    /// Whether the expression references `oldSelf`.
    pub fn uses_old_self(&self) -> bool {
        self.uses_old_self
    }

    /// Evaluates with `self` and `oldSelf` bound, stopping when the cost passes `limit`, with
    /// calls charged as the newest release charges them.
    pub fn eval(&self, this: &Value, old_self: Option<&Value>, limit: u64) -> Evaluation {
        self.eval_for(this, old_self, limit, crate::check::NEWEST_KUBERNETES_MINOR)
    }

    /// [`Program::eval`], with calls charged as Kubernetes `1.<minor>` charges them (some
    /// changed with the cel-go of 1.37).
    pub fn eval_for(
        &self,
        this: &Value,
        old_self: Option<&Value>,
        limit: u64,
        minor: u8,
    ) -> Evaluation {
        thread_local! {
            // One variable frame and argument stack per thread, reused: evaluation never nests.
            static BUFFERS: std::cell::RefCell<(Vec<Value>, Vec<Value>)> =
                const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
        }
        // Only comprehensions and calls of three or more arguments use the buffers.
        let (frame, stack) = if self.buffers {
            let (mut frame, stack) = BUFFERS.with(|f| std::mem::take(&mut *f.borrow_mut()));
            // Comprehension slots (`resize` would clone `Null` through the generic path).
            frame.extend((0..self.slots).map(|_| Value::Null));
            (frame, stack)
        } else {
            (Vec::new(), Vec::new())
        };
        let mut ev = Evaluator {
            ops: &self.ops,
            this,
            old_self: old_self.unwrap_or(&Value::Null),
            frame,
            stack,
            cost: 0,
            limit,
            before_1_37: minor < crate::check::CEL_GO_0_29,
        };
        let outcome = ev.eval(self.root);
        if self.buffers {
            let mut frame = std::mem::take(&mut ev.frame);
            let mut stack = std::mem::take(&mut ev.stack);
            frame.clear();
            stack.clear();
            BUFFERS.with(|f| *f.borrow_mut() = (frame, stack));
        }
        Evaluation::of(outcome, ev.cost)
    }
}

impl Evaluation {
    fn of(outcome: Step<Value>, cost: u64) -> Evaluation {
        let result = match outcome {
            Ok(Value::Error(e)) => Err((*e).clone()),
            Ok(v) => Ok(v),
            Err(Halt::CostLimit) => Err(EvalError {
                kind: ErrorKind::CostLimit,
                message: "operation cancelled: actual cost limit exceeded".into(),
            }),
            Err(Halt::Internal(message)) => Err(EvalError::new(message)),
        };
        Evaluation { result, cost }
    }
}
