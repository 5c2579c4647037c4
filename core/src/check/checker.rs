//! The type checker proper: one forward pass over the post-order AST, typing each node from
//! its children's types (cel-go's `checker.go`), then the validators and, when the expression
//! is accepted, the cost estimate.

use super::report::{Issue, Report};
use super::{MAX_ISSUES, Node, Resolution, Target};
use crate::ast::{Ast, Expr, MAX_NODES as N, Var};
use crate::names::{declares_type_and_meta, selected_property};
use crate::typed::TypedAst;
use crate::types::{Kind, META, PLAIN_STRING, Ty, TyId, Types, id};

const UNSET: TyId = u16::MAX - 1;

/// The checker's state for one expression.
pub(super) struct Checker<'a> {
    /// What the check learns per node, which the cost estimator reads after a successful check.
    pub(super) typed: TypedAst<'a>,
    pub(super) compat: u8,
    pub(super) self_ty: TyId,
    pub(super) old_self_ty: TyId,
    pub(super) report: Report,
}

/// Type-checks a lowered expression against `node` (the `const fn` entry point the derive's
/// `const` items call). Not generic on purpose: const evaluation of generic code substitutes
/// types at every step and was measured several times slower.
pub const fn check(ast: &Ast<'_>, target: Target, node: &Node<'_>) -> Report {
    let mut c = Checker::new(ast, node);
    if !c.type_nodes(ast, node) {
        return c.report;
    }
    c.report.type_checked = c.report.total == 0;
    if c.report.total == 0 && node.compat >= 29 {
        c.homogeneous_literals();
        c.string_formats();
    }
    if c.typed.t.unknown {
        c.report.deferred = true;
        return c.report;
    }
    let root = ast.root() as usize;
    let out = c.typed.t.substitute(c.typed.ty[root], true);
    c.report.right_type = match target {
        Target::Rule => matches!(c.typed.t.get(out), Ty::Bool),
        Target::MessageExpression => matches!(c.typed.t.get(out), Ty::String),
    };
    if c.report.is_ok() {
        c.report.cost = Some(crate::cost::estimate(&mut c.typed));
    }
    c.report
}

/// The checked AST of an expression that type-checks against `node` (its types, for a second
/// pass: the cost help finds the schema nodes a rule reads); `None` otherwise.
pub(crate) const fn checked<'a>(ast: &Ast<'a>, node: &Node<'a>) -> Option<TypedAst<'a>> {
    let mut c = Checker::new(ast, node);
    if !c.type_nodes(ast, node) || c.report.total != 0 || c.typed.t.unknown {
        return None;
    }
    Some(c.typed)
}

/// The overloads the checker resolves each call of `ast` to, indexed by node (cel-go's
/// reference map, which its planner and runtime cost tracker read): `None` when the
/// expression does not type-check. The runtime plans and costs calls by them.
pub fn resolve_overloads(ast: &Ast<'_>, node: &Node<'_>) -> Option<Vec<Resolution>> {
    let mut c = Box::new(Checker::new(ast, node));
    if !c.type_nodes(ast, node) || c.report.total != 0 || c.typed.t.unknown {
        return None;
    }
    let mut out = vec![Resolution::Unresolved; ast.len()];
    for (n, slot) in out.iter_mut().enumerate() {
        let Expr::Call { target, .. } = c.typed.nodes[n].expr else {
            continue;
        };
        let Some(f) = c.typed.call_decl(n as u32, target) else {
            continue;
        };
        let mask = c.typed.ov[n];
        // The checker keeps one bit per overload, modulo 16.
        if f.overloads.len() > 16 {
            continue;
        }
        *slot = match mask.count_ones() {
            0 => Resolution::Unresolved,
            1 => Resolution::One(f.overloads[mask.trailing_zeros() as usize].id),
            _ => Resolution::Many,
        };
    }
    Some(out)
}

