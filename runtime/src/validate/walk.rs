//! Walking an object with its schema tree as the apiserver's `cel.Validator` does
//! (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`, 5.7 to 5.11): each node's rules in order, then its children; transition
//! rules with the correlated old value; the shared runtime budget; the apiserver's errors; and
//! ratcheting of unchanged nodes on update.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::compile::Nodes;
use super::{BadValue, CompiledRule, ErrorType, FieldError, Options};
use crate::eval::convert::{to_value, to_value_read};
use crate::eval::error::ErrorKind;
use crate::eval::value::Value;
use crate::model::Reason;
use crate::tree::ListKind;
use crate::tree::SchemaNode;

/// `MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// Where a node is, as a chain of segments on the stack: rendered (the apiserver's `field.Path`
/// text) only when an error is reported, so walking costs no allocation.
#[derive(Clone, Copy)]
pub(super) enum Path<'a> {
    /// The root: `None` is the apiserver's nil path.
    Root(Option<&'a str>),
    /// `.name`.
    Child(&'a Path<'a>, &'a str),
    /// `[i]`.
    Index(&'a Path<'a>, usize),
    /// `[key]` of a map.
    Key(&'a Path<'a>, &'a str),
}

impl<'a> Path<'a> {
    pub(super) fn root(root: Option<&'a str>) -> Path<'a> {
        Path::Root(root)
    }

    fn write(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Path::Root(r) => out.push_str(r.unwrap_or_default()),
            Path::Child(p, name) => {
                p.write(out);
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Path::Index(p, i) => {
                p.write(out);
                let _ = write!(out, "[{i}]");
            }
            Path::Key(p, k) => {
                p.write(out);
                let _ = write!(out, "[{k}]");
            }
        }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        if out.is_empty() {
            "<nil>".to_owned()
        } else {
            out
        }
    }
}

/// Whether a node is unchanged for ratcheting, computed on demand and remembered.
pub(super) struct Ratchet<'a> {
    parent: Option<&'a Ratchet<'a>>,
    /// The node's new and correlated old data.
    pair: Option<(&'a Json, &'a Json)>,
    /// `apiVersion` and `kind` under the root are never ratcheted.
    never: bool,
    memo: std::cell::Cell<Option<bool>>,
}

impl Ratchet<'_> {
    fn unchanged(&self) -> bool {
        if self.never {
            return false;
        }
        if let Some(u) = self.memo.get() {
            return u;
        }
        let u = match self.pair {
            Some((new, old)) => new == old,
            None => self.parent.is_some_and(Ratchet::unchanged),
        };
        self.memo.set(Some(u));
        u
    }
}

/// The old value at a node, when it correlates with the new one: its data, and its CEL value
/// when an ancestor's was converted (else it is converted where a transition rule reads it).
#[derive(Clone, Copy)]
pub(super) struct Old<'o> {
    pub raw: &'o Json,
    pub value: Option<&'o Value>,
}

pub(super) struct Walk<'a> {
    pub opts: &'a Options,
    /// The compiled rules of the tree's nodes.
    pub nodes: &'a Nodes,
    pub remaining: i64,
    pub errors: Vec<FieldError>,
    pub warnings: Vec<String>,
    pub stopped: bool,
    /// Ratcheting is on for this call (an update with `Options::ratcheting`).
    pub ratcheting: bool,
    /// The schema root is a resource root (for converting it).
    pub resource_root: bool,
    /// The Kubernetes minor version whose messages are printed.
    pub kubernetes_minor: u8,
}

