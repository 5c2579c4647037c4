//! The model IR: how each node of a type's `CelSchema::MODEL` is built from the attributes,
//! written once and read two ways. `emit::node` turns it into the tokens of the `MODEL`
//! constant; `predict` evaluates it here, with the same `const fn`s of core (`with_length`,
//! `Decoration::apply`, ...), so that rules can be type-checked in the macro. Since both read the
//! same recipe, the prediction can only differ from the emitted model where a field type's own
//! model is guessed from its name ([`Base::Type`]), which the fingerprint check catches.
//!
//! A node is a base, the steps applied to it by value (the `const fn`s), and the slots set in its
//! outermost literal: a reference in a constant only lives for `'static` outside a function
//! argument, so everything borrowed (items, properties, rules) is a slot.

use crate::ast::{Container, Data, Field};
use crate::attr::{Bounds, CelAttrs, SchemaAttrs, SchemarsValidation};
use crd_cel_core::model::Type;

mod variants;

/// A type's model: its `MODEL` node and, for a struct or newtype, each field's node.
pub struct Model<'a> {
    pub node: Node<'a>,
    /// The fields' nodes, in order, as the property (or a check on the field) sees them: with
    /// the field's own `#[cel(..)]` decoration.
    pub fields: Vec<Node<'a>>,
}

/// How one node is built.
#[derive(Clone)]
pub struct Node<'a> {
    pub base: Base<'a>,
    /// Applied in order to the base, by value.
    pub steps: Vec<Step<'a>>,
    /// Set over the result, in the node's outermost literal.
    pub slots: Vec<Slot<'a>>,
}

