//! The estimator's pass: one forward walk over the post-order AST, pricing each node from its
//! children's costs and sizes (cel-go's `checker/cost.go`), with sizes from the schema along
//! each node's path (the apiserver's `sizeEstimator`).

use super::range::Range;
use crate::ast::{Expr, MAX_NODES, Var};
use crate::model::Schema;
use crate::typed::{SKIP, TypedAst};
use crate::types::Ty;

/// `StringTraversalCostFactor`.
pub(super) const F: f64 = 0.1;
/// `RegexStringLengthCostFactor`.
pub(super) const R: f64 = 0.25;
/// The unbounded string size (`MaxRequestSizeBytes - 2`).
pub(super) const UNBOUNDED_STRING: u64 = crate::size::MAX_REQUEST_SIZE_BYTES - 2;
/// `metadata.name`'s default bound at resource roots (DNS-1123 subdomain, from 1.37; before,
/// the implicit `name` and `generateName` were unbounded).
pub(super) const NAME_MAX_LENGTH: u64 = 253;

/// Where a node's path leads in the rule's declaration type (the `sizeEstimator` walk).
#[derive(Debug, Clone, Copy)]
pub(super) enum Path<'a> {
    /// No path (cel-go's empty path): no size from the schema.
    None,
    /// A path that does not resolve.
    Dead,
    /// A schema node; `root` when it is a resource root (implicit `apiVersion`, `kind`,
    /// `metadata`).
    Node(&'a Schema<'a>, bool),
    /// A string declaration type with this `MaxElements` (implicit root strings, map keys).
    Str(u64),
    /// The implicit `metadata` of a resource root: the `MaxElements` of `name` and
    /// `generateName`.
    Meta(u64, u64),
}

/// One step of a path.
#[derive(Clone, Copy)]
pub(super) enum Step<'x> {
    Field(&'x [u8]),
    Items,
    Keys,
    Values,
    Indices,
}

/// A container literal's (or computed container's) entry sizes: cel-go's `entrySizeEstimate`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    list: bool,
    key: Range,
    val: Range,
}

pub(super) const fn union_entry(a: Option<Entry>, b: Option<Entry>) -> Option<Entry> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Entry {
            list: a.list,
            key: a.key.union(b.key),
            val: a.val.union(b.val),
        }),
        _ => None,
    }
}

/// Per-node results of the pass.
pub(super) struct Est<'a> {
    pub(super) cost: [Range; MAX_NODES],
    pub(super) size: [Option<Range>; MAX_NODES],
    pub(super) path: [Path<'a>; MAX_NODES],
    pub(super) entry: [Option<Entry>; MAX_NODES],
}

/// The estimate of a checked expression (`CompilationResult.MaxCost` is its `max`).
pub(crate) const fn estimate(typed: &mut TypedAst<'_>) -> Range {
    let mut e = Estimator { c: typed };
    e.estimate()
}

/// The schema node each node of a checked expression reads, where its path (the
/// `sizeEstimator` walk) leads to one: what the cost help searches for missing bounds.
pub(crate) const fn schema_nodes<'a>(
    typed: &mut TypedAst<'a>,
) -> [Option<&'a Schema<'a>>; MAX_NODES] {
    let mut est = Est {
        cost: [fixed!(0); MAX_NODES],
        size: [None; MAX_NODES],
        path: [Path::None; MAX_NODES],
        entry: [None; MAX_NODES],
    };
    let mut e = Estimator { c: typed };
    e.pass(&mut est);
    let mut out = [None; MAX_NODES];
    let mut i = 0;
    while i < MAX_NODES {
        if let Path::Node(s, _) = est.path[i] {
            out[i] = Some(s);
        }
        i += 1;
    }
    out
}

/// The pass over a checked expression, which it reads (and whose type substitutions it
/// resolves) as `c`.
pub(super) struct Estimator<'c, 'a> {
    pub(super) c: &'c mut TypedAst<'a>,
}

