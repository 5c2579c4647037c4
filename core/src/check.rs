//! The CEL type checker (CEL-SEMANTICS.md sections 1 to 3): one implementation, written as
//! `const fn`, run by the derive in `const` items at `cargo build` and at runtime on schemas read
//! from CRD manifests.

use crate::model::Schema;

/// What an expression is checked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A `rule`: must be `bool`.
    Rule,
    /// A `messageExpression`: must be `string`.
    MessageExpression,
}

/// The schema node a rule is attached to, and the environment it is compiled in.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// The node's schema (`self`).
    pub schema: &'a Schema<'a>,
    /// Whether the node is a resource root (the CRD root or `x-kubernetes-embedded-resource`):
    /// `apiVersion`, `kind` and `metadata.name`/`generateName` are then implicit (1.2).
    pub resource_root: bool,
    /// `optionalOldSelf: true`: `oldSelf` is `optional_type(T)`.
    pub optional_old_self: bool,
    /// The Kubernetes compatibility minor version the expression compiles against (6.3): new
    /// rules on apiserver 1.N compile at 1.(N-1).
    pub compat: u8,
    /// The name of the node's object type in messages (the apiserver's `selfType<N>` and path).
    pub type_name: &'a str,
}

impl<'a> Node<'a> {
    /// A node that is not a resource root, compiled at the newest compatibility version.
    pub const fn new(schema: &'a Schema<'a>) -> Self {
        Node {
            schema,
            resource_root: false,
            optional_old_self: false,
            compat: DEFAULT_COMPAT,
            type_name: "selfType<N>",
        }
    }
}

/// The compatibility version new rules compile at on the newest supported apiserver (1.37).
pub const DEFAULT_COMPAT: u8 = 36;

/// The compatibility version targeted by the invoking crate's `k8s-1-NN` features (crd-cel's,
/// which it forwards to the derive): [`compat_for`] of which are enabled there.
#[macro_export]
macro_rules! target_compat {
    () => {
        $crate::check::compat_for([
            cfg!(feature = "k8s-1-30"),
            cfg!(feature = "k8s-1-31"),
            cfg!(feature = "k8s-1-32"),
            cfg!(feature = "k8s-1-33"),
            cfg!(feature = "k8s-1-34"),
            cfg!(feature = "k8s-1-35"),
            cfg!(feature = "k8s-1-36"),
        ])
    };
}

/// The compatibility version new rules compile at for the oldest Kubernetes enabled among
/// `[1.30, 1.31, ..., 1.36]` (crd-cel's `k8s-1-NN` features), [`DEFAULT_COMPAT`] for none.
pub const fn compat_for(enabled: [bool; 7]) -> u8 {
    let mut i = 0;
    while i < enabled.len() {
        if enabled[i] {
            return 29 + i as u8;
        }
        i += 1;
    }
    DEFAULT_COMPAT
}

/// What a successful check learned about the expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// The checked expression references `oldSelf` (a transition rule, 3.5).
    pub uses_old_self: bool,
    /// The apiserver's estimated cost of one evaluation (`CompilationResult.MaxCost`).
    pub max_cost: u64,
}

/// Why an expression was rejected, with the apiserver's detail text as `Display`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// Parse or type-check issues, rendered as cel-go does (`ERROR: <input>:1:6: ...`).
    Compilation {
        /// Rule or messageExpression.
        target: Target,
        /// The rendered issues.
        issues: String,
    },
    /// The expression type-checks but has the wrong result type.
    WrongType {
        /// Rule (must be bool) or messageExpression (must be string).
        target: Target,
    },
    /// The node has no CEL type, so no rule can be compiled on it.
    UntypedNode,
    /// Program planning failed on a constant (`program instantiation failed: ...`).
    Program {
        /// Rule or messageExpression.
        target: Target,
        /// The planner's error.
        detail: String,
    },
    /// A construct crd-cel cannot check yet: failing closed rather than passing unchecked.
    Unsupported {
        /// Rule or messageExpression.
        target: Target,
        /// What is not supported.
        what: String,
    },
}

