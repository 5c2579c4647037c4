//! The owned schema tree that conversion and validation walk: what a node's data means
//! (type, format, list type, properties) and, once a validator is built, the node's compiled
//! rules. Built once per type (typed path) or per CRD version (manifest path), from the model.

use std::sync::Arc;

use super::interp::Need;
use super::value::{ListKind, name_eq};
use crate::model::{ListType, MapType, Schema, Type};

/// How a string node's data is read (CEL-SEMANTICS 5.3).
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
    /// The compiled rules of this node (filled by the validator).
    pub rules: Vec<crate::validate::CompiledRule>,
    /// Whether this node or a descendant has rules (the walker skips subtrees without).
    pub rules_below: bool,
    /// The node's OpenAPI constraints for the typed fast path (`None`: not attached, or a
    /// schema the fast path does not take, and it defers to the JSON path).
    pub(crate) bounds: Option<Box<crate::validate::Bounds>>,
    /// Whether a rule of this node reads `oldSelf` (set with the rules by the validator).
    pub(crate) transition: bool,
    /// Whether this node or a descendant has a rule that reads `oldSelf`: on update, only
    /// these parts of the old object are needed.
    pub(crate) transition_below: bool,
    /// What the rules of this node and of its ancestors read of its value, so that conversions
    /// build only that ([`SchemaNode::plan_reads`]; `None`: nothing, or not planned).
    pub(crate) reads: Option<Reads>,
}

impl SchemaNode {
    /// The tree of a model, without rules.
    pub fn from_model(schema: &Schema<'_>) -> SchemaNode {
        SchemaNode::from_model_with(schema, false, &mut |_, _, _| {})
    }

    /// The tree of a model; `visit` sees every node after its children, with its model and
    /// whether it is a resource root (to attach rules), and `rules_below` is computed after.
    pub fn from_model_with(
        schema: &Schema<'_>,
        resource: bool,
        visit: &mut dyn FnMut(&Schema<'_>, bool, &mut SchemaNode),
    ) -> SchemaNode {
        let mut properties = Vec::new();
        schema.for_each_property(&mut |p| {
            let child = SchemaNode::from_model_with(p.schema, p.schema.embedded_resource, visit);
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
            properties,
            items: schema
                .items
                .map(|i| Box::new(SchemaNode::from_model_with(i, i.embedded_resource, visit))),
            additional_properties: schema
                .additional_properties
                .map(|a| Box::new(SchemaNode::from_model_with(a, a.embedded_resource, visit))),
            list_kind: match schema.list_type {
                None | Some(ListType::Atomic) => ListKind::Plain,
                Some(ListType::Set) => ListKind::Set,
                Some(ListType::Map) => {
                    ListKind::Map(schema.list_map_keys.iter().map(|k| Arc::from(*k)).collect())
                }
            },
            map_type: schema.map_type,
            rules: Vec::new(),
            rules_below: false,
            bounds: None,
            transition: false,
            transition_below: false,
            reads: None,
        };
        visit(schema, resource, &mut node);
        // A messageExpression may read `oldSelf` too.
        node.transition = node.rules.iter().any(|r| {
            let reads = |p: &Result<crate::eval::interp::Program, String>| {
                p.as_ref()
                    .is_ok_and(crate::eval::interp::Program::uses_old_self)
            };
            reads(&r.program) || r.message_program.as_ref().is_some_and(reads)
        });
        node.transition_below = node.transition
            || node.properties.iter().any(|(_, p)| p.transition_below)
            || node.items.as_ref().is_some_and(|i| i.transition_below)
            || node
                .additional_properties
                .as_ref()
                .is_some_and(|a| a.transition_below);
        node.rules_below = !node.rules.is_empty()
            || node.properties.iter().any(|(_, p)| p.rules_below)
            || node.items.as_ref().is_some_and(|i| i.rules_below)
            || node
                .additional_properties
                .as_ref()
                .is_some_and(|a| a.rules_below);
        node
    }

    /// Works out [`SchemaNode::reads`] for the node (a resource root when `resource`) and every
    /// node below: what each node's own rules read of `self`, merged with what its ancestors'
    /// rules read of it. Conversions (the typed fast path, the JSON walk) build only that.
    pub(crate) fn plan_reads(&mut self, resource: bool) {
        assign(self, None, resource);
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
fn assign(node: &mut SchemaNode, above: Option<Need>, resource: bool) {
    let own = (!node.rules.is_empty()).then(|| {
        let mut need = Need::Fields(Vec::new());
        for rule in &node.rules {
            for program in std::iter::once(&rule.program).chain(rule.message_program.as_ref()) {
                need = match program {
                    Ok(p) => need.merge(p.self_need().clone()),
                    Err(_) => Need::Whole,
                };
            }
        }
        need
    });
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
        assign(child, need, false);
    }
    if let Some(child) = node.items.as_deref_mut() {
        assign(child, items, false);
    }
    if let Some(child) = node.additional_properties.as_deref_mut() {
        assign(child, whole.then_some(Need::Whole), false);
    }
}