impl<'a> Estimator<'_, 'a> {
    /// The estimate of the checked expression (`CompilationResult.MaxCost` is its `max`).
    pub(super) const fn estimate(&mut self) -> Range {
        let mut e = Est {
            cost: [fixed!(0); MAX_NODES],
            size: [None; MAX_NODES],
            path: [Path::None; MAX_NODES],
            entry: [None; MAX_NODES],
        };
        self.pass(&mut e);
        e.cost[self.c.ast.root() as usize]
    }

    /// Prices every node, children first.
    const fn pass(&mut self, e: &mut Est<'a>) {
        let mut i = 0;
        let len_i = self.c.ast.len();
        while i < len_i {
            self.est_node(e, i as u32);
            i += 1;
        }
    }

    pub(super) const fn final_ty(&mut self, n: u32) -> Ty<'a> {
        let t = self.c.t.substitute(self.c.ty[n as usize], true);
        self.c.t.tys[t as usize]
    }

    pub(super) const fn is_scalar(&self, t: Ty<'a>) -> bool {
        match t {
            Ty::Bool | Ty::Double | Ty::Duration | Ty::Int | Ty::Timestamp | Ty::Uint => true,
            Ty::Optional(inner) => self.is_scalar(self.c.t.tys[inner as usize]),
            _ => false,
        }
    }

    /// The path after one more step (cel-go appends; the estimator ignores the first element,
    /// so extending an empty path lands on the root).
    pub(super) const fn extend(&self, p: Path<'a>, step: Step<'_>) -> Path<'a> {
        match p {
            Path::None => Path::Node(self.c.schema, self.c.resource_root),
            Path::Dead | Path::Str(_) => Path::Dead,
            Path::Meta(name, generate) => match step {
                Step::Field(b"name") => Path::Str(name),
                Step::Field(b"generateName") => Path::Str(generate),
                _ => Path::Dead,
            },
            Path::Node(s, root) => {
                if s.int_or_string {
                    return Path::Dead;
                }
                match step {
                    Step::Field(f) => field_step(s, root, f, self.c.releases),
                    Step::Items | Step::Values => {
                        let next = match (s.ty, s.items, s.additional_properties) {
                            (crate::model::Type::Array, Some(items), _) => Some(items),
                            (crate::model::Type::Object, _, Some(values)) => Some(values),
                            _ => None,
                        };
                        match next {
                            Some(c) if crate::size::max_elements(c).is_some() => {
                                Path::Node(c, c.embedded_resource)
                            }
                            _ => Path::Dead,
                        }
                    }
                    Step::Keys => match (s.ty, s.additional_properties) {
                        (crate::model::Type::Object, Some(_)) => Path::Str(0),
                        _ => Path::Dead,
                    },
                    Step::Indices => Path::Dead,
                }
            }
        }
    }

    /// The Kubernetes `EstimateSize` hook on a path.
    pub(super) const fn path_size(p: Path<'a>) -> Option<Range> {
        match p {
            Path::None | Path::Dead => None,
            Path::Node(s, _) => match crate::size::max_elements(s) {
                Some(m) => Some(Range { min: 0, max: m }),
                None => None,
            },
            Path::Str(m) => Some(Range { min: 0, max: m }),
            Path::Meta(..) => Some(Range { min: 0, max: 0 }),
        }
    }

    /// cel-go's `computeSize`.
    pub(super) const fn compute_size(&mut self, e: &Est<'a>, n: u32, depth: u32) -> Option<Range> {
        if let Some(s) = e.size[n as usize] {
            return Some(s);
        }
        match self.c.nodes[n as usize].expr {
            Expr::String(_) => return Some(fixed!(runes(self.c.names[n as usize]))),
            Expr::Bytes(s) => return Some(fixed!(s.len as u64)),
            Expr::Null | Expr::Bool(_) | Expr::Int(_) | Expr::Uint(_) | Expr::Double(_) => {
                return Some(fixed!(1));
            }
            Expr::List { elements, .. } => return Some(fixed!(elements.len as u64)),
            Expr::Map { entries } => return Some(fixed!(entries.len as u64 / 3)),
            _ => {}
        }
        if let Some(s) = Self::path_size(e.path[n as usize]) {
            return Some(s);
        }
        let t = self.final_ty(n);
        if self.is_scalar(t) {
            return Some(fixed!(1));
        }
        if let Expr::Local {
            var,
            range,
            init,
            two_vars,
            ..
        } = self.c.nodes[n as usize].expr
            && depth < 32
        {
            return match var {
                Var::Accu => self.compute_size(e, init, depth + 1),
                Var::Iter | Var::Iter2 => {
                    let entry = e.entry[range as usize];
                    let list = self.container_is_list(e, range);
                    match (entry, var, two_vars) {
                        (Some(en), Var::Iter, false) => Some(if list { en.val } else { en.key }),
                        (Some(en), Var::Iter, true) => Some(en.key),
                        (Some(en), _, _) => Some(en.val),
                        (None, _, _) => None,
                    }
                }
            };
        }
        None
    }

    pub(super) const fn size_or_unknown(&mut self, e: &Est<'a>, n: u32) -> Range {
        match self.compute_size(e, n, 0) {
            Some(s) => s,
            None => Range::UNKNOWN,
        }
    }

    /// The range's container kind: its entry's, else its type's.
    pub(super) const fn container_is_list(&mut self, e: &Est<'a>, range: u32) -> bool {
        match e.entry[range as usize] {
            Some(en) => en.list,
            None => matches!(self.final_ty(range), Ty::List(_)),
        }
    }

    pub(super) const fn est_node(&mut self, e: &mut Est<'a>, n: u32) {
        let k = n as usize;
        let cost = match self.c.nodes[n as usize].expr {
            Expr::Null
            | Expr::Bool(_)
            | Expr::Int(_)
            | Expr::Uint(_)
            | Expr::Double(_)
            | Expr::String(_)
            | Expr::Bytes(_)
            | Expr::Macro { .. } => fixed!(0),
            Expr::Ident(_) => {
                if self.c.ty[k] != SKIP {
                    e.path[k] = self.extend(Path::None, Step::Indices);
                }
                fixed!(1)
            }
            Expr::Local {
                var,
                range,
                init,
                two_vars,
                ..
            } => {
                match var {
                    Var::Accu => {
                        e.path[k] = e.path[init as usize];
                        e.entry[k] = e.entry[init as usize];
                    }
                    Var::Iter | Var::Iter2 => {
                        let list = self.container_is_list(e, range);
                        let step = match (var, two_vars, list) {
                            (Var::Iter, false, true) => Step::Items,
                            (Var::Iter, false, false) => Step::Keys,
                            (Var::Iter, true, true) => Step::Indices,
                            (Var::Iter, true, false) => Step::Keys,
                            (_, _, true) => Step::Items,
                            (_, _, false) => Step::Values,
                        };
                        e.path[k] = self.extend(e.path[range as usize], step);
                    }
                }
                fixed!(1)
            }
            Expr::Select {
                operand,
                field: _,
                test,
            } => {
                if self.c.ty[k] == SKIP {
                    fixed!(0)
                } else if self.c.ty[operand as usize] == SKIP {
                    // A qualified type identifier (`google.protobuf.Duration`): one identifier,
                    // sized as an identifier is.
                    e.path[k] = self.extend(Path::None, Step::Indices);
                    fixed!(1)
                } else if test {
                    // `PresenceTestHasCost(false)` in the Kubernetes environment.
                    e.cost[operand as usize]
                } else {
                    let extra = match self.final_ty(operand) {
                        Ty::Map(..) | Ty::Object { .. } | Ty::Var(_) => 1,
                        _ => 0,
                    };
                    e.path[k] = self.extend(e.path[operand as usize], Step::Field(self.c.names[k]));
                    e.cost[operand as usize].add(fixed!(extra))
                }
            }
            Expr::Call {
                function: _,
                target,
                args,
            } => self.call_cost(e, n, self.c.names[k], target, args),
            Expr::List { elements, .. } => {
                let mut sum = fixed!(0);
                let mut item = Range {
                    min: u64::MAX,
                    max: 0,
                };
                if elements.len == 0 {
                    item.min = 0;
                }
                let mut i = 0;
                while i < elements.len {
                    let el = self.c.ast.r(elements, i);
                    sum = sum.add(e.cost[el as usize]);
                    item = item.union(self.size_or_unknown(e, el));
                    i += 1;
                }
                e.entry[k] = Some(Entry {
                    list: true,
                    key: fixed!(1),
                    val: item,
                });
                sum.add(fixed!(10))
            }
            Expr::Map { entries } => {
                let mut sum = fixed!(0);
                let empty = Range {
                    min: if entries.len == 0 { 0 } else { u64::MAX },
                    max: 0,
                };
                let (mut ks, mut vs) = (empty, empty);
                let mut i = 0;
                while i + 2 < entries.len + 2 && i < entries.len {
                    let key = self.c.ast.r(entries, i);
                    let val = self.c.ast.r(entries, i + 1);
                    sum = sum.add(e.cost[key as usize]).add(e.cost[val as usize]);
                    ks = ks.union(self.size_or_unknown(e, key));
                    vs = vs.union(self.size_or_unknown(e, val));
                    i += 3;
                }
                e.entry[k] = Some(Entry {
                    list: false,
                    key: ks,
                    val: vs,
                });
                sum.add(fixed!(30))
            }
            Expr::Struct { .. } => fixed!(40),
            Expr::Comprehension {
                range,
                init,
                cond,
                step,
                result,
                ..
            } => self.comprehension_cost(e, n, range, init, cond, step, result),
        };
        e.cost[k] = cost;
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) const fn comprehension_cost(
        &mut self,
        e: &mut Est<'a>,
        n: u32,
        range: u32,
        init: u32,
        cond: u32,
        step: u32,
        result: u32,
    ) -> Range {
        let k = n as usize;
        let base = e.cost[range as usize]
            .add(e.cost[init as usize])
            .add(e.cost[result as usize]);
        // `cel.bind` (the `optMap`/`optFlatMap` expansions): no loop, the result's sizes.
        let is_bind = matches!(self.c.nodes[range as usize].expr, Expr::List { elements, .. } if elements.len == 0)
            && matches!(self.c.nodes[cond as usize].expr, Expr::Bool(false));
        if is_bind {
            e.size[k] = self.compute_size(e, result, 0);
            e.entry[k] = e.entry[result as usize];
            return base;
        }
        let count = self.size_or_unknown(e, range);
        let per = e.cost[step as usize].add(e.cost[cond as usize]);
        match self.c.nodes[init as usize].expr {
            Expr::List { .. } | Expr::Map { .. } => {
                e.size[k] = Some(count);
                if let Some(en) = e.entry[step as usize] {
                    e.entry[k] = Some(en);
                }
            }
            Expr::Call { .. }
            | Expr::Comprehension { .. }
            | Expr::Ident(_)
            | Expr::Local { .. }
            | Expr::Select { .. }
            | Expr::Struct { .. }
            | Expr::Macro { .. } => {}
            _ => e.size[k] = self.compute_size(e, init, 0),
        }
        base.add(count.mul(per))
    }

    pub(super) const fn call_cost(
        &mut self,
        e: &mut Est<'a>,
        n: u32,
        function: &'a [u8],
        target: Option<u32>,
        args: crate::ast::Refs,
    ) -> Range {
        let k = n as usize;
        // A namespaced function (`optional.none()`, `sets.contains(..)`): cel-go's checked AST
        // has a global call of the qualified name and no target.
        let original_target = target;
        let mut qualified = [0u8; crate::ast::QUALIFIED_MAX];
        let (function, target) = match target {
            Some(t) if self.c.ty[t as usize] == SKIP => {
                let f = match self.c.nodes[n as usize].expr {
                    Expr::Call { function, .. } => function,
                    _ => return fixed!(0),
                };
                match self.c.qualified_name(t, f, &mut qualified) {
                    Some(len) => (qualified.split_at(len).0, None),
                    None => return fixed!(0),
                }
            }
            t => (function, t),
        };
        if matches!(function, b"dyn") && args.len >= 1 {
            let arg = self.c.ast.r(args, 0);
            e.size[k] = self.compute_size(e, arg, 0);
            e.entry[k] = e.entry[arg as usize];
            return fixed!(1).add(e.cost[arg as usize]);
        }
        let mut arg_sum = fixed!(0);
        let mut i = 0;
        while i < args.len {
            arg_sum = arg_sum.add(e.cost[self.c.ast.r(args, i) as usize]);
            i += 1;
        }
        let mut sum = fixed!(0);
        if let Some(t) = target {
            sum = e.cost[t as usize];
        }
        // The overloads cel-go's checker recorded for the call.
        if matches!(function, b"_&&_") || matches!(function, b"_||_") {
            let lhs = e.cost[self.c.ast.r(args, 0) as usize];
            let rhs = e.cost[self.c.ast.r(args, 1) as usize];
            e.size[k] = self.compute_size(e, n, 0);
            return Range {
                min: lhs.min,
                max: lhs.add(rhs).max,
            };
        }
        if matches!(function, b"_?._") {
            e.size[k] = self.compute_size(e, n, 0);
            return fixed!(1).add(arg_sum);
        }
        let f = match self.c.call_decl(n, original_target) {
            Some(f) => f,
            None => return fixed!(0),
        };
        let mask = self.c.ov[k];
        if mask == 0 {
            return fixed!(0);
        }
        let mut fn_cost = Range {
            min: u64::MAX,
            max: 0,
        };
        let mut result: Option<Range> = None;
        let mut o = 0;
        let len_o = f.overloads.len();
        while o < len_o && o < 16 {
            if mask & (1 << o) != 0 {
                let id = f.overloads[o].id.as_bytes();
                let (c, size) = self.function_cost(e, n, function, id, target, args, arg_sum);
                fn_cost = fn_cost.union(c);
                if let Some(s) = size {
                    result = match result {
                        Some(r) => Some(r.union(s)),
                        None => Some(s),
                    };
                }
                if args.len > 0 && (matches!(id, b"index_list") || matches!(id, b"index_map")) {
                    let a0 = self.c.ast.r(args, 0);
                    let list = matches!(id, b"index_list");
                    result = match e.entry[a0 as usize] {
                        Some(en) => Some(en.val),
                        None => None,
                    };
                    e.path[k] = self.extend(
                        e.path[a0 as usize],
                        if list { Step::Items } else { Step::Values },
                    );
                }
                if result.is_none() {
                    result = self.compute_size(e, n, 0);
                }
            }
            o += 1;
        }
        e.size[k] = result;
        sum.add(fn_cost)
    }

    /// The size a Kubernetes or extension estimator sees for a node (`ComputedSize`, else the
    /// schema, else unknown).
    pub(super) const fn sz(&mut self, e: &Est<'a>, n: u32) -> Range {
        self.size_or_unknown(e, n)
    }

    /// The element type and size of a list node as the Kubernetes estimator builds them
    /// (`listElementNode`): `None` when the type has no parameters.
    pub(super) const fn list_element(&mut self, e: &Est<'a>, list: u32) -> Option<(Ty<'a>, Range)> {
        let elem = match self.final_ty(list) {
            Ty::List(el) | Ty::Optional(el) | Ty::Type(el) | Ty::Map(el, _) => el,
            _ => return None,
        };
        let el = self.c.t.substitute(elem, true);
        let size = match e.path[list as usize] {
            Path::None => Range::UNKNOWN,
            p => match Self::path_size(self.extend(p, Step::Items)) {
                Some(s) => s,
                None => Range::UNKNOWN,
            },
        };
        Some((self.c.t.tys[el as usize], size))
    }
}

