//! The typed fast path's walk of the rules: the same order, correlation and budget as the
//! JSON walk, answering only "every rule is `true`" or [`Defer`].

use std::sync::Arc;

use super::Defer;
use super::serialize::scalar_eq;
use crate::eval::value::{ListKind, Value};
use crate::model::Type;
use crate::tree::SchemaNode;
use crate::validate::Options;
use crate::validate::compile::Nodes;

/// Runs the rules of `root` on `value` (and, on update, the correlated `old`) as the JSON walk
/// does, answering `Ok` only when every rule that runs is `true` within the budget.
pub(crate) fn rules(
    root: &SchemaNode,
    nodes: &Nodes,
    value: Option<&Value>,
    old: Option<&Value>,
    opts: &Options,
) -> Result<(), Defer> {
    let mut remaining = opts.budget;
    match value {
        Some(v) => node(root, nodes, v, old, opts, &mut remaining),
        None if root.rules_below => Err(Defer),
        None => Ok(()),
    }
}

fn node(
    s: &SchemaNode,
    nodes: &Nodes,
    value: &Value,
    old: Option<&Value>,
    opts: &Options,
    remaining: &mut i64,
) -> Result<(), Defer> {
    // Null data is not walked (a null field is not in the object at all).
    if matches!(value, Value::Null) || !s.rules_below {
        return Ok(());
    }
    if s.has_rules {
        if *remaining <= 0 {
            return Err(Defer);
        }
        for rule in nodes.rules(s) {
            let program = rule.program.as_ref().map_err(|_| Defer)?;
            let transition = program.uses_old_self();
            let optional_old = rule.optional_old_self.then(|| match old {
                Some(o) => Value::some(o.clone()),
                None => Value::Optional(None),
            });
            let old_self = optional_old.as_ref().or(old);
            if transition && old_self.is_none() {
                continue;
            }
            let ev = program.eval(value, old_self, opts.per_call_limit);
            if ev.cost > (*remaining).max(0) as u64 {
                return Err(Defer);
            }
            *remaining -= ev.cost as i64;
            if !matches!(ev.result, Ok(Value::Bool(true))) {
                return Err(Defer);
            }
        }
    }
    match (s.ty, value) {
        (Type::Array, Value::List(list)) => {
            let Some(item_schema) = s.items.as_deref() else {
                return Ok(());
            };
            if !item_schema.rules_below {
                return Ok(());
            }
            let old_items = match (old, &s.list_kind) {
                (Some(Value::List(l)), ListKind::Map(keys)) => Some((&l.items, keys)),
                _ => None,
            };
            for item in &list.items {
                let item_old = match old_items {
                    Some((olds, keys)) => correlate(item, olds, keys)?,
                    None => None,
                };
                node(item_schema, nodes, item, item_old, opts, remaining)?;
            }
        }
        (Type::Object, Value::Map(map)) => {
            let old_map = match old {
                Some(Value::Map(m)) => Some(m),
                _ => None,
            };
            if let Some(values) = s.additional_properties.as_deref()
                && values.rules_below
                && s.properties.is_empty()
            {
                for (k, v) in map.entries() {
                    let child_old = old_map.and_then(|m| m.get(k));
                    node(values, nodes, v, child_old, opts, remaining)?;
                }
            }
            for (name, child) in &s.properties {
                if !child.rules_below {
                    continue;
                }
                let Some(v) = map.get_str(name) else {
                    continue;
                };
                let child_old = old_map.and_then(|m| m.get_str(name));
                node(child, nodes, v, child_old, opts, remaining)?;
            }
        }
        // Data the schema does not allow is the JSON path's to report.
        (_, Value::Error(_)) => return Err(Defer),
        _ => {}
    }
    Ok(())
}

/// The old item with the same key as `item` (5.7): every key field present and a scalar, the
/// first old item with equal key fields wins.
fn correlate<'o>(
    item: &Value,
    olds: &'o [Value],
    keys: &[Arc<str>],
) -> Result<Option<&'o Value>, Defer> {
    fn key_field<'v>(v: &'v Value, k: &str) -> Result<Option<&'v Value>, Defer> {
        let Value::Map(m) = v else {
            return Ok(None);
        };
        Ok(match m.get_str(k) {
            Some(v @ (Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_))) => {
                Some(v)
            }
            None => None,
            Some(_) => return Err(Defer),
        })
    }
    let mut want = Vec::with_capacity(keys.len());
    for k in keys {
        match key_field(item, k)? {
            Some(v) => want.push(v),
            None => return Ok(None),
        }
    }
    'olds: for old in olds {
        for (k, w) in keys.iter().zip(&want) {
            match key_field(old, k)? {
                Some(v) if scalar_eq(v, w)? => {}
                _ => continue 'olds,
            }
        }
        return Ok(Some(old));
    }
    Ok(None)
}
