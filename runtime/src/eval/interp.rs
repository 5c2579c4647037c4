//! The interpreter: a checked expression ([`crd_cel_core::ast::Ast`], macros already expanded as
//! cel-go expands them) planned once into a [`Program`], then evaluated with cel-go's semantics
//! (errors as values, short-circuiting `&&`/`||`/`?:`, comprehensions that test their condition
//! before each step) and the apiserver's runtime cost (CEL-SEMANTICS 4.4): cel-go's
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
//! - every other call costs what its [`Function`] says, after its arguments.
//!
//! The per-call limit is checked after every step, as cel-go's tracker does.

use std::collections::HashMap;
use std::sync::Arc;

use crd_cel_core::ast::{Ast, Expr, Var};

use super::error::{ErrorKind, EvalError};
use super::functions::{self, Function};
use super::lists;
use super::value::{Key, List, ListKind, Map, Value};

/// Why a program could not be planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    /// What went wrong (already worded for the user).
    pub message: String,
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PlanError {}

fn unsupported(what: impl std::fmt::Display) -> PlanError {
    PlanError {
        message: format!("not supported by crd-cel yet: {what}"),
    }
}

/// The cost tracker ran over the per-call limit: evaluation stops at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LimitExceeded;

type Step<T> = Result<T, LimitExceeded>;

/// Slot of `self` in the variable frame.
const SELF: usize = 0;
/// Slot of `oldSelf`.
const OLD_SELF: usize = 1;

#[derive(Debug)]
enum Base {
    /// A variable slot.
    Var(usize),
    /// Any other operand: a relative attribute over that op.
    Op(usize),
}

#[derive(Debug)]
enum QualKind {
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
struct Qual {
    kind: QualKind,
    /// `.?f` / `[?k]`: an absent key gives `optional.none()`.
    optional: bool,
}

#[derive(Debug)]
enum Op {
    Const(Value),
    Attr {
        base: Base,
        quals: Vec<Qual>,
        /// `has()`: the last qualifier is a presence test.
        test: bool,
    },
    Call {
        function: &'static Function,
        args: Vec<usize>,
    },
    /// A call of one argument (`size`, `!_`, ...): as `Call`, without the shared stack.
    Call1 {
        function: &'static Function,
        arg: usize,
    },
    /// A call of two arguments (`_<=_`, `contains`, ...): as `Call`, with the arguments held
    /// in place instead of on the shared stack.
    Call2 {
        function: &'static Function,
        args: [usize; 2],
    },
    /// `_<_`, `_<=_`, `_>_`, `_>=_`: `Call2`, with two ints compared in place. `accept` says
    /// which orderings (less, equal, greater) make it true.
    Compare {
        function: &'static Function,
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
        regex: Arc<::regex::Regex>,
        /// The pattern's size, for the call's cost (`matches`' own cost function).
        pattern_size: u64,
    },
    Fold(Fold),
}

/// A comprehension: its ops and its variable slots.
#[derive(Debug, Clone, Copy)]
struct Fold {
    range: usize,
    init: usize,
    cond: usize,
    step: usize,
    result: usize,
    iter: usize,
    iter2: Option<usize>,
    accu: usize,
}

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
        if ast.is_empty() {
            return Err(unsupported("an empty expression"));
        }
        let mut p = Planner {
            ast,
            ops: Vec::with_capacity(ast.len()),
            slots: 2,
            scopes: HashMap::new(),
            uses_old_self: false,
        };
        let root = p.plan(ast.root())?;
        let buffers = p.slots > 2 || p.ops.iter().any(|o| matches!(o, Op::Call { .. }));
        Ok(Program {
            buffers,
            ops: p.ops,
            root,
            slots: p.slots,
            uses_old_self: p.uses_old_self,
            self_need: self_need(ast),
        })
    }

    /// What the expression reads of `self`: the typed fast path builds only that of a node
    /// (rules that select fields, or iterate a list and select fields of its items).
    pub fn self_need(&self) -> &Need {
        &self.self_need
    }

    /// Parses and plans `source` (already checked against its schema).
    pub fn compile(source: &str) -> Result<Program, PlanError> {
        let ast = crd_cel_core::syntax::parse_ast(source).map_err(|e| PlanError {
            message: e.to_string(),
        })?;
        Program::plan(&ast.as_ast())
    }

    /// Whether the expression references `oldSelf`.
    pub fn uses_old_self(&self) -> bool {
        self.uses_old_self
    }

    /// Evaluates with `self` and `oldSelf` bound, stopping when the cost passes `limit`.
    pub fn eval(&self, this: &Value, old_self: Option<&Value>, limit: u64) -> Evaluation {
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
            Err(LimitExceeded) => Err(EvalError {
                kind: ErrorKind::CostLimit,
                message: "operation cancelled: actual cost limit exceeded".into(),
            }),
        };
        Evaluation { result, cost }
    }
}

/// What an expression reads of a value (`self`): all of it, some of its fields (each read in
/// its own way), or its list items (as the range of a comprehension).
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    /// The whole value.
    Whole,
    /// These fields only (`self.a`, `self.b.c`); none when the value is not read.
    Fields(Vec<(Box<str>, Need)>),
    /// Its items only, each read as given (`self.all(x, x.a > 0)`).
    Items(Box<Need>),
}

impl Need {
    /// What two readers need together (no fields read is what reading nothing needs).
    pub fn merge(self, other: Need) -> Need {
        match (self, other) {
            (Need::Fields(a), b) if a.is_empty() => b,
            (a, Need::Fields(b)) if b.is_empty() => a,
            (Need::Fields(mut a), Need::Fields(b)) => {
                for (name, need) in b {
                    match a.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, have)) => {
                            let was = std::mem::replace(have, Need::Whole);
                            *have = was.merge(need);
                        }
                        None => a.push((name, need)),
                    }
                }
                Need::Fields(a)
            }
            (Need::Items(a), Need::Items(b)) => Need::Items(Box::new(a.merge(*b))),
            _ => Need::Whole,
        }
    }
}

