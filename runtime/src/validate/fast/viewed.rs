//! The typed fast path's rules run on views of the Rust value ([`crate::eval::view`]): the
//! schema tree walked beside the value, each rule evaluated in place (its `ViewProgram`, in
//! `eval/interp/viewed.rs`), no CEL value built.
//!
//! Like the rest of the fast path it only ever answers "valid": a rule that is not `true`, a
//! value the view cannot describe, or a cost that could pass the budget, and it gives up (the
//! caller goes the value-building way, then the JSON way). Its cost is the rules' estimated
//! maxima, which bound what the interpreter would count, so passing here means the apiserver's
//! budget holds too.

use super::serialize::{MAX_HASHED_KEYS, check_only};
use super::unique::{ABSENT_KEY, hashes_repeat, key_tuple_step, scalar_hash, str_hash};
use crate::eval::interp::Miss;
use crate::eval::value::Value;
use crate::eval::view::SerCheck;
use crate::eval::view::{ListView, ObjView, ViewRef};
use crate::model::Type;
use crate::tree::{ListKind, SchemaNode};
use crate::validate::bounds::{Bounds, Kind};
use crate::validate::compile::{CompiledRule, Nodes};
use crate::validate::{PER_CALL_LIMIT, RUNTIME_COST_BUDGET};

/// Whether every rule of the tree below `node` can run on views: planned, within the subset
/// the viewed evaluation implements, with an estimated cost within the per-call limit, and
/// (for transition rules) reached through objects only, where the old value is the same field
/// of the old object (below a list or a map it is correlated by key or not at all, which the
/// walk does not emulate).
pub(crate) fn ready(nodes: &Nodes, node: &SchemaNode, in_collection: bool) -> bool {
    if !node.rules_below {
        return true;
    }
    let rule_ok = |r: &CompiledRule| {
        r.program().is_ok_and(|p| {
            r.viewed.is_some()
                && !r.optional_old_self
                && !(in_collection && p.uses_old_self())
                && r.max_cost.is_some_and(|c| c <= PER_CALL_LIMIT)
        })
    };
    nodes.rules(node).iter().all(rule_ok)
        && node
            .properties
            .iter()
            .all(|(_, child)| ready(nodes, child, in_collection))
        && [node.items.as_deref(), node.additional_properties.as_deref()]
            .into_iter()
            .flatten()
            .all(|child| ready(nodes, child, true))
}

/// Why the walk on views stops without an answer (never "invalid").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// A rule gave no answer ([`Miss`]).
    Rule(Miss),
    /// A schema check read on views did not pass, or could not be read on views: the serde
    /// pass decides.
    Check,
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
    nodes: &Nodes,
    root: &SchemaNode,
    new: ViewRef<'_>,
    old: Option<ViewRef<'_>>,
    checks: bool,
) -> Result<(), Stop> {
    Walk::new(nodes, checks, true, false).node(root, new, old)
}

/// Whether the old values that transition rules read pass their checks: the estimated cost
/// such a rule is charged assumes its old value within the schema's bounds too, which nothing
/// else checks (an old object may predate a bound). Only the paths to those rules are walked.
pub(crate) fn old_within_bounds(nodes: &Nodes, root: &SchemaNode, old: ViewRef<'_>) -> bool {
    !root.transition_below
        || Walk::new(nodes, true, false, true)
            .node(root, old, None)
            .is_ok()
}

struct Walk<'n> {
    nodes: &'n Nodes,
    /// The estimated maxima of the rules run so far.
    cost: u64,
    /// Whether the schema checks are read on views too.
    checks: bool,
    /// Whether the rules run (else only the checks are read).
    rules: bool,
    /// Whether only the paths to transition rules' nodes are checked (and their subtrees).
    prune: bool,
}

impl<'n> Walk<'n> {
    fn new(nodes: &'n Nodes, checks: bool, rules: bool, prune: bool) -> Walk<'n> {
        Walk {
            nodes,
            cost: 0,
            checks,
            rules,
            prune,
        }
    }
}

/// The most items whose hashes a list-type check keeps on the stack.
const STACK_HASHES: usize = 32;

impl Walk<'_> {
    /// `Ok(())` when every rule at and below `node` holds (and, with checks, the value passes
    /// every check at and below `node`).
    fn node(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
    ) -> Result<(), Stop> {
        if self.checks && !self.check(node, new)? {
            return Err(Stop::Check);
        }
        // Rules run on values that are there (a `null` is not).
        if matches!(new, ViewRef::Absent | ViewRef::Null) {
            return Ok(());
        }
        let old = old.filter(|o| !matches!(o, ViewRef::Absent | ViewRef::Null));
        // The entries first, so that a rule runs on a value whose every check has passed: the
        // estimated cost it is charged assumes the schema's bounds, and a comprehension over a
        // list far longer than its maxItems would take as long as the list makes it.
        let prune = self.prune;
        self.prune &= !node.transition;
        let entries = self.entries(node, new, old);
        self.prune = prune;
        entries?;
        if node.rules_below && self.rules {
            self.rules(node, new, old)?;
        }
        Ok(())
    }