/// What a node starts from.
#[derive(Clone, Copy)]
pub enum Base<'a> {
    /// The model of a field type (`Option<T>`: `T`'s, nullable), through `Probe` for types
    /// without one. Natively guessed from the type's name.
    Type(&'a syn::Type),
    /// A field whose schema a function makes (or changes where the model cannot follow): an
    /// unknown node, whose costs are still the type's.
    Unmodeled(&'a syn::Type),
    /// Nothing known (`Schema::UNKNOWN`).
    Unknown,
    /// `Schema::of(ty)`.
    Of(Type),
    /// k8s-openapi's `IntOrString`.
    IntOrString,
    /// Any value, its unknown fields preserved.
    Preserved,
    /// The items of the enclosing node's base (what `#[schemars(inner(..))]` applies to).
    Items,
}

/// A `const fn` applied to a node by value.
#[derive(Clone, Copy)]
pub enum Step<'a> {
    /// schemars' `length(min, max)`.
    Length(&'a Bounds),
    /// schemars' `range(min, max)`.
    Range(&'a Bounds),
    /// schemars' `regex(pattern = "..")` (a literal: one given by path is not in the model).
    Pattern(&'a syn::LitStr),
    /// A `format` (`email`, `uri`).
    Format(&'static str),
    /// `nullable: false` when the field type is optional (`Option`, a transparent newtype of
    /// one): schemars drops it on such a field it is told is required, by the type's
    /// non-optional schema (a tuple newtype of an `Option` keeps it).
    NotNullable(&'a syn::Type),
    /// `#[cel(..)]`'s schema keys (`Decoration::apply`).
    Decorate(Decoration<'a>),
    /// The node as a property of an object (`Schema::for_property`): kube makes an
    /// int-or-string that is not required nullable.
    ForProperty(&'a Required<'a>),
    /// No rules (`Schema::without_rules`): a flattened struct's, where the container's
    /// `extend` of `x-kubernetes-validations` replaces what flattening copied.
    WithoutRules,
}

/// One `Decoration` constant of the expansion, and the attributes it is made of.
#[derive(Clone, Copy)]
pub struct Decoration<'a> {
    pub name: DecorationName,
    pub attrs: &'a SchemaAttrs,
}

/// The name of a `Decoration` constant of the expansion.
#[derive(Clone, Copy)]
pub enum DecorationName {
    /// The container's (`__CEL_CONTAINER`).
    Container,
    /// The `n`th field's (`__CEL_FIELD_n`).
    Field(usize),
}

/// A slot of the node's outermost literal.
#[derive(Clone)]
pub enum Slot<'a> {
    /// `items`: the base's items, built by the node (whose base is [`Base::Items`]).
    Items(Box<Node<'a>>),
    /// `has_default: true`.
    HasDefault,
    /// `enum_values`, as JSON literals.
    EnumValues(Vec<String>),
    Properties(Vec<Property<'a>>),
    Flatten(Vec<Node<'a>>),
    /// `validations`: the decoration's rules, after the base's own when `chained`.
    Validations {
        chained: bool,
        own: DecorationName,
    },
}

#[derive(Clone)]
pub struct Property<'a> {
    pub name: String,
    pub required: Required<'a>,
    pub node: Node<'a>,
}

/// Whether a property is in `required`.
#[derive(Clone)]
pub enum Required<'a> {
    Always(bool),
    /// A field's, as schemars decides (deserialize contract): never with a `#[serde(default)]`,
    /// else when forced by `#[schemars(required)]` or its type is not optional
    /// (`<T as CelSchema>::OPTIONAL`; a `schema_with` function's wrapper type never is).
    Field {
        forced: bool,
        serde_default: bool,
        ty: &'a syn::Type,
        schema_with: bool,
    },
    /// What every variant requires.
    All(Vec<Required<'a>>),
}

impl<'a> Node<'a> {
    pub fn of(base: Base<'a>) -> Self {
        Node {
            base,
            steps: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// An object of `properties` and `flatten`.
    pub fn object(properties: Vec<Property<'a>>, flatten: Vec<Node<'a>>) -> Self {
        Node {
            slots: vec![Slot::Properties(properties), Slot::Flatten(flatten)],
            ..Node::of(Base::Of(Type::Object))
        }
    }

    /// schemars' validation keywords, as schemars applies them.
    fn validate(&mut self, v: &'a SchemarsValidation) {
        if let Some(len) = &v.length {
            self.steps.push(Step::Length(len));
        }
        if let Some(range) = &v.range {
            self.steps.push(Step::Range(range));
        }
        if let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(pattern),
            ..
        })) = &v.pattern
        {
            self.steps.push(Step::Pattern(pattern));
        }
        if let Some(f) = v.format {
            self.steps.push(Step::Format(f));
        }
        if let Some(inner) = &v.inner {
            let mut items = Node::of(Base::Items);
            items.validate(inner);
            self.slots.push(Slot::Items(Box::new(items)));
        }
    }

    /// The decoration's keys applied, and its rules after the base's own when it has any.
    fn decorate(&mut self, d: Decoration<'a>, rules: bool, chained: bool) {
        self.steps.push(Step::Decorate(d));
        if rules {
            self.slots.push(Slot::Validations {
                chained,
                own: d.name,
            });
        }
    }
}

/// Whether `#[cel(..)]` adds anything to the node (a `Decoration` constant is emitted).
pub fn has_decoration(cel: &CelAttrs) -> bool {
    let s = &cel.schema;
    !cel.rules.is_empty()
        || s.list_type.is_some()
        || s.list_map_keys.is_some()
        || s.map_type.is_some()
        || s.max_items.is_some()
        || s.min_items.is_some()
        || s.max_properties.is_some()
        || s.min_properties.is_some()
        || s.replace_rules
}

/// A field's node as schemars writes it, then decorated by its `#[cel(..)]` (the `index`th
/// field's constant) when `decorated`.
fn field<'a>(f: &'a Field<'_>, index: usize, decorated: bool) -> Property<'a> {
    // Whether schemars writes a `default` depends, with some `skip_serializing_if`s, on code
    // only the generated schema runs: such a node is read from it rather than guessed.
    let writes_default = f.serde.writes_default();
    let base = if f.schemars.unmodeled || writes_default.is_none() {
        Base::Unmodeled(&f.ty)
    } else {
        Base::Type(&f.ty)
    };
    let mut node = Node::of(base);
    node.validate(&f.schemars.validation);
    if f.schemars.required {
        node.steps.push(Step::NotNullable(&f.ty));
    }
    if writes_default == Some(true) {
        node.slots.push(Slot::HasDefault);
    }
    if decorated && has_decoration(&f.cel) {
        let d = Decoration {
            name: DecorationName::Field(index),
            attrs: &f.cel.schema,
        };
        let rules = !f.cel.rules.is_empty() || f.cel.schema.replace_rules;
        node.decorate(d, rules, !f.cel.schema.replace_rules);
    }
    Property {
        name: f.name.clone(),
        // Any `#[serde(default)]` makes the field optional, whatever it writes as `default`.
        required: Required::Field {
            forced: f.schemars.required,
            serde_default: f.serde.default,
            ty: &f.ty,
            schema_with: f.schemars.schema_with,
        },
        node,
    }
}

/// The model of `cont`, as the derive emits it.
pub fn build<'a>(cont: &'a Container<'_>) -> Model<'a> {
    let deco = Decoration {
        name: DecorationName::Container,
        attrs: &cont.cel.schema,
    };
    let (mut node, fields) = match &cont.data {
        Data::Struct(fields) => {
            let props: Vec<Property> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| field(f, i, true))
                .collect();
            // A flattened field's node is its type's model alone.
            let flatten = fields
                .iter()
                .zip(&props)
                .filter(|(f, _)| f.serde.flatten)
                .map(|(_, p)| {
                    let mut n = Node::of(p.node.base);
                    if cont.cel.schema.replace_rules {
                        n.steps.push(Step::WithoutRules);
                    }
                    n
                })
                .collect();
            let nodes = props.iter().map(|p| p.node.clone()).collect();
            let props = fields
                .iter()
                .zip(props)
                .filter(|(f, _)| !f.serde.flatten)
                .map(|(_, p)| p)
                .collect();
            (Node::object(props, flatten), nodes)
        }
        Data::Newtype(f) => {
            let mut inner = Node::of(Base::Type(&f.ty));
            inner.validate(&f.schemars.validation);
            inner.decorate(deco, true, !cont.cel.schema.replace_rules);
            return Model {
                node: inner,
                fields: vec![field(f, 0, true).node],
            };
        }
        Data::UnitEnum(names) => {
            let values = names
                .iter()
                .map(|n| serde_json::to_string(n).expect("BUG: a string serializes"))
                .collect();
            let node = Node {
                slots: vec![Slot::EnumValues(values)],
                ..Node::of(Base::Of(Type::String))
            };
            (node, Vec::new())
        }
        // The schema is schemars' own for the item as written; the model is what it means.
        Data::Enum(v) => (
            variants::model(v).unwrap_or_else(|| Node::of(Base::Unknown)),
            Vec::new(),
        ),
        Data::IntOrString => (Node::of(Base::IntOrString), Vec::new()),
        Data::Opaque => (Node::of(Base::Unknown), Vec::new()),
    };
    node.decorate(deco, true, false);
    Model { node, fields }
}
