//! Planning: a checked AST to the flat [`Op`] program, with cel-go's folding of constants,
//! set lookups and constant regexes.

use std::collections::HashMap;
use std::sync::Arc;

use crd_cel_core::ast::{Ast, Expr, Var};
use crd_cel_core::check::Resolution;

use super::super::functions;
use super::super::go::regex::compiled_regex;
use super::super::names::unescape;
use super::super::value::{List, Value};
use super::evaluate::Evaluator;
use super::ir::{Base, Fold, OLD_SELF, Op, Qual, QualKind, SELF};
use super::overloads::{callee, matches_cost};

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

/// A planned expression: its ops, the root op, how many variable slots it uses, and whether it
/// references `oldSelf`.
pub(super) struct Plan {
    pub(super) ops: Vec<Op>,
    pub(super) root: usize,
    pub(super) slots: usize,
    pub(super) uses_old_self: bool,
}

/// Plans `ast` (see [`super::Program::plan`]), its calls as the checker resolved them
/// (`resolved`, indexed by node; empty: unresolved).
pub(super) fn plan(ast: &Ast<'_>, resolved: &[Resolution]) -> Result<Plan, PlanError> {
    if ast.is_empty() {
        return Err(unsupported("an empty expression"));
    }
    let mut p = Planner {
        ast,
        ops: Vec::with_capacity(ast.len()),
        slots: 2,
        scopes: HashMap::new(),
        uses_old_self: false,
        resolved,
    };
    let root = p.plan(ast.root())?;
    Ok(Plan {
        ops: p.ops,
        root,
        slots: p.slots,
        uses_old_self: p.uses_old_self,
    })
}

struct Planner<'p, 'a> {
    ast: &'p Ast<'a>,
    ops: Vec<Op>,
    slots: usize,
    /// Comprehension `(range, init)` node pairs to their first variable slot.
    scopes: HashMap<(u32, u32), usize>,
    uses_old_self: bool,
    /// The overload the checker resolved each call node to.
    resolved: &'p [Resolution],
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
                name,
                var,
                range,
                init,
                ..
            } => {
                // A comprehension variable named `oldSelf` makes a transition rule too, as
                // the apiserver decides it (`crd_cel::check::Checked::uses_old_self`).
                if self.text(name) == "oldSelf" {
                    self.uses_old_self = true;
                }
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
            } => self.call(i, self.text(function).to_owned(), target, args),
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
                    let mut ev = Evaluator::constant(&self.ops);
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
        node: u32,
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
                return self.call(node, qualified, None, args);
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
        let resolution = self
            .resolved
            .get(node as usize)
            .copied()
            .unwrap_or(Resolution::Unresolved);
        // cel-go compiles constant `matches` patterns when it plans the program.
        if name == "matches"
            && ops.len() == 2
            && let Op::Const(Value::String(p)) = &self.ops[ops[1]]
            && let Ok(regex) = compiled_regex(p)
        {
            let pattern_size = Value::String(p.clone()).cost_size();
            return Ok(self.push(Op::Matches {
                target: ops[0],
                regex,
                pattern_size,
                cost: matches_cost(resolution),
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
        let constant_pattern =
            ops.len() > 1 && matches!(self.ops[ops[1]], Op::Const(Value::String(_)));
        let callee = callee(function, resolution, ops.len(), constant_pattern);
        if let [arg] = ops[..] {
            return Ok(self.push(Op::Call1 { callee, arg }));
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
                callee,
                args: [*a, *b],
                accept,
            }));
        }
        // `_+_` stays a `Call`: comprehension folds recognise accumulation by it.
        if let [a, b] = ops[..]
            && function.name != "_+_"
            && !callee.varargs
        {
            return Ok(self.push(Op::Call2 {
                callee,
                args: [a, b],
            }));
        }
        Ok(self.push(Op::Call { callee, args: ops }))
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