impl<'a> Checker<'a> {
    const fn new(ast: &Ast<'a>, node: &Node<'a>) -> Checker<'a> {
        Checker {
            typed: TypedAst {
                ast: *ast,
                nodes: [crate::ast::Node {
                    offset: 0,
                    expr: Expr::Null,
                }; N],
                names: [b""; N],
                t: Types::new(node.type_name),
                ty: [UNSET; N],
                ov: [0; N],
                schema: node.schema,
                resource_root: node.resource_root,
                releases: node.releases,
            },
            compat: node.compat,
            self_ty: id::ERROR,
            old_self_ty: id::ERROR,
            report: Report {
                issues: [const {
                    Issue {
                        offset: 0,
                        message: crate::msg::Buf::new(),
                    }
                }; MAX_ISSUES],
                kept: 0,
                total: 0,
                help: crate::msg::Buf::new(),
                unsupported: None,
                untyped_node: false,
                right_type: false,
                type_checked: false,
                uses_old_self: false,
                cost: None,
                deferred: false,
            },
        }
    }

    /// Types every node of `ast` (cel-go's checker pass); `false` when the check stopped
    /// before the end (an unsupported construct, an untyped node, too many nodes), with the
    /// reason in the report.
    const fn type_nodes(&mut self, ast: &Ast<'a>, node: &Node<'a>) -> bool {
        if ast.len() > N || ast.is_empty() {
            self.report.unsupported =
                Some("expressions with more nodes than the check was sized for");
            return false;
        }
        let mut i = 0;
        let len_i = ast.len();
        while i < len_i {
            let node = ast.node(i as u32);
            self.typed.nodes[i] = node;
            // Only the names the passes read: each subslice costs as much as a small call.
            self.typed.names[i] = match node.expr {
                Expr::Ident(s)
                | Expr::String(s)
                | Expr::Select { field: s, .. }
                | Expr::Call { function: s, .. } => ast.str(s),
                _ => b"",
            };
            i += 1;
        }
        let resource_root = node.resource_root;
        self.self_ty = match self.typed.t.of_schema(node.schema, 0, resource_root) {
            Some(t) => t,
            None => {
                self.report.untyped_node = true;
                return false;
            }
        };
        self.old_self_ty = if node.optional_old_self {
            self.typed.t.optional(self.self_ty)
        } else {
            self.self_ty
        };
        if node.compat < 28 && self.optional_syntax() {
            return false;
        }
        self.mark_namespaced();
        let mut i = 0;
        let len_i = ast.len();
        while i < len_i {
            if self.typed.ty[i] == UNSET {
                self.node(i as u32);
            }
            if self.report.unsupported.is_some() {
                return false;
            }
            i += 1;
        }
        if self.typed.t.overflow {
            self.report.unsupported = Some("expressions this large (type table full)");
            return false;
        }
        true
    }

    pub(super) const fn issue(&mut self, offset: u32) -> Option<usize> {
        self.report.total += 1;
        if self.report.kept >= MAX_ISSUES {
            return None;
        }
        let k = self.report.kept;
        self.report.kept += 1;
        self.report.issues[k].offset = offset;
        Some(k)
    }

    pub(super) const fn msg(&mut self, k: Option<usize>, s: &str) {
        if let Some(k) = k {
            self.report.issues[k].message.push(s);
        }
    }

    pub(super) const fn msg_bytes(&mut self, k: Option<usize>, s: &[u8]) {
        if let Some(k) = k {
            self.report.issues[k].message.push_bytes(s);
        }
    }

    pub(super) const fn msg_ty(&mut self, k: Option<usize>, t: TyId) {
        if let Some(k) = k {
            self.typed.t.format(t, &mut self.report.issues[k].message);
        }
    }

    pub(super) const fn offset(&self, n: u32) -> u32 {
        self.typed.ast.offset(n)
    }

    /// `undeclared reference to '<name>' (in container '')` at node `n`.
    pub(super) const fn undeclared(&mut self, n: u32, name: &[u8]) {
        let k = self.issue(self.offset(n));
        self.msg(k, "undeclared reference to '");
        self.msg_bytes(k, name);
        self.msg(k, "' (in container '')");
    }

    /// `expected type '<want>' but found '<got>'` at node `n`.
    pub(super) const fn mismatch(&mut self, n: u32, want: TyId, got: TyId) {
        let k = self.issue(self.offset(n));
        self.msg(k, "expected type '");
        self.msg_ty(k, want);
        self.msg(k, "' but found '");
        self.msg_ty(k, got);
        self.msg(k, "'");
    }

    pub(super) const fn node(&mut self, n: u32) {
        let t = match self.typed.nodes[n as usize].expr {
            Expr::Null => id::NULL,
            Expr::Bool(_) => id::BOOL,
            Expr::Int(_) => id::INT,
            Expr::Uint(_) => id::UINT,
            Expr::Double(_) => id::DOUBLE,
            Expr::String(_) => id::STRING,
            Expr::Bytes(_) => id::BYTES,
            Expr::Ident(_) => self.ident(n, self.typed.names[n as usize]),
            Expr::Local {
                name,
                var,
                range,
                init,
                two_vars,
            } => {
                // cel-go records a reference for every identifier it resolves, a comprehension
                // variable too, and the apiserver's `UsesOldSelf` looks for the name `oldSelf`
                // among them: `[1].all(oldSelf, oldSelf > 0)` is a transition rule.
                if matches!(self.typed.ast.str(name), b"oldSelf") {
                    self.report.uses_old_self = true;
                }
                self.local(var, range, init, two_vars)
            }
            Expr::Select {
                operand,
                field: _,
                test,
            } => {
                let r = self.select_field(n, operand, self.typed.names[n as usize], false);
                if test {
                    id::BOOL
                } else {
                    self.typed.t.substitute(r, false)
                }
            }
            Expr::Call {
                function: _,
                target,
                args,
            } => self.call(n, self.typed.names[n as usize], target, args),
            Expr::List { elements, optional } => self.list(elements, optional),
            Expr::Map { entries } => self.map(entries),
            Expr::Macro { name, since } => {
                if self.compat < since {
                    let name = self.typed.ast.str(name);
                    self.undeclared(n, name);
                    if self.report.help.is_empty() && since != u8::MAX {
                        let h = &mut self.report.help;
                        h.push("help: the macro '");
                        h.push_bytes(name);
                        h.push("' is available to new rules from Kubernetes 1.");
                        h.push_u64(since as u64 + 1);
                    }
                }
                id::ERROR
            }
            Expr::Struct { name } => {
                self.undeclared(n, self.typed.ast.str(name));
                id::ERROR
            }
            Expr::Comprehension {
                range,
                init,
                cond,
                step,
                result,
                two_vars,
            } => self.comprehension(range, init, cond, step, result, two_vars),
        };
        self.typed.ty[n as usize] = t;
    }

    pub(super) const fn ident(&mut self, n: u32, name: &[u8]) -> TyId {
        if matches!(name, b"self") {
            return self.self_ty;
        }
        if matches!(name, b"oldSelf") {
            self.report.uses_old_self = true;
            return self.old_self_ty;
        }
        let type_of = if matches!(name, b"bool") {
            id::BOOL
        } else if matches!(name, b"int") {
            id::INT
        } else if matches!(name, b"uint") {
            id::UINT
        } else if matches!(name, b"double") {
            id::DOUBLE
        } else if matches!(name, b"string") {
            id::STRING
        } else if matches!(name, b"bytes") {
            id::BYTES
        } else if matches!(name, b"null_type") {
            id::NULL
        } else if matches!(name, b"list") {
            self.typed.t.list(id::DYN)
        } else if matches!(name, b"map") {
            self.typed.t.map(id::DYN, id::DYN)
        } else if matches!(name, b"type") {
            self.typed.t.type_of(id::DYN)
        } else {
            self.undeclared(n, name);
            return id::ERROR;
        };
        self.typed.t.type_of(type_of)
    }

    pub(super) const fn local(&mut self, var: Var, range: u32, init: u32, two_vars: bool) -> TyId {
        match var {
            Var::Accu => self.typed.ty[init as usize],
            Var::Iter | Var::Iter2 => {
                let r = self
                    .typed
                    .t
                    .substitute(self.typed.ty[range as usize], false);
                match (self.typed.t.tys[r as usize], var, two_vars) {
                    (Ty::List(e), Var::Iter, false) => e,
                    (Ty::List(_), Var::Iter, true) => id::INT,
                    (Ty::List(e), _, _) => e,
                    (Ty::Map(k, _), Var::Iter, _) => k,
                    (Ty::Map(_, v), _, _) => v,
                    // cel-go types the variables of an error range `dyn` too.
                    (Ty::Dyn | Ty::Var(_) | Ty::Error, _, _) => id::DYN,
                    _ => id::ERROR,
                }
            }
        }
    }

    pub(super) const fn comprehension(
        &mut self,
        range: u32,
        init: u32,
        cond: u32,
        step: u32,
        result: u32,
        _two_vars: bool,
    ) -> TyId {
        let r = self
            .typed
            .t
            .substitute(self.typed.ty[range as usize], false);
        match self.typed.t.kind(r) {
            Kind::List | Kind::Map => {}
            Kind::Dyn | Kind::Error | Kind::Param => {
                self.typed.t.assignable(id::DYN, r);
            }
            _ => {
                let k = self.issue(self.offset(range));
                self.msg(k, "expression of type '");
                self.msg_ty(k, r);
                self.msg(
                    k,
                    "' cannot be range of a comprehension (must be list, map, or dynamic)",
                );
            }
        }
        let accu = self.typed.ty[init as usize];
        self.assert_type(cond, id::BOOL);
        self.assert_type(step, accu);
        self.typed
            .t
            .substitute(self.typed.ty[result as usize], false)
    }

    pub(super) const fn assert_type(&mut self, n: u32, want: TyId) {
        let got = self.typed.ty[n as usize];
        if !self.typed.t.assignable(want, got) {
            self.mismatch(n, want, got);
        }
    }

    /// cel-go's `checkSelectField`.
    pub(super) const fn select_field(
        &mut self,
        n: u32,
        operand: u32,
        field: &'a [u8],
        optional: bool,
    ) -> TyId {
        let operand_ty = self
            .typed
            .t
            .substitute(self.typed.ty[operand as usize], false);
        let (target, is_opt) = match self.typed.t.tys[operand_ty as usize] {
            Ty::Optional(inner) => (self.typed.t.substitute(inner, false), true),
            _ => (operand_ty, false),
        };
        let result = match self.typed.t.tys[target as usize] {
            Ty::Map(_, v) => v,
            Ty::Object { schema, root, name } => match self.field(schema, root, name, field) {
                Some(t) => t,
                None => {
                    let k = self.issue(self.offset(n));
                    self.msg(k, "undefined field '");
                    self.msg_bytes(k, field);
                    self.msg(k, "'");
                    self.field_help(schema, root, field);
                    id::ERROR
                }
            },
            Ty::Var(_) => {
                self.typed.t.assignable(id::DYN, target);
                id::DYN
            }
            Ty::Dyn | Ty::Error => id::DYN,
            _ => {
                let k = self.issue(self.offset(n));
                self.msg(k, "type '");
                self.msg_ty(k, target);
                self.msg(k, "' does not support field selection");
                self.self_select_help(operand, field);
                id::DYN
            }
        };
        if is_opt || optional {
            self.typed.t.optional(result)
        } else {
            result
        }
    }

    /// A hint when the rule selects a field of `self` (or `oldSelf`) where that is not an
    /// object: a rule on a field sees the field, and one comparing fields belongs on the
    /// struct that has them.
    const fn self_select_help(&mut self, operand: u32, field: &[u8]) {
        let name = self.typed.names[operand as usize];
        let is_self = matches!(self.typed.nodes[operand as usize].expr, Expr::Ident(_))
            && matches!(name, b"self" | b"oldSelf");
        if !is_self || !self.report.help.is_empty() {
            return;
        }
        let h = &mut self.report.help;
        h.push("help: `");
        h.push_bytes(name);
        h.push("` is the value the rule is on (a field's rule sees the field): a rule reading `");
        h.push_bytes(name);
        h.push(".");
        h.push_bytes(field);
        h.push("` across fields belongs on the struct that has them");
    }

    /// The type of field `field` (a CEL identifier) of an object, looking through escaping (2),
    /// keyword field names (compat >= 1.31) and the implicit resource-root fields (`k8s.io/apiserver/pkg/cel/common/schemas.go`).
    pub(super) const fn field(
        &mut self,
        schema: &'a crate::model::Schema<'a>,
        root: bool,
        name: u16,
        field: &'a [u8],
    ) -> Option<TyId> {
        if root && !declares_type_and_meta(schema) {
            let implicit: Option<&'a crate::model::Schema<'a>> =
                if matches!(field, b"apiVersion") || matches!(field, b"kind") {
                    Some(&PLAIN_STRING)
                } else if matches!(field, b"metadata") {
                    Some(&META)
                } else {
                    None
                };
            if let Some(s) = implicit {
                let child = self.typed.t.child_name(name, field);
                return self.typed.t.of_schema(s, child, false);
            }
        }
        match selected_property(schema, field, self.compat) {
            Some(p) => {
                let child = self.typed.t.child_name(name, p.name.as_bytes());
                self.typed
                    .t
                    .of_schema(p.schema, child, p.schema.embedded_resource)
            }
            // A flattened node of unknown properties may declare it: only the generated
            // schema can tell.
            None if schema.has_open_flatten() => {
                self.typed.t.unknown = true;
                Some(id::DYN)
            }
            None => None,
        }
    }

    pub(super) const fn list(
        &mut self,
        elements: crate::ast::Refs,
        optional: crate::ast::Refs,
    ) -> TyId {
        let mut elems: Option<TyId> = None;
        let mut i = 0;
        while i < elements.len {
            let e = self.typed.ast.r(elements, i);
            let mut et = self.typed.ty[e as usize];
            if self.is_optional_index(optional, i) {
                et = self.optional_element(e, et);
            }
            elems = Some(self.join(elems, et));
            i += 1;
        }
        let e = match elems {
            Some(e) => e,
            None => self.typed.t.fresh(),
        };
        self.typed.t.list(e)
    }

    /// The type an optional element (`[?x]`, `{?k: v}`) contributes: the optional's value type;
    /// anything else than an optional or `dyn` is a mismatch.
    pub(super) const fn optional_element(&mut self, n: u32, t: TyId) -> TyId {
        match self.typed.t.tys[t as usize] {
            Ty::Optional(inner) => inner,
            _ => {
                if !self.typed.t.is_dyn(t) {
                    let want = self.typed.t.optional(t);
                    self.mismatch(n, want, t);
                }
                t
            }
        }
    }

    pub(super) const fn is_optional_index(&self, optional: crate::ast::Refs, i: u32) -> bool {
        let mut k = 0;
        while k < optional.len {
            if self.typed.ast.r(optional, k) == i {
                return true;
            }
            k += 1;
        }
        false
    }

    pub(super) const fn map(&mut self, entries: crate::ast::Refs) -> TyId {
        let mut kt: Option<TyId> = None;
        let mut vt: Option<TyId> = None;
        let mut i = 0;
        while i < entries.len {
            let key = self.typed.ast.r(entries, i);
            let val = self.typed.ast.r(entries, i + 1);
            let opt = self.typed.ast.r(entries, i + 2) == 1;
            kt = Some(self.join(kt, self.typed.ty[key as usize]));
            let mut v = self.typed.ty[val as usize];
            if opt {
                v = self.optional_element(val, v);
            }
            vt = Some(self.join(vt, v));
            i += 3;
        }
        let k = match kt {
            Some(k) => k,
            None => self.typed.t.fresh(),
        };
        let v = match vt {
            Some(v) => v,
            None => self.typed.t.fresh(),
        };
        self.typed.t.map(k, v)
    }

    /// cel-go's `joinTypes`: elements of unrelated types make the literal's element type `dyn`.
    /// The apiserver's `HomogeneousAggregateLiterals` is an AST validator since cel-go 0.17, not
    /// the checker option, so mixed literals type-check and the validator (compatibility 1.29
    /// on, `validators.rs`) reports them afterwards, except inside `format` calls.
    pub(super) const fn join(&mut self, previous: Option<TyId>, current: TyId) -> TyId {
        match previous {
            None => current,
            Some(prev) => {
                if self.typed.t.assignable(prev, current) {
                    self.typed.t.most_general(prev, current, 0)
                } else {
                    id::DYN
                }
            }
        }
    }
}