    /// The rules and checks of `new`'s entries, when it is a container.
    fn entries(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
    ) -> Result<(), Stop> {
        let rules = node.rules_in_children && self.rules;
        // Only a container's entries are left to check (serde checked a `Ser` whole).
        let checks =
            self.checks && matches!(new, ViewRef::Obj(_) | ViewRef::Map(_) | ViewRef::List(_));
        if !rules && !checks {
            return Ok(());
        }
        match (node.ty, new) {
            (Type::Object, ViewRef::Obj(o)) => self.object(node, o, old, rules),
            (Type::Object, ViewRef::Map(m)) if node.properties.is_empty() => {
                let values = node.additional_properties.as_deref().ok_or(Miss::Unknown)?;
                let mut out = Ok(());
                m.cel_entries(&mut |_, v| {
                    out = self.node(values, v, None);
                    out.is_ok()
                });
                out
            }
            (Type::Array, ViewRef::List(l)) => self.list(node, l, rules, checks),
            // Rules below something the view does not describe.
            _ if rules => Err(Miss::Unviewable.into()),
            _ => Err(Stop::Check),
        }
    }

    /// Runs the rules of `node`.
    fn rules(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
    ) -> Result<(), Miss> {
        for rule in self.nodes.rules(node) {
            let program = rule.program().map_err(|_| Miss::Unknown)?;
            let viewed = rule.viewed.as_ref().ok_or(Miss::Unknown)?;
            let transition = program.uses_old_self();
            // A transition rule runs on an update whose old object has the value.
            if transition && old.is_none() {
                continue;
            }
            let cost = rule.max_cost.ok_or(Miss::Unknown)?;
            self.cost = self.cost.saturating_add(cost);
            if self.cost > RUNTIME_COST_BUDGET as u64 {
                return Err(Miss::Unknown);
            }
            let old = if transition { old } else { None };
            if !viewed.eval(new, old, node)? {
                return Err(Miss::Unknown);
            }
        }
        Ok(())
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
        for (i, (name, child)) in node.properties.iter().enumerate() {
            let rules = rules && child.rules_below;
            if (!self.checks && !rules) || (self.prune && !child.transition_below) {
                continue;
            }
            let v = o.cel_field(name);
            if self.checks {
                if matches!(v, ViewRef::Absent) {
                    if self.bounds(node)?.required.contains(&i) {
                        return Err(Stop::Check);
                    }
                    continue;
                }
                present += 1;
            }
            let old = match old {
                Some(ViewRef::Obj(o)) if rules => Some(o.cel_field(name)),
                Some(_) if rules => return Err(Miss::Unviewable.into()),
                _ => None,
            };
            self.node(child, v, old)?;
        }
        if self.checks && !self.prune {
            // Serialized fields the schema does not declare (a resource's `apiVersion`, `kind`
            // and `metadata` where the tree has none) count, and are checked no further, as
            // in the serde pass; beside `additionalProperties` they are its to judge.
            let count = o.cel_count();
            let undeclared = count.checked_sub(present).ok_or(Stop::Check)?;
            if (undeclared > 0 && node.additional_properties.is_some())
                || !self.bounds(node)?.properties_ok(count)
            {
                return Err(Stop::Check);
            }
        }
        Ok(())
    }

    /// The items of a list: each one's rules and checks, with the list type's uniqueness.
    fn list(
        &mut self,
        node: &SchemaNode,
        l: &dyn ListView,
        rules: bool,
        checks: bool,
    ) -> Result<(), Stop> {
        let items = node.items.as_deref().ok_or(Miss::Unknown)?;
        let rules = rules && items.rules_below;
        let len = l.cel_len();
        let unique = checks && !matches!(node.list_kind, ListKind::Plain);
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
            self.node(items, item, None)?;
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

    fn bounds(&self, node: &SchemaNode) -> Result<&Bounds, Stop> {
        self.nodes.bounds(node).ok_or(Stop::Check)
    }

    /// Whether `v` passes the checks of `node` itself (a container's kind and counts; its
    /// entries are checked by the walk), as the serde pass's serializer of the node would
    /// accept it.
    fn check(&self, node: &SchemaNode, v: ViewRef<'_>) -> Result<bool, Stop> {
        let b = self.bounds(node)?;
        Ok(match v {
            // A property's absence is its object's to judge.
            ViewRef::Absent => false,
            ViewRef::Null => b.fits(node, Kind::Null),
            ViewRef::Bool(x) => b.fits(node, Kind::Bool) && b.bool_ok(x),
            ViewRef::Int(i) => b.fits(node, Kind::Int) && b.number_ok(Some(i), i as f64),
            ViewRef::Double(d) => {
                b.fits(node, Kind::Float) && d.is_finite() && b.number_ok(None, d)
            }
            ViewRef::Str(s) => b.fits(node, Kind::Str) && b.string_ok(s),
            ViewRef::Obj(_) => {
                b.fits(node, Kind::Object)
                    && (!node.properties.is_empty() || node.additional_properties.is_none())
            }
            ViewRef::Map(m) => {
                b.fits(node, Kind::Object)
                    && node.properties.is_empty()
                    && node.additional_properties.is_some()
                    && b.properties_ok(m.cel_len())
            }
            ViewRef::List(l) => {
                b.fits(node, Kind::List)
                    && b.items_ok(l.cel_len())
                    && match &node.list_kind {
                        ListKind::Map(keys) => keys.len() <= MAX_HASHED_KEYS,
                        _ => true,
                    }
            }
            ViewRef::Opaque => false,
            ViewRef::Ser(s) => s.cel_check(node, self.nodes),
        })
    }
}

impl<T: serde::Serialize> SerCheck for T {
    fn cel_check(&self, node: &SchemaNode, nodes: &dyn std::any::Any) -> bool {
        // Monomorphized for the value's type, as the serde pass of the whole object is.
        nodes
            .downcast_ref::<Nodes>()
            .is_some_and(|nodes| check_only(self, node, nodes))
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