/// See [`Program::self_need`]. Every node of the expression counts, planned or folded away, so
/// the answer can only over-approximate what evaluation reads; anything but a field selection
/// (`has()` included) or a comprehension range reads the whole value.
fn self_need(ast: &Ast<'_>) -> Need {
    let n = ast.len();
    let parent = ast.parents();
    fn usage(ast: &Ast<'_>, parent: &[Option<u32>], i: u32, depth: u32) -> Need {
        let Some(p) = parent.get(i as usize).copied().flatten() else {
            return Need::Whole;
        };
        if depth > 64 {
            return Need::Whole;
        }
        match ast.node(p).expr {
            // `has(self.f)` needs `f` present: built whole.
            Expr::Select {
                operand,
                field,
                test,
            } if operand == i => Need::Fields(vec![(
                ast.text_str(field).into(),
                if test {
                    Need::Whole
                } else {
                    usage(ast, parent, p, depth + 1)
                },
            )]),
            Expr::Comprehension {
                range,
                init,
                two_vars: false,
                ..
            } if range == i => {
                let mut item = Need::Fields(Vec::new());
                for l in 0..ast.len() as u32 {
                    if let Expr::Local {
                        var: Var::Iter,
                        range: r,
                        init: n,
                        ..
                    } = ast.node(l).expr
                        && (r, n) == (range, init)
                    {
                        item = item.merge(usage(ast, parent, l, depth + 1));
                    }
                }
                Need::Items(Box::new(item))
            }
            _ => Need::Whole,
        }
    }
    let mut need = Need::Fields(Vec::new());
    for i in 0..n as u32 {
        if matches!(ast.node(i).expr, Expr::Ident(s) if ast.str(s) == b"self") {
            need = need.merge(usage(ast, &parent, i, 0));
        }
    }
    need
}

// ---------------------------------------------------------------------------------------------
// Planning.

struct Planner<'p, 'a> {
    ast: &'p Ast<'a>,
    ops: Vec<Op>,
    slots: usize,
    /// Comprehension `(range, init)` node pairs to their first variable slot.
    scopes: HashMap<(u32, u32), usize>,
    uses_old_self: bool,
}

/// CEL type identifiers, which evaluate to type values.
const TYPE_NAMES: &[&str] = &[
    "bool",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "list",
    "map",
    "null_type",
    "type",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
    "optional_type",
];

/// The JSON property an escaped CEL field name stands for (CEL-SEMANTICS 2); `None` when the
/// escaping is invalid, which makes the field absent.
pub fn unescape(name: &str) -> Option<String> {
    use crd_cel_core::check::RESERVED;
    if let Some(word) = name
        .strip_prefix("__")
        .and_then(|s| s.strip_suffix("__"))
        .filter(|w| RESERVED.contains(w))
    {
        return Some(word.to_owned());
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("__") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail.find("__")?;
        let word = &tail[..end];
        if word.contains('_') {
            return None;
        }
        out.push_str(match word {
            "underscores" => "__",
            "dot" => ".",
            "dash" => "-",
            "slash" => "/",
            _ => return None,
        });
        rest = &tail[end + 2..];
    }
    out.push_str(rest);
    Some(out)
}

impl Planner<'_, '_> {
    fn push(&mut self, op: Op) -> usize {
        self.ops.push(op);
        self.ops.len() - 1
    }

    fn text(&self, s: crd_cel_core::ast::Str) -> &str {
        self.ast.text_str(s)
    }

    fn is_const(&self, op: usize) -> bool {
        matches!(self.ops[op], Op::Const(_))
    }

    fn plan(&mut self, i: u32) -> Result<usize, PlanError> {
        let node = self.ast.node(i);
        match node.expr {
            Expr::Null => Ok(self.push(Op::Const(Value::Null))),
            Expr::Bool(b) => Ok(self.push(Op::Const(Value::Bool(b)))),
            Expr::Int(v) => Ok(self.push(Op::Const(Value::Int(v)))),
            Expr::Uint(v) => Ok(self.push(Op::Const(Value::Uint(v)))),
            Expr::Double(v) => Ok(self.push(Op::Const(Value::Double(v)))),
            Expr::String(s) => {
                let v = Value::string(self.text(s));
                Ok(self.push(Op::Const(v)))
            }
            Expr::Bytes(s) => {
                let v = Value::Bytes(self.ast.str(s).into());
                Ok(self.push(Op::Const(v)))
            }
            Expr::Ident(s) => {
                let name = self.text(s);
                match name {
                    "self" => Ok(self.var(SELF)),
                    "oldSelf" => {
                        self.uses_old_self = true;
                        Ok(self.var(OLD_SELF))
                    }
                    _ if TYPE_NAMES.contains(&name) => {
                        let v = Value::Type(name.into());
                        Ok(self.push(Op::Const(v)))
                    }
                    _ => Err(unsupported(format_args!("the identifier '{name}'"))),
                }
            }
            Expr::Local {
                var, range, init, ..
            } => {
                let Some(&base) = self.scopes.get(&(range, init)) else {
                    return Err(unsupported("a comprehension variable outside its scope"));
                };
                let slot = base
                    + match var {
                        Var::Iter => 0,
                        Var::Iter2 => 1,
                        Var::Accu => 2,
                    };
                Ok(self.var(slot))
            }
            Expr::Select {
                operand,
                field,
                test,
            } => {
                // `google.protobuf.Duration`: a qualified type name, not a field selection.
                if !test
                    && let Some(name) = self.qualified_name(i)
                    && TYPE_NAMES.contains(&name.as_str())
                {
                    return Ok(self.push(Op::Const(Value::Type(name.into()))));
                }
                let op = self.plan(operand)?;
                let raw: Arc<str> = self.text(field).into();
                let qual = Qual {
                    kind: QualKind::Field {
                        property: unescape(&raw).map(Arc::from),
                        raw,
                    },
                    optional: false,
                };
                Ok(self.qualify(op, qual, test))
            }
            Expr::Call {
                function,
                target,
                args,
            } => self.call(self.text(function).to_owned(), target, args),
            Expr::List { elements, optional } => {
                let mut elems = Vec::with_capacity(elements.len as usize);
                for k in 0..elements.len {
                    elems.push(self.plan(self.ast.r(elements, k))?);
                }
                let mut opt = vec![false; elems.len()];
                for k in 0..optional.len {
                    let pos = self.ast.r(optional, k) as usize;
                    if let Some(o) = opt.get_mut(pos) {
                        *o = true;
                    }
                }
                if elems.iter().all(|&e| self.is_const(e)) && !opt.contains(&true) {
                    let items = elems.iter().map(|&e| self.const_value(e)).collect();
                    return Ok(self.push(Op::Const(Value::list(items))));
                }
                Ok(self.push(Op::List {
                    elements: elems,
                    optional: opt,
                }))
            }
            Expr::Map { entries } => {
                let mut out = Vec::with_capacity(entries.len as usize / 3);
                let mut k = 0;
                while k + 2 < entries.len {
                    let key = self.plan(self.ast.r(entries, k))?;
                    let value = self.plan(self.ast.r(entries, k + 1))?;
                    let optional = self.ast.r(entries, k + 2) != 0;
                    out.push((key, value, optional));
                    k += 3;
                }
                let all_const = out
                    .iter()
                    .all(|&(k, v, o)| !o && self.is_const(k) && self.is_const(v));
                if all_const {
                    let mut ev = Evaluator {
                        ops: &self.ops,
                        this: &Value::Null,
                        old_self: &Value::Null,
                        frame: Vec::new(),
                        stack: Vec::new(),
                        cost: 0,
                        limit: u64::MAX,
                    };
                    let built = ev.build_map(&out).unwrap_or_else(|_| Value::Null);
                    if let Value::Error(e) = built {
                        return Err(PlanError {
                            message: e.message.clone(),
                        });
                    }
                    return Ok(self.push(Op::Const(built)));
                }
                Ok(self.push(Op::Map { entries: out }))
            }
            Expr::Struct { name } => Err(unsupported(format_args!(
                "the message literal '{}'",
                self.text(name)
            ))),
            Expr::Macro { .. } => Err(unsupported("a macro marker outside its expansion")),
            Expr::Comprehension {
                range,
                init,
                cond,
                step,
                result,
                two_vars,
            } => {
                let base = self.slots;
                self.slots += 3;
                self.scopes.insert((range, init), base);
                let range_op = self.plan(range)?;
                let init_op = self.plan(init)?;
                let cond_op = self.plan(cond)?;
                let step_op = self.plan(step)?;
                let result_op = self.plan(result)?;
                Ok(self.push(Op::Fold(Fold {
                    range: range_op,
                    init: init_op,
                    cond: cond_op,
                    step: step_op,
                    result: result_op,
                    iter: base,
                    iter2: two_vars.then_some(base + 1),
                    accu: base + 2,
                })))
            }
        }
    }