impl Walk<'_> {
    /// Walks one node. `value` is the node's CEL value when an ancestor's was converted;
    /// otherwise the node is converted here if it has rules (a rule sees its whole subtree), so
    /// data no rule can see is never converted.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn node(
        &mut self,
        s: &SchemaNode,
        path: &Path<'_>,
        raw: &Json,
        value: Option<&Value>,
        old: Option<Old<'_>>,
        parent: Option<&Ratchet<'_>>,
        at_root: bool,
        never_ratchet: bool,
    ) {
        if self.stopped || raw.is_null() || !s.rules_below {
            return;
        }
        // What the whole object's conversion gives at this node (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`).
        let resource = if at_root {
            self.resource_root
        } else {
            s.embedded_resource
        };
        let converted;
        let value = match value {
            Some(v) => Some(v),
            None if s.has_rules => {
                converted = to_value_read(raw, s, resource);
                Some(&converted)
            }
            None => None,
        };
        // The old value is converted only for rules that read `oldSelf`.
        let old_converted;
        let old = match old {
            Some(Old { raw, value: None }) if s.transition => {
                old_converted = to_value(raw, s, resource);
                Some(Old {
                    raw,
                    value: Some(&old_converted),
                })
            }
            o => o,
        };
        // Ratcheting compares this node with its correlated old value, or else falls back to the
        // nearest correlatable ancestor (5.9); worked out only when a rule fails.
        let ratchet = Ratchet {
            parent,
            pair: old.map(|o| (raw, o.raw)),
            never: never_ratchet,
            memo: std::cell::Cell::new(None),
        };
        let unchanged = &ratchet;
        if let (true, Some(value)) = (s.has_rules, value) {
            self.rules(s, path, raw, value, old, unchanged);
            if self.stopped {
                return;
            }
        }
        if s.int_or_string {
            return;
        }
        match (s.ty, raw) {
            (crate::model::Type::Array, Json::Array(items)) => {
                let Some(item_schema) = s.items.as_deref() else {
                    return;
                };
                if !item_schema.rules_below {
                    return;
                }
                let list = match value {
                    Some(Value::List(l)) => Some(&l.items),
                    Some(_) => return,
                    None => None,
                };
                let old_items = old.and_then(|o| match (o.raw, o.value) {
                    (Json::Array(r), Some(Value::List(l))) => Some((r, Some(&l.items))),
                    (Json::Array(r), None) => Some((r, None)),
                    _ => None,
                });
                let mut index = OldIndex::default();
                for (i, item_raw) in items.iter().enumerate() {
                    let item_value = match list {
                        Some(l) => match l.get(i) {
                            Some(v) => Some(v),
                            None => continue,
                        },
                        None => None,
                    };
                    // Only map-list items correlate, by key (5.7).
                    let item_old = match (&s.list_kind, old_items) {
                        (ListKind::Map(keys), Some((old_raw, old_list))) => {
                            index.find(item_raw, old_raw, keys).and_then(|j| {
                                Some(Old {
                                    raw: old_raw.get(j)?,
                                    value: match old_list {
                                        Some(l) => Some(l.get(j)?),
                                        None => None,
                                    },
                                })
                            })
                        }
                        _ => None,
                    };
                    self.node(
                        item_schema,
                        &Path::Index(path, i),
                        item_raw,
                        item_value,
                        item_old,
                        Some(unchanged),
                        false,
                        false,
                    );
                    if self.stopped {
                        return;
                    }
                }
            }
            (crate::model::Type::Object, Json::Object(fields)) => {
                let map = match value {
                    Some(Value::Map(m)) => Some(m),
                    Some(_) => return,
                    None => None,
                };
                let old_fields = old.and_then(|o| match (o.raw, o.value) {
                    (Json::Object(r), Some(Value::Map(m))) => Some((r, Some(m))),
                    (Json::Object(r), None) => Some((r, None)),
                    _ => None,
                });
                // A child's value, and its correlated old one (`None` from `child`: the
                // conversion hid the child, and it is not walked).
                let child = |k: &str| -> Option<Option<&Value>> {
                    match map {
                        Some(m) => m.get_str(k).map(Some),
                        None => Some(None),
                    }
                };
                let child_old = |k: &str| {
                    old_fields.and_then(|(r, m)| {
                        Some(Old {
                            raw: r.get(k).filter(|v| !v.is_null())?,
                            value: match m {
                                Some(m) => Some(m.get_str(k)?),
                                None => None,
                            },
                        })
                    })
                };
                if let Some(values) = s.additional_properties.as_deref()
                    && values.rules_below
                    && s.properties.is_empty()
                {
                    for (k, child_raw) in fields {
                        let Some(child_value) = child(k) else {
                            continue;
                        };
                        self.node(
                            values,
                            &Path::Key(path, k),
                            child_raw,
                            child_value,
                            child_old(k),
                            Some(unchanged),
                            false,
                            false,
                        );
                        if self.stopped {
                            return;
                        }
                    }
                }
                for (k, child_raw) in fields {
                    let Some(child_schema) = s.property(k) else {
                        continue;
                    };
                    if !child_schema.rules_below {
                        continue;
                    }
                    let Some(child_value) = child(k) else {
                        continue;
                    };
                    // apiVersion and kind right under the root are never ratcheted (5.9).
                    let type_meta = at_root && (k == "apiVersion" || k == "kind");
                    self.node(
                        child_schema,
                        &Path::Child(path, k),
                        child_raw,
                        child_value,
                        child_old(k),
                        Some(unchanged),
                        false,
                        type_meta,
                    );
                    if self.stopped {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    fn out_of_budget(&mut self, path: &Path<'_>, s: &SchemaNode) {
        self.errors.push(FieldError {
            kind: ErrorType::Invalid,
            path: path.render(),
            value: BadValue::TypeName(s.type_name()),
            detail: "validation failed due to running out of cost budget, no further validation rules will be run".into(),
        });
        self.remaining = -1;
        self.stopped = true;
    }

    fn invalid(&mut self, path: &Path<'_>, s: &SchemaNode, detail: String) {
        self.errors.push(FieldError {
            kind: ErrorType::Invalid,
            path: path.render(),
            value: BadValue::TypeName(s.type_name()),
            detail,
        });
    }

    fn rules(
        &mut self,
        s: &SchemaNode,
        path: &Path<'_>,
        raw: &Json,
        value: &Value,
        old: Option<Old<'_>>,
        unchanged: &Ratchet<'_>,
    ) {
        if self.remaining <= 0 {
            self.out_of_budget(path, s);
            return;
        }
        let nodes = self.nodes;
        for rule in nodes.rules(s) {
            let program = match &rule.program {
                Ok(p) => p,
                Err(detail) => {
                    self.invalid(path, s, format!("rule compile error: {detail}"));
                    continue;
                }
            };
            let transition = program.uses_old_self();
            // The old value is converted wherever a rule or message reads `oldSelf`; a rule that
            // does not read it only needs to know whether there is one.
            let old_value = old.map(|o| o.value.unwrap_or(&Value::Null));
            let optional_old = if rule.optional_old_self {
                Some(match old_value {
                    Some(o) => Value::some(o.clone()),
                    None => Value::Optional(None),
                })
            } else {
                None
            };
            let old_self = match (&optional_old, old_value) {
                (Some(v), _) => Some(v),
                (None, Some(o)) => Some(o),
                (None, None) => None,
            };
            if transition && old_self.is_none() {
                continue;
            }
            let ev = program.eval(value, old_self, self.opts.per_call_limit);
            if ev.cost > self.remaining.max(0) as u64 {
                self.out_of_budget(path, s);
                return;
            }
            self.remaining -= ev.cost as i64;
            let shown = rule.shown();
            match ev.result {
                Ok(Value::Bool(true)) => {}
                Err(e) if e.kind == ErrorKind::NoSuchOverload => self.invalid(
                    path,
                    s,
                    format!("'{e}': call arguments did not match a supported operator, function or macro signature for rule: {shown}"),
                ),
                Err(e) if e.kind == ErrorKind::CostLimit => {
                    self.invalid(
                        path,
                        s,
                        format!("'{e}': no further validation rules will be run due to call cost exceeds limit for rule: {shown}"),
                    );
                    self.remaining = -1;
                    self.stopped = true;
                    return;
                }
                Err(e) => self.invalid(path, s, format!("{e} evaluating rule: {shown}")),
                Ok(_) => {
                    let may_ratchet = self.ratcheting && !transition && unchanged.unchanged();
                    self.failure(s, rule, path, raw, value, old_self, may_ratchet);
                    if self.stopped {
                        return;
                    }
                }
            }
        }
    }

    /// A rule that evaluated to false (5.11).
    #[allow(clippy::too_many_arguments)]
    fn failure(
        &mut self,
        s: &SchemaNode,
        rule: &CompiledRule,
        path: &Path<'_>,
        raw: &Json,
        value: &Value,
        old_self: Option<&Value>,
        may_ratchet: bool,
    ) {
        let with_field_path;
        let path = match &rule.field_path {
            Some(fp) => {
                with_field_path = Path::Child(path, fp);
                &with_field_path
            }
            None => path,
        };
        let mut detail = None;
        if let Some(Ok(p)) = &rule.message_program {
            let ev = p.eval(value, old_self, self.opts.per_call_limit);
            let expr = rule.message_expression.as_deref().unwrap_or_default();
            if ev.cost > self.remaining.max(0) as u64 {
                let e = FieldError {
                    kind: ErrorType::Invalid,
                    path: path.render(),
                    value: BadValue::TypeName(s.type_name()),
                    detail: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".into(),
                };
                self.report(e, may_ratchet);
                self.remaining = -1;
                self.stopped = true;
                return;
            }
            self.remaining -= ev.cost as i64;
            match ev.result {
                Err(e) if e.kind == ErrorKind::CostLimit => {
                    let e = FieldError {
                        kind: ErrorType::Invalid,
                        path: path.render(),
                        value: BadValue::TypeName(s.type_name()),
                        detail: format!(
                            "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                            super::go_quoted(expr)
                        ),
                    };
                    self.report(e, may_ratchet);
                    self.remaining = -1;
                    self.stopped = true;
                    return;
                }
                // Soft failures fall back to the message (the apiserver only logs them).
                Ok(Value::String(m)) => {
                    let m = m.trim();
                    if !m.is_empty() && m.len() <= MAX_MESSAGE_BYTES && !m.contains('\n') {
                        detail = Some(m.to_owned());
                    }
                }
                _ => {}
            }
        }
        let detail = detail.unwrap_or_else(|| match &rule.message {
            Some(m) => m.trim().to_owned(),
            None => format!("failed rule: {}", rule.rule.trim()),
        });
        let kind = match rule.reason {
            None | Some(Reason::FieldValueInvalid) => ErrorType::Invalid,
            Some(Reason::FieldValueForbidden) => ErrorType::Forbidden,
            Some(Reason::FieldValueRequired) => ErrorType::Required,
            Some(Reason::FieldValueDuplicate) => ErrorType::Duplicate,
        };
        // >= 1.35: objects and arrays omit the value, scalars show it; before, every failure
        // shows the schema type (`Invalid value: "object"`).
        let compound = matches!(raw, Json::Object(_) | Json::Array(_));
        let bad = if self.kubernetes_minor <= 34 {
            BadValue::TypeName(s.type_name())
        } else if compound {
            BadValue::Omitted
        } else {
            BadValue::Value(raw.clone())
        };
        let e = match kind {
            // field.Required and field.Forbidden carry an empty value.
            ErrorType::Required | ErrorType::Forbidden => FieldError {
                kind,
                path: path.render(),
                value: BadValue::Value(Json::String(String::new())),
                detail,
            },
            ErrorType::Duplicate => FieldError {
                kind,
                path: path.render(),
                value: bad,
                detail: String::new(),
            },
            _ => FieldError {
                kind,
                path: path.render(),
                value: bad,
                detail,
            },
        };
        self.report(e, may_ratchet);
    }

    fn report(&mut self, e: FieldError, may_ratchet: bool) {
        if self.ratcheting && may_ratchet {
            self.warnings.push(e.to_string());
        } else {
            self.errors.push(e);
        }
    }
}

/// The raw key fields of a map-list item (5.6): `None` when a key is missing or not a bool,
/// number or string, and then the item correlates with nothing.
fn key_fields<'j>(item: &'j Json, keys: &[std::sync::Arc<str>]) -> Option<Vec<&'j Json>> {
    let Json::Object(o) = item else {
        return None;
    };
    keys.iter()
        .map(|k| {
            o.get(&**k)
                .filter(|v| matches!(v, Json::Bool(_) | Json::Number(_) | Json::String(_)))
        })
        .collect()
}

/// A hashable rendering of key fields, for long lists (`1` and `1.0` stay distinct).
fn key_text(fields: &[&Json]) -> String {
    let mut out = String::new();
    for f in fields {
        out.push_str(&f.to_string());
        out.push('\0');
    }
    out
}

/// Finds the old item with the same key as a new one; the first old item of a key wins. Short
/// lists are scanned; long ones are indexed on first use.
#[derive(Default)]
struct OldIndex {
    built: Option<HashMap<String, usize>>,
}

/// Up to this many old items a scan beats building an index.
const SCAN_UP_TO: usize = 32;

impl OldIndex {
    fn find(&mut self, item: &Json, old: &[Json], keys: &[std::sync::Arc<str>]) -> Option<usize> {
        if old.len() <= SCAN_UP_TO {
            // Without allocating: the item's key fields, compared in place.
            let Json::Object(fields) = item else {
                return None;
            };
            fn key<'j>(o: &'j serde_json::Map<String, Json>, k: &str) -> Option<&'j Json> {
                o.get(k)
                    .filter(|v| matches!(v, Json::Bool(_) | Json::Number(_) | Json::String(_)))
            }
            if keys.iter().any(|k| key(fields, k).is_none()) {
                return None;
            }
            return old.iter().position(|o| {
                let Json::Object(o) = o else {
                    return false;
                };
                keys.iter()
                    .all(|k| key(o, k).is_some_and(|v| Some(v) == fields.get(&**k)))
            });
        }
        let want = key_fields(item, keys)?;
        let index = self.built.get_or_insert_with(|| {
            let mut m = HashMap::new();
            for (j, o) in old.iter().enumerate() {
                if let Some(k) = key_fields(o, keys) {
                    m.entry(key_text(&k)).or_insert(j);
                }
            }
            m
        });
        index.get(&key_text(&want)).copied()
    }
}
