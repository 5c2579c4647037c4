//! The typed fast path's rules run on views of the Rust value ([`crate::eval::view`]): the
//! schema tree walked beside the value, each rule evaluated in place (its `ViewProgram`, in
//! `eval/interp/viewed.rs`), no CEL value built. A rule the views cannot run is evaluated on
//! its node's value alone, built by serde, and the walk goes on.
//!
//! Like the rest of the fast path it only ever answers "valid": a rule that is not `true`, a
//! value the view cannot describe, or a cost that could pass the budget, and it gives up (the
//! caller goes the value-building way, then the JSON way). Its cost is the estimated maxima of
//! the rules run on views, which bound what the interpreter would count, and the counted cost
//! of those run on values, so passing here means the apiserver's budget holds too.

use std::sync::atomic::Ordering;

use super::serialize::{MAX_HASHED_KEYS, check_only, values_at};
use super::unique::{ABSENT_KEY, SCAN_UP_TO, hashes_repeat, key_tuple_step, scalar_hash, str_hash};
use crate::eval::interp::Miss;
use crate::eval::interp::derived::{CROSS_CHECK, CROSS_CHECKED, bind};
use crate::eval::value::Value;
use crate::eval::view::SerValue;
use crate::eval::view::{ListView, ObjView, ValuesAt, ViewRef};
use crate::model::Type;
use crate::tree::{ListKind, SchemaNode, TYPE_AND_OBJECT_META};
use crate::validate::bounds::{Bounds, Kind};
use crate::validate::compile::Nodes;
use crate::validate::{PER_CALL_LIMIT, RUNTIME_COST_BUDGET};

/// The tree the walk on views follows: the validator's schema root, its rules and bounds.
#[derive(Clone, Copy)]
pub(crate) struct Tree<'n> {
    pub(crate) nodes: &'n Nodes,
    pub(crate) root: &'n SchemaNode,
    /// The root is a resource root (`apiVersion`, `kind`, `metadata` implicit).
    pub(crate) resource_root: bool,
    /// The Kubernetes minor version the rules evaluated on values are run for.
    pub(crate) minor: u8,
}

impl Tree<'_> {
    /// Whether `node` is the tree's root and that is a resource root.
    fn is_root_resource(&self, node: &SchemaNode) -> bool {
        self.resource_root && std::ptr::eq(node, self.root)
    }
}

/// Why the walk on views stops without an answer (never "invalid").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A rule gave no answer ([`Miss`]).
    Rule(Miss),
    /// A schema check read on views did not pass, or could not be read on views: the serde
    /// pass decides.
    Check,
    /// The old value of a map-list item could not be found on views (an item or a key field
    /// without a view): the type's updates go the value-building way.
    Uncorrelated,
}

impl From<Miss> for Stop {
    fn from(m: Miss) -> Stop {
        Stop::Rule(m)
    }
}

/// Whether every rule below `root` is `true` on `new` (an update from `old`), judged on views,
/// and, with `checks`, whether `new` passes the schema's checks as the serde pass would check
/// it (its types, bounds, formats, patterns, required and counted properties, list types): the
/// value is read in place, and only what has no view ([`ViewRef::Ser`]) is serialized. The old
/// value must have passed [`old_within_bounds`].
pub(crate) fn valid(
    tree: Tree<'_>,
    new: ViewRef<'_>,
    old: Option<ViewRef<'_>>,
    checks: bool,
) -> Result<(), Stop> {
    match checks {
        true => Walk::<true, true, false>::new(tree).node(tree.root, new, old, None),
        false => Walk::<false, true, false>::new(tree).node(tree.root, new, old, None),
    }
}

/// Whether the old values that transition rules read pass their checks: the estimated cost
/// such a rule is charged assumes its old value within the schema's bounds too, which nothing
/// else checks (an old object may predate a bound). Only the paths to those rules are walked.
pub(crate) fn old_within_bounds(tree: Tree<'_>, old: ViewRef<'_>) -> bool {
    !tree.root.transition_below
        || Walk::<true, false, true>::new(tree)
            .node(tree.root, old, None, None)
            .is_ok()
}