impl core::fmt::Display for CheckError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CheckError::Compilation {
                target: Target::Rule,
                issues,
            } => write!(f, "compilation failed: {issues}"),
            CheckError::Compilation {
                target: Target::MessageExpression,
                issues,
            } => write!(f, "messageExpression compilation failed: {issues}"),
            CheckError::WrongType {
                target: Target::Rule,
            } => f.write_str("cel expression must evaluate to a bool"),
            CheckError::WrongType {
                target: Target::MessageExpression,
            } => f.write_str("messageExpression must evaluate to a string"),
            CheckError::Program {
                target: Target::Rule,
                detail,
            } => write!(f, "program instantiation failed: {detail}"),
            CheckError::Program {
                target: Target::MessageExpression,
                detail,
            } => write!(f, "messageExpression instantiation failed: {detail}"),
            CheckError::UntypedNode => f.write_str(UNTYPED_NODE),
            CheckError::Unsupported { what, .. } => {
                write!(f, "not supported by crd-cel yet: {what}")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Parses and type-checks `source` as the apiserver does at CRD creation, against `node`.
pub fn check_source(source: &str, target: Target, node: &Node<'_>) -> Result<Checked, CheckError> {
    let ast = crate::syntax::parse_ast(source).map_err(|e| CheckError::Compilation {
        target,
        issues: e.to_string(),
    })?;
    let ast = ast.as_ast();
    let report = check(&ast, target, node);
    let checked = report.into_result(source, target)?;
    // The literal validators run on expressions that type-checked (cel-go's order).
    let mut issues = Vec::new();
    for issue in crate::literals::check(&ast, node.compat) {
        match issue {
            crate::literals::LiteralIssue::Compile { offset, message } => {
                let mut out = crate::msg::Buf::<{ 4 * 1024 + 512 }>::new();
                render_issue(source, offset, &message, &mut out);
                issues.push(out.as_str().to_owned());
            }
            crate::literals::LiteralIssue::Program(detail) => {
                return Err(CheckError::Program { target, detail });
            }
        }
    }
    if !issues.is_empty() {
        return Err(CheckError::Compilation {
            target,
            issues: issues.join("\n"),
        });
    }
    Ok(checked)
}

/// The apiserver's detail for rules on a node without a CEL type.
pub const UNTYPED_NODE: &str = "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations";

/// Capacity of the per-node type table: rules with more nodes are reported as too large.
pub const MAX_NODES: usize = 1024;
const N: usize = MAX_NODES;
/// Issues kept in full (cel-go lists up to 100; crd-cel keeps the first ones and counts the rest).
pub const MAX_ISSUES: usize = 8;
/// Capacity of one issue message.
pub const ISSUE_LEN: usize = 256;
/// Capacity of the help text.
pub const HELP_LEN: usize = 512;

/// One type-check issue: where, and cel-go's message.
pub struct Issue {
    /// Offset in code points.
    pub offset: u32,
    /// The message (without the `ERROR: <input>:L:C:` prefix).
    pub message: crate::msg::Buf<ISSUE_LEN>,
}

/// The outcome of [`check`]: issues, help, whether `oldSelf` is used, the output type.
pub struct Report {
    /// The issues, in the order found.
    pub issues: [Issue; MAX_ISSUES],
    /// How many issues were kept.
    pub kept: usize,
    /// How many issues there were in total.
    pub total: usize,
    /// crd-cel's hints (`help: did you mean ...`), one per line.
    pub help: crate::msg::Buf<HELP_LEN>,
    /// A construct the checker does not support (checked fails closed).
    pub unsupported: Option<&'static str>,
    /// The node has no CEL type (no `type`, e.g. a bare preserve-unknown-fields node): the
    /// apiserver rejects every rule on it (3.1 step 4).
    pub untyped_node: bool,
    /// The expression has the type its target requires (bool or string).
    pub right_type: bool,
    /// `oldSelf` is referenced.
    pub uses_old_self: bool,
    /// The apiserver's static cost estimate of one evaluation (cel-go `EstimateCost` with the
    /// Kubernetes estimator), when the expression was accepted.
    pub cost: Option<crate::cost::Range>,
    /// The expression reads a node whose schema is known only when it is generated
    /// ([`crate::model::Type::Unknown`], typed `dyn` here): the verdict, the output type and
    /// the cost are left to a check against the generated schema.
    pub deferred: bool,
}

impl Report {
    /// Whether the expression was accepted.
    pub const fn is_ok(&self) -> bool {
        self.total == 0 && self.unsupported.is_none() && !self.untyped_node && self.right_type
    }

    /// Renders the issues as cel-go's `ToDisplayString` (sorted by position).
    pub const fn render<const N: usize>(&self, source: &str, out: &mut crate::msg::Buf<N>) {
        // Selection sort by offset, stable: few issues.
        let mut order = [0usize; MAX_ISSUES];
        let mut i = 0;
        while i < self.kept {
            order[i] = i;
            i += 1;
        }
        let mut a = 0;
        while a < self.kept {
            let mut b = a + 1;
            while b < self.kept {
                let oa = self.issues[order[a]].offset;
                let ob = self.issues[order[b]].offset;
                if ob < oa {
                    let t = order[a];
                    order[a] = order[b];
                    order[b] = t;
                }
                b += 1;
            }
            a += 1;
        }
        let mut k = 0;
        while k < self.kept {
            if k > 0 {
                out.push("\n");
            }
            let issue = &self.issues[order[k]];
            render_issue(source, issue.offset, issue.message.as_str(), out);
            k += 1;
        }
        if self.total > self.kept {
            out.push("\n");
            out.push_u64((self.total - self.kept) as u64);
            out.push(" more errors were truncated");
        }
    }

    /// The issues rendered as cel-go does, followed by nothing else (help is separate).
    pub fn issues_text(&self, source: &str) -> String {
        let mut out = crate::msg::Buf::<{ MAX_ISSUES * (ISSUE_LEN + 2 * 1024) }>::new();
        self.render(source, &mut out);
        out.as_str().to_owned()
    }

    fn into_result(self, source: &str, target: Target) -> Result<Checked, CheckError> {
        if self.untyped_node {
            return Err(CheckError::UntypedNode);
        }
        if let Some(what) = self.unsupported {
            return Err(CheckError::Unsupported {
                target,
                what: what.to_owned(),
            });
        }
        if self.deferred {
            // Only models built from Rust types have unknown nodes; a schema read from JSON
            // never does.
            return Err(CheckError::Unsupported {
                target,
                what: "a node whose schema is known only when it is generated".to_owned(),
            });
        }
        if self.total > 0 {
            return Err(CheckError::Compilation {
                target,
                issues: self.issues_text(source),
            });
        }
        if !self.right_type {
            return Err(CheckError::WrongType { target });
        }
        Ok(Checked {
            uses_old_self: self.uses_old_self,
            max_cost: match self.cost {
                Some(c) => c.max,
                None => 0,
            },
        })
    }
}

/// Writes one issue: `ERROR: <input>:L:C: message`, the source line and a caret.
pub const fn render_issue<const N: usize>(
    source: &str,
    offset: u32,
    message: &str,
    out: &mut crate::msg::Buf<N>,
) {
    let b = source.as_bytes();
    // Find the line and column of the code point at `offset`.
    let mut i = 0;
    let mut cp = 0u32;
    let mut line = 1u64;
    let mut line_start = 0usize;
    let len_i = b.len();
    while i < len_i && cp < offset {
        if b[i] == b'\n' {
            line += 1;
            line_start = i + 1;
        }
        i += utf8_width(b[i]);
        cp += 1;
    }
    // Column: code points from the line start.
    let mut col = 1u64;
    let mut j = line_start;
    while j < i {
        j += utf8_width(b[j]);
        col += 1;
    }
    out.push("ERROR: <input>:");
    out.push_u64(line);
    out.push(":");
    out.push_u64(col);
    out.push(": ");
    out.push(message);
    let mut end = line_start;
    let mut chars = 0;
    let len_end = b.len();
    while end < len_end && b[end] != b'\n' {
        end += utf8_width(b[end]);
        chars += 1;
    }
    if chars > 16384 {
        return;
    }
    let mut line_end = end;
    if line_end > line_start && b[line_end - 1] == b'\r' {
        line_end -= 1;
    }
    out.push("\n | ");
    let (_, tail) = b.split_at(line_start);
    let (text, _) = tail.split_at(line_end - line_start);
    let mut k = 0;
    let len_k = text.len();
    while k < len_k {
        let w = utf8_width(text[k]);
        if text[k] == b'\t' {
            out.push(" ");
        } else {
            let (_, t) = text.split_at(k);
            let (ch, _) = t.split_at(w);
            out.push_bytes(ch);
        }
        k += w;
    }
    out.push("\n | ");
    let mut k = 0;
    let mut c = 1;
    let len_k = text.len();
    while k < len_k {
        let w = utf8_width(text[k]);
        if c >= col {
            out.push(if w > 1 { "＾" } else { "^" });
            return;
        }
        out.push(if w > 1 { "．" } else { "." });
        k += w;
        c += 1;
    }
    out.push("^");
}

const fn utf8_width(first: u8) -> usize {
    if first < 0x80 {
        1
    } else if first >= 0xF0 {
        4
    } else if first >= 0xE0 {
        3
    } else {
        2
    }
}

use crate::ast::{Ast, Expr, Var};
use crate::decl::{Function, P};
use crate::types::{Kind, META, PLAIN_STRING, Ty, TyId, Types, id};

const UNSET: TyId = u16::MAX - 1;

/// The checker's state for one expression (the estimator in `cost.rs` reads it after a
/// successful check: per-node types, resolved overloads, the node's schema).
pub(crate) struct Checker<'a> {
    pub(crate) ast: Ast<'a>,
    /// The nodes, decoded once: const evaluation pays for every byte a decode reads.
    pub(crate) nodes: [crate::ast::Node; N],
    /// The name or text of each identifier, field selection, call and string literal, sliced
    /// once (empty for other nodes): subslicing is costly in const evaluation.
    pub(crate) names: [&'a [u8]; N],
    pub(crate) t: Types<'a>,
    pub(crate) ty: [TyId; N],
    /// Per call node: bit `k` set when overload `k` of the function matched (cel-go's reference
    /// map, which the estimator prices overload by overload).
    pub(crate) ov: [u16; N],
    compat: u8,
    self_ty: TyId,
    old_self_ty: TyId,
    /// The schema of the rule's node and whether it is a resource root (the size estimator
    /// walks paths from it).
    pub(crate) schema: &'a Schema<'a>,
    pub(crate) resource_root: bool,
    report: Report,
}

/// Type-checks a lowered expression against `node` (the `const fn` entry point the derive's
/// `const` items call). Not generic on purpose: const evaluation of generic code substitutes
/// types at every step and was measured several times slower.
pub const fn check(ast: &Ast<'_>, target: Target, node: &Node<'_>) -> Report {
    let mut c = Checker {
        ast: *ast,
        nodes: [crate::ast::Node {
            offset: 0,
            expr: Expr::Null,
        }; N],
        names: [b""; N],
        t: Types::new(node.type_name),
        ty: [UNSET; N],
        ov: [0; N],
        compat: node.compat,
        schema: node.schema,
        resource_root: node.resource_root,
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
            uses_old_self: false,
            cost: None,
            deferred: false,
        },
    };
    if ast.len() > N || ast.is_empty() {
        c.report.unsupported = Some("expressions with more nodes than the check was sized for");
        return c.report;
    }
    let mut i = 0;
    let len_i = ast.len();
    while i < len_i {
        let node = ast.node(i as u32);
        c.nodes[i] = node;
        // Only the names the passes read: each subslice costs as much as a small call.
        c.names[i] = match node.expr {
            Expr::Ident(s)
            | Expr::String(s)
            | Expr::Select { field: s, .. }
            | Expr::Call { function: s, .. } => ast.str(s),
            _ => b"",
        };
        i += 1;
    }
    let resource_root = node.resource_root;
    c.self_ty = match c.t.of_schema(node.schema, 0, resource_root) {
        Some(t) => t,
        None => {
            c.report.untyped_node = true;
            return c.report;
        }
    };
    c.old_self_ty = if node.optional_old_self {
        c.t.optional(c.self_ty)
    } else {
        c.self_ty
    };
    if node.compat < 28 && c.optional_syntax() {
        return c.report;
    }
    c.mark_namespaced();
    let mut i = 0;
    let len_i = ast.len();
    while i < len_i {
        if c.ty[i] == UNSET {
            c.node(i as u32);
        }
        if c.report.unsupported.is_some() {
            return c.report;
        }
        i += 1;
    }
    if c.t.overflow {
        c.report.unsupported = Some("expressions this large (type table full)");
        return c.report;
    }
    if c.report.total == 0 && node.compat >= 29 {
        c.homogeneous_literals();
        c.string_formats();
    }
    if c.t.unknown {
        c.report.deferred = true;
        return c.report;
    }
    let root = ast.root() as usize;
    let out = c.t.substitute(c.ty[root], true);
    c.report.right_type = match target {
        Target::Rule => matches!(c.t.get(out), Ty::Bool),
        Target::MessageExpression => matches!(c.t.get(out), Ty::String),
    };
    if c.report.is_ok() {
        c.report.cost = Some(c.estimate());
    }
    c.report
}