/// Code points of UTF-8 text (cel-go sizes string literals in runes).
pub(super) const fn runes(b: &[u8]) -> u64 {
    let mut n = 0;
    let mut i = 0;
    let len_i = b.len();
    while i < len_i {
        if b[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// A field step from an object node, with the implicit fields of resource roots (`k8s.io/apiserver/pkg/cel/common/schemas.go`).
pub(super) const fn field_step<'a>(
    s: &'a Schema<'a>,
    root: bool,
    f: &[u8],
    releases: crate::release::Releases,
) -> Path<'a> {
    if !matches!(s.ty, crate::model::Type::Object) || s.additional_properties.is_some() {
        return Path::Dead;
    }
    if root && !crate::names::declares_type_and_meta(s) {
        if matches!(f, b"kind") || matches!(f, b"apiVersion") {
            return Path::Str(UNBOUNDED_STRING);
        }
        if matches!(f, b"metadata") && releases.unbounded_root_names() {
            // Before 1.37 the implicit `name` and `generateName` were unbounded strings.
            return Path::Meta(UNBOUNDED_STRING, UNBOUNDED_STRING);
        }
        if matches!(f, b"metadata") {
            // `cappedLengthStringType` (1.37): the declared maxLength when shorter than the
            // default.
            let (mut name, mut generate) = (NAME_MAX_LENGTH, NAME_MAX_LENGTH - 1);
            if let Some(meta) = s.property("metadata") {
                if let Some(p) = meta.schema.property("name")
                    && let Some(m) = p.schema.max_length
                    && m < name
                {
                    name = m;
                }
                if let Some(p) = meta.schema.property("generateName")
                    && let Some(m) = p.schema.max_length
                    && m < generate
                {
                    generate = m;
                }
            }
            return Path::Meta(name.saturating_mul(4), generate.saturating_mul(4));
        }
    }
    match crate::names::find_property(s, f, false, 0) {
        Some(p) if crate::size::max_elements(p.schema).is_some() => {
            Path::Node(p.schema, p.schema.embedded_resource)
        }
        _ => Path::Dead,
    }
}