/// The walk, in one of its modes, which are constants so that each mode's code has no test of
/// the others: `CHECKS`, the schema checks are read on views too; `RULES`, the rules run (else
/// only the checks are read); `PRUNE`, only the paths to transition rules' nodes are checked
/// (and their subtrees). A subtree may be walked in another mode ([`Walk::in_mode`]).
struct Walk<'n, const CHECKS: bool, const RULES: bool, const PRUNE: bool> {
    tree: Tree<'n>,
    /// The cost of the rules run so far: the estimated maxima of those run on views, the
    /// counted cost of those run on values; a bound of what the apiserver would count.
    cost: u64,
}

impl<'n, const C: bool, const R: bool, const P: bool> Walk<'n, C, R, P> {
    fn new(tree: Tree<'n>) -> Self {
        Walk { tree, cost: 0 }
    }

    /// `f` on a walk in another mode (the same rules), the cost carried over.
    #[inline(always)]
    fn in_mode<const C2: bool, const P2: bool>(
        &mut self,
        f: impl FnOnce(&mut Walk<'n, C2, R, P2>) -> Result<(), Stop>,
    ) -> Result<(), Stop> {
        let mut walk = Walk {
            tree: self.tree,
            cost: self.cost,
        };
        let out = f(&mut walk);
        self.cost = walk.cost;
        out
    }
}

/// The struct a node's value is a field of, and the field's name: where the derive's code for
/// a rule written on the field is found.
type Parent<'v> = Option<(&'v dyn ObjView, &'v str)>;

/// The most items whose hashes a list-type check keeps on the stack.
const STACK_HASHES: usize = 32;

impl<const C: bool, const R: bool, const P: bool> Walk<'_, C, R, P> {
    /// `Ok(())` when every rule at and below `node` holds (and, with checks, the value passes
    /// every check at and below `node`).
    fn node(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
        parent: Parent<'_>,
    ) -> Result<(), Stop> {
        if C && !self.check(node, new)? {
            return Err(Stop::Check);
        }
        // Rules run on values that are there (a `null` is not).
        if matches!(new, ViewRef::Absent | ViewRef::Null) {
            return Ok(());
        }
        let old = old.filter(|o| !matches!(o, ViewRef::Absent | ViewRef::Null));
        if C && R && node.has_rules && self.tree.nodes.values_needed(node) {
            return self.node_on_value(node, new, old, parent);
        }
        // The entries first, so that a rule runs on a value whose every check has passed: the
        // estimated cost it is charged assumes the schema's bounds, and a comprehension over a
        // list far longer than its maxItems would take as long as the list makes it. Below a
        // transition rule's node, everything its transition rules read of `oldSelf` is
        // checked ([`Walk::object`] takes the fields they select).
        match P && node.transition && !(node.old_reads.is_some() && matches!(new, ViewRef::Obj(_)))
        {
            true => self.in_mode::<C, false>(|w| w.entries(node, new, old))?,
            false => self.entries(node, new, old)?,
        }
        if R && node.rules_below {
            self.rules(node, new, old, None, parent)?;
        }
        Ok(())
    }

    /// [`Walk::node`] of a node with a rule the views cannot run: serde builds the node's
    /// value and checks its subtree in one pass (where checks on views and a build would each
    /// walk it), the entries' rules run on views, then the node's. Out of line: the recursive
    /// walk keeps a small frame.
    #[inline(never)]
    fn node_on_value(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
        parent: Parent<'_>,
    ) -> Result<(), Stop> {
        let built = self.checked_value(node, new, old.is_some())?;
        // Only the entries' rules are left where serde checked the subtree. (This walk runs
        // the rules, so it does not prune: only the old object's walk prunes, without rules.)
        debug_assert!(R && !P);
        match built.is_some() {
            true => self.in_mode::<false, P>(|w| w.entries(node, new, old))?,
            false => self.entries(node, new, old)?,
        }
        self.rules(node, new, old, built, parent)?;
        Ok(())
    }

