//! Evaluation of a planned program: errors as values, short-circuits, comprehensions, and the
//! runtime cost of every step, checked against the per-call limit as cel-go's tracker does.

use std::sync::Arc;

use super::super::error::EvalError;
use super::super::go::float::go_g;
use super::super::lists;
use super::super::stdlib::matches_cost_of;
use super::super::value::{Key, ListKind, Map, Value};
use super::ir::{Base, Callee, Fold, Halt, MatchesCost, OLD_SELF, Op, Qual, QualKind, SELF, Step};
use super::overloads::{equality_cost, matches_formula};

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

pub(super) struct Evaluator<'p> {
    pub(super) ops: &'p [Op],
    /// `self` and `oldSelf` (`Null` when there is none), borrowed: a clone per evaluation is
    /// an atomic increment and decrement.
    pub(super) this: &'p Value,
    pub(super) old_self: &'p Value,
    /// Comprehension variables (slots below 2 are `self`'s and `oldSelf`'s, unused here).
    pub(super) frame: Vec<Value>,
    /// Call arguments being evaluated (see `Op::Call`).
    pub(super) stack: Vec<Value>,
    pub(super) cost: u64,
    pub(super) limit: u64,
    /// Calls are charged as releases before 1.37 charge them ([`Callee::cost_before_1_37`]).
    pub(super) before_1_37: bool,
}

fn err(e: EvalError) -> Value {
    Value::Error(Arc::new(e))
}

fn no_such_overload() -> Value {
    err(EvalError::no_such_overload())
}

