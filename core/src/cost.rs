//! The apiserver's static cost estimate (CEL-SEMANTICS.md section 4): cel-go's
//! `checker/cost.go` with the Kubernetes hooks (`library/cost.go` `EstimateCallCost`, the
//! schema-backed `sizeEstimator` of `apiextensions-apiserver` `compilation.go`) and the cost
//! estimators the enabled cel-go extensions register (`ext.Sets`, `ext.Lists` version 3), plus
//! the CRD-time arithmetic of 4.2 and 4.5 (cardinality, limits, the factor in messages).
//!
//! The estimator is one forward pass over the post-order AST after a successful check, reading
//! the checker's per-node types and resolved overloads; like the checker it is `const fn`, so
//! the derive estimates at `cargo build` with the same code the CLI runs.
//!
//! Numbers follow cel-go to the unit, including its quirks: every path is resolved from the
//! rule's node ignoring its first element (so any identifier, and a selection on a value without
//! a path, sizes as the node itself), schema-backed scalars have size 0, map keys size 0.

use crate::ast::{Expr, Var};
use crate::check::{Checker, MAX_NODES, SKIP};
use crate::decl::Opaque;
use crate::model::Schema;
use crate::types::Ty;

/// A `{min, max}` range of costs or sizes (cel-go's `CostEstimate` / `SizeEstimate`); all
/// arithmetic saturates at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The lower bound.
    pub min: u64,
    /// The upper bound (what the apiserver compares with its limits).
    pub max: u64,
}

impl Range {
    /// `{0, u64::MAX}`: nothing known.
    pub const UNKNOWN: Range = Range {
        min: 0,
        max: u64::MAX,
    };

    /// Saturating sum.
    pub const fn add(self, o: Range) -> Range {
        // Compared by hand: `saturating_add` is two calls in const evaluation.
        Range {
            min: if self.min > u64::MAX - o.min {
                u64::MAX
            } else {
                self.min + o.min
            },
            max: if self.max > u64::MAX - o.max {
                u64::MAX
            } else {
                self.max + o.max
            },
        }
    }

