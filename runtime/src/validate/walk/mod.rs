//! The one walk of the rules over an object and its schema tree, as the apiserver's
//! `cel.Validator` does it (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`):
//! each node's rules in order, then its children; transition rules with the correlated old
//! value; the shared runtime budget; the apiserver's errors; ratcheting of unchanged nodes on
//! update.
//!
//! The data is JSON ([`Validator::validate`](super::Validator::validate), which reports every
//! error) or the typed fast path's CEL values ([`Mode::FirstFailure`]: it only answers "every
//! rule is `true`", and stops at the first thing that is not).

mod data;
mod rules;

pub(super) use data::Data;
use data::{Fields, OldIndex};

use super::FieldError;
use super::Options;
use super::compile::Nodes;
use super::path::Path;
use crate::eval::convert::{to_value, to_value_read};
use crate::model::Type;
use crate::tree::{ListKind, SchemaNode};

/// What the walk does with what it finds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Every error, with the apiserver's messages (and ratcheting on update).
    Report,
    /// Stop at the first rule that is not `true`, error, or budget overrun, reporting nothing:
    /// the typed fast path, whose "not known" sends the object through the JSON walk.
    FirstFailure,
}

/// Whether a node is unchanged for ratcheting, computed on demand and remembered.
pub(super) struct Ratchet<'a> {
    parent: Option<&'a Ratchet<'a>>,
    /// The node's schema, which decides what "unchanged" means (`correlate`).
    schema: &'a SchemaNode,
    /// The node's new and correlated old data.
    pair: Option<(Data<'a>, Data<'a>)>,
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
            Some((new, old)) => new.same(old, self.schema),
            None => self.parent.is_some_and(Ratchet::unchanged),
        };
        self.memo.set(Some(u));
        u
    }
}

/// One walk's state.
pub(super) struct Walk<'a> {
    opts: &'a Options,
    /// The compiled rules of the tree's nodes.
    nodes: &'a Nodes,
    mode: Mode,
    pub(super) remaining: i64,
    pub(super) errors: Vec<FieldError>,
    pub(super) warnings: Vec<String>,
    /// Nothing more is walked: the budget ran out, or (first-failure mode) something failed.
    pub(super) stopped: bool,
    /// Ratcheting is on for this call (an update with `Options::ratcheting`).
    ratcheting: bool,
    /// The schema root is a resource root (for converting it).
    resource_root: bool,
    /// The Kubernetes minor version whose messages are printed.
    kubernetes_minor: u8,
}

