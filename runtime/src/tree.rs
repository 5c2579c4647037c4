//! The one schema tree that conversion, evaluation and validation walk: what a node's data
//! means (type, format, list type, properties), where its rules are, and what they read.
//! Built once per type (typed path) or per CRD version (manifest path), from the model.
//!
//! Each node has an [`id`](SchemaNode::id), its index in the tables a
//! [`Validator`](crate::Validator) keeps beside the tree (compiled rules, OpenAPI bounds), so the
//! tree depends on nothing but the model and every later stage (values, evaluation,
//! validation) depends on it, never the other way round.

use std::sync::Arc;

use crate::model::{ListType, MapType, Schema, Type};

/// The list type of a list node and of its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// An ordinary (or `atomic`) list.
    Plain,
    /// `x-kubernetes-list-type: set`.
    Set,
    /// `x-kubernetes-list-type: map` with these key fields.
    Map(Arc<[Arc<str>]>),
}

/// The type and object meta fields of a resource.
pub const TYPE_AND_OBJECT_META: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Whether `name` is one of the type and object meta fields of a resource.
pub fn is_type_or_object_meta(name: &str) -> bool {
    TYPE_AND_OBJECT_META.contains(&name)
}

/// String equality for names (property names, map keys): the length and first byte reject most
/// mismatches without a `memcmp` call, which dominates lookups in small objects.
#[inline]
pub fn name_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len() && a.first() == b.first() && a == b
}

/// What an expression reads of a value (`self`): all of it, some of its fields (each read in
/// its own way), or its list items (as the range of a comprehension).
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    /// The whole value.
    Whole,
    /// These fields only (`self.a`, `self.b.c`); none when the value is not read.
    Fields(Vec<(Box<str>, Need)>),
    /// Its items only, each read as given (`self.all(x, x.a > 0)`).
    Items(Box<Need>),
}

impl Need {
    /// What two readers need together (no fields read is what reading nothing needs).
    pub fn merge(self, other: Need) -> Need {
        match (self, other) {
            (Need::Fields(a), b) if a.is_empty() => b,
            (a, Need::Fields(b)) if b.is_empty() => a,
            (Need::Fields(mut a), Need::Fields(b)) => {
                for (name, need) in b {
                    match a.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, have)) => {
                            let was = std::mem::replace(have, Need::Whole);
                            *have = was.merge(need);
                        }
                        None => a.push((name, need)),
                    }
                }
                Need::Fields(a)
            }
            (Need::Items(a), Need::Items(b)) => Need::Items(Box::new(a.merge(*b))),
            _ => Need::Whole,
        }
    }
}

/// How a string node's data is read (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringFormat {
    /// A plain string.
    Plain,
    /// `format: duration`.
    Duration,
    /// `format: date`.
    Date,
    /// `format: date-time`.
    DateTime,
    /// `format: byte`.
    Byte,
}

/// One schema node.
#[derive(Debug)]
pub struct SchemaNode {
    /// `type`.
    pub ty: Type,
    /// The string format that changes the CEL value.
    pub format: StringFormat,
    /// `nullable: true`.
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// None of the three above: the node's value converts to CEL by its type alone (what the
    /// views answer for, read once per node instead of per value).
    pub(crate) plain: bool,
    /// Declared properties (flattened ones merged), in declaration order.
    pub properties: Vec<(Arc<str>, SchemaNode)>,
    /// `items`.
    pub items: Option<Box<SchemaNode>>,
    /// `additionalProperties`.
    pub additional_properties: Option<Box<SchemaNode>>,
    /// The list semantics of an array node.
    pub list_kind: ListKind,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<MapType>,
    /// The node's index in the tree (after its children: the root's is the largest), which
    /// the validator's side tables are indexed by.
    pub id: usize,
    /// Whether this is a resource node whose `apiVersion`, `kind` and `metadata` are the
    /// implicit ones: declared ones are not in [`properties`](SchemaNode::properties).
    pub type_meta: bool,
    /// Whether this node has rules (set by the builder's visitor).
    pub has_rules: bool,
    /// Whether this node or a descendant has rules (the walker skips subtrees without).
    pub rules_below: bool,
    /// Whether a descendant has rules (a walk need not look into the children otherwise).
    pub(crate) rules_in_children: bool,
    /// Whether a rule of this node reads `oldSelf` (set with the rules by the builder's
    /// visitor; a messageExpression that reads it counts).
    pub(crate) transition: bool,
    /// Whether this node or a descendant has a rule that reads `oldSelf`: on update, only
    /// these parts of the old object are needed.
    pub(crate) transition_below: bool,
    /// On a node with transition rules: the properties (indices into `properties`) they read
    /// of `oldSelf`, the only parts of an old value the typed fast path checks against the
    /// schema's bounds there (`None`: the whole value, or not a node with rules that read it).
    pub(crate) old_reads: Option<Vec<usize>>,
    /// What the rules of this node and of its ancestors read of its value, so that conversions
    /// build only that ([`SchemaNode::plan_reads`]; `None`: nothing, or not planned).
    pub(crate) reads: Option<Reads>,
}