    /// The dotted name a chain of selections on a non-variable identifier spells.
    fn qualified_name(&self, i: u32) -> Option<String> {
        match self.ast.node(i).expr {
            Expr::Ident(s) => {
                let name = self.text(s);
                (name != "self" && name != "oldSelf").then(|| name.to_owned())
            }
            Expr::Select {
                operand,
                field,
                test: false,
            } => Some(format!(
                "{}.{}",
                self.qualified_name(operand)?,
                self.text(field)
            )),
            _ => None,
        }
    }

    fn var(&mut self, slot: usize) -> usize {
        self.push(Op::Attr {
            base: Base::Var(slot),
            quals: Vec::new(),
            test: false,
        })
    }

    fn const_value(&self, op: usize) -> Value {
        match &self.ops[op] {
            Op::Const(v) => v.clone(),
            _ => Value::Null,
        }
    }

    /// Adds a qualifier to an attribute op, or wraps a non-attribute op in a relative attribute.
    fn qualify(&mut self, op: usize, qual: Qual, test: bool) -> usize {
        // Each op has one parent (the plan is a tree), so the operand's attribute can grow.
        if let Op::Attr { quals, test: t, .. } = &mut self.ops[op]
            && !*t
        {
            quals.push(qual);
            *t = test;
            return op;
        }
        self.push(Op::Attr {
            base: Base::Op(op),
            quals: vec![qual],
            test,
        })
    }

