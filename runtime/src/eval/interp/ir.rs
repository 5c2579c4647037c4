//! The planned form of a program: operations in a flat vector, each naming its operands by
//! index, and the attributes (a base and qualifiers) cel-go's planner builds.

use std::sync::Arc;

use super::super::function::{CostFn, Function, Impl};
use super::super::go::regex::GoRegex;
use super::super::value::Value;

/// Why an evaluation stops at once, whatever the operators around the current step would make
/// of an error value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Halt {
    /// The cost tracker ran over the per-call limit.
    CostLimit,
    /// cel-go's interpreter panicked and `Program.Eval` recovered the panic as this error
    /// (`internal error: ...`), which the apiserver reports as the rule's evaluation error.
    Internal(&'static str),
}

pub(super) type Step<T> = Result<T, Halt>;

/// Slot of `self` in the variable frame.
pub(super) const SELF: usize = 0;
/// Slot of `oldSelf`.
pub(super) const OLD_SELF: usize = 1;

#[derive(Debug)]
pub(super) enum Base {
    /// A variable slot.
    Var(usize),
    /// Any other operand: a relative attribute over that op.
    Op(usize),
}

#[derive(Debug)]
pub(super) enum QualKind {
    /// `.f` (or `.?f`): the raw name for maps, the unescaped property name for objects.
    Field {
        raw: Arc<str>,
        property: Option<Arc<str>>,
    },
    /// `[c]` with a constant.
    Const(Value),
    /// `[a]` with an attribute op: costs its qualifiers and 1, not its base.
    Attr(usize),
    /// `[e]` with any other op.
    Op(usize),
}

#[derive(Debug)]
pub(super) struct Qual {
    pub(super) kind: QualKind,
    /// `.?f` / `[?k]`: an absent key gives `optional.none()`.
    pub(super) optional: bool,
}

#[derive(Debug)]
pub(super) enum Op {
    Const(Value),
    Attr {
        base: Base,
        quals: Vec<Qual>,
        /// `has()`: the last qualifier is a presence test.
        test: bool,
    },
    Call {
        callee: Callee,
        args: Vec<usize>,
    },
    /// A call of one argument (`size`, `!_`, ...): as `Call`, without the shared stack.
    Call1 {
        callee: Callee,
        arg: usize,
    },
    /// A call of two arguments (`_<=_`, `contains`, ...) cel-go plans as a binary call: as
    /// `Call`, with the arguments held in place instead of on the shared stack.
    Call2 {
        callee: Callee,
        args: [usize; 2],
    },
    /// `_<_`, `_<=_`, `_>_`, `_>=_`: `Call2`, with two ints compared in place. `accept` says
    /// which orderings (less, equal, greater) make it true.
    Compare {
        callee: Callee,
        args: [usize; 2],
        accept: [bool; 3],
    },
    Eq(usize, usize),
    Ne(usize, usize),
    And(usize, usize),
    Or(usize, usize),
    Cond(usize, usize, usize),
    NotStrictlyFalse(usize),
    OptOr(usize, usize),
    OptOrValue(usize, usize),
    List {
        elements: Vec<usize>,
        optional: Vec<bool>,
    },
    Map {
        entries: Vec<(usize, usize, bool)>,
    },
    SetMembership {
        arg: usize,
        set: Vec<Value>,
    },
    /// `s.matches(re)` with a constant pattern, compiled when the program is planned.
    Matches {
        target: usize,
        regex: Arc<GoRegex>,
        /// The pattern's size, for the call's cost (`matches`' own cost function).
        pattern_size: u64,
        cost: MatchesCost,
    },
    Fold(Fold),
}

/// A planned call: the function and what cel-go makes of the call given the overload the
/// checker resolved (`overloads.rs`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Callee {
    pub(super) function: &'static Function,
    /// The implementation: the resolved overload's when the function's own cannot tell it
    /// from the values (`sum` of an empty list).
    pub(super) call: Impl,
    /// The cost of one call (`None`: 1).
    pub(super) cost: Option<CostFn>,
    /// Where releases before 1.37 (cel-go 0.26) charge the call differently, their cost
    /// (`Some(None)`: 1): `startsWith`/`endsWith` by the receiver's size, not the argument's,
    /// and the global `matches(s, re)` and `includes` at 1.
    pub(super) cost_before_1_37: Option<Option<CostFn>>,
    /// cel-go's `evalVarArgs`: the arguments are evaluated up to the first error, and the call
    /// is charged only when every argument was.
    pub(super) varargs: bool,
    /// The argument the call's cost tracker asserts to be a list: an error there halts the
    /// evaluation with the recovered panic's text.
    pub(super) asserts_list: Option<usize>,
}

/// How `matches` with a constant pattern is charged: cel-go's formula on the target's size
/// (`Formula`), 1 for a call the checker left unresolved (`Unit`), or by the target's value when
/// the program was planned without the checker (`Legacy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MatchesCost {
    /// The global `matches(s, re)`: `Formula` from 1.37 on (cel-go 0.29), `Unit` before.
    GlobalFormula,
    Formula,
    Unit,
    Legacy,
}

/// A comprehension: its ops and its variable slots.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fold {
    pub(super) range: usize,
    pub(super) init: usize,
    pub(super) cond: usize,
    pub(super) step: usize,
    pub(super) result: usize,
    pub(super) iter: usize,
    pub(super) iter2: Option<usize>,
    pub(super) accu: usize,
}