    /// The rules and checks of `new`'s entries, when it is a container.
    #[inline(always)]
    fn entries(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
    ) -> Result<(), Stop> {
        let rules = R && node.rules_in_children;
        // Only a container's entries are left to check (serde checked a `Ser` whole).
        let checks = C && matches!(new, ViewRef::Obj(_) | ViewRef::Map(_) | ViewRef::List(_));
        if !rules && !checks {
            return Ok(());
        }
        match (node.ty, new) {
            (Type::Object, ViewRef::Obj(o)) => self.object(node, o, old, rules),
            (Type::Object, ViewRef::Map(m)) if node.properties.is_empty() => {
                let values = node.additional_properties.as_deref().ok_or(Miss::Unknown)?;
                // A map's old values correlate by key, for the transition rules below.
                let old = match old {
                    Some(ViewRef::Map(o)) if rules && values.transition_below => Some(o),
                    Some(_) if rules && values.transition_below => {
                        return Err(Stop::Uncorrelated);
                    }
                    _ => None,
                };
                let mut out = Ok(());
                m.cel_entries(&mut |k, v| {
                    out = self.node(values, v, old.map(|o| o.cel_get(k)), None);
                    out.is_ok()
                });
                out
            }
            (Type::Array, ViewRef::List(l)) => self.list(node, l, old, rules, checks),
            // Any value below a node that keeps it whole (its own check took it): nothing in
            // it is checked, and no rule is below it.
            (Type::Any, _) if node.preserve_unknown_fields && !rules => Ok(()),
            // Rules below something the view does not describe.
            _ if rules => Err(Miss::Unviewable.into()),
            _ => Err(Stop::Check),
        }
    }

    /// Runs the rules of `node`: on views where they can, else on the node's value built by
    /// serde, their cost counted (as the apiserver counts it, which the estimate bounds).
    #[inline(always)]
    fn rules(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
        mut built: Option<Value>,
        parent: Parent<'_>,
    ) -> Result<(), Miss> {
        // The node's values, built once for all its rules that need them.
        let mut built_old: Option<Value> = None;
        for rule in self.tree.nodes.rules(node) {
            if !rule.runs(old.is_some()) {
                continue;
            }
            let program = rule.program().map_err(|_| Miss::Unknown)?;
            let transition = program.uses_old_self();
            if let Some(viewed) = rule.viewed.as_ref().filter(|_| rule.on_views())
                && let Some(cost) = rule.max_cost
                && self.cost.saturating_add(cost) <= RUNTIME_COST_BUDGET as u64
            {
                // The derive's code for the rule, where the struct has it.
                let derived = match (transition, new, parent) {
                    (true, ..) => None,
                    (false, ViewRef::Obj(o), _) => bind(viewed, &rule.rule, o, node, None),
                    (false, _, Some((o, name))) => bind(viewed, &rule.rule, o, node, Some(name)),
                    _ => None,
                };
                let verdict = match derived {
                    Some(b) if CROSS_CHECK.load(Ordering::Relaxed) => {
                        self.cross_check(rule, viewed, node, new, b);
                        Ok(b)
                    }
                    Some(b) => Ok(b),
                    None => viewed.eval(new, if transition { old } else { None }, node),
                };
                match verdict {
                    Ok(true) => {
                        self.cost += cost;
                        continue;
                    }
                    Ok(false) => return Err(Miss::Unknown),
                    Err(Miss::Unviewable) => {
                        viewed.unviewable.store(true, Ordering::Relaxed);
                        self.tree.nodes.need_values(node);
                    }
                    Err(Miss::Unknown) => {}
                }
            }
            if built.is_none() {
                built = Some(self.value_of(node, new, false, false)?);
            }
            let this = built.as_ref().ok_or(Miss::Unknown)?;
            if transition && built_old.is_none() {
                built_old = match old {
                    Some(o) => Some(self.value_of(node, o, true, false)?),
                    None => None,
                };
            }
            let old_value = built_old.as_ref().filter(|_| transition);
            // With `optional_old_self`, `oldSelf` is an optional: none on a create.
            let optional;
            let old_self = match rule.optional_old_self {
                true => {
                    optional = old_value.map_or(Value::Optional(None), |o| Value::some(o.clone()));
                    Some(&optional)
                }
                false => old_value,
            };
            let ev = program.eval_for(this, old_self, PER_CALL_LIMIT, self.tree.minor);
            self.cost = self.cost.saturating_add(ev.cost);
            if self.cost > RUNTIME_COST_BUDGET as u64 || !matches!(ev.result, Ok(Value::Bool(true)))
            {
                return Err(Miss::Unknown);
            }
        }
        Ok(())
    }