impl SchemaNode {
    /// The tree of a model, without rules.
    pub fn from_model(schema: &Schema<'_>) -> SchemaNode {
        SchemaNode::from_model_with(schema, false, &mut |_, _, _| {})
    }

    /// The tree of a model; `visit` sees every node after its children (so in [`id`] order),
    /// with its model and whether it is a resource root, and sets [`has_rules`] and
    /// `transition` where it attaches rules; `rules_below` is computed after.
    ///
    /// [`id`]: SchemaNode::id
    /// [`has_rules`]: SchemaNode::has_rules
    pub fn from_model_with(
        schema: &Schema<'_>,
        resource: bool,
        visit: &mut dyn FnMut(&Schema<'_>, bool, &mut SchemaNode),
    ) -> SchemaNode {
        SchemaNode::build(schema, resource, &mut 0, visit)
    }

    fn build(
        schema: &Schema<'_>,
        resource: bool,
        next: &mut usize,
        visit: &mut dyn FnMut(&Schema<'_>, bool, &mut SchemaNode),
    ) -> SchemaNode {
        let mut properties = Vec::new();
        // What CEL sees of a resource root (and of an embedded resource), as the apiserver's
        // `WithTypeAndObjectMeta` builds it: `apiVersion`, `kind` and `metadata` (only `name`
        // and `generateName`) replace whatever the schema declares for them, unless it declares
        // exactly those shapes. The declared ones are left out of the tree, so conversions take
        // the implicit ones, and their rules are not run, as in the apiserver.
        let type_meta = resource && !crd_cel_core::names::declares_type_and_meta(schema);
        schema.for_each_property(&mut |p| {
            if type_meta && is_type_or_object_meta(p.name) {
                return;
            }
            let child = SchemaNode::build(p.schema, p.schema.embedded_resource, next, visit);
            properties.push((Arc::from(p.name), child));
        });
        let mut node = SchemaNode {
            ty: schema.ty,
            format: match (schema.ty, schema.format) {
                (Type::String, Some("duration")) => StringFormat::Duration,
                (Type::String, Some("date")) => StringFormat::Date,
                (Type::String, Some("date-time")) => StringFormat::DateTime,
                (Type::String, Some("byte")) => StringFormat::Byte,
                _ => StringFormat::Plain,
            },
            nullable: schema.nullable,
            int_or_string: schema.int_or_string,
            preserve_unknown_fields: schema.preserve_unknown_fields,
            embedded_resource: schema.embedded_resource,
            plain: !(schema.int_or_string
                || schema.preserve_unknown_fields
                || schema.embedded_resource),
            properties,
            items: schema
                .items
                .map(|i| Box::new(SchemaNode::build(i, i.embedded_resource, next, visit))),
            additional_properties: schema
                .additional_properties
                .map(|a| Box::new(SchemaNode::build(a, a.embedded_resource, next, visit))),
            list_kind: match schema.list_type {
                None | Some(ListType::Atomic) => ListKind::Plain,
                Some(ListType::Set) => ListKind::Set,
                Some(ListType::Map) => {
                    ListKind::Map(schema.list_map_keys.iter().map(|k| Arc::from(*k)).collect())
                }
            },
            map_type: schema.map_type,
            id: *next,
            type_meta,
            has_rules: false,
            rules_below: false,
            rules_in_children: false,
            transition: false,
            transition_below: false,
            old_reads: None,
            reads: None,
        };
        *next += 1;
        visit(schema, resource, &mut node);
        node.transition_below = node.transition
            || node.properties.iter().any(|(_, p)| p.transition_below)
            || node.items.as_ref().is_some_and(|i| i.transition_below)
            || node
                .additional_properties
                .as_ref()
                .is_some_and(|a| a.transition_below);
        node.rules_in_children = node.properties.iter().any(|(_, p)| p.rules_below)
            || node.items.as_ref().is_some_and(|i| i.rules_below)
            || node
                .additional_properties
                .as_ref()
                .is_some_and(|a| a.rules_below);
        node.rules_below = node.has_rules || node.rules_in_children;
        node
    }

    /// Works out [`SchemaNode::reads`] for the node (a resource root when `resource`) and every
    /// node below: what each node's own rules read of `self` (`own`, `None` for a node without
    /// rules), merged with what its ancestors' rules read of it. Conversions (the typed fast
    /// path, the JSON walk) build only that.
    pub(crate) fn plan_reads(&mut self, resource: bool, own: &dyn Fn(&SchemaNode) -> Option<Need>) {
        assign(self, None, resource, own);
    }

    /// A node of a type and nothing else.
    pub fn of(ty: Type) -> SchemaNode {
        SchemaNode::from_model(&Schema::of(ty))
    }

    /// The declared property `name`, with its name as stored (shared, so converted objects
    /// reuse it instead of allocating a key per object).
    pub fn property_entry(&self, name: &str) -> Option<(&Arc<str>, &SchemaNode)> {
        self.properties
            .iter()
            .find(|(n, _)| name_eq(n, name))
            .map(|(n, s)| (n, s))
    }

    /// The declared property `name`.
    pub fn property(&self, name: &str) -> Option<&SchemaNode> {
        self.properties
            .iter()
            .find(|(n, _)| name_eq(n, name))
            .map(|(_, s)| s)
    }

    /// The schema `type` as the apiserver prints it in errors (`""` without a type).
    pub fn type_name(&self) -> &'static str {
        self.ty.as_openapi().unwrap_or("")
    }
}

/// [`SchemaNode::reads`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reads {
    /// All of the value.
    Whole,
    /// These properties (indices into `properties`), each as its own `reads` says.
    Fields(Vec<usize>),
    /// The list's items, as the item node's `reads` says.
    Items,
}