impl<'p> Evaluator<'p> {
    /// An evaluator of constant ops only (no variables, no limit), for folding when planning.
    pub(super) fn constant(ops: &'p [Op]) -> Self {
        Evaluator {
            ops,
            this: &Value::Null,
            old_self: &Value::Null,
            frame: Vec::new(),
            stack: Vec::new(),
            cost: 0,
            limit: u64::MAX,
            before_1_37: false,
        }
    }

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
            return Err(Halt::CostLimit);
        }
        Ok(())
    }

    /// A call of two evaluated arguments (see [`invoke`]), charged.
    fn call2(&mut self, callee: &Callee, vals: [Value; 2]) -> Step<Value> {
        let (result, cost) = invoke(callee, &vals, self.before_1_37)?;
        drop(vals);
        self.charge(cost)?;
        Ok(result)
    }

    pub(super) fn eval(&mut self, op: usize) -> Step<Value> {
        // Borrowed for 'p, not through `self`: an op's parts are used while `self` evaluates.
        let ops = self.ops;
        match &ops[op] {
            Op::Const(v) => Ok(v.clone()),
            Op::Attr { base, quals, test } => self.attr(base, quals, *test, true),
            Op::Call { callee, args } => {
                // Arguments go on a stack shared by all calls (no allocation per call); a
                // call's arguments are `stack[base..]` while it runs.
                let base = self.stack.len();
                for (i, &a) in args.iter().enumerate() {
                    let v = match self.eval(a) {
                        Ok(v) => v,
                        Err(e) => {
                            self.stack.truncate(base);
                            return Err(e);
                        }
                    };
                    // A variadic call stops at the first error, and is then not charged
                    // unless it was the last argument (cel-go's tracker needs every one).
                    if callee.varargs && i + 1 < args.len() && matches!(v, Value::Error(_)) {
                        self.stack.truncate(base);
                        return Ok(v);
                    }
                    self.stack.push(v);
                }
                let invoked = invoke(callee, &self.stack[base..], self.before_1_37);
                self.stack.truncate(base);
                let (result, cost) = invoked?;
                self.charge(cost)?;
                Ok(result)
            }
            Op::Call1 { callee, arg } => {
                let vals = [self.eval(*arg)?];
                let (result, cost) = invoke(callee, &vals, self.before_1_37)?;
                drop(vals);
                self.charge(cost)?;
                Ok(result)
            }
            Op::Call2 { callee, args } => {
                let [a, b] = *args;
                let vals = [self.eval(a)?, self.eval(b)?];
                self.call2(callee, vals)
            }
            Op::Compare {
                callee,
                args,
                accept,
            } => {
                let ([a, b], accept) = (*args, *accept);
                let vals = [self.eval(a)?, self.eval(b)?];
                if let [Value::Int(x), Value::Int(y)] = vals {
                    // What `compare` and its cost give for two ints.
                    self.charge(1)?;
                    return Ok(Value::Bool(accept[(x.cmp(&y) as i8 + 1) as usize]));
                }
                self.call2(callee, vals)
            }
            Op::Eq(a, b) | Op::Ne(a, b) => {
                let ne = matches!(self.ops[op], Op::Ne(..));
                let (a, b) = (*a, *b);
                let l = self.eval(a)?;
                let r = self.eval(b)?;
                self.charge(equality_cost(&l, &r, ne))?;
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
                cost,
            } => {
                let (target, pattern_size, cost) = (*target, *pattern_size, *cost);
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
                    // The regex optimization plans a variadic call: an error target is the
                    // result before the pattern is evaluated, and the call is not charged.
                    Value::Error(_) if cost != MatchesCost::Legacy => return Ok(v.clone()),
                    Value::Error(_) => v.clone(),
                    _ => no_such_overload(),
                };
                let cost = match cost {
                    MatchesCost::GlobalFormula if self.before_1_37 => 1,
                    MatchesCost::Formula | MatchesCost::GlobalFormula => {
                        matches_formula(v.cost_size(), pattern_size)
                    }
                    MatchesCost::Unit => 1,
                    MatchesCost::Legacy => matches_cost_of(v, pattern_size),
                };
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

    pub(super) fn build_map(&mut self, entries: &[(usize, usize, bool)]) -> Step<Value> {
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
            Op::Call { callee, args } if callee.function.name == "_+_" && args.len() == 2 => {
                Some((*callee, args[0], args[1]))
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
            Some((callee, left, right)) if self.is_accu(left, accu) => {
                self.charge(1)?; // the accumulator variable
                let mut acc = std::mem::replace(&mut self.frame[accu], Value::Null);
                let r = self.eval(right)?;
                let (Value::List(l), Value::List(items)) = (&mut acc, &r) else {
                    // An error on either side (an element that failed, or an accumulator an
                    // earlier step made an error) is the result, as for any strict call.
                    return self.call2(&callee, [acc, r]);
                };
                self.charge(1)?; // list `+` costs 1 whatever the sizes
                if l.kind == ListKind::Plain {
                    Arc::make_mut(l).items.extend(items.items.iter().cloned());
                    return Ok(acc);
                }
                let left = acc.clone();
                Ok(match (callee.call)(&[left, r]) {
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
            Op::Call { callee, .. } if callee.function.name == "_+_" => self.step(op, accu),
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
        // has() pays for its qualifiers only, and a qualified ternary (`(c ? a : b).f`, cel-go's
        // `conditionalAttribute`) for its condition, branch and qualifiers only.
        let conditional = matches!(base, Base::Op(op) if matches!(self.ops[*op], Op::Cond(..)));
        let charge_base = charge_base && !test && !conditional;
        // cel-go's `applyQualifiers`: once the value or a qualifier is optional, every later
        // qualifier selects only what is present. The first absent one ends the walk with
        // `optional.none()`, and is not charged: the qualifier's watcher observes (and the cost
        // tracker counts) present values only.
        let mut optional = false;
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
            if !presence {
                if let Value::Optional(o) = &value {
                    optional = true;
                    match o {
                        None => break,
                        Some(inner) => value = (**inner).clone(),
                    }
                }
                optional |= q.optional;
            }
            if optional {
                match find(&value, q, index.as_ref()) {
                    Lookup::Found(v) => {
                        self.charge(1)?;
                        value = v;
                    }
                    Lookup::Missing(_) => {
                        value = Value::Optional(None);
                        break;
                    }
                    Lookup::Error(e) => {
                        value = e;
                        break;
                    }
                }
                continue;
            }
            self.charge(1)?;
            value = select(&value, q, index.as_ref(), presence);
        }
        if optional && !matches!(value, Value::Optional(_) | Value::Error(_)) {
            value = Value::some(value);
        }
        if charge_base {
            self.charge(1)?;
        }
        if test && conditional {
            // cel-go's tracker takes back the select cost of every presence test, also on a
            // conditional attribute, which it never charged one.
            self.cost = self.cost.saturating_sub(1);
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
/// implementation's; with the call's cost either way. cel-go's tracker costs the call with the
/// error among its arguments, and the trackers that read a list argument without checking
/// its type panic on it: the evaluation halts with the recovered panic's text.
fn invoke(callee: &Callee, vals: &[Value], before_1_37: bool) -> Step<(Value, u64)> {
    let cost_fn = match callee.cost_before_1_37 {
        Some(older) if before_1_37 => older,
        _ => callee.cost,
    };
    let cost = |result: &Value| cost_fn.map_or(1, |f| f(vals, result));
    match vals.iter().find(|v| matches!(v, Value::Error(_))) {
        Some(e) => {
            if let Some(i) = callee.asserts_list
                && let Some(Value::Error(_)) = vals.get(i)
            {
                return Err(Halt::Internal(ERROR_IS_NOT_A_LISTER));
            }
            Ok((e.clone(), cost(e)))
        }
        None => {
            let result = match (callee.call)(vals) {
                Ok(v) => v,
                Err(e) => err(e),
            };
            let cost = cost(&result);
            Ok((result, cost))
        }
    }
}

/// What Go's runtime says when an error value is asserted to be a `traits.Lister`, with the
/// prefix `Program.Eval` adds to a recovered panic.
const ERROR_IS_NOT_A_LISTER: &str =
    "internal error: interface conversion: *types.Err is not traits.Lister: missing method Add";

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
    if presence
        && let QualKind::Field { .. } = q.kind
        && !matches!(value, Value::Map(_))
    {
        return Value::Bool(false);
    }
    match find(value, q, index) {
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

/// What qualifier `q` (with its evaluated `index`) finds in a plain (not optional) value.
fn find(value: &Value, q: &Qual, index: Option<&Value>) -> Lookup {
    if let Some(Value::Error(_)) = index {
        return Lookup::Error(index.cloned().unwrap_or(Value::Null));
    }
    match (&q.kind, value) {
        (QualKind::Field { raw, property }, Value::Map(m)) => {
            let name = if m.object {
                property.as_deref()
            } else {
                Some(&**raw)
            };
            Lookup::from(name.and_then(|n| m.get_str(n)), || Value::string(&**raw))
        }
        (QualKind::Field { raw, .. }, _) => Lookup::Error(err(EvalError::no_such_key(raw))),
        (QualKind::Const(k), _) => lookup(value, k),
        (_, _) => match index {
            Some(k) => lookup(value, k),
            None => Lookup::Error(no_such_overload()),
        },
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
        Value::Double(d) => go_g(*d),
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
                        go_g(*d)
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