    /// Records where the derive's code's answer `b` for `rule` on `new` is not what the
    /// viewed interpreter and the interpreter on the built value give (a test switch:
    /// [`CROSS_CHECK`]).
    #[inline(never)]
    fn cross_check(
        &self,
        rule: &crate::validate::compile::CompiledRule,
        viewed: &crate::eval::interp::ViewProgram,
        node: &SchemaNode,
        new: ViewRef<'_>,
        b: bool,
    ) {
        let on_views = viewed.eval(new, None, node);
        let on_values = self.value_of(node, new, false, false).ok().and_then(|v| {
            let program = rule.program().ok()?;
            let ev = program.eval_for(&v, None, PER_CALL_LIMIT, self.tree.minor);
            Some(ev.result.map_err(|e| e.message))
        });
        let agrees = on_views == Ok(b)
            && on_values
                .as_ref()
                .is_none_or(|r| matches!(r, Ok(Value::Bool(x)) if *x == b));
        CROSS_CHECKED.with_borrow_mut(|seen| {
            seen.0 += 1;
            if !agrees {
                seen.1.push(format!(
                    "rule {:?}: the derive's code gives {b}, the viewed interpreter \
                     {on_views:?}, the interpreter on values {on_values:?}",
                    rule.rule
                ));
            }
        });
    }

    /// The CEL value of `v` as the node `node` (of the old object when `old`), built by
    /// serde as the serde pass builds it there, checking the subtree when `check`
    /// ([`Miss::Unknown`] if a check fails). [`Miss::Unviewable`] when the view has no
    /// `Serialize` to build it with (that recurs for the type).
    #[inline(never)]
    fn value_of(
        &self,
        node: &SchemaNode,
        v: ViewRef<'_>,
        old: bool,
        check: bool,
    ) -> Result<Value, Miss> {
        let how = ValuesAt {
            old,
            resource: self.tree.is_root_resource(node),
            check,
        };
        let nodes = self.tree.nodes;
        let scalar = |r: Result<Value, _>| r.map_err(|_| Miss::Unknown);
        let serde = match v {
            ViewRef::Bool(b) => return scalar(values_at(&b, node, nodes, how)),
            ViewRef::Int(i) => return scalar(values_at(&i, node, nodes, how)),
            ViewRef::Double(d) => return scalar(values_at(&d, node, nodes, how)),
            ViewRef::Str(s) => return scalar(values_at(s, node, nodes, how)),
            ViewRef::Obj(o) => o.cel_serde(),
            ViewRef::Map(m) => m.cel_serde(),
            ViewRef::List(l) => l.cel_serde(),
            ViewRef::Ser(s) => Some(s),
            ViewRef::Absent | ViewRef::Null | ViewRef::Opaque => None,
        };
        serde
            .ok_or(Miss::Unviewable)?
            .cel_values(node, nodes, how)
            .ok_or(Miss::Unknown)
    }

