//! Planning a program for views: each operation mapped to the viewed evaluation's, or none
//! (the rule then runs on built values).

use super::*;

/// Whether every list the program builds ([`V::Counted`]: a list literal, what `filter` and
/// `map` accumulate) is only sized, appended to, or passed on as a comprehension's
/// accumulator, a branch or an element: anything else would read its items, which views do
/// not keep, and miss on every object (a rule that does is left to values, rule by rule).
pub(super) fn counted_lists_only_sized(ops: &[VOp], root: usize) -> bool {
    // Which ops may give a counted list, and which comprehension accumulators may hold one
    // (an accumulator is read before the step that appends to it: two passes).
    let mut counted = vec![false; ops.len()];
    let mut slots = [false; MAX_SLOTS];
    for _ in 0..2 {
        for (i, op) in ops.iter().enumerate() {
            counted[i] = match op {
                VOp::List(_) => true,
                VOp::Call2(F::Add, a, b) => counted[*a] || counted[*b],
                VOp::Cond(_, t, f) => counted[*t] || counted[*f],
                VOp::Fold(f) => {
                    slots[f.accu] |= counted[f.init] || counted[f.step];
                    counted[f.result]
                }
                VOp::Attr {
                    base: Base::Var(s),
                    quals,
                    test: false,
                } if quals.is_empty() => slots[*s],
                VOp::Attr {
                    base: Base::Op(o),
                    quals,
                    test: false,
                } if quals.is_empty() => counted[*o],
                _ => false,
            };
        }
    }
    let c = |i: &usize| counted[*i];
    !counted[root]
        && ops.iter().all(|op| match op {
            VOp::Const(_) | VOp::List(_) => true,
            VOp::Call1(F::Size, _) | VOp::Call2(F::Add, ..) => true,
            VOp::Cond(cond, ..) => !c(cond),
            // A list literal of bools is iterated bit by bit.
            VOp::Fold(f) => (!c(&f.range) || bool_list(ops, f.range)) && !c(&f.cond),
            VOp::Attr { base, quals, test } => {
                let base_ok = match base {
                    Base::Op(o) => !c(o) || (quals.is_empty() && !test),
                    Base::Var(_) => true,
                };
                base_ok
                    && quals.iter().all(|q| match q {
                        Q::Op(o) => !c(o),
                        _ => true,
                    })
            }
            VOp::Call1(_, a) | VOp::NotStrictlyFalse(a) | VOp::Matches(a, _) | VOp::InSet(a, _) => {
                !c(a)
            }
            VOp::Call2(_, a, b) | VOp::Eq(a, b, _) | VOp::And(a, b) | VOp::Or(a, b) => {
                !c(a) && !c(b)
            }
            VOp::Lib(_, args) => args.iter().all(|a| !c(a)),
        })
}

/// Whether op `i` is a list literal of at most 64 elements each of which is a bool
/// (`[has(self.a), has(self.b)]`), which views keep whole ([`V::Bools`]).
fn bool_list(ops: &[VOp], i: usize) -> bool {
    let VOp::List(elements) = &ops[i] else {
        return false;
    };
    elements.len() <= 64
        && elements.iter().all(|e| {
            matches!(
                ops[*e],
                VOp::Attr { test: true, .. }
                    | VOp::Const(C::Bool(_))
                    | VOp::Eq(..)
                    | VOp::Call1(F::Not, _)
                    | VOp::Call2(
                        F::Lt
                            | F::Le
                            | F::Gt
                            | F::Ge
                            | F::Contains
                            | F::StartsWith
                            | F::EndsWith
                            | F::In,
                        ..
                    )
                    | VOp::Matches(..)
                    | VOp::InSet(..)
                    | VOp::And(..)
                    | VOp::Or(..)
            )
        })
}

pub(super) fn plan_op(op: &Op) -> Option<VOp> {
    let f = |callee: &super::super::ir::Callee| F::of(callee.function.name);
    Some(match op {
        Op::Const(v) => VOp::Const(C::of(v)?),
        Op::Attr { base, quals, test } => VOp::Attr {
            base: match base {
                Base::Var(s) if *s < MAX_SLOTS => Base::Var(*s),
                Base::Var(_) => return None,
                Base::Op(o) => Base::Op(*o),
            },
            quals: quals
                .iter()
                .map(|q| {
                    if q.optional {
                        return None;
                    }
                    Some(match &q.kind {
                        QualKind::Field { raw, property } => Q::Field {
                            property: property.clone(),
                            raw: raw.clone(),
                            at: AtomicU64::new(0),
                        },
                        QualKind::Const(c) => Q::Const(C::of(c)?),
                        QualKind::Attr(o) | QualKind::Op(o) => Q::Op(*o),
                    })
                })
                .collect::<Option<_>>()?,
            test: *test,
        },
        Op::Call { callee, args } => match (f(callee), &args[..]) {
            (Some(f), [a]) => VOp::Call1(f, *a),
            (Some(f), [a, b]) => VOp::Call2(f, *a, *b),
            (Some(_), _) => return None,
            (None, args) => lib(callee, args)?,
        },
        Op::Call1 { callee, arg } => match f(callee) {
            Some(f) => VOp::Call1(f, *arg),
            None => lib(callee, &[*arg])?,
        },
        Op::Call2 { callee, args } | Op::Compare { callee, args, .. } => match f(callee) {
            Some(f) => VOp::Call2(f, args[0], args[1]),
            None => lib(callee, args)?,
        },
        Op::Eq(a, b) => VOp::Eq(*a, *b, false),
        Op::Ne(a, b) => VOp::Eq(*a, *b, true),
        Op::And(a, b) => VOp::And(*a, *b),
        Op::Or(a, b) => VOp::Or(*a, *b),
        Op::Cond(c, t, e) => VOp::Cond(*c, *t, *e),
        Op::NotStrictlyFalse(a) => VOp::NotStrictlyFalse(*a),
        Op::Matches { target, regex, .. } => VOp::Matches(*target, regex.clone()),
        Op::SetMembership { arg, set } => {
            VOp::InSet(*arg, set.iter().map(C::of).collect::<Option<_>>()?)
        }
        Op::Fold(f) => {
            let slots = [f.iter, f.accu].into_iter().chain(f.iter2);
            if slots.into_iter().any(|s| s >= MAX_SLOTS) {
                return None;
            }
            VOp::Fold(*f)
        }
        // `filter` builds its result by appending `[x]`: a list literal's length, and the
        // elements' errors, are what a `size` of the result reads.
        Op::List { elements, optional } if !optional.iter().any(|o| *o) => {
            VOp::List(elements.iter().copied().collect())
        }
        Op::OptOr(..) | Op::OptOrValue(..) | Op::List { .. } | Op::Map { .. } => return None,
    })
}

/// A call through the library (see [`VOp::Lib`]): not for the calls whose cost tracker reads
/// a list argument, which scalars never are anyway.
fn lib(callee: &super::super::ir::Callee, args: &[usize]) -> Option<VOp> {
    (callee.asserts_list.is_none() && !args.is_empty()).then(|| VOp::Lib(callee.call, args.into()))
}