    fn call(
        &mut self,
        name: String,
        target: Option<u32>,
        args: crd_cel_core::ast::Refs,
    ) -> Result<usize, PlanError> {
        // `optional.of(x)`, `sets.contains(a, b)`: a namespaced global function.
        if let Some(t) = target
            && let Expr::Ident(ns) = self.ast.node(t).expr
        {
            let qualified = format!("{}.{}", self.text(ns), name);
            if functions::lookup(&qualified).is_some() {
                return self.call(qualified, None, args);
            }
        }
        let mut ops = Vec::with_capacity(args.len as usize + 1);
        if let Some(t) = target {
            ops.push(self.plan(t)?);
        }
        for k in 0..args.len {
            ops.push(self.plan(self.ast.r(args, k))?);
        }
        let two = |ops: &[usize]| (ops[0], ops[1]);
        match (name.as_str(), ops.len()) {
            ("_&&_", 2) => return Ok(self.push(Op::And(ops[0], ops[1]))),
            ("_||_", 2) => return Ok(self.push(Op::Or(ops[0], ops[1]))),
            ("_?_:_", 3) => return Ok(self.push(Op::Cond(ops[0], ops[1], ops[2]))),
            ("_==_", 2) => {
                let (a, b) = two(&ops);
                return Ok(self.push(Op::Eq(a, b)));
            }
            ("_!=_", 2) => {
                let (a, b) = two(&ops);
                return Ok(self.push(Op::Ne(a, b)));
            }
            ("@not_strictly_false", 1) => return Ok(self.push(Op::NotStrictlyFalse(ops[0]))),
            ("or", 2) => return Ok(self.push(Op::OptOr(ops[0], ops[1]))),
            ("orValue", 2) => return Ok(self.push(Op::OptOrValue(ops[0], ops[1]))),
            ("_[_]" | "_[?_]" | "_?._", 2) => {
                let (operand, index) = two(&ops);
                let optional = name != "_[_]";
                let kind = match &self.ops[index] {
                    Op::Const(Value::String(s)) if name == "_?._" => QualKind::Field {
                        raw: s.clone(),
                        property: unescape(s).map(Arc::from),
                    },
                    Op::Const(v) => QualKind::Const(v.clone()),
                    Op::Attr { test: false, .. } => QualKind::Attr(index),
                    _ => QualKind::Op(index),
                };
                return Ok(self.qualify(operand, Qual { kind, optional }, false));
            }
            ("@in", 2) => {
                if let Op::Const(Value::List(l)) = &self.ops[ops[1]]
                    && let Some(set) = membership_set(l)
                {
                    return Ok(self.push(Op::SetMembership { arg: ops[0], set }));
                }
            }
            _ => {}
        }
        let Some(function) = functions::lookup(&name) else {
            return Err(unsupported(format_args!("the function '{name}'")));
        };
        // cel-go compiles constant `matches` patterns when it plans the program.
        if name == "matches"
            && ops.len() == 2
            && let Op::Const(Value::String(p)) = &self.ops[ops[1]]
            && let Ok(regex) = functions::compiled_regex(p)
        {
            let pattern_size = Value::String(p.clone()).cost_size();
            return Ok(self.push(Op::Matches {
                target: ops[0],
                regex,
                pattern_size,
            }));
        }
        // cel-go folds type conversions of constants when it plans the program.
        if TYPE_CONVERSIONS.contains(&name.as_str()) && ops.len() == 1 && self.is_const(ops[0]) {
            let arg = self.const_value(ops[0]);
            return match (function.call)(std::slice::from_ref(&arg)) {
                Ok(v) => Ok(self.push(Op::Const(v))),
                Err(e) => Err(PlanError { message: e.message }),
            };
        }
        if let [arg] = ops[..] {
            return Ok(self.push(Op::Call1 { function, arg }));
        }
        let accept = match function.name {
            "_<_" => Some([true, false, false]),
            "_<=_" => Some([true, true, false]),
            "_>_" => Some([false, false, true]),
            "_>=_" => Some([false, true, true]),
            _ => None,
        };
        if let ([a, b], Some(accept)) = (&ops[..], accept) {
            return Ok(self.push(Op::Compare {
                function,
                args: [*a, *b],
                accept,
            }));
        }
        // `_+_` stays a `Call`: comprehension folds recognise accumulation by it.
        if let [a, b] = ops[..]
            && function.name != "_+_"
        {
            return Ok(self.push(Op::Call2 {
                function,
                args: [a, b],
            }));
        }
        Ok(self.push(Op::Call {
            function,
            args: ops,
        }))
    }
}

/// cel-go's type conversion functions (`overloads.IsTypeConversionFunction`).
const TYPE_CONVERSIONS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// The members of a constant list for `x in [...]`, when cel-go turns it into a set lookup:
/// every element a non-bytes primitive. Numbers also match their equal int/uint/double forms.
fn membership_set(l: &List) -> Option<Vec<Value>> {
    let mut set = Vec::with_capacity(l.items.len());
    for v in &l.items {
        match v {
            Value::Bool(_) | Value::String(_) => set.push(v.clone()),
            Value::Int(i) => {
                set.push(v.clone());
                set.push(Value::Double(*i as f64));
                if let Ok(u) = u64::try_from(*i) {
                    set.push(Value::Uint(u));
                }
            }
            Value::Uint(u) => {
                set.push(v.clone());
                set.push(Value::Double(*u as f64));
                if let Ok(i) = i64::try_from(*u) {
                    set.push(Value::Int(i));
                }
            }
            Value::Double(d) => {
                set.push(v.clone());
                if d.fract() == 0.0 && *d >= i64::MIN as f64 && *d < i64::MAX as f64 {
                    set.push(Value::Int(*d as i64));
                }
                if d.fract() == 0.0 && *d >= 0.0 && *d < u64::MAX as f64 {
                    set.push(Value::Uint(*d as u64));
                }
            }
            _ => return None,
        }
    }
    Some(set)
}

/// Exact-type membership, as a Go map keyed by CEL values finds it.
fn set_contains(set: &[Value], v: &Value) -> bool {
    set.iter().any(|m| match (m, v) {
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Uint(a), Value::Uint(b)) => a == b,
        (Value::Double(a), Value::Double(b)) => a == b,
        _ => false,
    })
}

// ---------------------------------------------------------------------------------------------
// Evaluation.

struct Evaluator<'p> {
    ops: &'p [Op],
    /// `self` and `oldSelf` (`Null` when there is none), borrowed: a clone per evaluation is
    /// an atomic increment and decrement.
    this: &'p Value,
    old_self: &'p Value,
    /// Comprehension variables (slots below 2 are `self`'s and `oldSelf`'s, unused here).
    frame: Vec<Value>,
    /// Call arguments being evaluated (see `Op::Call`).
    stack: Vec<Value>,
    cost: u64,
    limit: u64,
}

fn err(e: EvalError) -> Value {
    Value::Error(Arc::new(e))
}

fn no_such_overload() -> Value {
    err(EvalError::no_such_overload())
}

impl<'p> Evaluator<'p> {
    /// `self.a.b` / `oldSelf.a` resolved in place, with what evaluating it would charge; `None`
    /// when `op` is anything else or does not resolve to a value (evaluate it then).
    fn attr_ref(&self, op: usize) -> Option<(&'p Value, u64)> {
        let Op::Attr {
            base: Base::Var(slot @ (SELF | OLD_SELF)),
            quals,
            test: false,
        } = &self.ops[op]
        else {
            return None;
        };
        let base = if *slot == SELF {
            self.this
        } else {
            self.old_self
        };
        let (cur, walked) = walk_fields(base, quals, quals.len());
        if walked < quals.len() {
            return None;
        }
        // One per qualifier and one for the variable, as `attr` charges.
        (!matches!(cur, Value::Error(_))).then_some((cur, walked as u64 + 1))
    }

    /// The value of variable `slot`.
    fn var(&self, slot: usize) -> &Value {
        match slot {
            SELF => self.this,
            OLD_SELF => self.old_self,
            _ => &self.frame[slot],
        }
    }

