//! The checks cel-go runs besides typing: optional syntax before it was enabled, and the
//! validators the apiserver registers (homogeneous aggregate literals, string format).

use super::checker::Checker;
use crate::ast::Expr;
use crate::types::{Ty, TyId};

impl<'a> Checker<'a> {
    /// Before compatibility version 1.28 the parser has no optional syntax: cel-go reports each
    /// use as a syntax issue and checks nothing else.
    pub(super) const fn optional_syntax(&mut self) -> bool {
        let mut found = false;
        let mut i = 0;
        let len_i = self.typed.ast.len();
        while i < len_i {
            let what = match self.typed.nodes[i].expr {
                Expr::Call { function, .. } => {
                    let f = self.typed.ast.str(function);
                    if matches!(f, b"_?._") {
                        Some("unsupported syntax '.?'")
                    } else if matches!(f, b"_[?_]") {
                        Some("unsupported syntax '[?'")
                    } else {
                        None
                    }
                }
                Expr::List { optional, .. } if optional.len > 0 => Some("unsupported syntax '?'"),
                Expr::Map { entries } if self.has_optional_entry(entries) => {
                    Some("unsupported syntax '?'")
                }
                _ => None,
            };
            if let Some(m) = what {
                let k = self.issue(self.typed.ast.offset(i as u32));
                self.msg(k, m);
                found = true;
            }
            i += 1;
        }
        found
    }

    pub(super) const fn has_optional_entry(&self, entries: crate::ast::Refs) -> bool {
        let mut i = 2;
        while i < entries.len {
            if self.typed.ast.r(entries, i) == 1 {
                return true;
            }
            i += 3;
        }
        false
    }

    /// cel-go's `string.format` validator (ext strings v2, from 1.29): a constant format string
    /// applied to a list literal must parse, have one argument per clause, and integer-only
    /// clauses must get integers. Clauses that accept strings as well (`%f`, `%e`, `%s`) are not
    /// type-checked here, which can only accept, never reject, too much.
    pub(super) const fn string_formats(&mut self) {
        let mut i = 0;
        let len_i = self.typed.ast.len();
        while i < len_i {
            if let Expr::Call {
                function: _,
                target: Some(target),
                args,
            } = self.typed.nodes[i].expr
                && args.len == 1
                && matches!(self.typed.names[i], b"format")
                && let Expr::String(_) = self.typed.nodes[target as usize].expr
                && let Expr::List { elements, .. } =
                    self.typed.nodes[self.typed.ast.r(args, 0) as usize].expr
            {
                self.check_format(i as u32, self.typed.names[target as usize], elements);
            }
            i += 1;
        }
    }

    pub(super) const fn check_format(&mut self, call: u32, f: &[u8], elements: crate::ast::Refs) {
        let mut k = 0;
        let mut arg = 0u32;
        let len_k = f.len();
        while k < len_k {
            if f[k] != b'%' {
                k += 1;
                continue;
            }
            k += 1;
            if k >= f.len() {
                let e = self.issue(self.offset(call));
                self.msg(e, "unexpected end of string");
                return;
            }
            if f[k] == b'%' {
                k += 1;
                continue;
            }
            let mut precision = false;
            if f[k] == b'.' {
                precision = true;
                k += 1;
                let len_k = f.len();
                while k < len_k && f[k].is_ascii_digit() {
                    k += 1;
                }
                if k >= f.len() {
                    let e = self.issue(self.offset(call));
                    self.msg(e, "unexpected end of string");
                    return;
                }
            }
            let verb = f[k];
            k += 1;
            let known = matches!(verb, b's' | b'd' | b'f' | b'e' | b'x' | b'X' | b'o' | b'b');
            if !known || (precision && !matches!(verb, b'f' | b'e')) {
                let e = self.issue(self.offset(call));
                self.msg(
                    e,
                    "could not parse formatting clause: unrecognized formatting clause \"",
                );
                self.msg_bytes(e, &[verb]);
                self.msg(e, "\"");
                return;
            }
            if arg >= elements.len {
                let e = self.issue(self.offset(call));
                self.msg(e, "index ");
                if let Some(x) = e {
                    self.report.issues[x].message.push_u64(arg as u64);
                }
                self.msg(e, " out of range");
                return;
            }
            let node = self.typed.ast.r(elements, arg);
            let t = self.typed.t.substitute(self.typed.ty[node as usize], true);
            let what: Option<&str> = match (verb, self.typed.t.tys[t as usize]) {
                (_, Ty::Dyn | Ty::Error) => None,
                (b'd', Ty::Int | Ty::Uint) => None,
                (b'd', _) => Some("decimal clause can only be used on integers, was given "),
                (b'x' | b'X', Ty::Int | Ty::Uint | Ty::Bytes | Ty::String) => None,
                (b'x' | b'X', _) => Some(
                    "only integers, byte buffers, and strings can be formatted as hex, was given ",
                ),
                (b'o', Ty::Int | Ty::Uint) => None,
                (b'o', _) => Some("octal clause can only be used on integers, was given "),
                (b'b', Ty::Int | Ty::Uint | Ty::Bool) => None,
                (b'b', _) => Some("only integers and bools can be formatted as binary, was given "),
                // Strings too: "NaN", "Infinity" and "-Infinity" format as doubles.
                (b'f' | b'e', Ty::Double | Ty::String) => None,
                (b'f', _) => Some("fixed-point clause can only be used on doubles, was given "),
                (b'e', _) => Some("scientific clause can only be used on doubles, was given "),
                _ => None,
            };
            if let Some(w) = what {
                let e = self.issue(self.offset(node));
                self.msg(e, "error during formatting: ");
                self.msg(e, w);
                self.msg_type_name(e, t);
                return;
            }
            arg += 1;
        }
        if arg < elements.len {
            let e = self.issue(self.offset(call));
            self.msg(e, "too many arguments supplied to string.format (expected ");
            if let Some(x) = e {
                self.report.issues[x].message.push_u64(arg as u64);
                self.report.issues[x].message.push(", got ");
                self.report.issues[x].message.push_u64(elements.len as u64);
            }
            self.msg(e, ")");
        }
    }