impl<'a> Walk<'a> {
    /// A walk with the validator's rules; `update` says whether there is an old object (for
    /// ratcheting).
    pub(super) fn new(
        opts: &'a Options,
        nodes: &'a Nodes,
        mode: Mode,
        update: bool,
        resource_root: bool,
        kubernetes_minor: u8,
    ) -> Walk<'a> {
        Walk {
            opts,
            nodes,
            mode,
            remaining: opts.budget,
            errors: Vec::new(),
            warnings: Vec::new(),
            stopped: false,
            ratcheting: mode == Mode::Report && opts.ratcheting && update,
            resource_root,
            kubernetes_minor,
        }
    }

    /// Walks the object from the schema root.
    pub(super) fn root(
        &mut self,
        root: &SchemaNode,
        path: &Path<'_>,
        new: Data<'_>,
        old: Option<Data<'_>>,
    ) {
        let old = old.filter(|o| !o.is_null());
        self.node(root, path, new, old, None, true, false);
    }

    /// Whether everything walked was `true` (first-failure mode's answer).
    pub(super) fn all_true(&self) -> bool {
        !self.stopped && self.errors.is_empty()
    }

    /// In first-failure mode, stops the walk and returns `true`: the caller reports nothing.
    fn fail_fast(&mut self) -> bool {
        if self.mode == Mode::FirstFailure {
            self.stopped = true;
        }
        self.stopped
    }

    /// Walks one node. Its value is converted here if it has rules and no ancestor's was (a
    /// rule sees its whole subtree), so data no rule can see is never converted.
    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        s: &SchemaNode,
        path: &Path<'_>,
        new: Data<'_>,
        old: Option<Data<'_>>,
        parent: Option<&Ratchet<'_>>,
        at_root: bool,
        never_ratchet: bool,
    ) {
        if self.stopped || new.is_null() || !s.rules_below {
            return;
        }
        // What the whole object's conversion gives at this node (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`).
        let resource = if at_root {
            self.resource_root
        } else {
            s.embedded_resource
        };
        let converted;
        let new = match new {
            Data::Json(raw, None) if s.has_rules => {
                converted = to_value_read(raw, s, resource);
                Data::Json(raw, Some(&converted))
            }
            d => d,
        };
        // The old value is converted only for rules that read `oldSelf`.
        let old_converted;
        let old = match old {
            Some(Data::Json(raw, None)) if s.transition => {
                old_converted = to_value(raw, s, resource);
                Some(Data::Json(raw, Some(&old_converted)))
            }
            o => o,
        };
        // Ratcheting compares this node with its correlated old value, or else falls back to the
        // nearest correlatable ancestor (`validation.go`'s `ratchetingOptions`); worked out only
        // when a rule fails, and only tracked when the walk ratchets.
        let ratchet = self.ratcheting.then(|| Ratchet {
            parent,
            schema: s,
            pair: old.map(|o| (new, o)),
            never: never_ratchet,
            memo: std::cell::Cell::new(None),
        });
        let ratchet = ratchet.as_ref();
        if s.has_rules
            && let Some(value) = new.value()
        {
            self.rules(s, path, new, value, old, ratchet);
            if self.stopped {
                return;
            }
        }
        if s.int_or_string {
            return;
        }
        // Data the schema does not allow is the JSON walk's to report.
        if new.is_schema_error() {
            self.stopped = true;
            return;
        }
        match s.ty {
            Type::Array => self.items(s, path, new, old, ratchet),
            Type::Object => self.fields(s, path, new, old, ratchet, at_root),
            _ => {}
        }
    }

    fn items(
        &mut self,
        s: &SchemaNode,
        path: &Path<'_>,
        new: Data<'_>,
        old: Option<Data<'_>>,
        ratchet: Option<&Ratchet<'_>>,
    ) {
        let (Some(items), Some(item_schema)) = (new.items(), s.items.as_deref()) else {
            return;
        };
        if !item_schema.rules_below {
            return;
        }
        // Only map-list items correlate, by key (`k8s.io/apiserver/pkg/cel/common/equality.go`).
        let old_items = match (&s.list_kind, old.and_then(Data::items)) {
            (ListKind::Map(keys), Some(o)) => Some((o, keys)),
            _ => None,
        };
        let mut index = OldIndex::default();
        for i in 0..items.len() {
            let Some(item) = items.get(i) else {
                continue;
            };
            let item_old = match old_items {
                Some((olds, keys)) => match index.find(item, olds, keys) {
                    Ok(j) => j.and_then(|j| olds.get(j)),
                    Err(crate::validate::fast::Defer) => {
                        self.stopped = true;
                        return;
                    }
                },
                None => None,
            };
            self.node(
                item_schema,
                &Path::Index(path, i),
                item,
                item_old,
                ratchet,
                false,
                false,
            );
            if self.stopped {
                return;
            }
        }
    }

    fn fields(
        &mut self,
        s: &SchemaNode,
        path: &Path<'_>,
        new: Data<'_>,
        old: Option<Data<'_>>,
        ratchet: Option<&Ratchet<'_>>,
        at_root: bool,
    ) {
        let Some(fields) = new.fields() else {
            return;
        };
        let old_fields = old.and_then(Data::fields);
        let child_old = |k: &str| old_fields.and_then(|o| o.get(k));
        if let Some(values) = s.additional_properties.as_deref()
            && values.rules_below
            && s.properties.is_empty()
        {
            for (k, field) in fields.entries() {
                let Some(child) = field.data(k) else {
                    continue;
                };
                self.node(
                    values,
                    &Path::Key(path, k),
                    child,
                    child_old(k),
                    ratchet,
                    false,
                    false,
                );
                if self.stopped {
                    return;
                }
            }
        }
        let property = |walk: &mut Self, k: &str, child_schema: &SchemaNode, child: Data<'_>| {
            // apiVersion and kind right under the root are never ratcheted (`validation.go`'s `ratchetingOptions`).
            let type_meta = at_root && (k == "apiVersion" || k == "kind");
            walk.node(
                child_schema,
                &Path::Child(path, k),
                child,
                child_old(k),
                ratchet,
                false,
                type_meta,
            );
            !walk.stopped
        };
        if let Fields::Value(_) = fields {
            // Typed data was built from the schema, so its children are found from the
            // properties with rules below (usually a few); the order does not matter to a
            // first-failure walk.
            for (k, child_schema) in s.properties.iter().filter(|(_, c)| c.rules_below) {
                if let Some(child) = fields.get(k)
                    && !property(self, k, child_schema, child)
                {
                    return;
                }
            }
            return;
        }
        // JSON is walked in its own order, the order errors are reported in.
        for (k, field) in fields.entries() {
            let Some(child_schema) = s.property(k).filter(|c| c.rules_below) else {
                continue;
            };
            if let Some(child) = field.data(k)
                && !property(self, k, child_schema, child)
            {
                return;
            }
        }
    }
}