    fn charge(&mut self, n: u64) -> Step<()> {
        self.cost = self.cost.saturating_add(n);
        if self.cost > self.limit {
            return Err(LimitExceeded);
        }
        Ok(())
    }

    /// A call of two evaluated arguments (see [`invoke`]), charged.
    fn call2(&mut self, function: &'static Function, vals: [Value; 2]) -> Step<Value> {
        let (result, cost) = invoke(function, &vals);
        drop(vals);
        self.charge(cost)?;
        Ok(result)
    }

    fn eval(&mut self, op: usize) -> Step<Value> {
        // Borrowed for 'p, not through `self`: an op's parts are used while `self` evaluates.
        let ops = self.ops;
        match &ops[op] {
            Op::Const(v) => Ok(v.clone()),
            Op::Attr { base, quals, test } => self.attr(base, quals, *test, true),
            Op::Call { function, args } => {
                let function = *function;
                // Arguments go on a stack shared by all calls (no allocation per call); a
                // call's arguments are `stack[base..]` while it runs.
                let base = self.stack.len();
                for &a in args {
                    let v = match self.eval(a) {
                        Ok(v) => v,
                        Err(e) => {
                            self.stack.truncate(base);
                            return Err(e);
                        }
                    };
                    let is_err = matches!(v, Value::Error(_));
                    // Calls of three or more arguments stop at the first error, and are then
                    // not charged (cel-go's tracker finds no complete argument list).
                    if is_err && args.len() > 2 {
                        self.stack.truncate(base);
                        return Ok(v);
                    }
                    self.stack.push(v);
                }
                let (result, cost) = invoke(function, &self.stack[base..]);
                self.stack.truncate(base);
                self.charge(cost)?;
                Ok(result)
            }
            Op::Call1 { function, arg } => {
                let function = *function;
                let vals = [self.eval(*arg)?];
                let (result, cost) = invoke(function, &vals);
                drop(vals);
                self.charge(cost)?;
                Ok(result)
            }
            Op::Call2 { function, args } => {
                let (function, [a, b]) = (*function, *args);
                let vals = [self.eval(a)?, self.eval(b)?];
                self.call2(function, vals)
            }
            Op::Compare {
                function,
                args,
                accept,
            } => {
                let (function, [a, b], accept) = (*function, *args, *accept);
                let vals = [self.eval(a)?, self.eval(b)?];
                if let [Value::Int(x), Value::Int(y)] = vals {
                    // What `compare` and `compare_cost` give for two ints.
                    self.charge(1)?;
                    return Ok(Value::Bool(accept[(x.cmp(&y) as i8 + 1) as usize]));
                }
                self.call2(function, vals)
            }
            Op::Eq(a, b) | Op::Ne(a, b) => {
                let ne = matches!(self.ops[op], Op::Ne(..));
                let (a, b) = (*a, *b);
                let l = self.eval(a)?;
                let r = self.eval(b)?;
                self.charge(equality_cost(&l, &r))?;
                if let Value::Error(_) = l {
                    return Ok(l);
                }
                if let Value::Error(_) = r {
                    return Ok(r);
                }
                Ok(match lists::equals(&l, &r) {
                    Ok(eq) => Value::Bool(eq != ne),
                    Err(e) => err(e),
                })
            }
            Op::And(a, b) | Op::Or(a, b) => {
                let is_and = matches!(self.ops[op], Op::And(..));
                let (a, b) = (*a, *b);
                let mut error = None;
                for term in [a, b] {
                    let v = self.eval(term)?;
                    match v {
                        Value::Bool(x) if x != is_and => return Ok(Value::Bool(x)),
                        Value::Bool(_) => {}
                        Value::Error(_) => {
                            error.get_or_insert(v);
                        }
                        _ => {
                            error.get_or_insert_with(no_such_overload);
                        }
                    }
                }
                Ok(error.unwrap_or(Value::Bool(is_and)))
            }
            Op::Cond(c, t, f) => {
                let (c, t, f) = (*c, *t, *f);
                match self.eval(c)? {
                    Value::Bool(true) => self.branch(t),
                    Value::Bool(false) => self.branch(f),
                    e @ Value::Error(_) => Ok(e),
                    _ => Ok(no_such_overload()),
                }
            }
            Op::NotStrictlyFalse(a) => {
                let v = self.eval(*a)?;
                self.charge(1)?;
                Ok(Value::Bool(!matches!(v, Value::Bool(false))))
            }
            Op::OptOr(a, b) | Op::OptOrValue(a, b) => {
                let or_value = matches!(self.ops[op], Op::OptOrValue(..));
                let (a, b) = (*a, *b);
                match self.eval(a)? {
                    Value::Optional(Some(v)) if or_value => Ok((*v).clone()),
                    v @ Value::Optional(Some(_)) => Ok(v),
                    Value::Optional(None) => self.eval(b),
                    e @ Value::Error(_) => Ok(e),
                    _ => Ok(no_such_overload()),
                }
            }
            Op::List { elements, optional } => {
                let mut items = Vec::with_capacity(elements.len());
                let mut error = None;
                for (k, &e) in elements.iter().enumerate() {
                    // cel-go stops at the first error element (the literal is charged anyway).
                    match self.eval(e)? {
                        v @ Value::Error(_) => {
                            error = Some(v);
                            break;
                        }
                        Value::Optional(o) if optional[k] => {
                            if let Some(v) = o {
                                items.push((*v).clone());
                            }
                        }
                        _ if optional[k] => {
                            error = Some(no_such_overload());
                            break;
                        }
                        v => items.push(v),
                    }
                }
                self.charge(10)?;
                Ok(error.unwrap_or_else(|| Value::list(items)))
            }
            Op::Map { entries } => {
                let v = self.build_map(entries)?;
                self.charge(30)?;
                Ok(v)
            }
            Op::Matches {
                target,
                regex,
                pattern_size,
            } => {
                let (target, pattern_size) = (*target, *pattern_size);
                let owned;
                // `self.name.matches(..)` reads the string in place.
                let v = match self.attr_ref(target) {
                    Some((v, cost)) => {
                        self.charge(cost)?;
                        v
                    }
                    None => {
                        owned = self.eval(target)?;
                        &owned
                    }
                };
                let result = match v {
                    Value::String(s) => Value::Bool(regex.is_match(&s[..])),
                    Value::Error(_) => v.clone(),
                    _ => no_such_overload(),
                };
                let cost = super::stdlib::matches_cost_of(v, pattern_size);
                self.charge(cost)?;
                Ok(result)
            }
            Op::SetMembership { arg, set } => {
                let v = self.eval(*arg)?;
                Ok(match v {
                    Value::Error(_) => v,
                    v => Value::Bool(set_contains(set, &v)),
                })
            }
            Op::Fold(f) => {
                let f = *f;
                self.fold(f)
            }
        }
    }

