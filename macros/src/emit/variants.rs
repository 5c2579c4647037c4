//! The model of a data-carrying enum, built from its variants: what schemars writes for each
//! representation, after kube's structural rewriting (variants' properties hoisted into one
//! object) or, where kube's panics, crd-cel's merge (`structural_variants`: tags as one string
//! enum, `required` what every variant requires). `None` where the result depends on schemas
//! the derive cannot see (an untagged or internally tagged newtype variant merges another
//! type's properties); such enums are read from the generated schema.
//!
//! The generated test compares this model with the generated schema, so a wrong guess here is
//! a failing `cargo test`, never a silently wrong verdict.

use super::{costs_of, field_node, model_of};
use crate::ast::{Field, Payload, Repr, Variant, Variants};
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// A node of the model and its costs, as expressions.
#[derive(Clone)]
struct Node {
    schema: TokenStream,
    costs: TokenStream,
}

/// The top-level node, split as [`crate::emit::apply_validation`] splits one: references only
/// live for `'static` outside a function argument, so what is borrowed goes into `overrides`
/// (the caller's outermost literal) and `value` holds no borrow.
pub struct Model {
    pub value: TokenStream,
    pub overrides: Vec<TokenStream>,
    pub costs: TokenStream,
}

struct Prop {
    name: String,
    /// A `bool` expression.
    required: TokenStream,
    node: Node,
}