    /// cel-go's homogeneous aggregate literal validator (compatibility 1.29 on): after a
    /// successful check, the elements of each list literal (keys and values of each map
    /// literal) must have exactly the type of the first, except in the arguments of `format`.
    pub(super) const fn homogeneous_literals(&mut self) {
        let mut i = 0;
        let len_i = self.typed.ast.len();
        while i < len_i {
            match self.typed.nodes[i].expr {
                Expr::List { elements, optional } if !self.in_format_call(i as u32) => {
                    let mut first: Option<TyId> = None;
                    let mut k = 0;
                    while k < elements.len {
                        let e = self.typed.ast.r(elements, k);
                        let mut et = self.typed.t.substitute(self.typed.ty[e as usize], true);
                        if self.is_optional_index(optional, k)
                            && let Ty::Optional(inner) = self.typed.t.tys[et as usize]
                        {
                            et = inner;
                        }
                        match first {
                            None => first = Some(et),
                            Some(f) => {
                                if !self.typed.t.exact(f, et) {
                                    self.mismatch(e, f, et);
                                    break;
                                }
                            }
                        }
                        k += 1;
                    }
                }
                Expr::Map { entries } if !self.in_format_call(i as u32) => {
                    let mut fk: Option<TyId> = None;
                    let mut fv: Option<TyId> = None;
                    let mut k = 0;
                    while k < entries.len {
                        let key = self.typed.ast.r(entries, k);
                        let val = self.typed.ast.r(entries, k + 1);
                        let kt = self.typed.t.substitute(self.typed.ty[key as usize], true);
                        let mut vt = self.typed.t.substitute(self.typed.ty[val as usize], true);
                        if self.typed.ast.r(entries, k + 2) == 1
                            && let Ty::Optional(inner) = self.typed.t.tys[vt as usize]
                        {
                            vt = inner;
                        }
                        match (fk, fv) {
                            (Some(a), Some(b)) => {
                                // Unlike lists, cel-go reports every entry that differs.
                                if !self.typed.t.exact(a, kt) {
                                    self.mismatch(key, a, kt);
                                }
                                if !self.typed.t.exact(b, vt) {
                                    self.mismatch(val, b, vt);
                                }
                            }
                            _ => {
                                fk = Some(kt);
                                fv = Some(vt);
                            }
                        }
                        k += 3;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// cel-go's `Type.TypeName()`, which the format validator prints: the kind alone for
    /// parameterized types, the protobuf names of durations and timestamps, and the formatted
    /// type otherwise.
    const fn msg_type_name(&mut self, k: Option<usize>, t: TyId) {
        let name = match self.typed.t.tys[t as usize] {
            Ty::List(_) => Some("list"),
            Ty::Map(..) => Some("map"),
            Ty::Optional(_) => Some("optional_type"),
            Ty::Type(_) => Some("type"),
            Ty::Null => Some("null_type"),
            Ty::Duration => Some("google.protobuf.Duration"),
            Ty::Timestamp => Some("google.protobuf.Timestamp"),
            _ => None,
        };
        match name {
            Some(n) => self.msg(k, n),
            None => self.msg_ty(k, t),
        }
    }

    /// Whether node `n` lies anywhere inside a `format` call (its target or arguments, at any
    /// depth), which the validator exempts (cel-go's `inExemptFunction` walks every parent).
    pub(super) const fn in_format_call(&self, n: u32) -> bool {
        let mut at = n;
        while let Some(p) = self.typed.ast.parent_of(at) {
            if let Expr::Call { .. } = self.typed.nodes[p as usize].expr
                && matches!(self.typed.names[p as usize], b"format")
            {
                return true;
            }
            at = p;
        }
        false
    }
}