/// The type slot of a namespace qualifier (`optional` in `optional.none()`): not an expression.
pub(crate) const SKIP: TyId = u16::MAX - 2;

impl<'a> Checker<'a> {
    const fn issue(&mut self, offset: u32) -> Option<usize> {
        self.report.total += 1;
        if self.report.kept >= MAX_ISSUES {
            return None;
        }
        let k = self.report.kept;
        self.report.kept += 1;
        self.report.issues[k].offset = offset;
        Some(k)
    }

    const fn msg(&mut self, k: Option<usize>, s: &str) {
        if let Some(k) = k {
            self.report.issues[k].message.push(s);
        }
    }

    const fn msg_bytes(&mut self, k: Option<usize>, s: &[u8]) {
        if let Some(k) = k {
            self.report.issues[k].message.push_bytes(s);
        }
    }

    const fn msg_ty(&mut self, k: Option<usize>, t: TyId) {
        if let Some(k) = k {
            self.t.format(t, &mut self.report.issues[k].message);
        }
    }

    const fn offset(&self, n: u32) -> u32 {
        self.ast.offset(n)
    }

    /// cel-go's `string.format` validator (ext strings v2, from 1.29): a constant format string
    /// applied to a list literal must parse, have one argument per clause, and integer-only
    /// clauses must get integers. Clauses that accept strings as well (`%f`, `%e`, `%s`) are not
    /// type-checked here, which can only accept, never reject, too much.
    const fn string_formats(&mut self) {
        let mut i = 0;
        let len_i = self.ast.len();
        while i < len_i {
            if let Expr::Call {
                function: _,
                target: Some(target),
                args,
            } = self.nodes[i].expr
                && args.len == 1
                && matches!(self.names[i], b"format")
                && let Expr::String(_) = self.nodes[target as usize].expr
                && let Expr::List { elements, .. } = self.nodes[self.ast.r(args, 0) as usize].expr
            {
                self.check_format(i as u32, self.names[target as usize], elements);
            }
            i += 1;
        }
    }