    /// The value of `node` when one of its rules will run on it, built by serde with the
    /// node's subtree checked in the same pass ([`Stop::Check`] if a check fails).
    fn checked_value(
        &self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        update: bool,
    ) -> Result<Option<Value>, Stop> {
        if !self
            .tree
            .nodes
            .rules(node)
            .iter()
            .any(|r| !r.on_views() && r.runs(update))
        {
            return Ok(None);
        }
        match self.value_of(node, new, false, true) {
            Ok(v) => Ok(Some(v)),
            Err(Miss::Unknown) => Err(Stop::Check),
            Err(Miss::Unviewable) => Ok(None),
        }
    }

    /// The properties of a struct: each one's rules and checks, with `required` and the
    /// property count.
    fn object(
        &mut self,
        node: &SchemaNode,
        o: &dyn ObjView,
        old: Option<ViewRef<'_>>,
        rules: bool,
    ) -> Result<(), Stop> {
        let mut present = 0;
        // An old object whose transition rules select some of its fields: those are checked
        // whole, and the walk goes on pruned into the others.
        let old_reads = match P && node.transition {
            true => node.old_reads.as_deref(),
            false => None,
        };
        for (i, (name, child)) in node.properties.iter().enumerate() {
            let rules = rules && child.rules_below;
            let read = old_reads.is_some_and(|r| r.contains(&i));
            if (!C && !rules) || (P && !child.transition_below && !read) {
                continue;
            }
            let v = o.cel_field(name);
            if C {
                if matches!(v, ViewRef::Absent) {
                    if self.bounds(node)?.required.contains(&i) {
                        return Err(Stop::Check);
                    }
                    continue;
                }
                present += 1;
            }
            if self.leaf(child, v, Some((o, name)))? {
                continue;
            }
            let old = match old {
                Some(ViewRef::Obj(o)) if rules => Some(o.cel_field(name)),
                Some(_) if rules => return Err(Miss::Unviewable.into()),
                _ => None,
            };
            match P && read {
                true => self.in_mode::<C, false>(|w| w.node(child, v, old, Some((o, name))))?,
                false => self.node(child, v, old, Some((o, name)))?,
            }
        }
        if !C {
            return Ok(());
        }
        let b = self.bounds(node)?;
        let mut undeclared = None;
        if !P {
            // Serialized fields the schema does not declare (a resource's `apiVersion`, `kind`
            // and `metadata` where the tree has none) count, and are checked no further, as
            // in the serde pass; beside `additionalProperties` they are its to judge.
            let count = o.cel_count();
            let n = count.checked_sub(present).ok_or(Stop::Check)?;
            if (n > 0 && node.additional_properties.is_some()) || !b.properties_ok(count) {
                return Err(Stop::Check);
            }
            undeclared = Some(n);
        }
        if b.decoded_or_composed() && !self.decoded_and_composed(node, o, b, undeclared) {
            return Err(Stop::Check);
        }
        Ok(())
    }

    /// Whether `o` is an object the apiserver's decoding leaves as it is (no property it
    /// would default, on the old object too, where a transition rule or an old item's key
    /// would read the default; no undeclared key it would prune, when counted), and passes
    /// `allOf`/`anyOf`/`oneOf` of required properties. Out of line: few schemas have either.
    #[inline(never)]
    fn decoded_and_composed(
        &self,
        node: &SchemaNode,
        o: &dyn ObjView,
        b: &Bounds,
        undeclared: Option<usize>,
    ) -> bool {
        let has = |i: usize| !matches!(o.cel_field(&node.properties[i].0), ViewRef::Absent);
        b.decoded.defaulted.iter().all(|&i| has(i))
            && match undeclared {
                Some(n) => {
                    (n == 0 || !b.decoded.prunes || n <= Self::kept_meta(node, o))
                        && b.composition_ok(has)
                }
                None => true,
            }
    }

