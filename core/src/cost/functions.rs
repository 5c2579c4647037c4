//! The cost of calls: cel-go's built-in functions, the extensions the apiserver enables, and
//! the Kubernetes library's `EstimateCallCost`.

use super::estimate::{Est, Estimator, F, R, union_entry};
use super::range::{Range, ceil, go_f64_to_u64};
use crate::ast::Expr;
use crate::decl::Opaque;
use crate::types::Ty;

impl<'a> Estimator<'_, 'a> {
    /// One overload's estimate: the extension estimators, then the Kubernetes one (by function
    /// name), then cel-go's own table, then 1. Returns the cost with the arguments' costs (not
    /// the target's) and the result size.
    // Guards stay inside the arms: an arm whose arity does not fit falls back to cost 1, as
    // the estimator upstream does, rather than on to other arms.
    #[allow(clippy::too_many_arguments, clippy::collapsible_match)]
    pub(super) const fn function_cost(
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
                    let s = self.sz(e, self.c.ast.r(args, 0));
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
                    return (
                        self.sz(e, self.c.ast.r(args, 0)).factor(F).add(arg_sum),
                        None,
                    );
                }
            }
            b"in_list" => {
                if argc == 2 {
                    return (
                        self.sz(e, self.c.ast.r(args, 1)).factor(1.0).add(arg_sum),
                        None,
                    );
                }
            }
            b"matches" | b"matches_string" => {
                let nodes = match target {
                    Some(t) if argc == 1 && matches!(id, b"matches_string") => {
                        Some((t, self.c.ast.r(args, 0)))
                    }
                    // The global form is priced from cel-go 0.29 (Kubernetes 1.37) on; before,
                    // it was an O(1) call.
                    None if argc == 2
                        && matches!(id, b"matches")
                        && self.c.releases.price_matches_and_includes() =>
                    {
                        Some((self.c.ast.r(args, 0), self.c.ast.r(args, 1)))
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
                    let b = self.sz(e, self.c.ast.r(args, 0)).factor(F);
                    return (a.mul(b).add(arg_sum), None);
                }
            }
            b"conditional" => {
                let (c0, c1, c2) = (
                    self.c.ast.r(args, 0),
                    self.c.ast.r(args, 1),
                    self.c.ast.r(args, 2),
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
                    let (l, r) = (self.c.ast.r(args, 0), self.c.ast.r(args, 1));
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
                let l = self.sz(e, self.c.ast.r(args, 0));
                let r = self.sz(e, self.c.ast.r(args, 1));
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
    pub(super) const fn extension_cost(
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
            let a = self.sz(e, self.c.ast.r(args, 0));
            let b = self.sz(e, self.c.ast.r(args, 1));
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
            let start = self.literal_uint(self.c.ast.r(args, 0), 0);
            let end = self.literal_uint(self.c.ast.r(args, 1), s.max);
            let size = fixed!(end.wrapping_sub(start));
            return Some((size.factor(1.0).add(alloc), Some(size)));
        }
        if matches!(id, b"lists_range") {
            if target.is_some() || argc != 1 {
                return None;
            }
            let size = fixed!(self.literal_uint(self.c.ast.r(args, 0), u64::MAX));
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
                self.literal_uint(self.c.ast.r(args, 0), u64::MAX)
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
                Some(_) if sort_by && argc == 1 => self.c.ast.r(args, 0),
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
    pub(super) const fn literal_uint(&self, n: u32, default: u64) -> u64 {
        match self.c.nodes[n as usize].expr {
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
    pub(super) const fn kubernetes_cost(
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
                let s = self.sz(e, self.c.ast.r(args, 0));
                let parse = s.factor(F);
                let requirements = s.factor(0.5).factor(50.0);
                return Some((fixed!(10).add(parse).add(requirements), None));
            }
            // `includes` is priced from 1.37 on; before, the library had no estimate for it.
            b"includes" if !self.c.releases.price_matches_and_includes() => return None,
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
                let s = self.sz(e, self.c.ast.r(args, 0));
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
                let from = self.sz(e, self.c.ast.r(args, 0));
                let with = self.sz(e, self.c.ast.r(args, 1));
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
                    && let Expr::Int(v) = self.c.nodes[self.c.ast.r(args, 1) as usize].expr
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
                    let sep = self.sz(e, self.c.ast.r(args, 0));
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
                let re_cost = self.sz(e, self.c.ast.r(args, 0)).factor(R);
                return Some((str_cost.mul(re_cost), Some(Range { min: 0, max: s.max })));
            }
            b"cidr" | b"isIP" | b"isCIDR" | b"quantity" | b"isQuantity" | b"semver"
            | b"isSemver" => {
                if argc < 1 {
                    return None;
                }
                return Some((self.sz(e, self.c.ast.r(args, 0)).factor(F), None));
            }
            b"ip" => {
                if matches!(id, b"cidr_ip") {
                    return Some((one, None));
                }
                if argc < 1 {
                    return None;
                }
                return Some((self.sz(e, self.c.ast.r(args, 0)).factor(F), None));
            }
            b"ip.isCanonical" => {
                if argc < 1 {
                    return None;
                }
                return Some((self.sz(e, self.c.ast.r(args, 0)).factor(2.0 * F), None));
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
                    c = c.add(self.sz(e, self.c.ast.r(args, 0)).factor(F));
                }
                return Some((c, None));
            }
            b"validate" => {
                if argc < 1 {
                    return None;
                }
                let s = self.sz(e, self.c.ast.r(args, 0));
                return Some((s.factor(F).factor(128.0 * R), None));
            }
            b"_==_" if argc == 2 => {
                let (l, r) = (self.c.ast.r(args, 0), self.c.ast.r(args, 1));
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
pub(super) const fn starts_with(x: &[u8], p: &[u8]) -> bool {
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

pub(super) const fn ends_with(x: &[u8], p: &[u8]) -> bool {
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
