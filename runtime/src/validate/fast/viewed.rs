//! The typed fast path's rules run on views of the Rust value ([`crate::eval::view`]): the
//! schema tree walked beside the value, each rule evaluated in place (its `ViewProgram`, in
//! `eval/interp/viewed.rs`), no CEL value built.
//!
//! Like the rest of the fast path it only ever answers "valid": a rule that is not `true`, a
//! value the view cannot describe, or a cost that could pass the budget, and it gives up (the
//! caller goes the value-building way, then the JSON way). Its cost is the rules' estimated
//! maxima, which bound what the interpreter would count, so passing here means the apiserver's
//! budget holds too.

use crate::eval::interp::Miss;
use crate::eval::view::ViewRef;
use crate::model::Type;
use crate::tree::SchemaNode;
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

/// Whether every rule below `root` is `true` on `new` (an update from `old`), judged on views:
/// `Ok(())`, or why it cannot tell (never "invalid").
pub(crate) fn valid(
    nodes: &Nodes,
    root: &SchemaNode,
    new: ViewRef<'_>,
    old: Option<ViewRef<'_>>,
) -> Result<(), Miss> {
    let mut walk = Walk { nodes, cost: 0 };
    walk.node(root, new, old)
}

struct Walk<'n> {
    nodes: &'n Nodes,
    /// The estimated maxima of the rules run so far.
    cost: u64,
}

impl Walk<'_> {
    /// `Ok(())` when every rule at and below `node` holds.
    fn node(
        &mut self,
        node: &SchemaNode,
        new: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
    ) -> Result<(), Miss> {
        // Rules run on values that are there (a `null` is not).
        if !node.rules_below || matches!(new, ViewRef::Absent | ViewRef::Null) {
            return Ok(());
        }
        let old = old.filter(|o| !matches!(o, ViewRef::Absent | ViewRef::Null));
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
        let children = node.properties.iter().map(|(_, c)| c);
        let below = children
            .chain(node.items.as_deref())
            .chain(node.additional_properties.as_deref())
            .any(|c| c.rules_below);
        if !below {
            return Ok(());
        }
        match (node.ty, new) {
            (Type::Object, ViewRef::Obj(o)) => {
                for (name, child) in &node.properties {
                    if child.rules_below {
                        let old = match old {
                            Some(ViewRef::Obj(o)) => Some(o.cel_field(name)),
                            Some(_) => return Err(Miss::Unviewable),
                            None => None,
                        };
                        self.node(child, o.cel_field(name), old)?;
                    }
                }
                Ok(())
            }
            (Type::Object, ViewRef::Map(m)) if node.properties.is_empty() => {
                let values = node.additional_properties.as_deref().ok_or(Miss::Unknown)?;
                if values.rules_below {
                    let mut keys = Vec::with_capacity(m.cel_len());
                    m.cel_keys(&mut keys);
                    for key in keys {
                        self.node(values, m.cel_get(key), None)?;
                    }
                }
                Ok(())
            }
            (Type::Array, ViewRef::List(l)) => {
                let items = node.items.as_deref().ok_or(Miss::Unknown)?;
                if items.rules_below {
                    for i in 0..l.cel_len() {
                        // A `null` item is not skipped by the apiserver's walk: defer.
                        let item = l.cel_item(i);
                        if matches!(item, ViewRef::Absent | ViewRef::Null) {
                            return Err(Miss::Unknown);
                        }
                        self.node(items, item, None)?;
                    }
                }
                Ok(())
            }
            // Rules below something the view does not describe.
            _ => Err(Miss::Unviewable),
        }
    }
}