    /// The items of a list: each one's rules and checks, with the list type's uniqueness.
    fn list(
        &mut self,
        node: &SchemaNode,
        l: &dyn ListView,
        old: Option<ViewRef<'_>>,
        rules: bool,
        checks: bool,
    ) -> Result<(), Stop> {
        let items = node.items.as_deref().ok_or(Miss::Unknown)?;
        let rules = rules && items.rules_below;
        // Only a map list's items correlate with old ones, by key; the items of other lists
        // have no old value (the apiserver rejects transition rules there).
        let mut olds = match (&node.list_kind, old) {
            (ListKind::Map(keys), Some(ViewRef::List(o))) if rules && items.transition_below => {
                Some(OldItems::new(o, keys))
            }
            (ListKind::Map(_), Some(_)) if rules && items.transition_below => {
                return Err(Stop::Uncorrelated);
            }
            _ => None,
        };
        let len = l.cel_len();
        // An old value is checked for the bounds transition rules' costs assume, which its
        // items' uniqueness is not (and the apiserver does not check again).
        let unique = checks && !P && !matches!(node.list_kind, ListKind::Plain);
        let mut stack = [0u64; STACK_HASHES];
        let mut heap = Vec::new();
        if unique && len > STACK_HASHES {
            heap.reserve_exact(len);
        }
        for i in 0..len {
            let item = l.cel_item(i);
            // A `null` item is not skipped by the apiserver's walk: defer.
            if rules && matches!(item, ViewRef::Absent | ViewRef::Null) {
                return Err(Miss::Unknown.into());
            }
            if unique {
                let h = item_hash(&node.list_kind, item).ok_or(Stop::Check)?;
                match stack.get_mut(i) {
                    Some(slot) if len <= STACK_HASHES => *slot = h,
                    _ => heap.push(h),
                }
            }
            if self.leaf(items, item, None)? {
                continue;
            }
            let old = match &mut olds {
                Some(olds) => olds.find(item)?,
                None => None,
            };
            self.node(items, item, old, None)?;
        }
        if unique {
            let hashes = if len <= STACK_HASHES {
                &mut stack[..len]
            } else {
                &mut heap[..]
            };
            if hashes_repeat(hashes) {
                return Err(Stop::Check);
            }
        }
        Ok(())
    }

    /// How many of a resource's `apiVersion`, `kind` and `metadata` `o` has that the tree
    /// does not declare (a [`SchemaNode::type_meta`] node leaves all three out): decoding
    /// keeps them.
    fn kept_meta(node: &SchemaNode, o: &dyn ObjView) -> usize {
        if !node.type_meta {
            return 0;
        }
        TYPE_AND_OBJECT_META
            .into_iter()
            .filter(|k| !matches!(o.cel_field(k), ViewRef::Absent))
            .count()
    }

    fn bounds(&self, node: &SchemaNode) -> Result<&Bounds, Stop> {
        self.tree.nodes.bounds(node).ok_or(Stop::Check)
    }

    /// [`Walk::node`] of a scalar whose rules read no old value and run on views: its checks,
    /// then its rules (which then run the same on a create and an update). `Ok(true)` when
    /// done with it (it passed), `Ok(false)` when the walk must take it. Without the
    /// recursion, most of a struct's fields cost a few comparisons.
    #[inline(always)]
    fn leaf(
        &mut self,
        node: &SchemaNode,
        v: ViewRef<'_>,
        parent: Parent<'_>,
    ) -> Result<bool, Stop> {
        if !matches!(
            v,
            ViewRef::Bool(_) | ViewRef::Int(_) | ViewRef::Double(_) | ViewRef::Str(_)
        ) {
            return Ok(false);
        }
        let rules = R && node.rules_below;
        if rules && (node.transition || self.tree.nodes.values_needed(node)) {
            return Ok(false);
        }
        if C && !Self::scalar_ok(self.bounds(node)?, v) {
            return Err(Stop::Check);
        }
        if rules {
            self.rules(node, v, None, None, parent)?;
        }
        Ok(true)
    }

    /// [`Walk::check`] of a scalar, given its node's bounds: inline in the walk of a struct's
    /// fields, where most values are scalars.
    #[inline(always)]
    fn scalar_ok(b: &Bounds, v: ViewRef<'_>) -> bool {
        match v {
            ViewRef::Bool(x) => b.fits(Kind::Bool) && b.bool_ok(x),
            ViewRef::Int(i) => b.fits(Kind::Int) && b.number_ok(Some(i), i as f64),
            ViewRef::Double(d) => b.fits(Kind::Float) && d.is_finite() && b.number_ok(None, d),
            ViewRef::Str(s) => b.fits(Kind::Str) && b.string_ok(s),
            _ => false,
        }
    }