    /// Saturating product of the bounds.
    pub const fn mul(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Both bounds times a real factor, rounded up (cel-go's `MultiplyByCostFactor`).
    pub const fn factor(self, f: f64) -> Range {
        Range {
            min: cost_factor(self.min, f),
            max: cost_factor(self.max, f),
        }
    }

    /// The smallest range holding both.
    pub const fn union(self, o: Range) -> Range {
        Range {
            min: if o.min < self.min { o.min } else { self.min },
            max: if o.max > self.max { o.max } else { self.max },
        }
    }
}

/// cel-go's `multiplyByCostFactor`: `ceil(x * f)` in float64, saturating.
const fn cost_factor(x: u64, f: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && f > 0.0 && xf > (u64::MAX as f64) / f {
        return u64::MAX;
    }
    let c = ceil(xf * f);
    if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

/// `math.Ceil` of a non-negative float (`f64::ceil` is not const at the crate's MSRV): from
/// 2^52 on every float is an integer; below, truncation through `u64` is exact.
const fn ceil(v: f64) -> f64 {
    if v.is_nan() || v >= 4_503_599_627_370_496.0 {
        return v;
    }
    let t = (v as u64) as f64;
    if t < v { t + 1.0 } else { t }
}

/// Go's `uint64(f)` on amd64 for a non-negative float: values from 2^63 up come out as
/// `2^63 | (f - 2^63)`, with 2^63 for anything at or above 2^64.
const fn go_f64_to_u64(f: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if f < TWO63 {
        return f as u64;
    }
    let rest = f - TWO63;
    if rest >= TWO63 {
        1 << 63
    } else {
        (rest as u64) | (1 << 63)
    }
}

/// `StringTraversalCostFactor`.
const F: f64 = 0.1;
/// `RegexStringLengthCostFactor`.
const R: f64 = 0.25;
/// The unbounded string size (`MaxRequestSizeBytes - 2`).
const UNBOUNDED_STRING: u64 = crate::size::MAX_REQUEST_SIZE_BYTES - 2;
/// `metadata.name`'s default bound at resource roots (DNS-1123 subdomain, 1.37).
const NAME_MAX_LENGTH: u64 = 253;

/// Where a node's path leads in the rule's declaration type (the `sizeEstimator` walk).
#[derive(Debug, Clone, Copy)]
enum Path<'a> {
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
enum Step<'x> {
    Field(&'x [u8]),
    Items,
    Keys,
    Values,
    Indices,
}

/// A container literal's (or computed container's) entry sizes: cel-go's `entrySizeEstimate`.
#[derive(Debug, Clone, Copy)]
struct Entry {
    list: bool,
    key: Range,
    val: Range,
}

const fn union_entry(a: Option<Entry>, b: Option<Entry>) -> Option<Entry> {
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
struct Est<'a> {
    cost: [Range; MAX_NODES],
    size: [Option<Range>; MAX_NODES],
    path: [Path<'a>; MAX_NODES],
    entry: [Option<Entry>; MAX_NODES],
}

/// The range `{n, n}`, written out where it is used: the estimator builds many, and a call
/// costs several statements in const evaluation.
macro_rules! fixed {
    ($n:expr) => {{
        let n: u64 = $n;
        Range { min: n, max: n }
    }};
}

impl<'a> Checker<'a> {
    /// The estimate of the checked expression (`CompilationResult.MaxCost` is its `max`).
    pub(crate) const fn estimate(&mut self) -> Range {
        let mut e = Est {
            cost: [fixed!(0); MAX_NODES],
            size: [None; MAX_NODES],
            path: [Path::None; MAX_NODES],
            entry: [None; MAX_NODES],
        };
        let mut i = 0;
        let len_i = self.ast.len();
        while i < len_i {
            self.est_node(&mut e, i as u32);
            i += 1;
        }
        e.cost[self.ast.root() as usize]
    }

    const fn final_ty(&mut self, n: u32) -> Ty<'a> {
        let t = self.t.substitute(self.ty[n as usize], true);
        self.t.tys[t as usize]
    }

    const fn is_scalar(&self, t: Ty<'a>) -> bool {
        match t {
            Ty::Bool | Ty::Double | Ty::Duration | Ty::Int | Ty::Timestamp | Ty::Uint => true,
            Ty::Optional(inner) => self.is_scalar(self.t.tys[inner as usize]),
            _ => false,
        }
    }

    /// The path after one more step (cel-go appends; the estimator ignores the first element,
    /// so extending an empty path lands on the root).
    const fn extend(&self, p: Path<'a>, step: Step<'_>) -> Path<'a> {
        match p {
            Path::None => Path::Node(self.schema, self.resource_root),
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
                    Step::Field(f) => field_step(s, root, f),
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
    const fn path_size(p: Path<'a>) -> Option<Range> {
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
    const fn compute_size(&mut self, e: &Est<'a>, n: u32, depth: u32) -> Option<Range> {
        if let Some(s) = e.size[n as usize] {
            return Some(s);
        }
        match self.nodes[n as usize].expr {
            Expr::String(_) => return Some(fixed!(runes(self.names[n as usize]))),
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
        } = self.nodes[n as usize].expr
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

    const fn size_or_unknown(&mut self, e: &Est<'a>, n: u32) -> Range {
        match self.compute_size(e, n, 0) {
            Some(s) => s,
            None => Range::UNKNOWN,
        }
    }

    /// The range's container kind: its entry's, else its type's.
    const fn container_is_list(&mut self, e: &Est<'a>, range: u32) -> bool {
        match e.entry[range as usize] {
            Some(en) => en.list,
            None => matches!(self.final_ty(range), Ty::List(_)),
        }
    }

    const fn est_node(&mut self, e: &mut Est<'a>, n: u32) {
        let k = n as usize;
        let cost = match self.nodes[n as usize].expr {
            Expr::Null
            | Expr::Bool(_)
            | Expr::Int(_)
            | Expr::Uint(_)
            | Expr::Double(_)
            | Expr::String(_)
            | Expr::Bytes(_)
            | Expr::Macro { .. } => fixed!(0),
            Expr::Ident(_) => {
                if self.ty[k] != SKIP {
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
                if self.ty[k] == SKIP {
                    fixed!(0)
                } else if self.ty[operand as usize] == SKIP {
                    // A qualified type identifier (`google.protobuf.Duration`): one identifier.
                    fixed!(1)
                } else if test {
                    // `PresenceTestHasCost(false)` in the Kubernetes environment.
                    e.cost[operand as usize]
                } else {
                    let extra = match self.final_ty(operand) {
                        Ty::Map(..) | Ty::Object { .. } | Ty::Var(_) => 1,
                        _ => 0,
                    };
                    e.path[k] = self.extend(e.path[operand as usize], Step::Field(self.names[k]));
                    e.cost[operand as usize].add(fixed!(extra))
                }
            }
            Expr::Call {
                function: _,
                target,
                args,
            } => self.call_cost(e, n, self.names[k], target, args),
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
                    let el = self.ast.r(elements, i);
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
                    let key = self.ast.r(entries, i);
                    let val = self.ast.r(entries, i + 1);
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
    const fn comprehension_cost(
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
        let is_bind = matches!(self.nodes[range as usize].expr, Expr::List { elements, .. } if elements.len == 0)
            && matches!(self.nodes[cond as usize].expr, Expr::Bool(false));
        if is_bind {
            e.size[k] = self.compute_size(e, result, 0);
            e.entry[k] = e.entry[result as usize];
            return base;
        }
        let count = self.size_or_unknown(e, range);
        let per = e.cost[step as usize].add(e.cost[cond as usize]);
        match self.nodes[init as usize].expr {
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

    const fn call_cost(
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
            Some(t) if self.ty[t as usize] == SKIP => {
                let f = match self.nodes[n as usize].expr {
                    Expr::Call { function, .. } => function,
                    _ => return fixed!(0),
                };
                match self.qualified_name(t, f, &mut qualified) {
                    Some(len) => (qualified.split_at(len).0, None),
                    None => return fixed!(0),
                }
            }
            t => (function, t),
        };
        if matches!(function, b"dyn") && args.len >= 1 {
            let arg = self.ast.r(args, 0);
            e.size[k] = self.compute_size(e, arg, 0);
            e.entry[k] = e.entry[arg as usize];
            return fixed!(1).add(e.cost[arg as usize]);
        }
        let mut arg_sum = fixed!(0);
        let mut i = 0;
        while i < args.len {
            arg_sum = arg_sum.add(e.cost[self.ast.r(args, i) as usize]);
            i += 1;
        }
        let mut sum = fixed!(0);
        if let Some(t) = target {
            sum = e.cost[t as usize];
        }
        // The overloads cel-go's checker recorded for the call.
        if matches!(function, b"_&&_") || matches!(function, b"_||_") {
            let lhs = e.cost[self.ast.r(args, 0) as usize];
            let rhs = e.cost[self.ast.r(args, 1) as usize];
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
        let f = match self.call_decl(n, original_target) {
            Some(f) => f,
            None => return fixed!(0),
        };
        let mask = self.ov[k];
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
                    let a0 = self.ast.r(args, 0);
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
    const fn sz(&mut self, e: &Est<'a>, n: u32) -> Range {
        self.size_or_unknown(e, n)
    }

    /// The element type and size of a list node as the Kubernetes estimator builds them
    /// (`listElementNode`): `None` when the type has no parameters.
    const fn list_element(&mut self, e: &Est<'a>, list: u32) -> Option<(Ty<'a>, Range)> {
        let elem = match self.final_ty(list) {
            Ty::List(el) | Ty::Optional(el) | Ty::Type(el) | Ty::Map(el, _) => el,
            _ => return None,
        };
        let el = self.t.substitute(elem, true);
        let size = match e.path[list as usize] {
            Path::None => Range::UNKNOWN,
            p => match Self::path_size(self.extend(p, Step::Items)) {
                Some(s) => s,
                None => Range::UNKNOWN,
            },
        };
        Some((self.t.tys[el as usize], size))
    }

    /// One overload's estimate: the extension estimators, then the Kubernetes one (by function
    /// name), then cel-go's own table, then 1. Returns the cost with the arguments' costs (not
    /// the target's) and the result size.
    // Guards stay inside the arms: an arm whose arity does not fit falls back to cost 1, as
    // the estimator upstream does, rather than on to other arms.
    #[allow(clippy::too_many_arguments, clippy::collapsible_match)]
    const fn function_cost(
        &mut self,
        e: &mut Est<'a>,
        n: u32,
        function: &[u8],
        id: &[u8],
        target: Option<u32>,
        args: crate::ast::Refs,
        arg_sum: Range,
    ) -> (Range, Option<Range>) {
        // The two estimators' own first tests, made here: in const evaluation a call pays for
        // the size of the callee's whole body, and most calls are for neither.
        if let [b'l', b'i', b's', b't', ..] = id
            && let Some((c, s)) = self.extension_cost(e, id, target, args)
        {
            return (c.add(arg_sum), s);
        }
        // The Kubernetes estimator prices no operator but `_==_` (of opaque values).
        let kubernetes = match function {
            [b'_' | b'!' | b'@', ..] => matches!(function, b"_==_"),
            _ => true,
        };
        if kubernetes && let Some((c, s)) = self.kubernetes_cost(e, function, id, target, args) {
            return (c.add(arg_sum), s);
        }
        let argc = args.len;
        let one = fixed!(1);
        match id {
            b"string_format" => {
                if let Some(t) = target {
                    return (self.sz(e, t).factor(F).add(arg_sum), None);
                }
            }
            b"string_to_bytes" | b"bytes_to_string" | b"strings_quote" => {
                if argc == 1 {
                    let s = self.sz(e, self.ast.r(args, 0));
                    let size = if matches!(id, b"string_to_bytes") {
                        Range {
                            min: s.min,
                            max: s.max.wrapping_mul(4),
                        }
                    } else if matches!(id, b"bytes_to_string") {
                        Range {
                            min: s.min / 4,
                            max: s.max,
                        }
                    } else {
                        Range {
                            min: s.min.wrapping_add(2),
                            max: s.max.wrapping_mul(2).wrapping_add(2),
                        }
                    };
                    return (s.factor(F).add(arg_sum), Some(size));
                }
            }
            b"starts_with_string" | b"ends_with_string" => {
                if argc == 1 {
                    return (self.sz(e, self.ast.r(args, 0)).factor(F).add(arg_sum), None);
                }
            }
            b"in_list" => {
                if argc == 2 {
                    return (
                        self.sz(e, self.ast.r(args, 1)).factor(1.0).add(arg_sum),
                        None,
                    );
                }
            }
            b"matches" | b"matches_string" => {
                let nodes = match target {
                    Some(t) if argc == 1 && matches!(id, b"matches_string") => {
                        Some((t, self.ast.r(args, 0)))
                    }
                    None if argc == 2 && matches!(id, b"matches") => {
                        Some((self.ast.r(args, 0), self.ast.r(args, 1)))
                    }
                    _ => None,
                };
                if let Some((s, r)) = nodes {
                    let str_cost = self.sz(e, s).add(one).factor(F);
                    let re_cost = self.sz(e, r).factor(R);
                    return (str_cost.mul(re_cost).add(arg_sum), None);
                }
            }
            b"contains_string" => {
                if let Some(t) = target
                    && argc == 1
                {
                    let a = self.sz(e, t).factor(F);
                    let b = self.sz(e, self.ast.r(args, 0)).factor(F);
                    return (a.mul(b).add(arg_sum), None);
                }
            }
            b"conditional" => {
                let (c0, c1, c2) = (
                    self.ast.r(args, 0),
                    self.ast.r(args, 1),
                    self.ast.r(args, 2),
                );
                let size = self.sz(e, c1).union(self.sz(e, c2));
                if let Some(en) = union_entry(e.entry[c1 as usize], e.entry[c2 as usize]) {
                    e.entry[n as usize] = Some(en);
                }
                let c = e.cost[c0 as usize].add(e.cost[c1 as usize].union(e.cost[c2 as usize]));
                return (c, Some(size));
            }
            b"add_string" | b"add_bytes" | b"add_list" => {
                if argc == 2 {
                    let (l, r) = (self.ast.r(args, 0), self.ast.r(args, 1));
                    let size = self.sz(e, l).add(self.sz(e, r));
                    if let Some(en) = union_entry(e.entry[l as usize], e.entry[r as usize]) {
                        e.entry[n as usize] = Some(en);
                    }
                    let c = if matches!(id, b"add_list") {
                        one
                    } else {
                        size.factor(F)
                    };
                    return (c.add(arg_sum), Some(size));
                }
            }
            b"less_string"
            | b"greater_string"
            | b"less_equals_string"
            | b"greater_equals_string"
            | b"less_bytes"
            | b"greater_bytes"
            | b"less_equals_bytes"
            | b"greater_equals_bytes"
            | b"equals"
            | b"not_equals"
                if argc == 2 =>
            {
                let l = self.sz(e, self.ast.r(args, 0));
                let r = self.sz(e, self.ast.r(args, 1));
                let smallest = if r.max < l.max { r.max } else { l.max };
                let c = Range {
                    min: if smallest > 0 { 1 } else { 0 },
                    max: smallest,
                };
                return (c.factor(F).add(arg_sum), None);
            }
            _ => {}
        }
        (one.add(arg_sum), None)
    }

    /// The estimators `ext.Sets` and `ext.Lists` (version 3) register by overload id.
    const fn extension_cost(
        &mut self,
        e: &Est<'a>,
        id: &[u8],
        target: Option<u32>,
        args: crate::ast::Refs,
    ) -> Option<(Range, Option<Range>)> {
        // Every id these libraries register starts so: most calls leave here.
        let [b'l', b'i', b's', b't', ..] = id else {
            return None;
        };
        let argc = args.len;
        let one = fixed!(1);
        let sets = match id {
            b"list_sets_contains_list" | b"list_sets_intersects_list" => Some(1.0),
            b"list_sets_equivalent_list" => Some(2.0),
            _ => None,
        };
        if let Some(factor) = sets {
            if argc != 2 {
                return None;
            }
            let a = self.sz(e, self.ast.r(args, 0));
            let b = self.sz(e, self.ast.r(args, 1));
            return Some((a.mul(b).factor(factor).add(one), None));
        }
        // estimateListCall with allocation: size * factor + 1 + 10.
        let alloc = fixed!(11);
        if matches!(id, b"list_slice") {
            let t = match target {
                Some(t) if argc == 2 => t,
                _ => return None,
            };
            let s = self.sz(e, t);
            let start = self.literal_uint(self.ast.r(args, 0), 0);
            let end = self.literal_uint(self.ast.r(args, 1), s.max);
            let size = fixed!(end.wrapping_sub(start));
            return Some((size.factor(1.0).add(alloc), Some(size)));
        }
        if matches!(id, b"lists_range") {
            if target.is_some() || argc != 1 {
                return None;
            }
            let size = fixed!(self.literal_uint(self.ast.r(args, 0), u64::MAX));
            return Some((size.factor(1.0).add(alloc), Some(size)));
        }
        if matches!(id, b"list_reverse") {
            let t = match target {
                Some(t) if argc == 0 => t,
                _ => return None,
            };
            let size = self.sz(e, t);
            return Some((size.factor(1.0).add(alloc), Some(size)));
        }
        if matches!(id, b"list_flatten") || matches!(id, b"list_flatten_int") {
            let t = match target {
                Some(t) if argc <= 1 => t,
                _ => return None,
            };
            let depth = if argc == 1 {
                self.literal_uint(self.ast.r(args, 0), u64::MAX)
            } else {
                1
            };
            let size = self.sz(e, t);
            return Some((size.factor(depth as f64).add(alloc), Some(size)));
        }
        if matches!(id, b"list_distinct") {
            let t = match target {
                Some(t) if argc == 0 => t,
                _ => return None,
            };
            let s = self.sz(e, t);
            let size = s.mul(s);
            return Some((size.factor(2.0).add(alloc), Some(size)));
        }
        let sort = ends_with(id, b"_sort");
        let sort_by = ends_with(id, b"_sortByAssociatedKeys");
        if (sort || sort_by) && starts_with(id, b"list_") {
            let node = match target {
                Some(t) if sort && argc == 0 => t,
                Some(_) if sort_by && argc == 1 => self.ast.r(args, 0),
                _ => return None,
            };
            let s = self.sz(e, node);
            let size = s.mul(s);
            let factor = if starts_with(id, b"list_string_") || starts_with(id, b"list_bytes_") {
                2.0 + F
            } else {
                2.0
            };
            return Some((size.factor(factor).add(alloc), Some(size)));
        }
        None
    }

    /// `nodeAsUintValue`: an int literal (negative counts as 0), else `default`.
    const fn literal_uint(&self, n: u32, default: u64) -> u64 {
        match self.nodes[n as usize].expr {
            Expr::Int(v) => {
                if v < 0 {
                    0
                } else {
                    v as u64
                }
            }
            _ => default,
        }
    }

    /// The Kubernetes `EstimateCallCost`, keyed by function name (`None`: no estimate).
    const fn kubernetes_cost(
        &mut self,
        e: &Est<'a>,
        f: &[u8],
        id: &[u8],
        target: Option<u32>,
        args: crate::ast::Refs,
    ) -> Option<(Range, Option<Range>)> {
        let argc = args.len;
        let one = fixed!(1);
        match f {
            b"check" => {
                return Some((fixed!(350_000), None));
            }
            b"serviceAccount"
            | b"path"
            | b"group"
            | b"resource"
            | b"subresource"
            | b"namespace"
            | b"name"
            | b"allowed"
            | b"reason"
            | b"error"
            | b"errored"
            | b"masked"
            | b"prefixLength"
            | b"family"
            | b"isUnspecified"
            | b"isLoopback"
            | b"isLinkLocalMulticast"
            | b"isLinkLocalUnicast"
            | b"isGlobalUnicast"
            | b"format.named"
            | b"sign"
            | b"asInteger"
            | b"isInteger"
            | b"asApproximateFloat"
            | b"isGreaterThan"
            | b"isLessThan"
            | b"compareTo"
            | b"add"
            | b"sub"
            | b"major"
            | b"minor"
            | b"patch"
            | b"getScheme"
            | b"getHostname"
            | b"getHost"
            | b"getPort"
            | b"getEscapedPath"
            | b"getQuery" => {
                return Some((one, None));
            }
            b"fieldSelector" | b"labelSelector" => {
                if argc != 1 {
                    return None;
                }
                let s = self.sz(e, self.ast.r(args, 0));
                let parse = s.factor(F);
                let requirements = s.factor(0.5).factor(50.0);
                return Some((fixed!(10).add(parse).add(requirements), None));
            }
            b"isSorted" | b"sum" | b"max" | b"min" | b"indexOf" | b"lastIndexOf" | b"includes" => {
                let t = match target {
                    Some(t) => t,
                    None => return None,
                };
                let mut el_cost = one;
                return match self.list_element(e, t) {
                    Some((el_ty, el_size)) => {
                        if matches!(el_ty, Ty::String | Ty::Bytes) {
                            el_cost = el_cost.add(el_size.factor(F));
                        }
                        Some((self.sz(e, t).mul(el_cost), None))
                    }
                    None if matches!(f, b"includes") => Some((self.sz(e, t).mul(el_cost), None)),
                    None => Some((self.sz(e, t).factor(F), None)),
                };
            }
            b"url" | b"jsonpatch.escapeKey" => {
                if argc != 1 {
                    return None;
                }
                let s = self.sz(e, self.ast.r(args, 0));
                return Some((s.factor(F), Some(s)));
            }
            b"lowerAscii" | b"upperAscii" | b"substring" | b"trim" => {
                let t = match target {
                    Some(t) => t,
                    None => return None,
                };
                let s = self.sz(e, t);
                return Some((s.factor(F), Some(s)));
            }
            b"replace" => {
                let t = match target {
                    Some(t) if argc >= 2 => t,
                    _ => return None,
                };
                let s = self.sz(e, t);
                let from = self.sz(e, self.ast.r(args, 0));
                let with = self.sz(e, self.ast.r(args, 1));
                let mut count = fixed!(0);
                let mut retained = fixed!(0);
                if from.min == 0 {
                    count.max = if s.max < u64::MAX { s.max + 1 } else { s.max };
                    retained.max = s.max;
                } else if with.max <= from.min {
                    count.max = 0;
                    retained.max = s.max;
                } else {
                    count.max = go_f64_to_u64(ceil(s.max as f64 / from.min as f64));
                }
                if from.max == 0 {
                    count.min = if s.min < u64::MAX { s.min + 1 } else { s.min };
                    retained.min = s.min;
                } else if from.max <= with.min {
                    count.min = 0;
                    retained.min = s.min;
                } else {
                    count.min = go_f64_to_u64(ceil(s.min as f64 / from.max as f64));
                }
                let size = count.mul(with).add(retained);
                return Some((s.factor(2.0 * F), Some(size)));
            }
            b"split" => {
                let t = match target {
                    Some(t) => t,
                    None => return None,
                };
                let s = self.sz(e, t);
                let mut max = s.max;
                if argc > 1
                    && let Expr::Int(v) = self.nodes[self.ast.r(args, 1) as usize].expr
                {
                    max = v as u64;
                }
                return Some((s.factor(2.0 * F), Some(Range { min: 0, max })));
            }
            b"join" => {
                let t = match target {
                    Some(t) => t,
                    None => return None,
                };
                let mut size = fixed!(0);
                let list = self.sz(e, t);
                if let Some((_, el)) = self.list_element(e, t) {
                    size = list.mul(el);
                }
                if argc > 0 {
                    let sep = self.sz(e, self.ast.r(args, 0));
                    let seps = Range {
                        min: if list.min > 0 { list.min - 1 } else { 0 },
                        max: if list.max > 0 { list.max - 1 } else { 0 },
                    };
                    size = size.add(sep.mul(seps));
                }
                return Some((size.factor(F), Some(size)));
            }
            b"find" | b"findAll" => {
                let t = match target {
                    Some(t) if argc >= 1 => t,
                    _ => return None,
                };
                let s = self.sz(e, t);
                let str_cost = s.add(one).factor(F);
                let re_cost = self.sz(e, self.ast.r(args, 0)).factor(R);
                return Some((str_cost.mul(re_cost), Some(Range { min: 0, max: s.max })));
            }
            b"cidr" | b"isIP" | b"isCIDR" | b"quantity" | b"isQuantity" | b"semver"
            | b"isSemver" => {
                if argc < 1 {
                    return None;
                }
                return Some((self.sz(e, self.ast.r(args, 0)).factor(F), None));
            }
            b"ip" => {
                if matches!(id, b"cidr_ip") {
                    return Some((one, None));
                }
                if argc < 1 {
                    return None;
                }
                return Some((self.sz(e, self.ast.r(args, 0)).factor(F), None));
            }
            b"ip.isCanonical" => {
                if argc < 1 {
                    return None;
                }
                return Some((self.sz(e, self.ast.r(args, 0)).factor(2.0 * F), None));
            }
            b"containsIP" | b"containsCIDR" => {
                let ip_pair = Range { min: 4, max: 16 };
                if argc < 1 {
                    return None;
                }
                let mut c = ip_pair.add(ip_pair).factor(F);
                if matches!(f, b"containsCIDR") {
                    c = c.add(ip_pair.factor(F)).add(one);
                }
                if matches!(id, b"cidr_contains_ip_string")
                    || matches!(id, b"cidr_contains_cidr_string")
                {
                    c = c.add(self.sz(e, self.ast.r(args, 0)).factor(F));
                }
                return Some((c, None));
            }
            b"validate" => {
                if argc < 1 {
                    return None;
                }
                let s = self.sz(e, self.ast.r(args, 0));
                return Some((s.factor(F).factor(128.0 * R), None));
            }
            b"_==_" if argc == 2 => {
                let (l, r) = (self.ast.r(args, 0), self.ast.r(args, 1));
                let lt = self.final_ty(l);
                let rt = self.final_ty(r);
                if let (Ty::Opaque(a), Ty::Opaque(b)) = (lt, rt)
                    && a as u8 == b as u8
                {
                    return match a {
                        Opaque::Format => Some((Range { min: 1, max: 64 }.factor(F), None)),
                        Opaque::Url => {
                            // Upstream reads the right-hand side's size twice.
                            let size = match e.size[r as usize] {
                                Some(s) => s,
                                None => one,
                            };
                            Some((
                                Range {
                                    min: 1,
                                    max: size.max,
                                }
                                .factor(F),
                                None,
                            ))
                        }
                        _ => Some((one, None)),
                    };
                }
            }
            _ => {}
        }
        None
    }
}

// Index loops, not `split_at` + compare: a subslice costs some thirty calls in const evaluation.
const fn starts_with(x: &[u8], p: &[u8]) -> bool {
    let n = p.len();
    if x.len() < n {
        return false;
    }
    let mut i = 0;
    while i < n {
        if x[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn ends_with(x: &[u8], p: &[u8]) -> bool {
    let n = p.len();
    let m = x.len();
    if m < n {
        return false;
    }
    let mut i = 0;
    while i < n {
        if x[m - n + i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Code points of UTF-8 text (cel-go sizes string literals in runes).
const fn runes(b: &[u8]) -> u64 {
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

/// A field step from an object node, with the implicit fields of resource roots (1.2).
const fn field_step<'a>(s: &'a Schema<'a>, root: bool, f: &[u8]) -> Path<'a> {
    if !matches!(s.ty, crate::model::Type::Object) || s.additional_properties.is_some() {
        return Path::Dead;
    }
    if root && !crate::check::declares_type_and_meta(s) {
        if matches!(f, b"kind") || matches!(f, b"apiVersion") {
            return Path::Str(UNBOUNDED_STRING);
        }
        if matches!(f, b"metadata") {
            // `cappedLengthStringType`: the declared maxLength when shorter than the default.
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
    match crate::check::find_property(s, f, false, 0) {
        Some(p) if crate::size::max_elements(p.schema).is_some() => {
            Path::Node(p.schema, p.schema.embedded_resource)
        }
        _ => Path::Dead,
    }
}

/// The estimate of one expression of a deriving type, as the derive lists it in the type's
/// `CEL_RULE_COSTS` (so a test can assert that a rule stays cheap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleCost {
    /// The node the rule is on: the type (`WebAppSpec`) or one of its fields (`WebAppSpec.hosts`).
    pub place: &'static str,
    /// The rule's index among the rules declared at that place.
    pub index: usize,
    /// The expression.
    pub expression: &'static str,
    /// Whether the expression is the rule's `messageExpression` (not multiplied by cardinality).
    pub message_expression: bool,
    /// The apiserver's estimated cost of one evaluation (`CompilationResult.MaxCost`); at CRD
    /// creation it is multiplied by how many times the node can occur in an object.
    pub max_cost: u64,
}

// ---------------------------------------------------------------------------------------------
// CRD-time arithmetic (4.2, 4.5).

/// `StaticEstimatedCostLimit`: the CRD-time limit of one expression (cost × cardinality).
pub const PER_EXPRESSION_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the CRD-time limit of all expressions of one schema.
pub const PER_CRD_LIMIT: u64 = 100_000_000;
/// Expressions at least this expensive are listed when the per-CRD limit is exceeded (1%).
pub const EXPENSIVE: u64 = PER_CRD_LIMIT / 100;

/// `multiplyWithOverflowGuard`: 0 for a zero cost, saturating otherwise.
pub const fn times_cardinality(cost: u64, cardinality: u64) -> u64 {
    cost.saturating_mul(cardinality)
}

/// How a schema node multiplies the cardinality of its children (`extractMaxElements`):
/// `maxItems` of arrays, `maxProperties` of maps, 1 for objects and scalars; `None` for an
/// unbounded list or map.
pub const fn child_factor(s: &Schema<'_>) -> Option<u64> {
    match s.ty {
        crate::model::Type::Array => s.max_items,
        crate::model::Type::Object if s.additional_properties.is_some() => s.max_properties,
        _ => Some(1),
    }
}

/// The cardinality used for a rule on `node`: the product of the ancestors' factors when all
/// are bounded, else `R / (MinSerializedSize(node) + 1)` (4.2).
pub const fn cardinality(bounded: Option<u64>, node: &Schema<'_>) -> u64 {
    match bounded {
        Some(c) => c,
        None => match crate::size::unbounded_cardinality(node) {
            Some(c) => c,
            None => 0,
        },
    }
}

/// The apiserver's cost message (`getCostErrorMessage`): `<what> exceeds budget by factor of
/// <F> (try simplifying ...)`.
pub const fn push_cost_message<const N: usize>(
    what: &str,
    cost: u64,
    limit: u64,
    out: &mut crate::msg::Buf<N>,
) {
    out.push(what);
    out.push(" exceeds budget by factor of ");
    push_factor(cost, limit, out);
    out.push(" (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)");
}

/// [`push_cost_message`] as a `String`.
pub fn cost_message(what: &str, cost: u64, limit: u64) -> String {
    let mut out = crate::msg::Buf::<512>::new();
    push_cost_message(what, cost, limit, &mut out);
    out.as_str().to_owned()
}

/// The factor as Go prints it: `more than 100x`, `%fx` below 1.5, `%.1fx` otherwise, from
/// `float64(cost) / float64(limit)`, rounded exactly as Go's `strconv` does.
pub const fn push_factor<const N: usize>(cost: u64, limit: u64, out: &mut crate::msg::Buf<N>) {
    let x = cost as f64 / limit as f64;
    if x > 100.0 {
        out.push("more than 100x");
        return;
    }
    let decimals = if x < 1.5 { 6 } else { 1 };
    push_fixed(x, decimals, out);
    out.push("x");
}

/// `x` (finite, non-negative, below 2^63) with `decimals` digits after the point, rounded half
/// to even on its exact binary value (what Go's `%.Nf` does).
const fn push_fixed<const N: usize>(x: f64, decimals: u32, out: &mut crate::msg::Buf<N>) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, e2) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let scale = 10u128.pow(decimals);
    // x * 10^decimals = mant * scale * 2^e2, rounded half to even.
    let q = mant as u128 * scale;
    let scaled: u128 = if e2 >= 0 {
        if e2 > 60 { u128::MAX } else { q << e2 }
    } else if -e2 >= 127 {
        0
    } else {
        let shift = (-e2) as u32;
        let whole = q >> shift;
        let rem = q & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && whole & 1 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    let int_part = scaled / scale;
    let frac_part = scaled % scale;
    out.push_u64(int_part as u64);
    if decimals > 0 {
        out.push(".");
        let mut d = scale / 10;
        while d > 0 {
            let digit = ((frac_part / d) % 10) as u8;
            out.push_bytes(&[b'0' + digit]);
            d /= 10;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Node, Target, check};
    use crate::model::{Property, Type};

    fn est(rule: &str, schema: &Schema<'_>) -> u64 {
        est_at(rule, schema, false)
    }

    fn est_at(rule: &str, schema: &Schema<'_>, root: bool) -> u64 {
        let ast = crate::syntax::parse_ast(rule).expect("parses");
        let node = Node {
            resource_root: root,
            ..Node::new(schema)
        };
        let r = check(&ast.as_ast(), Target::Rule, &node);
        assert!(r.is_ok(), "{rule}: {}", r.issues_text(rule));
        r.cost.expect("estimated").max
    }

    fn list(items: &'static Schema<'static>, max: Option<u64>) -> Schema<'static> {
        Schema {
            items: Some(items),
            max_items: max,
            ..Schema::of(Type::Array)
        }
    }

    fn map(values: &'static Schema<'static>, max: Option<u64>) -> Schema<'static> {
        Schema {
            additional_properties: Some(values),
            max_properties: max,
            ..Schema::of(Type::Object)
        }
    }

    static STRING: Schema<'static> = Schema::of(Type::String);
    static STRING10: Schema<'static> = Schema {
        max_length: Some(10),
        ..Schema::of(Type::String)
    };
    static INT: Schema<'static> = Schema::of(Type::Integer);
    static NUMBER: Schema<'static> = Schema::of(Type::Number);
    static DATE_TIME: Schema<'static> = Schema::string_format("date-time");

    /// CEL-SEMANTICS 4.6 example 1 (TestCostEstimation "string array with all").
    #[test]
    fn all_over_lists() {
        assert_eq!(est("self.all(x, true)", &list(&STRING, None)), 3_145_727);
        assert_eq!(est("self.all(x, true)", &list(&STRING, Some(20))), 62);
        assert_eq!(est("self.all(x, true)", &list(&NUMBER, None)), 4_718_591);
        assert_eq!(est("self.all(x, true)", &list(&NUMBER, Some(10))), 32);
        assert_eq!(
            est("self.all(x, self.all(y, true))", &list(&NUMBER, Some(10))),
            352
        );
    }

    /// 4.6 examples 2, 3, 7.
    #[test]
    fn string_functions() {
        assert_eq!(est("self.contains('test')", &STRING), 314_574);
        assert_eq!(est("self.contains('test')", &STRING10), 5);
        assert_eq!(
            est("size(self + \"hello\") > size(\"hello\")", &STRING),
            314_578
        );
        let s4 = STRING.with_length(None, Some(4));
        assert_eq!(est("size(self + \"hello\") > size(\"hello\")", &s4), 7);
        let e = Schema {
            enum_values: &["\"A\"", "\"B\"", "\"C\"", "\"LongValue\""],
            ..Schema::of(Type::String)
        };
        assert_eq!(est("self.contains('A')", &e), 2);
        assert_eq!(
            est("self.contains('A')", &e.with_length(None, Some(1000))),
            401
        );
    }

    /// 4.6 examples 4 and 8: map keys have size 0, date-times 32.
    #[test]
    fn maps() {
        assert_eq!(
            est("self.all(x, x.contains(self[x]))", &map(&STRING, None)),
            2_752_507
        );
        assert_eq!(
            est(
                "self.all(x, x.contains(self[x]))",
                &map(&STRING10, Some(10))
            ),
            72
        );
        assert_eq!(est("self[\"a\"] == self[\"b\"]", &map(&DATE_TIME, None)), 8);
        assert_eq!(
            est("self[\"a\"] == self[\"b\"]", &map(&DATE_TIME, Some(3))),
            8
        );
    }

    /// 4.6 example 5 (join) and 6 (replace).
    #[test]
    fn join_and_replace() {
        assert_eq!(
            est("self.join(' ') == 'aa bb'", &list(&STRING, None)),
            329_853_068_905
        );
        assert_eq!(
            est("self.join(' ') == 'aa bb'", &list(&STRING10, Some(10))),
            43
        );
        static BEFORE: Schema<'static> = Schema {
            max_length: Some(2),
            ..Schema::of(Type::String)
        };
        static AFTER: Schema<'static> = Schema {
            max_length: Some(4),
            ..Schema::of(Type::String)
        };
        static STR4: Schema<'static> = Schema {
            max_length: Some(4),
            ..Schema::of(Type::String)
        };
        let obj = |s: &'static Schema<'static>| Schema {
            properties: Box::leak(Box::new([
                Property {
                    name: "str",
                    required: false,
                    schema: s,
                },
                Property {
                    name: "before",
                    required: false,
                    schema: &BEFORE,
                },
                Property {
                    name: "after",
                    required: false,
                    schema: &AFTER,
                },
            ])),
            ..Schema::of(Type::Object)
        };
        let rule = "self.str.replace(self.before, self.after) == 'does not matter'";
        assert_eq!(est(rule, &obj(&STRING)), 629_154);
        assert_eq!(est(rule, &obj(&STR4)), 12);
    }

    /// 4.6 example 10: schema scalars have size 0, so `==` on them is free.
    #[test]
    fn scalar_paths() {
        static OBJ: Schema<'static> = Schema {
            properties: &[
                Property {
                    name: "val1",
                    required: false,
                    schema: &INT,
                },
                Property {
                    name: "val2",
                    required: false,
                    schema: &INT,
                },
            ],
            ..Schema::of(Type::Object)
        };
        assert_eq!(
            est(
                "self.val1 == 9223372036854775807 && 9223372036854775807 == self.val1 && self.val1 == self.val2",
                &OBJ
            ),
            8
        );
    }

    /// The implicit `metadata.name` of a resource root is bounded at 253 (1.37): the
    /// cost-metadata-name-bounded case's 513.
    #[test]
    fn metadata_name_at_the_root() {
        static SPEC: Schema<'static> = Schema::of(Type::Object);
        static ROOT: Schema<'static> = Schema {
            properties: &[Property {
                name: "spec",
                required: false,
                schema: &SPEC,
            }],
            ..Schema::of(Type::Object)
        };
        assert_eq!(
            est_at(
                "self.metadata.name.matches('^[a-z]+(-[a-z]+)*$')",
                &ROOT,
                true
            ),
            513
        );
    }

    /// Namespaced functions are priced under their qualified name (the corpus's
    /// `format.dns1123Label().validate(self)`).
    #[test]
    fn namespaced_functions() {
        let s = STRING.with_length(None, Some(63));
        assert_eq!(
            est(
                "size(self) == 0 || format.dns1123Label().validate(self) == null",
                &s
            ),
            838
        );
        assert_eq!(est("optional.none().hasValue()", &s), 2);
    }

    /// The checker records matched overloads in a 16-bit mask per call.
    #[test]
    fn overload_masks_fit() {
        for f in crate::env::FUNCTIONS {
            assert!(f.overloads.len() <= 16, "{} has too many overloads", f.name);
        }
    }

    #[test]
    fn factor_formatting_as_go() {
        let f = |cost: u64, limit: u64| {
            let mut b = crate::msg::Buf::<64>::new();
            push_factor(cost, limit, &mut b);
            b.as_str().to_owned()
        };
        assert_eq!(f(200_100_000, PER_EXPRESSION_LIMIT), "20.0x");
        assert_eq!(f(202_101_004, PER_CRD_LIMIT), "2.0x");
        assert_eq!(f(10_000_001, PER_EXPRESSION_LIMIT), "1.000000x");
        assert_eq!(f(12_000_000, PER_EXPRESSION_LIMIT), "1.200000x");
        assert_eq!(f(999_000_000, PER_EXPRESSION_LIMIT), "99.9x");
        assert_eq!(f(1_000_000_001, PER_EXPRESSION_LIMIT), "more than 100x");
        // Ties are decided on the binary value, as Go (and Rust) print it.
        for cost in [
            21_500_000u64,
            20_500_000,
            123_456_789,
            14_999_999,
            15_000_000,
        ] {
            let x = cost as f64 / PER_EXPRESSION_LIMIT as f64;
            let want = if x < 1.5 {
                format!("{x:.6}x")
            } else {
                format!("{x:.1}x")
            };
            assert_eq!(f(cost, PER_EXPRESSION_LIMIT), want, "{cost}");
        }
    }
}
