//! The model of a data-carrying enum, built from its variants: what schemars writes for each
//! representation, after kube's structural rewriting (variants' properties hoisted into one
//! object) or, where kube's panics, crd-cel's merge (`structural_variants`: tags as one string
//! enum, `required` what every variant requires). `None` where the result depends on schemas
//! the derive cannot see (an untagged or internally tagged newtype variant merges another
//! type's properties); such enums are read from the generated schema.
//!
//! The generated test compares this model with the generated schema, so a wrong guess here is
//! a failing `cargo test`, never a silently wrong verdict.

use super::{Base, Node, Property, Required, Slot, field};
use crate::ast::{Field, Payload, Repr, Variant, Variants};
use crd_cel_core::model::Type;
use quote::ToTokens;

/// The enum's model, before the container's own rules and keys are applied.
pub fn model<'a>(v: &'a Variants<'_>) -> Option<Node<'a>> {
    match &v.repr {
        Repr::External => external(&v.variants),
        Repr::Internal { tag } => internal(tag, &v.variants),
        Repr::Adjacent { tag, content } => adjacent(tag, content, &v.variants),
        Repr::Untagged => untagged(&v.variants),
    }
}

/// The string enum of the variants' names (the tag of an internally or adjacently tagged enum).
fn tag(name: &str, required: bool, variants: &[Variant]) -> Property<'static> {
    let values = variants
        .iter()
        .map(|v| serde_json::to_string(&v.name).expect("BUG: a string serializes"))
        .collect();
    Property {
        name: name.to_owned(),
        required: Required::Always(required),
        node: Node {
            slots: vec![Slot::EnumValues(values)],
            ..Node::of(Base::Of(Type::String))
        },
    }
}

/// A field of a variant: its node as schemars writes it (a variant's field has no
/// `#[cel(..)]` of its own).
fn field_prop<'a>(f: &'a Field<'_>) -> Property<'a> {
    field(f, 0, false)
}

/// A field as the schema sees it, documentation aside: two fields with the same key have the
/// same schema up to descriptions.
fn key(f: &Field) -> String {
    let attrs = f
        .original
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc"))
        .map(|a| a.to_token_stream().to_string());
    let mut k: Vec<String> = attrs.collect();
    k.push(f.original.ty.to_token_stream().to_string());
    k.join(" ")
}

/// Whether two fields' schemas are identical, descriptions included.
fn same_with_docs(a: &Field, b: &Field) -> bool {
    a.original.to_token_stream().to_string() == b.original.to_token_stream().to_string()
}

/// A variant's payload: the newtype's type, or the struct variant's object.
fn payload<'a>(v: &'a Variant<'_>) -> Option<Node<'a>> {
    Some(match &v.payload {
        Payload::Unit => return None,
        Payload::Tuple => Node::of(Base::Unknown),
        Payload::Newtype(f) => field_prop(f).node,
        Payload::Struct(fields) => {
            let props = fields
                .iter()
                .filter(|f| !f.serde.flatten)
                .map(field_prop)
                .collect();
            let flatten = fields
                .iter()
                .filter(|f| f.serde.flatten)
                .map(|f| Node::of(Base::Type(&f.ty)))
                .collect();
            Node::object(props, flatten)
        }
    })
}