    /// Whether `v` passes the checks of `node` itself (a container's kind and counts; its
    /// entries are checked by the walk), as the serde pass's serializer of the node would
    /// accept it.
    fn check(&self, node: &SchemaNode, v: ViewRef<'_>) -> Result<bool, Stop> {
        let b = self.bounds(node)?;
        Ok(match v {
            // A property's absence is its object's to judge.
            ViewRef::Absent => false,
            ViewRef::Null => b.fits(Kind::Null),
            ViewRef::Bool(_) | ViewRef::Int(_) | ViewRef::Double(_) | ViewRef::Str(_) => {
                Self::scalar_ok(b, v)
            }
            ViewRef::Obj(_) => {
                b.fits(Kind::Object)
                    && (!node.properties.is_empty() || node.additional_properties.is_none())
            }
            ViewRef::Map(m) => {
                b.fits(Kind::Object)
                    && node.properties.is_empty()
                    && node.additional_properties.is_some()
                    && b.properties_ok(m.cel_len())
            }
            ViewRef::List(l) => {
                b.fits(Kind::List)
                    && b.items_ok(l.cel_len())
                    && match &node.list_kind {
                        ListKind::Map(keys) => keys.len() <= MAX_HASHED_KEYS,
                        _ => true,
                    }
            }
            ViewRef::Opaque => false,
            ViewRef::Ser(s) => s.cel_check(node, self.tree.nodes),
        })
    }
}

// Monomorphized for the value's type, as the serde pass of the whole object is.
impl<T: serde::Serialize> SerValue for T {
    fn cel_check(&self, node: &SchemaNode, nodes: &dyn std::any::Any) -> bool {
        nodes
            .downcast_ref::<Nodes>()
            .is_some_and(|nodes| check_only(self, node, nodes))
    }

    fn cel_values(
        &self,
        node: &SchemaNode,
        nodes: &dyn std::any::Any,
        how: ValuesAt,
    ) -> Option<Value> {
        let nodes = nodes.downcast_ref::<Nodes>()?;
        values_at(self, node, nodes, how).ok()
    }
}

/// The old items of a map list, found by the key of a new item as the apiserver finds them
/// (`k8s.io/apiserver/pkg/cel/common/maplist.go`): every key field present and a scalar, the
/// first old item with equal key fields. Short lists are scanned; long ones indexed by the key
/// tuple's hash on first use.
struct OldItems<'o> {
    items: &'o dyn ListView,
    keys: &'o [std::sync::Arc<str>],
    /// `(key tuple hash, index)` of the old items that have a key, sorted.
    index: Option<Vec<(u64, usize)>>,
}

impl<'o> OldItems<'o> {
    fn new(items: &'o dyn ListView, keys: &'o [std::sync::Arc<str>]) -> OldItems<'o> {
        OldItems {
            items,
            keys,
            index: None,
        }
    }

    /// The old item correlated with `item`, if any.
    fn find(&mut self, item: ViewRef<'_>) -> Result<Option<ViewRef<'o>>, Stop> {
        let Some(key) = KeyTuple::of(item, self.keys)? else {
            return Ok(None);
        };
        let len = self.items.cel_len();
        if len <= SCAN_UP_TO {
            for j in 0..len {
                let old = self.items.cel_item(j);
                if KeyTuple::of(old, self.keys)?.is_some_and(|k| k.eq(&key, self.keys)) {
                    return Ok(Some(old));
                }
            }
            return Ok(None);
        }
        if self.index.is_none() {
            let mut index = Vec::with_capacity(len);
            for j in 0..len {
                if let Some(k) = KeyTuple::of(self.items.cel_item(j), self.keys)? {
                    index.push((k.hash(self.keys)?, j));
                }
            }
            index.sort_unstable();
            self.index = Some(index);
        }
        let index = self.index.as_deref().unwrap_or_default();
        let h = key.hash(self.keys)?;
        let first = index.partition_point(|&(x, _)| x < h);
        for &(_, j) in index[first..].iter().take_while(|&&(x, _)| x == h) {
            let old = self.items.cel_item(j);
            if KeyTuple::of(old, self.keys)?.is_some_and(|k| k.eq(&key, self.keys)) {
                return Ok(Some(old));
            }
        }
        Ok(None)
    }
}