    /// A `?:` branch: an attribute there is resolved without paying for its base (cel-go plans
    /// the branches into a conditional attribute).
    fn branch(&mut self, op: usize) -> Step<Value> {
        match &self.ops[op] {
            Op::Attr {
                base,
                quals,
                test: false,
            } => self.attr(base, quals, false, false),
            _ => self.eval(op),
        }
    }

    fn build_map(&mut self, entries: &[(usize, usize, bool)]) -> Step<Value> {
        let mut out: Vec<(Key, Value)> = Vec::with_capacity(entries.len());
        let mut error = None;
        for &(k, v, optional) in entries {
            // cel-go stops at the first error key or value.
            let key = self.eval(k)?;
            if let Value::Error(_) = key {
                error = Some(key);
                break;
            }
            let value = self.eval(v)?;
            if let Value::Error(_) = value {
                error = Some(value);
                break;
            }
            let value = if optional {
                match value {
                    Value::Optional(Some(v)) => (*v).clone(),
                    Value::Optional(None) => continue,
                    _ => {
                        error = Some(no_such_overload());
                        break;
                    }
                }
            } else {
                value
            };
            let Some(key) = Key::of(&key) else {
                error = Some(err(EvalError::new(format!(
                    "unsupported key type: {}",
                    key.type_name()
                ))));
                break;
            };
            if out.iter().any(|(k, _)| *k == key) {
                error = Some(err(EvalError::new(format!(
                    "Failed with repeated key: {key}"
                ))));
                break;
            }
            out.push((key, value));
        }
        Ok(error.unwrap_or_else(|| Value::Map(Arc::new(Map::new(out)))))
    }

    fn fold(&mut self, f: Fold) -> Step<Value> {
        let Fold {
            range,
            init,
            cond,
            step,
            result,
            iter,
            iter2,
            accu,
        } = f;
        let range_value = self.eval(range)?;
        if let Value::Error(_) = range_value {
            return Ok(range_value);
        }
        // The items to visit: (first variable, second variable).
        let pairs: Vec<(Value, Value)> = match &range_value {
            Value::List(l) => l
                .items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if iter2.is_some() {
                        (Value::Int(i as i64), v.clone())
                    } else {
                        (v.clone(), Value::Null)
                    }
                })
                .collect(),
            Value::Map(m) => m
                .entries()
                .iter()
                .map(|(k, v)| (k.to_value(), v.clone()))
                .collect(),
            other => {
                return Ok(err(EvalError::new(format!(
                    "got '{}', expected iterable type",
                    other.type_name()
                ))));
            }
        };
        let init_value = self.eval(init)?;
        self.frame[accu] = init_value;
        for (first, second) in pairs {
            self.frame[iter] = first;
            if let Some(slot) = iter2 {
                self.frame[slot] = second;
            }
            if let Value::Bool(false) = self.eval(cond)? {
                break;
            }
            let next = self.step(step, accu)?;
            self.frame[accu] = next;
        }
        let out = self.eval(result)?;
        self.frame[accu] = Value::Null;
        Ok(out)
    }

    /// A comprehension step. `@result + [x]` (map, filter) appends to the accumulator in place,
    /// as cel-go's mutable accumulator does, instead of copying the list each iteration.
    fn step(&mut self, step: usize, accu: usize) -> Step<Value> {
        let appended = match &self.ops[step] {
            Op::Call { function, args } if function.name == "_+_" && args.len() == 2 => {
                Some((*function, args[0], args[1]))
            }
            Op::Cond(c, t, f) => {
                let (c, t, f) = (*c, *t, *f);
                return match self.eval(c)? {
                    Value::Bool(true) => self.step_branch(t, accu),
                    Value::Bool(false) => self.step_branch(f, accu),
                    e @ Value::Error(_) => Ok(e),
                    _ => Ok(no_such_overload()),
                };
            }
            _ => None,
        };
        match appended {
            Some((function, left, right)) if self.is_accu(left, accu) => {
                self.charge(1)?; // the accumulator variable
                let mut acc = std::mem::replace(&mut self.frame[accu], Value::Null);
                let r = self.eval(right)?;
                let (Value::List(l), Value::List(items)) = (&mut acc, &r) else {
                    let args = [acc, r];
                    let result = match (function.call)(&args) {
                        Ok(v) => v,
                        Err(e) => err(e),
                    };
                    self.charge(function.cost_of(&args, &result))?;
                    return Ok(result);
                };
                self.charge(1)?; // list `+` costs 1 whatever the sizes
                if l.kind == ListKind::Plain {
                    Arc::make_mut(l).items.extend(items.items.iter().cloned());
                    return Ok(acc);
                }
                let left = acc.clone();
                Ok(match (function.call)(&[left, r]) {
                    Ok(v) => v,
                    Err(e) => err(e),
                })
            }
            _ => self.eval(step),
        }
    }

    fn step_branch(&mut self, op: usize, accu: usize) -> Step<Value> {
        if self.is_accu(op, accu) {
            // A branch that is the bare accumulator costs nothing (conditional attribute).
            return Ok(self.frame[accu].clone());
        }
        match &self.ops[op] {
            Op::Call { function, .. } if function.name == "_+_" => self.step(op, accu),
            _ => self.branch(op),
        }
    }

    fn is_accu(&self, op: usize, accu: usize) -> bool {
        matches!(&self.ops[op], Op::Attr { base: Base::Var(s), quals, test: false } if *s == accu && quals.is_empty())
    }

    /// Resolves an attribute: its base, then each qualifier, charging 1 for the attribute (when
    /// `charge_base`) and 1 per qualifier applied.
    fn attr(&mut self, base: &Base, quals: &[Qual], test: bool, charge_base: bool) -> Step<Value> {
        let n = quals.len();
        // Field selections on a variable (`self.spec.replicas`) walk it by reference, so only
        // the selected value is cloned (a clone of a map or list is an atomic increment).
        let mut start = 0;
        let mut value = match base {
            Base::Var(slot) => {
                // has() tests its last qualifier itself.
                let stop = if test { n.saturating_sub(1) } else { n };
                let (cur, walked) = walk_fields(self.var(*slot), quals, stop);
                start = walked;
                let value = cur.clone();
                self.charge(walked as u64)?;
                value
            }
            Base::Op(op) => self.eval(*op)?,
        };
        // has() pays for its qualifiers only.
        let charge_base = charge_base && !test;
        for (k, q) in quals.iter().enumerate().skip(start) {
            if let Value::Error(_) = value {
                break;
            }
            let presence = test && k + 1 == n;
            let index = match &q.kind {
                QualKind::Field { .. } | QualKind::Const(_) => None,
                QualKind::Attr(op) => match &self.ops[*op] {
                    Op::Attr { base, quals, .. } => Some(self.attr(base, quals, false, false)?),
                    _ => Some(self.eval(*op)?),
                },
                QualKind::Op(op) => Some(self.eval(*op)?),
            };
            self.charge(1)?;
            value = select(&value, q, index.as_ref(), presence);
        }
        if charge_base {
            self.charge(1)?;
        }
        Ok(value)
    }
}

