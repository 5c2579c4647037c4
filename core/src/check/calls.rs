//! Calls: resolving the function a call names (namespaced functions included) and the
//! overloads its arguments match (cel-go's `resolveOverload`).

use super::checker::Checker;
use crate::ast::Expr;
use crate::decl::{
    Function, KIND_ANY, KIND_LIST, KIND_MAP, KIND_NULL, KIND_OBJECT, KIND_OPAQUE, KIND_OPTIONAL,
    KIND_TYPE, KINDS, P, cannot_kinds,
};
use crate::typed::SKIP;
use crate::types::{Ty, TyId, id};

impl<'a> Checker<'a> {
    /// Marks the targets of namespaced calls (`optional.of(x)`, `sets.contains(a, b)`) so that
    /// the qualifier is not checked as an identifier, as cel-go resolves them.
    pub(super) const fn mark_namespaced(&mut self) {
        let mut i = 0;
        let len_i = self.typed.ast.len();
        while i < len_i {
            // `google.protobuf.Duration` / `Timestamp`: qualified type identifiers (cel-go
            // resolves the whole select chain as one identifier). The lowering found them.
            let qualified_type = match self.typed.ast.qualified_type(i as u32) {
                crate::ast::QUALIFIED_DURATION => Some(id::DURATION),
                crate::ast::QUALIFIED_TIMESTAMP => Some(id::TIMESTAMP),
                _ => None,
            };
            match self.typed.nodes[i].expr {
                Expr::Select {
                    operand,
                    test: false,
                    ..
                } if qualified_type.is_some() => {
                    self.skip_qualifier(operand);
                    if let Some(t) = qualified_type {
                        self.typed.ty[i] = self.typed.t.type_of(t);
                    }
                }
                Expr::Call {
                    target: Some(target),
                    ..
                } => {
                    // A namespaced function (`optional.of`): the qualifier is a chain of
                    // selects ending in an identifier, whose nodes directly precede the
                    // target in post-order.
                    if let (_, Some(q)) = self.typed.ast.call_decls(i as u32)
                        && self.at_target(&crate::env::FUNCTIONS[q]).is_some()
                    {
                        self.skip_qualifier(target);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Marks a qualifier chain (`a.b` of `a.b.f`) as no expression of its own.
    pub(super) const fn skip_qualifier(&mut self, from: u32) {
        let mut n = from;
        loop {
            self.typed.ty[n as usize] = SKIP;
            match self.typed.nodes[n as usize].expr {
                Expr::Select { operand, .. } => n = operand,
                _ => break,
            }
        }
    }

    /// `f` if it has an overload at this compatibility version.
    pub(super) const fn at_target(&self, f: &'static Function) -> Option<&'static Function> {
        let mut k = 0;
        let len_k = f.overloads.len();
        while k < len_k {
            if f.overloads[k].versions.contains(self.compat) {
                return Some(f);
            }
            k += 1;
        }
        None
    }

    pub(super) const fn call(
        &mut self,
        n: u32,
        function: &'a [u8],
        target: Option<u32>,
        args: crate::ast::Refs,
    ) -> TyId {
        if matches!(function, b"_?._") {
            let operand = self.typed.ast.r(args, 0);
            let field_node = self.typed.ast.r(args, 1);
            return match self.typed.nodes[field_node as usize].expr {
                Expr::String(_) => {
                    let r =
                        self.select_field(n, operand, self.typed.names[field_node as usize], true);
                    self.typed.t.substitute(r, false)
                }
                _ => {
                    let k = self.issue(self.offset(field_node));
                    self.msg(k, "unsupported optional field selection");
                    id::ERROR
                }
            };
        }
        // A namespaced function: its qualifier was marked, the call is global.
        let mut buf = [0u8; 128];
        let (name, member_target): (&[u8], Option<u32>) = match target {
            Some(t) if self.typed.ty[t as usize] == SKIP => {
                let len = match self
                    .typed
                    .qualified_name(t, self.call_function_str(n), &mut buf)
                {
                    Some(len) => len,
                    None => 0,
                };
                (buf.split_at(len).0, None)
            }
            _ => (function, target),
        };
        let f = match self.typed.call_decl(n, target) {
            Some(f) => self.at_target(f),
            None => None,
        };
        let f = match f {
            Some(f) => f,
            None => {
                self.undeclared(n, name);
                self.newer_help(name);
                return id::ERROR;
            }
        };
        // Argument types: receiver first.
        let mut arg_tys = [0 as TyId; 16];
        let mut count = 0;
        if let Some(t) = member_target {
            arg_tys[0] = self.typed.ty[t as usize];
            count = 1;
        }
        let mut a = 0;
        while a < args.len {
            if count >= 16 {
                self.report.unsupported = Some("calls with more than 15 arguments");
                return id::ERROR;
            }
            arg_tys[count] = self.typed.ty[self.typed.ast.r(args, a) as usize];
            count += 1;
            a += 1;
        }
        // The array and `count` rather than a subslice of it: subslicing costs as much as a
        // few calls in const evaluation.
        let member = member_target.is_some();
        if matches!(name, b"_&&_") || matches!(name, b"_||_") {
            let mut ok = true;
            let mut i = 0;
            let len_i = count;
            while i < len_i {
                if !self.typed.t.assignable(arg_tys[i], id::BOOL) {
                    self.mismatch(self.typed.ast.r(args, i as u32), id::BOOL, arg_tys[i]);
                    ok = false;
                }
                i += 1;
            }
            return if ok { id::BOOL } else { id::ERROR };
        }
        let k0 = if count > 0 {
            ty_kind(self.typed.t.tys[arg_tys[0] as usize]) as usize
        } else {
            KIND_ANY as usize
        };
        let k1 = if count > 1 {
            ty_kind(self.typed.t.tys[arg_tys[1] as usize]) as usize
        } else {
            KIND_ANY as usize
        };
        let mut result: Option<TyId> = None;
        let len_o = f.overloads.len();
        // The overloads that may take the first argument (and those whose rejection consumes
        // type variables), in order: in const evaluation each overload looked at costs tens of
        // statements, and most are rejected by that argument's kind.
        let mut candidates = f.first[k0];
        let mut next = 0;
        loop {
            let o = if len_o <= 64 {
                if candidates == 0 {
                    break;
                }
                let o = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                o
            } else {
                if next >= len_o {
                    break;
                }
                next += 1;
                next - 1
            };
            let ov = &f.overloads[o];
            // Field tests rather than helper calls: in const evaluation a call costs as much
            // as several statements, and this loop runs for every overload of every call.
            if ov.versions.since > self.compat
                || self.compat >= ov.versions.until
                || ov.member != member
                || ov.argc as usize != count
            {
                continue;
            }
            // The first two arguments by their outer kinds (a table lookup each), the others
            // as `cannot_match_from` does: the same decision, which rejects most overloads here.
            if CANNOT[k0][ov.kinds[0] as usize]
                || CANNOT[k1][ov.kinds[1] as usize]
                || (count > 2 && self.cannot_match_from(&arg_tys, ov.args, 2, count))
            {
                // What instantiating the parameters would have consumed, so that type
                // variables are numbered as if the overload had been tried in full.
                if ov.arg_params != 0 {
                    self.typed.t.skip_vars(ov.arg_params);
                }
                continue;
            }
            let mark = self.typed.t.mark();
            let mut params = [u16::MAX; 4];
            let mut cand = [0 as TyId; 16];
            let mut i = 0;
            let len_i = count;
            while i < len_i {
                cand[i] = self.instantiate(&ov.args[i], &mut params, 0);
                i += 1;
            }
            if self.typed.t.assignable_list(&arg_tys, &cand, count) {
                self.typed.ov[n as usize] |= 1 << (o % 16);
                let r = self.instantiate(&ov.result, &mut params, 0);
                let r = self.typed.t.substitute(r, false);
                result = match result {
                    None => Some(r),
                    Some(prev) => {
                        if !self.typed.t.is_dyn(prev) && !self.typed.t.exact(r, prev) {
                            Some(id::DYN)
                        } else {
                            Some(prev)
                        }
                    }
                };
            } else {
                self.typed.t.rollback(mark);
            }
        }
        match result {
            Some(r) => r,
            None => {
                let k = self.issue(self.offset(n));
                self.msg(k, "found no matching overload for '");
                self.msg_bytes(k, name);
                self.msg(k, "' applied to '");
                let mut i = 0;
                let len_i = count;
                while i < len_i {
                    if member && i == 1 {
                        self.msg(k, ".(");
                    } else if i == 0 {
                        if !member {
                            self.msg(k, "(");
                        }
                    } else {
                        self.msg(k, ", ");
                    }
                    let s = self.typed.t.substitute(arg_tys[i], true);
                    self.msg_ty(k, s);
                    i += 1;
                }
                if count == 0 {
                    self.msg(k, "(");
                } else if member && count == 1 {
                    self.msg(k, ".(");
                }
                self.msg(k, ")'");
                id::ERROR
            }
        }
    }

    pub(super) const fn call_function_str(&self, n: u32) -> crate::ast::Str {
        match self.typed.nodes[n as usize].expr {
            Expr::Call { function, .. } => function,
            _ => crate::ast::Str { start: 0, len: 0 },
        }
    }

    /// Whether some of the arguments from `from` to `n` cannot be assigned to their parameters
    /// (both slices hold `n`: the caller has checked the arity). See
    /// [`Checker::cannot_assign`].
    pub(super) const fn cannot_match_from(
        &self,
        args: &[TyId],
        params: &[P],
        from: usize,
        n: usize,
    ) -> bool {
        let mut i = from;
        while i < n {
            if self.cannot_assign(args[i], &params[i]) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether an argument's type can never be assigned to the overload's parameter: decided
    /// on the outermost type alone, before the (in const evaluation costly) instantiation and
    /// unification. Anything undecided there (type variables, `dyn`, parameters) is left to
    /// [`Types::assignable_list`].
    pub(super) const fn cannot_assign(&self, arg: TyId, p: &P) -> bool {
        cannot_assign_ty(self.typed.t.tys[arg as usize], p)
    }

    pub(super) const fn instantiate(&mut self, p: &P, params: &mut [TyId; 4], depth: u32) -> TyId {
        if depth > 16 {
            return id::ERROR;
        }
        match *p {
            P::Dyn => id::DYN,
            P::Null => id::NULL,
            P::Bool => id::BOOL,
            P::Int => id::INT,
            P::Uint => id::UINT,
            P::Double => id::DOUBLE,
            P::String => id::STRING,
            P::Bytes => id::BYTES,
            P::Duration => id::DURATION,
            P::Timestamp => id::TIMESTAMP,
            P::List(e) => {
                let e = self.instantiate(e, params, depth + 1);
                self.typed.t.list(e)
            }
            P::Map(k, v) => {
                let k = self.instantiate(k, params, depth + 1);
                let v = self.instantiate(v, params, depth + 1);
                self.typed.t.map(k, v)
            }
            P::Optional(e) => {
                let e = self.instantiate(e, params, depth + 1);
                self.typed.t.optional(e)
            }
            P::Type(e) => {
                let e = self.instantiate(e, params, depth + 1);
                self.typed.t.type_of(e)
            }
            P::Param(i) => {
                let i = i as usize % 4;
                if params[i] == u16::MAX {
                    params[i] = self.typed.t.fresh();
                }
                params[i]
            }
            P::Opaque(o) => self.typed.t.alloc(Ty::Opaque(o)),
        }
    }
}

/// `CANNOT[arg][param]`: [`Checker::cannot_assign`] of an argument of outer kind `arg`
/// ([`Checker::arg_kind`]) to a pattern of outer kind `param` ([`crate::decl::pattern_kind`]),
/// which it decides on these alone. A reference, so that an access reads one entry: computed
/// once per crate in const evaluation.
pub(super) const CANNOT: &[[bool; KINDS]; KINDS] = &cannot_table();

const fn cannot_table() -> [[bool; KINDS]; KINDS] {
    let mut t = [[false; KINDS]; KINDS];
    let mut a = 0;
    while a < KINDS {
        let mut p = 0;
        while p < KINDS {
            t[a][p] = cannot_kinds(a as u8, p as u8);
            p += 1;
        }
        a += 1;
    }
    t
}

/// The outer kind code of an argument type ([`crate::decl::pattern_kind`]'s codes, and
/// [`KIND_OBJECT`]), for the [`CANNOT`] table: [`KIND_ANY`] for type variables, `dyn` and
/// `error`, which [`Checker::cannot_assign`] never rejects.
pub(super) const fn ty_kind(t: Ty<'_>) -> u8 {
    match t {
        Ty::Var(_) | Ty::Dyn | Ty::Error => KIND_ANY,
        Ty::Null => KIND_NULL,
        Ty::Bool => 2,
        Ty::Int => 3,
        Ty::Uint => 4,
        Ty::Double => 5,
        Ty::String => 6,
        Ty::Bytes => 7,
        Ty::Duration => 8,
        Ty::Timestamp => 9,
        Ty::List(_) => KIND_LIST,
        Ty::Map(..) => KIND_MAP,
        Ty::Optional(_) => KIND_OPTIONAL,
        Ty::Type(_) => KIND_TYPE,
        Ty::Opaque(o) => KIND_OPAQUE + o as u8,
        Ty::Object { .. } => KIND_OBJECT,
    }
}

/// [`Checker::cannot_assign`] of an argument of type `t`.
const fn cannot_assign_ty(t: Ty<'_>, p: &P) -> bool {
    if matches!(p, P::Dyn | P::Param(_)) {
        return false;
    }
    // `null` and the kinds `null` is assignable to, as `Types::null_assignable`.
    if let P::Null = p {
        return !matches!(
            t,
            Ty::Null
                | Ty::Optional(_)
                | Ty::Opaque(_)
                | Ty::Object { .. }
                | Ty::Duration
                | Ty::Timestamp
                | Ty::Var(_)
                | Ty::Dyn
                | Ty::Error
        );
    }
    match t {
        Ty::Var(_) | Ty::Dyn | Ty::Error => false,
        Ty::Null => !matches!(
            p,
            P::Optional(_) | P::Opaque(_) | P::Duration | P::Timestamp
        ),
        Ty::Bool => !matches!(p, P::Bool),
        Ty::Int => !matches!(p, P::Int),
        Ty::Uint => !matches!(p, P::Uint),
        Ty::Double => !matches!(p, P::Double),
        Ty::String => !matches!(p, P::String),
        Ty::Bytes => !matches!(p, P::Bytes),
        Ty::Duration => !matches!(p, P::Duration),
        Ty::Timestamp => !matches!(p, P::Timestamp),
        Ty::List(_) => !matches!(p, P::List(_)),
        Ty::Map(..) => !matches!(p, P::Map(..)),
        Ty::Optional(_) => !matches!(p, P::Optional(_)),
        Ty::Opaque(o) => match p {
            P::Opaque(q) => o as u8 != *q as u8,
            _ => true,
        },
        Ty::Type(_) => !matches!(p, P::Type(_)),
        // No declared parameter is an object type.
        Ty::Object { .. } => true,
    }
}

#[cfg(test)]
mod tests {
    use super::{CANNOT, cannot_assign_ty, ty_kind};
    use crate::decl::{Opaque, P, pattern_kind};
    use crate::model::{Schema, Type};
    use crate::types::Ty;

    /// The kind table decides exactly as `cannot_assign` on every outer kind of argument and
    /// pattern.
    #[test]
    fn kind_table_is_cannot_assign() {
        static OBJECT: Schema<'static> = Schema::of(Type::Object);
        let opaques = [
            Opaque::Url,
            Opaque::Ip,
            Opaque::Cidr,
            Opaque::Quantity,
            Opaque::Semver,
            Opaque::Format,
            Opaque::Authorizer,
            Opaque::PathCheck,
            Opaque::GroupCheck,
            Opaque::ResourceCheck,
            Opaque::Decision,
        ];
        let mut tys = vec![
            Ty::Error,
            Ty::Dyn,
            Ty::Var(3),
            Ty::Null,
            Ty::Bool,
            Ty::Int,
            Ty::Uint,
            Ty::Double,
            Ty::String,
            Ty::Bytes,
            Ty::Duration,
            Ty::Timestamp,
            Ty::List(4),
            Ty::Map(7, 4),
            Ty::Optional(4),
            Ty::Type(4),
            Ty::Object {
                schema: &OBJECT,
                root: false,
                name: 0,
            },
        ];
        tys.extend(opaques.iter().map(|o| Ty::Opaque(*o)));
        let mut ps = vec![
            P::Dyn,
            P::Param(0),
            P::Null,
            P::Bool,
            P::Int,
            P::Uint,
            P::Double,
            P::String,
            P::Bytes,
            P::Duration,
            P::Timestamp,
            P::List(&P::Int),
            P::Map(&P::String, &P::Int),
            P::Optional(&P::Int),
            P::Type(&P::Dyn),
        ];
        ps.extend(opaques.iter().map(|o| P::Opaque(*o)));
        for t in &tys {
            for p in &ps {
                assert_eq!(
                    CANNOT[ty_kind(*t) as usize][pattern_kind(p) as usize],
                    cannot_assign_ty(*t, p),
                    "{t:?} to {p:?}"
                );
            }
        }
    }
}