/// A map-list item whose key fields are all present scalars.
struct KeyTuple<'a>(&'a dyn ObjView);

impl<'a> KeyTuple<'a> {
    /// `None` when the item has no key to correlate by (not an object, a key field missing or
    /// not a scalar); [`Stop::Uncorrelated`] when the view cannot tell.
    fn of(item: ViewRef<'a>, keys: &[std::sync::Arc<str>]) -> Result<Option<KeyTuple<'a>>, Stop> {
        let o = match item {
            ViewRef::Obj(o) => o,
            ViewRef::Ser(_) | ViewRef::Opaque => return Err(Stop::Uncorrelated),
            _ => return Ok(None),
        };
        for k in keys {
            match o.cel_field(k) {
                ViewRef::Str(_) | ViewRef::Int(_) | ViewRef::Double(_) | ViewRef::Bool(_) => {}
                ViewRef::Ser(_) | ViewRef::Opaque => return Err(Stop::Uncorrelated),
                _ => return Ok(None),
            }
        }
        Ok(Some(KeyTuple(o)))
    }

    /// JSON equality of the key fields (`1` and `1.0` differ, as two numbers of different
    /// kinds in JSON do).
    fn eq(&self, other: &KeyTuple<'_>, keys: &[std::sync::Arc<str>]) -> bool {
        keys.iter()
            .all(|k| match (self.0.cel_field(k), other.0.cel_field(k)) {
                (ViewRef::Str(a), ViewRef::Str(b)) => a == b,
                (ViewRef::Int(a), ViewRef::Int(b)) => a == b,
                (ViewRef::Double(a), ViewRef::Double(b)) => a == b,
                (ViewRef::Bool(a), ViewRef::Bool(b)) => a == b,
                _ => false,
            })
    }

    fn hash(&self, keys: &[std::sync::Arc<str>]) -> Result<u64, Stop> {
        let mut tuple = 0;
        for k in keys {
            let h = scalar_view_hash(self.0.cel_field(k)).ok_or(Stop::Uncorrelated)?;
            tuple = key_tuple_step(tuple, h);
        }
        Ok(tuple)
    }
}

/// The hash a list-type check compares for an item of a set (a scalar) or of a map list (its
/// key fields' tuple); `None` for an item it cannot hash (the serde pass's then).
fn item_hash(kind: &ListKind, item: ViewRef<'_>) -> Option<u64> {
    match kind {
        ListKind::Plain => None,
        ListKind::Set => scalar_view_hash(item),
        ListKind::Map(keys) => {
            let ViewRef::Obj(o) = item else {
                return None;
            };
            let mut tuple = 0;
            for key in keys.iter() {
                let h = match o.cel_field(key) {
                    ViewRef::Absent => ABSENT_KEY,
                    v => scalar_view_hash(v)?,
                };
                tuple = key_tuple_step(tuple, h);
            }
            Some(tuple)
        }
    }
}

/// [`scalar_hash`] of a scalar view.
fn scalar_view_hash(v: ViewRef<'_>) -> Option<u64> {
    match v {
        ViewRef::Str(s) => Some(str_hash(s)),
        ViewRef::Int(i) => scalar_hash(&Value::Int(i)).ok(),
        ViewRef::Double(d) => scalar_hash(&Value::Double(d)).ok(),
        ViewRef::Bool(b) => scalar_hash(&Value::Bool(b)).ok(),
        _ => None,
    }
}