/// `{"variant": payload}` per variant, hoisted by kube into one object of optional properties
/// (the `oneOf` of which one is required stays). Unit variants are strings: mixed with objects,
/// no structural schema but "any value" remains.
fn external<'a>(variants: &'a [Variant<'_>]) -> Option<Node<'a>> {
    let units = variants
        .iter()
        .filter(|v| matches!(v.payload, Payload::Unit))
        .count();
    if units == variants.len() {
        return None;
    }
    if units > 0 {
        return Some(Node::of(Base::Preserved));
    }
    let props = variants
        .iter()
        .map(|v| {
            Some(Property {
                name: v.name.clone(),
                required: Required::Always(false),
                node: payload(v)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(Node::object(props, Vec::new()))
}

/// The fields of every variant merged by name: a field the variants agree on (up to
/// descriptions) keeps its schema, one they disagree on is unknown here (crd-cel's merge makes
/// it a string enum or any value). With `conflict` (the variants' schemas differ, so crd-cel
/// merges them), a property is required when every variant requires it; without, kube hoists
/// the properties and none is required.
fn merge_fields<'a>(variants: &[&'a [Field<'_>]], conflict: bool) -> Vec<Property<'a>> {
    let mut names: Vec<&str> = Vec::new();
    for fields in variants {
        for f in fields.iter() {
            if !names.contains(&f.name.as_str()) {
                names.push(&f.name);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let found: Vec<&Field> = variants
                .iter()
                .filter_map(|fs| fs.iter().find(|f| f.name == name))
                .collect();
            let first = found[0];
            let mut prop = field_prop(first);
            if found.iter().any(|f| key(f) != key(first)) {
                prop.node = Node::of(Base::Unknown);
            }
            prop.required = if conflict && found.len() == variants.len() {
                Required::All(found.iter().map(|f| field_prop(f).required).collect())
            } else {
                Required::Always(false)
            };
            prop
        })
        .collect()
}

/// `{"tag": "variant", ..fields}`. Two variants or more always differ (their tags), so crd-cel
/// merges them; a newtype variant would merge another type's properties, which only the
/// generated schema knows.
fn internal<'a>(tag_name: &str, variants: &'a [Variant<'_>]) -> Option<Node<'a>> {
    let mut fields: Vec<&[Field<'_>]> = Vec::new();
    for v in variants {
        match &v.payload {
            Payload::Unit => fields.push(&[]),
            Payload::Struct(fs) if fs.iter().all(|f| !f.serde.flatten && f.name != tag_name) => {
                fields.push(fs)
            }
            _ => return None,
        }
    }
    let conflict = variants.len() > 1;
    let mut props = vec![tag(tag_name, conflict, variants)];
    props.extend(merge_fields(&fields, conflict));
    Some(Node::object(props, Vec::new()))
}

/// `{"tag": "variant", "content": payload}`: the content keeps its schema when every data
/// variant carries the same one.
fn adjacent<'a>(tag_name: &str, content: &str, variants: &'a [Variant<'_>]) -> Option<Node<'a>> {
    if tag_name == content {
        return None;
    }
    let conflict = variants.len() > 1;
    let mut props = vec![tag(tag_name, conflict, variants)];
    let data: Vec<&Variant> = variants
        .iter()
        .filter(|v| !matches!(v.payload, Payload::Unit))
        .collect();
    if let Some(first) = data.first() {
        // A struct payload is keyed by its fields' names too (`key` leaves the name out), and
        // apart from a newtype's.
        let payload_key = |v: &Variant| match &v.payload {
            Payload::Newtype(f) => Some(format!("newtype {}", key(f))),
            Payload::Struct(fs) => Some(format!(
                "struct {}",
                fs.iter()
                    .map(|f| format!("{}: {}", f.name, key(f)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Payload::Unit | Payload::Tuple => None,
        };
        let same = payload_key(first).is_some()
            && data.iter().all(|v| payload_key(v) == payload_key(first));
        let node = if same {
            payload(first)?
        } else {
            Node::of(Base::Unknown)
        };
        props.push(Property {
            name: content.to_owned(),
            required: Required::Always(conflict && data.len() == variants.len()),
            node,
        });
    }
    Some(Node::object(props, Vec::new()))
}

/// The payload alone; only struct variants are followed (a newtype's properties are another
/// type's, a unit variant is `null`). Variants that share a field with different schemas are
/// merged by crd-cel, which the derive can tell only when the difference is in the
/// documentation.
fn untagged<'a>(variants: &'a [Variant<'_>]) -> Option<Node<'a>> {
    let mut fields: Vec<&[Field<'_>]> = Vec::new();
    for v in variants {
        match &v.payload {
            Payload::Struct(fs) if fs.iter().all(|f| !f.serde.flatten) => fields.push(fs),
            _ => return None,
        }
    }
    let mut conflict = false;
    for (i, a) in fields.iter().enumerate() {
        for b in &fields[i + 1..] {
            for f in a.iter() {
                if let Some(g) = b.iter().find(|g| g.name == f.name) {
                    if key(f) != key(g) {
                        return None;
                    }
                    conflict |= !same_with_docs(f, g);
                }
            }
        }
    }
    Some(Node::object(merge_fields(&fields, conflict), Vec::new()))
}