/// The enum's model and costs, before the container's own rules and keys are applied.
pub fn model(v: &Variants, p: &TokenStream) -> Option<Model> {
    let top = match &v.repr {
        Repr::External => external(&v.variants, p)?,
        Repr::Internal { tag } => internal(tag, &v.variants, p)?,
        Repr::Adjacent { tag, content } => adjacent(tag, content, &v.variants, p)?,
        Repr::Untagged => untagged(&v.variants, p)?,
    };
    Some(match top {
        Top::Object(props, flatten) => {
            let (overrides, costs) = object_parts(&props, &flatten, p);
            Model {
                value: quote!(#p::Schema::of(#p::Type::Object)),
                overrides,
                costs,
            }
        }
        Top::Node(n) => Model {
            value: n.schema,
            overrides: Vec::new(),
            costs: n.costs,
        },
    })
}

/// What a representation makes of the enum: an object, or a node without borrows.
enum Top {
    Object(Vec<Prop>, Vec<Node>),
    Node(Node),
}

fn unknown(p: &TokenStream) -> Node {
    Node {
        schema: quote!(#p::Schema::UNKNOWN),
        costs: quote!(#p::Costs::NONE),
    }
}

/// The `properties` and `flatten` of an object node, and its costs.
fn object_parts(
    props: &[Prop],
    flatten: &[Node],
    p: &TokenStream,
) -> (Vec<TokenStream>, TokenStream) {
    let names = props.iter().map(|x| &x.name);
    let required = props.iter().map(|x| &x.required);
    let schemas = props.iter().map(|x| &x.node.schema);
    let costs = props.iter().map(|x| &x.node.costs);
    let flat = flatten.iter().map(|x| &x.schema);
    let flat_costs = flatten.iter().map(|x| &x.costs);
    (
        vec![
            quote!(properties: &[#(#p::Property { name: #names, required: #required, schema: &#schemas }),*]),
            quote!(flatten: &[#(&#flat),*]),
        ],
        quote! {
            #p::Costs {
                properties: &[#(&#costs),*],
                flatten: &[#(&#flat_costs),*],
                ..#p::Costs::NONE
            }
        },
    )
}

fn object(props: &[Prop], flatten: &[Node], p: &TokenStream) -> Node {
    let (overrides, costs) = object_parts(props, flatten, p);
    Node {
        schema: quote!(#p::Schema { #(#overrides,)* ..#p::Schema::of(#p::Type::Object) }),
        costs,
    }
}

/// The string enum of the variants' names (the tag of an internally or adjacently tagged enum).
fn tag_node(variants: &[Variant], p: &TokenStream) -> Node {
    let values = variants
        .iter()
        .map(|v| serde_json::to_string(&v.name).expect("BUG: a string serializes"));
    Node {
        schema: quote!(#p::Schema { enum_values: &[#(#values),*], ..#p::Schema::of(#p::Type::String) }),
        costs: quote!(#p::Costs::NONE),
    }
}

fn field_prop(f: &Field, p: &TokenStream) -> Prop {
    let n = field_node(f, p);
    Prop {
        name: f.name.clone(),
        required: n.required.clone(),
        node: Node {
            schema: n.node(p),
            costs: costs_of(&f.ty, p),
        },
    }
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
fn payload(v: &Variant, p: &TokenStream) -> Option<Node> {
    Some(match &v.payload {
        Payload::Unit => return None,
        Payload::Tuple => unknown(p),
        Payload::Newtype(f) => {
            let n = field_node(f, p);
            Node {
                schema: n.node(p),
                costs: costs_of(&f.ty, p),
            }
        }
        Payload::Struct(fields) => {
            let props: Vec<Prop> = fields
                .iter()
                .filter(|f| !f.serde.flatten)
                .map(|f| field_prop(f, p))
                .collect();
            let flatten: Vec<Node> = fields
                .iter()
                .filter(|f| f.serde.flatten)
                .map(|f| Node {
                    schema: model_of(&f.ty, p),
                    costs: costs_of(&f.ty, p),
                })
                .collect();
            object(&props, &flatten, p)
        }
    })
}

/// `{"variant": payload}` per variant, hoisted by kube into one object of optional properties
/// (the `oneOf` of which one is required stays). Unit variants are strings: mixed with objects,
/// no structural schema but "any value" remains.
fn external(variants: &[Variant], p: &TokenStream) -> Option<Top> {
    let units = variants
        .iter()
        .filter(|v| matches!(v.payload, Payload::Unit))
        .count();
    if units == variants.len() {
        return None;
    }
    if units > 0 {
        return Some(Top::Node(Node {
            schema: quote!(#p::Schema { preserve_unknown_fields: true, ..#p::Schema::of(#p::Type::Any) }),
            costs: quote!(#p::Costs::NONE),
        }));
    }
    let props: Vec<Prop> = variants
        .iter()
        .map(|v| {
            Some(Prop {
                name: v.name.clone(),
                required: quote!(false),
                node: payload(v, p)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(Top::Object(props, Vec::new()))
}

/// The fields of every variant merged by name: a field the variants agree on (up to
/// descriptions) keeps its schema, one they disagree on is unknown here (crd-cel's merge makes
/// it a string enum or any value). With `conflict` (the variants' schemas differ, so crd-cel
/// merges them), a property is required when every variant requires it; without, kube hoists
/// the properties and none is required.
fn merge_fields(variants: &[&[Field]], conflict: bool, p: &TokenStream) -> Vec<Prop> {
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
            let mut prop = field_prop(first, p);
            if found.iter().any(|f| key(f) != key(first)) {
                prop.node = unknown(p);
            }
            prop.required = if conflict && found.len() == variants.len() {
                let each = found.iter().map(|f| field_node(f, p).required);
                quote!(#((#each))&&*)
            } else {
                quote!(false)
            };
            prop
        })
        .collect()
}

/// `{"tag": "variant", ..fields}`. Two variants or more always differ (their tags), so crd-cel
/// merges them; a newtype variant would merge another type's properties, which only the
/// generated schema knows.
fn internal(tag: &str, variants: &[Variant], p: &TokenStream) -> Option<Top> {
    let mut fields: Vec<&[Field]> = Vec::new();
    for v in variants {
        match &v.payload {
            Payload::Unit => fields.push(&[]),
            Payload::Struct(fs) if fs.iter().all(|f| !f.serde.flatten && f.name != tag) => {
                fields.push(fs)
            }
            _ => return None,
        }
    }
    let conflict = variants.len() > 1;
    let mut props = vec![Prop {
        name: tag.to_owned(),
        required: quote!(#conflict),
        node: tag_node(variants, p),
    }];
    props.extend(merge_fields(&fields, conflict, p));
    Some(Top::Object(props, Vec::new()))
}

/// `{"tag": "variant", "content": payload}`: the content keeps its schema when every data
/// variant carries the same one.
fn adjacent(tag: &str, content: &str, variants: &[Variant], p: &TokenStream) -> Option<Top> {
    if tag == content {
        return None;
    }
    let conflict = variants.len() > 1;
    let mut props = vec![Prop {
        name: tag.to_owned(),
        required: quote!(#conflict),
        node: tag_node(variants, p),
    }];
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
        let node = if same { payload(first, p)? } else { unknown(p) };
        let required = conflict && data.len() == variants.len();
        props.push(Prop {
            name: content.to_owned(),
            required: quote!(#required),
            node,
        });
    }
    Some(Top::Object(props, Vec::new()))
}

/// The payload alone; only struct variants are followed (a newtype's properties are another
/// type's, a unit variant is `null`). Variants that share a field with different schemas are
/// merged by crd-cel, which the derive can tell only when the difference is in the
/// documentation.
fn untagged(variants: &[Variant], p: &TokenStream) -> Option<Top> {
    let mut fields: Vec<&[Field]> = Vec::new();
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
    Some(Top::Object(merge_fields(&fields, conflict, p), Vec::new()))
}