/// [`SchemaNode::plan_reads`] of `node`, with what its ancestors' rules read of it.
fn assign(
    node: &mut SchemaNode,
    above: Option<Need>,
    resource: bool,
    own_need: &dyn Fn(&SchemaNode) -> Option<Need>,
) {
    let own = own_need(node);
    let total = match (above, own) {
        (Some(a), Some(b)) => Some(a.merge(b)),
        (a, b) => a.or(b),
    };
    let object = node.ty == Type::Object
        && !node.properties.is_empty()
        && node.additional_properties.is_none()
        && !resource
        && !node.embedded_resource;
    let mut props: Vec<Option<Need>> = vec![None; node.properties.len()];
    let mut items = None;
    node.reads = match total {
        None => None,
        Some(Need::Fields(fields)) if object => {
            let mut indices = Vec::with_capacity(fields.len());
            let mut whole = false;
            for (name, need) in fields {
                match node.properties.iter().position(|(p, _)| name_eq(p, &name)) {
                    Some(i) => {
                        indices.push(i);
                        props[i] = Some(need);
                    }
                    // A field the schema does not declare: read the value whole.
                    None => whole = true,
                }
            }
            if whole {
                props.fill(Some(Need::Whole));
                Some(Reads::Whole)
            } else {
                Some(Reads::Fields(indices))
            }
        }
        Some(Need::Items(item)) if node.ty == Type::Array && node.items.is_some() => {
            items = Some(*item);
            Some(Reads::Items)
        }
        Some(_) => {
            props.fill(Some(Need::Whole));
            items = Some(Need::Whole);
            Some(Reads::Whole)
        }
    };
    let whole = node.reads == Some(Reads::Whole);
    for ((_, child), need) in node.properties.iter_mut().zip(props) {
        assign(child, need, false, own_need);
    }
    if let Some(child) = node.items.as_deref_mut() {
        assign(child, items, false, own_need);
    }
    if let Some(child) = node.additional_properties.as_deref_mut() {
        assign(child, whole.then_some(Need::Whole), false, own_need);
    }
}