/// The value qualifier `q` selects in `v` without copying it: a declared property of an
/// object or a key of a map, named by a plain field selection (`.f`, not `.?f`).
fn field_in<'v>(q: &Qual, v: &'v Value) -> Option<&'v Value> {
    match (&q.kind, v) {
        (QualKind::Field { raw, property }, Value::Map(m)) if !q.optional => {
            let name = if m.object {
                property.as_deref()
            } else {
                Some(&**raw)
            };
            m.get_str(name?)
        }
        _ => None,
    }
}

/// Follows the first `stop` qualifiers from `v` by reference while each is a field that is
/// there and not an error value: the value reached and how many qualifiers it followed.
fn walk_fields<'v>(mut v: &'v Value, quals: &[Qual], stop: usize) -> (&'v Value, usize) {
    let mut k = 0;
    while k < stop {
        match field_in(&quals[k], v) {
            Some(next) if !matches!(next, Value::Error(_)) => v = next,
            _ => break,
        }
        k += 1;
    }
    (v, k)
}

/// A call of evaluated arguments: the first error argument is the result, else the
/// function's; with the function's cost either way.
fn invoke(function: &Function, vals: &[Value]) -> (Value, u64) {
    match vals.iter().find(|v| matches!(v, Value::Error(_))) {
        Some(e) => (e.clone(), function.cost_of(vals, e)),
        None => {
            let result = match (function.call)(vals) {
                Ok(v) => v,
                Err(e) => err(e),
            };
            let cost = function.cost_of(vals, &result);
            (result, cost)
        }
    }
}

/// cel-go's runtime cost of `==`/`!=`: `ceil(min(size(a), size(b)) * 0.1)`, 1 for library types.
fn equality_cost(l: &Value, r: &Value) -> u64 {
    if let Value::Opaque(_) = l {
        return 1;
    }
    functions::traversal_cost(
        l.cost_size().min(r.cost_size()),
        functions::STRING_TRAVERSAL_FACTOR,
    )
}

/// Applies one qualifier (`presence`: the last qualifier of `has()`).
fn select(value: &Value, q: &Qual, index: Option<&Value>, presence: bool) -> Value {
    if let Value::Optional(o) = value {
        return match o {
            None => Value::Optional(None),
            Some(inner) => match select(inner, q, index, presence) {
                e @ Value::Error(_) => e,
                v @ Value::Optional(_) if q.optional => v,
                v => Value::some(v),
            },
        };
    }
    if let Some(Value::Error(_)) = index {
        return index.cloned().unwrap_or(Value::Null);
    }
    let found = match (&q.kind, value) {
        (QualKind::Field { raw, property }, Value::Map(m)) => {
            let name = if m.object {
                property.as_deref()
            } else {
                Some(&**raw)
            };
            Lookup::from(name.and_then(|n| m.get_str(n)), || Value::string(&**raw))
        }
        (QualKind::Field { raw, .. }, _) => {
            if presence {
                return Value::Bool(false);
            }
            return err(EvalError::no_such_key(raw));
        }
        (QualKind::Const(k), _) => lookup(value, k),
        (_, _) => match index {
            Some(k) => lookup(value, k),
            None => Lookup::Error(no_such_overload()),
        },
    };
    match found {
        Lookup::Found(v) => {
            if presence {
                Value::Bool(true)
            } else if q.optional {
                Value::some(v)
            } else {
                v
            }
        }
        Lookup::Missing(missing) => {
            if presence {
                Value::Bool(false)
            } else if q.optional {
                Value::Optional(None)
            } else {
                missing
            }
        }
        Lookup::Error(e) => e,
    }
}

enum Lookup {
    Found(Value),
    /// Absent: the error to report when absence is not allowed.
    Missing(Value),
    Error(Value),
}

impl Lookup {
    fn from(found: Option<&Value>, key: impl FnOnce() -> Value) -> Lookup {
        match found {
            Some(Value::Error(e)) => Lookup::Error(Value::Error(e.clone())),
            Some(v) => Lookup::Found(v.clone()),
            None => Lookup::Missing(err(EvalError::no_such_key(display_key(&key())))),
        }
    }
}

fn display_key(k: &Value) -> String {
    match k {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Double(d) => super::stdlib::format_double(*d),
        other => other.type_name().to_owned(),
    }
}