    const fn check_format(&mut self, call: u32, f: &[u8], elements: crate::ast::Refs) {
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
            let node = self.ast.r(elements, arg);
            let t = self.t.substitute(self.ty[node as usize], true);
            let what: Option<&str> = match (verb, self.t.tys[t as usize]) {
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
                _ => None,
            };
            if let Some(w) = what {
                let e = self.issue(self.offset(node));
                self.msg(e, "error during formatting: ");
                self.msg(e, w);
                self.msg_ty(e, t);
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
    const fn homogeneous_literals(&mut self) {
        let mut i = 0;
        let len_i = self.ast.len();
        while i < len_i {
            match self.nodes[i].expr {
                Expr::List { elements, optional } if !self.in_format_call(i as u32) => {
                    let mut first: Option<TyId> = None;
                    let mut k = 0;
                    while k < elements.len {
                        let e = self.ast.r(elements, k);
                        let mut et = self.t.substitute(self.ty[e as usize], true);
                        if self.is_optional_index(optional, k)
                            && let Ty::Optional(inner) = self.t.tys[et as usize]
                        {
                            et = inner;
                        }
                        match first {
                            None => first = Some(et),
                            Some(f) => {
                                if !self.t.exact(f, et) {
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
                        let key = self.ast.r(entries, k);
                        let val = self.ast.r(entries, k + 1);
                        let kt = self.t.substitute(self.ty[key as usize], true);
                        let mut vt = self.t.substitute(self.ty[val as usize], true);
                        if self.ast.r(entries, k + 2) == 1
                            && let Ty::Optional(inner) = self.t.tys[vt as usize]
                        {
                            vt = inner;
                        }
                        match (fk, fv) {
                            (Some(a), Some(b)) => {
                                if !self.t.exact(a, kt) {
                                    self.mismatch(key, a, kt);
                                    break;
                                }
                                if !self.t.exact(b, vt) {
                                    self.mismatch(val, b, vt);
                                    break;
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

    /// `undeclared reference to '<name>' (in container '')` at node `n`.
    const fn undeclared(&mut self, n: u32, name: &[u8]) {
        let k = self.issue(self.offset(n));
        self.msg(k, "undeclared reference to '");
        self.msg_bytes(k, name);
        self.msg(k, "' (in container '')");
    }

    /// `expected type '<want>' but found '<got>'` at node `n`.
    const fn mismatch(&mut self, n: u32, want: TyId, got: TyId) {
        let k = self.issue(self.offset(n));
        self.msg(k, "expected type '");
        self.msg_ty(k, want);
        self.msg(k, "' but found '");
        self.msg_ty(k, got);
        self.msg(k, "'");
    }

    /// Whether node `n` is (inside) an argument of a `format` call, which the validator exempts.
    const fn in_format_call(&self, n: u32) -> bool {
        // A parent has a larger index in post-order: find calls whose argument subtree holds n.
        let mut i = n as usize + 1;
        let len_i = self.ast.len();
        while i < len_i {
            if let Expr::Call { args, .. } = self.nodes[i].expr
                && matches!(self.names[i], b"format")
            {
                let mut a = 0;
                while a < args.len {
                    if self.ast.r(args, a) == n {
                        return true;
                    }
                    a += 1;
                }
            }
            i += 1;
        }
        false
    }

    /// Before compatibility version 1.28 the parser has no optional syntax: cel-go reports each
    /// use as a syntax issue and checks nothing else.
    const fn optional_syntax(&mut self) -> bool {
        let mut found = false;
        let mut i = 0;
        let len_i = self.ast.len();
        while i < len_i {
            let what = match self.nodes[i].expr {
                Expr::Call { function, .. } => {
                    let f = self.ast.str(function);
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
                let k = self.issue(self.ast.offset(i as u32));
                self.msg(k, m);
                found = true;
            }
            i += 1;
        }
        found
    }

    const fn has_optional_entry(&self, entries: crate::ast::Refs) -> bool {
        let mut i = 2;
        while i < entries.len {
            if self.ast.r(entries, i) == 1 {
                return true;
            }
            i += 3;
        }
        false
    }

    /// Marks the targets of namespaced calls (`optional.of(x)`, `sets.contains(a, b)`) so that
    /// the qualifier is not checked as an identifier, as cel-go resolves them.
    const fn mark_namespaced(&mut self) {
        let mut i = 0;
        let len_i = self.ast.len();
        while i < len_i {
            // `google.protobuf.Duration` / `Timestamp`: qualified type identifiers (cel-go
            // resolves the whole select chain as one identifier). The lowering found them.
            let qualified_type = match self.ast.qualified_type(i as u32) {
                crate::ast::QUALIFIED_DURATION => Some(id::DURATION),
                crate::ast::QUALIFIED_TIMESTAMP => Some(id::TIMESTAMP),
                _ => None,
            };
            match self.nodes[i].expr {
                Expr::Select {
                    operand,
                    test: false,
                    ..
                } if qualified_type.is_some() => {
                    self.skip_qualifier(operand);
                    if let Some(t) = qualified_type {
                        self.ty[i] = self.t.type_of(t);
                    }
                }
                Expr::Call {
                    target: Some(target),
                    ..
                } => {
                    // A namespaced function (`optional.of`): the qualifier is a chain of
                    // selects ending in an identifier, whose nodes directly precede the
                    // target in post-order.
                    if let (_, Some(q)) = self.ast.call_decls(i as u32)
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
    const fn skip_qualifier(&mut self, from: u32) {
        let mut n = from;
        loop {
            self.ty[n as usize] = SKIP;
            match self.nodes[n as usize].expr {
                Expr::Select { operand, .. } => n = operand,
                _ => break,
            }
        }
    }

    /// `a.b` + `.f` as `a.b.f` when `target` spells a qualified name.
    pub(crate) const fn qualified_name(
        &self,
        target: u32,
        function: crate::ast::Str,
        out: &mut [u8; crate::ast::QUALIFIED_MAX],
    ) -> Option<usize> {
        self.ast.qualified_name(target, function, out)
    }

    /// The declaration call node `n` resolves to (its qualified name when the qualifier was
    /// marked), at any version.
    pub(crate) const fn call_decl(&self, n: u32, target: Option<u32>) -> Option<&'static Function> {
        let (plain, qualified) = self.ast.call_decls(n);
        let k = match target {
            Some(t) if self.ty[t as usize] == SKIP => qualified,
            _ => plain,
        };
        match k {
            Some(k) => Some(&crate::env::FUNCTIONS[k]),
            None => None,
        }
    }

    /// `f` if it has an overload at this compatibility version.
    const fn at_target(&self, f: &'static Function) -> Option<&'static Function> {
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

    const fn node(&mut self, n: u32) {
        let t = match self.nodes[n as usize].expr {
            Expr::Null => id::NULL,
            Expr::Bool(_) => id::BOOL,
            Expr::Int(_) => id::INT,
            Expr::Uint(_) => id::UINT,
            Expr::Double(_) => id::DOUBLE,
            Expr::String(_) => id::STRING,
            Expr::Bytes(_) => id::BYTES,
            Expr::Ident(_) => self.ident(n, self.names[n as usize]),
            Expr::Local {
                var,
                range,
                init,
                two_vars,
                ..
            } => self.local(var, range, init, two_vars),
            Expr::Select {
                operand,
                field: _,
                test,
            } => {
                let r = self.select_field(n, operand, self.names[n as usize], false);
                if test {
                    id::BOOL
                } else {
                    self.t.substitute(r, false)
                }
            }
            Expr::Call {
                function: _,
                target,
                args,
            } => self.call(n, self.names[n as usize], target, args),
            Expr::List { elements, optional } => self.list(elements, optional),
            Expr::Map { entries } => self.map(entries),
            Expr::Macro { name, since } => {
                if self.compat < since {
                    let name = self.ast.str(name);
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
                self.undeclared(n, self.ast.str(name));
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
        self.ty[n as usize] = t;
    }

    const fn ident(&mut self, n: u32, name: &[u8]) -> TyId {
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
            self.t.list(id::DYN)
        } else if matches!(name, b"map") {
            self.t.map(id::DYN, id::DYN)
        } else if matches!(name, b"type") {
            self.t.type_of(id::DYN)
        } else {
            self.undeclared(n, name);
            return id::ERROR;
        };
        self.t.type_of(type_of)
    }

    const fn local(&mut self, var: Var, range: u32, init: u32, two_vars: bool) -> TyId {
        match var {
            Var::Accu => self.ty[init as usize],
            Var::Iter | Var::Iter2 => {
                let r = self.t.substitute(self.ty[range as usize], false);
                match (self.t.tys[r as usize], var, two_vars) {
                    (Ty::List(e), Var::Iter, false) => e,
                    (Ty::List(_), Var::Iter, true) => id::INT,
                    (Ty::List(e), _, _) => e,
                    (Ty::Map(k, _), Var::Iter, _) => k,
                    (Ty::Map(_, v), _, _) => v,
                    (Ty::Dyn | Ty::Var(_), _, _) => id::DYN,
                    _ => id::ERROR,
                }
            }
        }
    }

    const fn comprehension(
        &mut self,
        range: u32,
        init: u32,
        cond: u32,
        step: u32,
        result: u32,
        _two_vars: bool,
    ) -> TyId {
        let r = self.t.substitute(self.ty[range as usize], false);
        match self.t.kind(r) {
            Kind::List | Kind::Map => {}
            Kind::Dyn | Kind::Error | Kind::Param => {
                self.t.assignable(id::DYN, r);
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
        let accu = self.ty[init as usize];
        self.assert_type(cond, id::BOOL);
        self.assert_type(step, accu);
        self.t.substitute(self.ty[result as usize], false)
    }

    const fn assert_type(&mut self, n: u32, want: TyId) {
        let got = self.ty[n as usize];
        if !self.t.assignable(want, got) {
            self.mismatch(n, want, got);
        }
    }

    /// cel-go's `checkSelectField`.
    const fn select_field(
        &mut self,
        n: u32,
        operand: u32,
        field: &'a [u8],
        optional: bool,
    ) -> TyId {
        let operand_ty = self.t.substitute(self.ty[operand as usize], false);
        let (target, is_opt) = match self.t.tys[operand_ty as usize] {
            Ty::Optional(inner) => (self.t.substitute(inner, false), true),
            _ => (operand_ty, false),
        };
        let result = match self.t.tys[target as usize] {
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
                self.t.assignable(id::DYN, target);
                id::DYN
            }
            Ty::Dyn | Ty::Error => id::DYN,
            _ => {
                let k = self.issue(self.offset(n));
                self.msg(k, "type '");
                self.msg_ty(k, target);
                self.msg(k, "' does not support field selection");
                id::DYN
            }
        };
        if is_opt || optional {
            self.t.optional(result)
        } else {
            result
        }
    }

    /// The type of field `field` (a CEL identifier) of an object, looking through escaping (2),
    /// keyword field names (compat >= 1.31) and the implicit resource-root fields (1.2).
    const fn field(
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
                let child = self.t.child_name(name, field);
                return self.t.of_schema(s, child, false);
            }
        }
        match selected_property(schema, field, self.compat) {
            Some(p) => {
                let child = self.t.child_name(name, p.name.as_bytes());
                self.t
                    .of_schema(p.schema, child, p.schema.embedded_resource)
            }
            // A flattened node of unknown properties may declare it: only the generated
            // schema can tell.
            None if schema.has_open_flatten() => {
                self.t.unknown = true;
                Some(id::DYN)
            }
            None => None,
        }
    }

    /// `help:` lines for an undefined field: a close name, and the fields there are, both as
    /// a rule must spell them (escaped, CEL-SEMANTICS 2); names no rule can reach are left out.
    const fn field_help(&mut self, schema: &'a crate::model::Schema<'a>, root: bool, field: &[u8]) {
        if !self.report.help.is_empty() {
            return;
        }
        let keywords = self.compat >= 31;
        let mut best = crate::msg::Buf::<256>::new();
        let mut best_d = usize::MAX;
        let mut list = crate::msg::Buf::<512>::new();
        let mut count = 0;
        if root {
            list.push("apiVersion, kind, metadata");
            count = 3;
        }
        let mut stack: [&crate::model::Schema<'_>; 8] = [schema; 8];
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let s = stack[depth];
            let mut i = 0;
            let len_i = s.properties.len();
            while i < len_i {
                let p = &s.properties[i];
                let mut spelled = crate::msg::Buf::<256>::new();
                if push_escaped(&mut spelled, p.name.as_bytes(), keywords) {
                    if count > 0 {
                        list.push(", ");
                    }
                    list.push(spelled.as_str());
                    count += 1;
                    // Close to the JSON name or to its spelling: suggest the spelling.
                    let d_raw = distance(p.name.as_bytes(), field);
                    let d_spelled = distance(spelled.as_str().as_bytes(), field);
                    let d = if d_raw < d_spelled { d_raw } else { d_spelled };
                    if d < best_d {
                        best_d = d;
                        best = spelled;
                    }
                }
                i += 1;
            }
            let mut f = 0;
            let len_f = s.flatten.len();
            while f < len_f && depth < 8 {
                stack[depth] = s.flatten[f];
                depth += 1;
                f += 1;
            }
        }
        let h = &mut self.report.help;
        let limit = if field.len() < 4 { 1 } else { field.len() / 3 };
        if !best.is_empty() && best_d <= limit {
            h.push("help: did you mean '");
            h.push(best.as_str());
            h.push("'?\n");
        }
        if count == 0 {
            h.push("help: the type has no fields CEL can select");
        } else {
            h.push("help: the fields are: ");
            h.push(list.as_str());
        }
    }

    const fn call(
        &mut self,
        n: u32,
        function: &'a [u8],
        target: Option<u32>,
        args: crate::ast::Refs,
    ) -> TyId {
        if matches!(function, b"_?._") {
            let operand = self.ast.r(args, 0);
            let field_node = self.ast.r(args, 1);
            return match self.nodes[field_node as usize].expr {
                Expr::String(_) => {
                    let r = self.select_field(n, operand, self.names[field_node as usize], true);
                    self.t.substitute(r, false)
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
            Some(t) if self.ty[t as usize] == SKIP => {
                let len = match self.qualified_name(t, self.call_function_str(n), &mut buf) {
                    Some(len) => len,
                    None => 0,
                };
                (buf.split_at(len).0, None)
            }
            _ => (function, target),
        };
        let f = match self.call_decl(n, target) {
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
            arg_tys[0] = self.ty[t as usize];
            count = 1;
        }
        let mut a = 0;
        while a < args.len {
            if count >= 16 {
                self.report.unsupported = Some("calls with more than 15 arguments");
                return id::ERROR;
            }
            arg_tys[count] = self.ty[self.ast.r(args, a) as usize];
            count += 1;
            a += 1;
        }
        let arg_tys = prefix(&arg_tys, count);
        let member = member_target.is_some();
        if matches!(name, b"_&&_") || matches!(name, b"_||_") {
            let mut ok = true;
            let mut i = 0;
            let len_i = arg_tys.len();
            while i < len_i {
                if !self.t.assignable(arg_tys[i], id::BOOL) {
                    self.mismatch(self.ast.r(args, i as u32), id::BOOL, arg_tys[i]);
                    ok = false;
                }
                i += 1;
            }
            return if ok { id::BOOL } else { id::ERROR };
        }
        let mut result: Option<TyId> = None;
        let mut o = 0;
        let len_o = f.overloads.len();
        while o < len_o {
            let ov = &f.overloads[o];
            o += 1;
            // Field tests rather than helper calls: in const evaluation a call costs as much
            // as several statements, and this loop runs for every overload of every call.
            if ov.versions.since > self.compat
                || self.compat >= ov.versions.until
                || ov.member != member
                || ov.argc as usize != count
            {
                continue;
            }
            if self.cannot_match(arg_tys, ov.args, count) {
                // What instantiating the parameters would have consumed, so that type
                // variables are numbered as if the overload had been tried in full.
                self.t.skip_vars(ov.arg_params);
                continue;
            }
            let mark = self.t.mark();
            let mut params = [u16::MAX; 4];
            let mut cand = [0 as TyId; 16];
            let mut i = 0;
            let len_i = count;
            while i < len_i {
                cand[i] = self.instantiate(&ov.args[i], &mut params, 0);
                i += 1;
            }
            let cand = prefix(&cand, len_i);
            if self.t.assignable_list(arg_tys, cand) {
                self.ov[n as usize] |= 1 << ((o - 1) % 16);
                let r = self.instantiate(&ov.result, &mut params, 0);
                let r = self.t.substitute(r, false);
                result = match result {
                    None => Some(r),
                    Some(prev) => {
                        if !self.t.is_dyn(prev) && !self.t.exact(r, prev) {
                            Some(id::DYN)
                        } else {
                            Some(prev)
                        }
                    }
                };
            } else {
                self.t.rollback(mark);
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
                let len_i = arg_tys.len();
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
                    let s = self.t.substitute(arg_tys[i], true);
                    self.msg_ty(k, s);
                    i += 1;
                }
                if arg_tys.is_empty() {
                    self.msg(k, "(");
                } else if member && arg_tys.len() == 1 {
                    self.msg(k, ".(");
                }
                self.msg(k, ")'");
                id::ERROR
            }
        }
    }

    const fn call_function_str(&self, n: u32) -> crate::ast::Str {
        match self.nodes[n as usize].expr {
            Expr::Call { function, .. } => function,
            _ => crate::ast::Str { start: 0, len: 0 },
        }
    }

    /// A hint when the function exists at a newer compatibility version than the target.
    const fn newer_help(&mut self, name: &[u8]) {
        let f = match crate::env::find(name) {
            Some(f) => f,
            None => return,
        };
        let mut since = u8::MAX;
        let mut k = 0;
        let len_k = f.overloads.len();
        while k < len_k {
            let v = f.overloads[k].versions;
            if v.since > self.compat && v.since < since {
                since = v.since;
            }
            k += 1;
        }
        if since != u8::MAX && self.report.help.is_empty() {
            let h = &mut self.report.help;
            h.push("help: '");
            h.push_bytes(name);
            h.push("' is available to new rules from Kubernetes 1.");
            h.push_u64(since as u64 + 1);
            h.push(" (compatibility version 1.");
            h.push_u64(since as u64);
            h.push("); the targeted Kubernetes compiles new rules at 1.");
            h.push_u64(self.compat as u64);
        }
    }

    /// A declaration pattern as a type, with `params` holding the fresh variables.
    /// Whether some of the `n` arguments cannot be assigned to its parameter (both slices hold
    /// `n`: the caller has checked the arity). See [`Checker::cannot_assign`].
    const fn cannot_match(&self, args: &[TyId], params: &[P], n: usize) -> bool {
        let mut i = 0;
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
    const fn cannot_assign(&self, arg: TyId, p: &P) -> bool {
        if matches!(p, P::Dyn | P::Param(_)) {
            return false;
        }
        let t = self.t.tys[arg as usize];
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

    const fn instantiate(&mut self, p: &P, params: &mut [TyId; 4], depth: u32) -> TyId {
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
                self.t.list(e)
            }
            P::Map(k, v) => {
                let k = self.instantiate(k, params, depth + 1);
                let v = self.instantiate(v, params, depth + 1);
                self.t.map(k, v)
            }
            P::Optional(e) => {
                let e = self.instantiate(e, params, depth + 1);
                self.t.optional(e)
            }
            P::Type(e) => {
                let e = self.instantiate(e, params, depth + 1);
                self.t.type_of(e)
            }
            P::Param(i) => {
                let i = i as usize % 4;
                if params[i] == u16::MAX {
                    params[i] = self.t.fresh();
                }
                params[i]
            }
            P::Opaque(o) => self.t.alloc(Ty::Opaque(o)),
        }
    }

    const fn list(&mut self, elements: crate::ast::Refs, optional: crate::ast::Refs) -> TyId {
        let mut elems: Option<TyId> = None;
        let mut i = 0;
        while i < elements.len {
            let e = self.ast.r(elements, i);
            let mut et = self.ty[e as usize];
            if self.is_optional_index(optional, i) {
                et = self.optional_element(e, et);
            }
            elems = Some(self.join(e, elems, et));
            i += 1;
        }
        let e = match elems {
            Some(e) => e,
            None => self.t.fresh(),
        };
        self.t.list(e)
    }

    /// The type an optional element (`[?x]`, `{?k: v}`) contributes: the optional's value type;
    /// anything else than an optional or `dyn` is a mismatch.
    const fn optional_element(&mut self, n: u32, t: TyId) -> TyId {
        match self.t.tys[t as usize] {
            Ty::Optional(inner) => inner,
            _ => {
                if !self.t.is_dyn(t) {
                    let want = self.t.optional(t);
                    self.mismatch(n, want, t);
                }
                t
            }
        }
    }

    const fn is_optional_index(&self, optional: crate::ast::Refs, i: u32) -> bool {
        let mut k = 0;
        while k < optional.len {
            if self.ast.r(optional, k) == i {
                return true;
            }
            k += 1;
        }
        false
    }

    const fn map(&mut self, entries: crate::ast::Refs) -> TyId {
        let mut kt: Option<TyId> = None;
        let mut vt: Option<TyId> = None;
        let mut i = 0;
        while i < entries.len {
            let key = self.ast.r(entries, i);
            let val = self.ast.r(entries, i + 1);
            let opt = self.ast.r(entries, i + 2) == 1;
            kt = Some(self.join(key, kt, self.ty[key as usize]));
            let mut v = self.ty[val as usize];
            if opt {
                v = self.optional_element(val, v);
            }
            vt = Some(self.join(val, vt, v));
            i += 3;
        }
        let k = match kt {
            Some(k) => k,
            None => self.t.fresh(),
        };
        let v = match vt {
            Some(v) => v,
            None => self.t.fresh(),
        };
        self.t.map(k, v)
    }

    /// cel-go's `joinTypes` with homogeneous aggregate literals.
    const fn join(&mut self, n: u32, previous: Option<TyId>, current: TyId) -> TyId {
        match previous {
            None => current,
            Some(prev) => {
                if self.t.assignable(prev, current) {
                    self.t.most_general(prev, current, 0)
                } else {
                    self.mismatch(n, prev, current);
                    id::ERROR
                }
            }
        }
    }
}

/// Whether a resource root declares `kind`, `apiVersion` and `metadata.name`/`generateName`
/// with the shapes that keep it unchanged (1.2).
pub(crate) const fn declares_type_and_meta(s: &crate::model::Schema<'_>) -> bool {
    use crate::model::Type;
    let kind = matches!(s.property("kind"), Some(p) if matches!(p.schema.ty, Type::String));
    let api = matches!(s.property("apiVersion"), Some(p) if matches!(p.schema.ty, Type::String));
    let meta = match s.property("metadata") {
        Some(p) => {
            matches!(p.schema.ty, Type::Object)
                && !p.schema.properties.is_empty()
                && matches!(p.schema.property("name"), Some(n) if matches!(n.schema.ty, Type::String))
                && matches!(p.schema.property("generateName"), Some(n) if matches!(n.schema.ty, Type::String))
        }
        None => false,
    };
    kind && api && meta
}

/// The property `.field` selects on an object node when compiled at compatibility version
/// `compat` (reserved words may stand bare from 1.31): the checker's lookup, which the derive
/// also uses to tell which properties a rule reads.
pub const fn selected_property<'a>(
    s: &'a crate::model::Schema<'a>,
    field: &[u8],
    compat: u8,
) -> Option<&'a crate::model::Property<'a>> {
    find_property(s, field, compat >= 31, 0)
}

/// The property whose escaped name (2) is `field`, looking through flatten.
pub(crate) const fn find_property<'a>(
    s: &'a crate::model::Schema<'a>,
    field: &[u8],
    keywords: bool,
    depth: u32,
) -> Option<&'a crate::model::Property<'a>> {
    let mut i = 0;
    let len_i = s.properties.len();
    // Lengths read once and bytes compared in place: in const evaluation each `len()` is two
    // calls, and this runs for every property of every selected object.
    let field_len = field.len();
    while i < len_i {
        let p = &s.properties[i];
        let name = p.name.as_bytes();
        let name_len = name.len();
        // Escaping never shortens a name, and lengthens every name it changes: an identifier
        // of the same length can only be the name itself, spelled bare (no `__` to escape;
        // reserved words only where `keywords` lets them stand). Longer may be an escape.
        if name_len == field_len {
            let mut k = 0;
            while k < name_len && name[k] == field[k] {
                k += 1;
            }
            if k == name_len
                && if is_reserved(name) {
                    keywords
                } else {
                    !has_double_underscore(name)
                }
            {
                return Some(p);
            }
        } else if name_len < field_len && escaped_is(name, field) {
            return Some(p);
        }
        i += 1;
    }
    if depth < 16 {
        let mut f = 0;
        let len_f = s.flatten.len();
        while f < len_f {
            if let Some(p) = find_property(s.flatten[f], field, keywords, depth + 1) {
                return Some(p);
            }
            f += 1;
        }
    }
    None
}

/// The 21 words the apiserver escapes as `__<word>__` (CEL-SEMANTICS 2).
pub const RESERVED: [&str; 21] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// `&a[..len]` (`len <= 16`) by slice patterns: `split_at` costs some thirty calls in const
/// evaluation.
const fn prefix(a: &[TyId; 16], len: usize) -> &[TyId] {
    assert!(len <= 16);
    let mut t: &[TyId] = a;
    let mut d = 16 - len;
    if d >= 8 {
        if let [rest @ .., _, _, _, _, _, _, _, _] = t {
            t = rest;
        }
        d -= 8;
    }
    if d >= 4 {
        if let [rest @ .., _, _, _, _] = t {
            t = rest;
        }
        d -= 4;
    }
    if d >= 2 {
        if let [rest @ .., _, _] = t {
            t = rest;
        }
        d -= 2;
    }
    if d >= 1
        && let [rest @ .., _] = t
    {
        t = rest;
    }
    t
}

const fn has_double_underscore(name: &[u8]) -> bool {
    let mut i = 1;
    let len_i = name.len();
    while i < len_i {
        if name[i] == b'_' && name[i - 1] == b'_' {
            return true;
        }
        i += 1;
    }
    false
}

const fn is_reserved(name: &[u8]) -> bool {
    // A match compiles to a decision on length and bytes: in const evaluation, where every
    // step counts, far cheaper than comparing with each of the 21 words in turn.
    matches!(
        name,
        b"true"
            | b"false"
            | b"null"
            | b"in"
            | b"as"
            | b"break"
            | b"const"
            | b"continue"
            | b"else"
            | b"for"
            | b"function"
            | b"if"
            | b"import"
            | b"let"
            | b"loop"
            | b"package"
            | b"namespace"
            | b"return"
            | b"var"
            | b"void"
            | b"while"
    )
}

/// Writes the CEL spelling of the property name `name` (CEL-SEMANTICS 2): `__dash__` and
/// friends, reserved words as `__word__` unless `keywords` (compatibility 1.31+) lets them stand
/// bare. `false` (nothing written) for a name no rule can reach.
const fn push_escaped<const N: usize>(
    out: &mut crate::msg::Buf<N>,
    name: &[u8],
    keywords: bool,
) -> bool {
    if name.is_empty() || name[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    let len_i = name.len();
    while i < len_i {
        let c = name[i];
        if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'/' || c == b'-') {
            return false;
        }
        i += 1;
    }
    if is_reserved(name) {
        if keywords {
            out.push_bytes(name);
        } else {
            out.push("__");
            out.push_bytes(name);
            out.push("__");
        }
        return true;
    }
    let mut i = 0;
    let len_i = name.len();
    while i < len_i {
        let c = name[i];
        if c == b'_' && i + 1 < name.len() && name[i + 1] == b'_' {
            out.push("__underscores__");
            i += 2;
            continue;
        }
        match c {
            b'.' => out.push("__dot__"),
            b'-' => out.push("__dash__"),
            b'/' => out.push("__slash__"),
            _ => out.push_bytes(&[c]),
        }
        i += 1;
    }
    true
}

/// Whether escaping the property name `name` (CEL-SEMANTICS 2) gives exactly `ident`.
pub const fn escaped_is(name: &[u8], ident: &[u8]) -> bool {
    // Lengths read once: in const evaluation each `len()` is two calls.
    let nlen = name.len();
    let ilen = ident.len();
    if nlen == 0 || name[0].is_ascii_digit() {
        return false;
    }
    if is_reserved(name) {
        // `__<word>__`
        if ilen != nlen + 4 {
            return false;
        }
        if ident[0] != b'_' || ident[1] != b'_' {
            return false;
        }
        let n = ilen;
        if ident[n - 1] != b'_' || ident[n - 2] != b'_' {
            return false;
        }
        let mut i = 0;
        let len_i = nlen;
        while i < len_i {
            if ident[i + 2] != name[i] {
                return false;
            }
            i += 1;
        }
        return true;
    }
    let mut i = 0; // in name
    let mut j = 0; // in ident
    let len_i = nlen;
    while i < len_i {
        let c = name[i];
        let rep: &[u8] = if c == b'_' && i + 1 < nlen && name[i + 1] == b'_' {
            i += 1;
            b"__underscores__"
        } else if c == b'.' {
            b"__dot__"
        } else if c == b'-' {
            b"__dash__"
        } else if c == b'/' {
            b"__slash__"
        } else if matches!(c, b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_') {
            // a single byte, compared below
            b""
        } else {
            return false;
        };
        let len_k = rep.len();
        if len_k == 0 {
            if j >= ilen || ident[j] != c {
                return false;
            }
            j += 1;
        } else {
            let mut k = 0;
            while k < len_k {
                if j >= ilen || ident[j] != rep[k] {
                    return false;
                }
                j += 1;
                k += 1;
            }
        }
        i += 1;
    }
    j == ilen
}

/// Edit distance of two short names (for "did you mean"); long names count as far apart.
const fn distance(a: &[u8], b: &[u8]) -> usize {
    const W: usize = 48;
    if a.len() >= W || b.len() >= W {
        return usize::MAX;
    }
    let mut prev = [0usize; W];
    let mut cur = [0usize; W];
    let mut j = 0;
    while j <= b.len() {
        prev[j] = j;
        j += 1;
    }
    let mut i = 1;
    while i <= a.len() {
        cur[0] = i;
        let mut j = 1;
        while j <= b.len() {
            let cost = if a[i - 1].eq_ignore_ascii_case(&b[j - 1]) {
                0
            } else {
                1
            };
            let mut m = prev[j] + 1;
            if cur[j - 1] + 1 < m {
                m = cur[j - 1] + 1;
            }
            if prev[j - 1] + cost < m {
                m = prev[j - 1] + cost;
            }
            cur[j] = m;
            j += 1;
        }
        prev = cur;
        i += 1;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Property, Schema, Type};

    static ITEMS: Schema<'static> = Schema::of(Type::String);
    static SCHEMA: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "n",
                required: true,
                schema: &Schema::of(Type::Integer),
            },
            Property {
                name: "s",
                required: false,
                schema: &Schema::of(Type::String),
            },
            Property {
                name: "l",
                required: false,
                schema: &Schema {
                    items: Some(&ITEMS),
                    ..Schema::of(Type::Array)
                },
            },
            Property {
                name: "my-field",
                required: false,
                schema: &Schema::of(Type::Boolean),
            },
            Property {
                name: "namespace",
                required: false,
                schema: &Schema::of(Type::String),
            },
        ],
        ..Schema::of(Type::Object)
    };

    fn run(rule: &str) -> Result<Checked, String> {
        let ast = crate::syntax::parse_ast(rule).map_err(|e| e.to_string())?;
        let node = Node::new(&SCHEMA);
        let report = check(&ast.as_ast(), Target::Rule, &node);
        if let Some(u) = report.unsupported {
            return Err(format!("unsupported: {u}"));
        }
        if report.total > 0 {
            let mut out = crate::msg::Buf::<4096>::new();
            report.render(rule, &mut out);
            return Err(out.as_str().to_owned());
        }
        if !report.right_type {
            return Err("not bool".into());
        }
        Ok(Checked {
            uses_old_self: report.uses_old_self,
            max_cost: report.cost.map_or(0, |c| c.max),
        })
    }

    #[test]
    fn accepts_well_typed_rules() {
        for rule in [
            "self.n > 0",
            "self.n == 1 && self.s == 'x'",
            "self.l.all(x, x.startsWith('a'))",
            "self.l.exists(x, x == 'a')",
            "self.l.map(x, x + 'a').size() > 0",
            "self.l.filter(x, x != '').size() == 0",
            "has(self.s) ? self.s.size() < 10 : true",
            "self.my__dash__field",
            "self.namespace == 'x'",
            "self.__namespace__ == 'x'",
            "self.n in [1, 2, 3]",
            "'a' in self.l",
            "self.l == ['a']",
            "[1, 2].all(x, x > 0)",
            "{'a': 1}['a'] == 1",
            "self.s.matches('^a') || self.s.contains('b')",
            "int(self.s) > 1",
            "self.n > 1.0",
            "self.?s.orValue('') == ''",
            "optional.of(1).hasValue()",
            "type(self.n) == int",
            "self.l.size() == self.n",
            "self.s.lowerAscii() == 'a'",
            "duration('1s') < duration('2s')",
            "self.l.exists_one(x, x == 'a')",
        ] {
            assert_eq!(run(rule).err(), None, "{rule}");
        }
    }

    #[test]
    fn rejects_with_cel_go_messages() {
        let cases = [
            (
                "self.n == 'x'",
                "ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(int, string)'\n | self.n == 'x'\n | .......^",
            ),
            (
                "self.m > 0",
                "ERROR: <input>:1:5: undefined field 'm'\n | self.m > 0\n | ....^",
            ),
            ("self.n", "not bool"),
            (
                "foo == 1",
                "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^",
            ),
            (
                "self.l.all(x, x)",
                "ERROR: <input>:1:15: expected type 'bool' but found 'string'\n | self.l.all(x, x)\n | ..............^",
            ),
            (
                "self.n.size() > 0",
                "ERROR: <input>:1:12: found no matching overload for 'size' applied to 'int.()'\n | self.n.size() > 0\n | ...........^",
            ),
            (
                "[1, 'a'].size() > 0",
                "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() > 0\n | ....^",
            ),
        ];
        for (rule, want) in cases {
            assert_eq!(run(rule).err().as_deref(), Some(want), "{rule}");
        }
    }

    #[test]
    fn old_self_makes_a_transition_rule() {
        assert!(run("self.n >= oldSelf.n").unwrap().uses_old_self);
        assert!(!run("[1].all(oldSelf, oldSelf > 0)").unwrap().uses_old_self);
    }

    #[test]
    fn escaping_matches_the_apiserver() {
        for (name, ident) in [
            ("a.a", "a__dot__a"),
            ("a-a", "a__dash__a"),
            ("a__a", "a__underscores__a"),
            ("a.-/__a", "a__dot____dash____slash____underscores__a"),
            ("a._a", "a__dot___a"),
            ("a___a", "a__underscores___a"),
            ("a____a", "a__underscores____underscores__a"),
            ("a__dot__a", "a__underscores__dot__underscores__a"),
            ("_if", "_if"),
            ("self", "self"),
            ("if", "__if__"),
            ("-x", "__dash__x"),
        ] {
            assert!(
                escaped_is(name.as_bytes(), ident.as_bytes()),
                "{name} -> {ident}"
            );
        }
        for name in ["@", "1up", "👑", ""] {
            assert!(!escaped_is(name.as_bytes(), name.as_bytes()), "{name}");
        }
    }
}