/// `value[k]` on a map or list.
fn lookup(value: &Value, k: &Value) -> Lookup {
    match value {
        Value::Map(m) => {
            let key = match k {
                Value::Double(d) if d.fract() == 0.0 && d.is_finite() => {
                    if *d >= 0.0 && *d < u64::MAX as f64 && *d >= i64::MAX as f64 {
                        Some(Key::Uint(*d as u64))
                    } else if *d >= i64::MIN as f64 && *d < i64::MAX as f64 {
                        Some(Key::Int(*d as i64))
                    } else {
                        None
                    }
                }
                other => Key::of(other),
            };
            let Some(key) = key else {
                return Lookup::Missing(err(EvalError::no_such_key(display_key(k))));
            };
            let key = match (&key, m.object) {
                // Object properties are strings; a non-string key finds nothing.
                (Key::String(_), _) | (_, false) => key,
                _ => return Lookup::Missing(err(EvalError::no_such_key(display_key(k)))),
            };
            Lookup::from(m.get(&key), || k.clone())
        }
        Value::List(l) => {
            let i = match k {
                Value::Int(i) => *i,
                Value::Uint(u) => i64::try_from(*u).unwrap_or(i64::MAX),
                Value::Double(d) if d.fract() == 0.0 && d.is_finite() => *d as i64,
                Value::Double(d) => {
                    return Lookup::Error(err(EvalError::new(format!(
                        "unsupported index value {} in list",
                        super::stdlib::format_double(*d)
                    ))));
                }
                other => {
                    return Lookup::Error(err(EvalError::new(format!(
                        "unsupported index type '{}' in list",
                        other.type_name()
                    ))));
                }
            };
            match usize::try_from(i).ok().and_then(|i| l.items.get(i)) {
                Some(Value::Error(e)) => Lookup::Error(Value::Error(e.clone())),
                Some(v) => Lookup::Found(v.clone()),
                None => Lookup::Missing(err(EvalError::new(format!(
                    "index out of bounds: {}",
                    display_key(k)
                )))),
            }
        }
        _ => Lookup::Missing(err(EvalError::no_such_key(display_key(k)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(fields: Vec<(&str, Value)>) -> Value {
        Value::Map(Arc::new(Map::object(
            fields
                .into_iter()
                .map(|(k, v)| (Key::String(k.into()), v))
                .collect(),
            0,
            Vec::new(),
        )))
    }

    fn run(rule: &str, this: &Value) -> (Result<Value, EvalError>, u64) {
        let p = Program::compile(rule).expect("plans");
        let e = p.eval(this, None, 1_000_000);
        (e.result, e.cost)
    }

    #[test]
    fn costs_of_the_apiserver_cost_stability_integers_case() {
        // CEL-SEMANTICS 4.6 example 10 (TestCelCostStability "integers").
        let this = object(vec![
            ("val1", Value::Int(i64::MAX)),
            ("val2", Value::Int(i64::MAX)),
        ]);
        let (r, cost) = run(
            "self.val1 == 9223372036854775807 && 9223372036854775807 == self.val1 && self.val1 == self.val2",
            &this,
        );
        assert!(matches!(r, Ok(Value::Bool(true))));
        assert_eq!(cost, 11);
    }

    #[test]
    fn comprehension_over_a_map_costs_per_iteration() {
        let m = Value::Map(Arc::new(Map::new(vec![
            (Key::String("a".into()), Value::Int(1)),
            (Key::String("b".into()), Value::Int(2)),
        ])));
        let this = object(vec![("val", m)]);
        let (r, cost) = run("self.val.all(k, self.val[k] > 0)", &this);
        assert!(matches!(r, Ok(Value::Bool(true))));
        assert_eq!(cost, 17);
    }

    #[test]
    fn errors_are_values_until_a_short_circuit_absorbs_them() {
        let this = object(vec![("a", Value::Int(1))]);
        let (r, _) = run("self.b == 1 || self.a == 1", &this);
        assert!(matches!(r, Ok(Value::Bool(true))));
        let (r, _) = run("self.b == 1", &this);
        assert_eq!(r.unwrap_err().message, "no such key: b");
        let (r, _) = run("[1, 0].exists(x, 1 / x == 0) ", &this);
        assert_eq!(r.unwrap_err().message, "division by zero");
        let (r, _) = run("[0, 1].exists(x, 1 / x == 1)", &this);
        assert!(matches!(r, Ok(Value::Bool(true))));
    }

    #[test]
    fn the_per_call_limit_stops_evaluation() {
        let this = object(vec![]);
        let p = Program::compile("[1, 2, 3].all(x, [1, 2, 3].all(y, true))").unwrap();
        let e = p.eval(&this, None, 10);
        assert_eq!(
            e.result.unwrap_err().message,
            "operation cancelled: actual cost limit exceeded"
        );
    }

    #[test]
    fn macros_optionals_and_literals() {
        let this = object(vec![("a", Value::Int(2)), ("s", Value::string("abc"))]);
        let ok = |rule: &str| match run(rule, &this).0 {
            Ok(Value::Bool(b)) => b,
            other => panic!("{rule}: {other:?}"),
        };
        assert!(ok("[1, 2, 3].map(x, x * 2) == [2, 4, 6]"));
        assert!(ok("[1, 2, 3].filter(x, x > 1).size() == 2"));
        assert!(ok("[1, 2, 3].exists_one(x, x == self.a)"));
        assert!(ok("{'a': 1}['a'] == 1 && 'a' in {'a': 1}"));
        assert!(ok("self.?b.orValue(5) == 5 && self.?a.value() == 2"));
        assert!(ok(
            "optional.of(1).hasValue() && !optional.none().hasValue()"
        ));
        assert!(ok("has(self.a) && !has(self.b)"));
        assert!(ok(
            "self.s.startsWith('a') && self.s.matches('^a.c$') && self.s.contains('b')"
        ));
        assert!(ok("self.a in [1, 2] && !(self.a in [3])"));
        assert!(ok("duration('1h') + duration('30m') == duration('90m')"));
        assert!(ok(
            "timestamp('2024-01-01T00:00:00Z').getFullYear() == 2024"
        ));
        assert!(ok("string(1.5) == '1.5' && int('7') == 7 && uint(3) == 3u"));
        assert!(ok("[1, 2].all(i, v, i < v)"));
        assert!(ok("{'x': 1}.transformMap(k, v, v + 1) == {'x': 2}"));
    }
}
