//! The model as expressions: the model IR ([`crate::model`]) written as tokens (a field type's
//! model, schemars' validation keywords on it, the `#[cel(..)]` decoration), the decorations'
//! constants, rules as `Rule` literals, and the costs that follow the nodes.

use super::*;

pub(super) fn opt_lit(l: &Option<syn::LitStr>, p: &TokenStream) -> TokenStream {
    match l {
        Some(l) => quote!(#p::Some(#l)),
        None => quote!(#p::None),
    }
}

pub(super) fn rule_tokens(r: &RuleAttr, p: &TokenStream) -> TokenStream {
    let rule = &r.rule;
    let message = opt_lit(&r.message, p);
    let message_expression = opt_lit(&r.message_expression, p);
    let field_path = opt_lit(&r.field_path, p);
    let reason = match r
        .reason
        .as_ref()
        .and_then(|r| crd_cel_core::Reason::parse(&r.value))
    {
        Some(reason) => {
            let v = format_ident!("{}", reason.as_str());
            quote!(#p::Some(#p::Reason::#v))
        }
        None => quote!(#p::None),
    };
    let oos = match &r.optional_old_self {
        Some(b) => {
            let v = b.value;
            quote!(#p::Some(#v))
        }
        None => quote!(#p::None),
    };
    // Only the slots that are set, over `Rule::new`: most rules have none.
    let set = [
        (quote!(message), r.message.is_some(), message),
        (
            quote!(message_expression),
            r.message_expression.is_some(),
            message_expression,
        ),
        (quote!(field_path), r.field_path.is_some(), field_path),
        (quote!(reason), r.reason.is_some(), reason),
        (
            quote!(optional_old_self),
            r.optional_old_self.is_some(),
            oos,
        ),
    ];
    let overrides: Vec<TokenStream> = set
        .into_iter()
        .filter(|(_, is_set, _)| *is_set)
        .map(|(k, _, v)| quote!(#k: #v))
        .collect();
    if overrides.is_empty() {
        quote!(#p::Rule::new(#rule))
    } else {
        quote!(#p::Rule { #(#overrides,)* ..#p::Rule::new(#rule) })
    }
}

pub(super) fn decoration_tokens(
    rules: &[RuleAttr],
    s: &SchemaAttrs,
    p: &TokenStream,
) -> TokenStream {
    let rules = rules.iter().map(|r| rule_tokens(r, p));
    let list_type = match s.list_type.as_ref().map(|l| l.value) {
        Some(ListType::Atomic) => quote!(#p::Some(#p::ListType::Atomic)),
        Some(ListType::Set) => quote!(#p::Some(#p::ListType::Set)),
        Some(ListType::Map) => quote!(#p::Some(#p::ListType::Map)),
        None => quote!(#p::None),
    };
    let map_type = match s.map_type.as_ref().map(|l| l.value) {
        Some(MapType::Atomic) => quote!(#p::Some(#p::MapType::Atomic)),
        Some(MapType::Granular) => quote!(#p::Some(#p::MapType::Granular)),
        None => quote!(#p::None),
    };
    let keys = s
        .list_map_keys
        .as_ref()
        .map(|k| k.value.clone())
        .unwrap_or_default();
    let num = |v: &Option<crate::attr::Sp<u64>>| match v {
        Some(v) => {
            let n = v.value;
            quote!(#p::Some(#n))
        }
        None => quote!(#p::None),
    };
    let (max_items, min_items, max_properties, min_properties) = (
        num(&s.max_items),
        num(&s.min_items),
        num(&s.max_properties),
        num(&s.min_properties),
    );
    let replace_rules = s.replace_rules;
    quote! {
        #p::Decoration {
            rules: &[#(#rules),*],
            list_type: #list_type,
            list_map_keys: &[#(#keys),*],
            map_type: #map_type,
            max_items: #max_items,
            min_items: #min_items,
            max_properties: #max_properties,
            min_properties: #min_properties,
            replace_rules: #replace_rules,
        }
    }
}

/// `Option<u64>` / `Option<f64>` tokens from a schemars bound expression.
fn bound(e: &Option<syn::Expr>, as_ty: TokenStream, p: &TokenStream) -> TokenStream {
    match e {
        Some(e) => quote!(#p::Some((#e) as #as_ty)),
        None => quote!(#p::None),
    }
}

fn decoration_ident(name: DecorationName) -> syn::Ident {
    match name {
        DecorationName::Container => format_ident!("__CEL_CONTAINER"),
        DecorationName::Field(n) => format_ident!("__CEL_FIELD_{}", n),
    }
}

fn base_tokens(base: Base, p: &TokenStream) -> TokenStream {
    match base {
        Base::Type(ty) => model_of(ty, p),
        Base::Unmodeled(_) | Base::Unknown => quote!(#p::Schema::UNKNOWN),
        Base::Of(ty) => {
            let ty = match ty {
                Type::Object => quote!(Object),
                Type::String => quote!(String),
                other => unreachable!("BUG: no `Schema::of({other:?})` in the IR"),
            };
            quote!(#p::Schema::of(#p::Type::#ty))
        }
        Base::IntOrString => quote!(#p::k8s::INT_OR_STRING),
        Base::Preserved => {
            quote!(#p::Schema { preserve_unknown_fields: true, ..#p::Schema::of(#p::Type::Any) })
        }
        Base::Items => quote!((*__cel_items)),
    }
}

/// The node by value, and the slots for its outermost literal (see [`crate::model`]).
fn split(node: &Node, p: &TokenStream) -> (TokenStream, Vec<TokenStream>) {
    let base = base_tokens(node.base, p);
    let mut value = base.clone();
    for step in &node.steps {
        value = match step {
            Step::Length(b) => {
                let (min, max) = (bound(&b.min, quote!(u64), p), bound(&b.max, quote!(u64), p));
                quote!((#value).with_length(#min, #max))
            }
            Step::Range(b) => {
                let (min, max) = (bound(&b.min, quote!(f64), p), bound(&b.max, quote!(f64), p));
                quote!((#value).with_range(#min, #max))
            }
            Step::Pattern(pattern) => quote!((#value).with_pattern(#pattern)),
            Step::Format(f) => quote!((#value).with_format(#f)),
            Step::NotNullable(ty) => {
                let optional = optional_of(ty, p);
                quote!((#value).required_nullable(#optional))
            }
            Step::WithoutRules => quote!((#value).without_rules()),
            Step::ForProperty(r) => {
                let r = required_tokens(r, p);
                quote!((#value).for_property(#r))
            }
            Step::Decorate(d) => {
                let d = decoration_ident(d.name);
                quote!(#d.apply(#value))
            }
        };
    }
    let slots = node
        .slots
        .iter()
        .map(|slot| match slot {
            Slot::Items(items) => {
                let items = render(items, p);
                quote! {
                    items: match (#base).items {
                        #p::Some(__cel_items) => #p::Some(&#items),
                        #p::None => #p::None,
                    }
                }
            }
            Slot::HasDefault => quote!(has_default: true),
            Slot::EnumValues(values) => quote!(enum_values: &[#(#values),*]),
            Slot::Properties(props) => {
                let names = props.iter().map(|x| &x.name);
                let required = props.iter().map(|x| required_tokens(&x.required, p));
                let schemas = props.iter().map(|x| {
                    let mut node = x.node.clone();
                    node.steps.push(Step::ForProperty(&x.required));
                    render(&node, p)
                });
                // A node with its own properties has no precomputed fingerprint of them.
                quote! {
                    properties: &[#(#p::Property { name: #names, required: #required, schema: &#schemas }),*],
                    properties_fingerprint: #p::None
                }
            }
            Slot::Flatten(nodes) => {
                let nodes = nodes.iter().map(|n| render(n, p));
                quote!(flatten: &[#(&#nodes),*])
            }
            Slot::Validations { chained: true, own } => {
                let own = decoration_ident(*own);
                quote! {
                    validations: #p::Rules {
                        before: #p::Some(&#base.validations),
                        own: #own.rules,
                    }
                }
            }
            Slot::Validations { chained: false, own } => {
                let own = decoration_ident(*own);
                quote!(validations: #p::Rules::new(#own.rules))
            }
        })
        .collect();
    (value, slots)
}

/// The node as one expression: `Schema { <slots>, ..<value> }`, or the value alone.
pub(crate) fn render(node: &Node, p: &TokenStream) -> TokenStream {
    let (value, slots) = split(node, p);
    if slots.is_empty() {
        value
    } else {
        quote!(#p::Schema { #(#slots,)* ..#value })
    }
}

/// A `bool` expression.
pub(crate) fn required_tokens(r: &Required, p: &TokenStream) -> TokenStream {
    match r {
        Required::Always(b) => quote!(#b),
        Required::Field {
            forced,
            serde_default,
            ty,
            schema_with,
        } => {
            let optional = if *schema_with {
                quote!(false)
            } else {
                optional_of(ty, p)
            };
            quote!(!#serde_default && (#forced || !#optional))
        }
        Required::All(each) => {
            let each = each.iter().map(|r| required_tokens(r, p));
            quote!(#((#each))&&*)
        }
    }
}

/// The `Costs` of a node without rules of its own (a field type's, an object's made of them):
/// nodes with rules chain their rules' costs, which `rules::checks` estimates.
pub(crate) fn node_costs(node: &Node, p: &TokenStream) -> TokenStream {
    let mut object = None;
    let mut flat = None;
    for slot in &node.slots {
        match slot {
            Slot::Properties(props) => object = Some(props),
            Slot::Flatten(nodes) => flat = Some(nodes),
            _ => {}
        }
    }
    if let (Some(props), Some(flat)) = (object, flat) {
        let costs = props.iter().map(|x| node_costs(&x.node, p));
        let flat_costs = flat.iter().map(|x| node_costs(x, p));
        return quote! {
            #p::Costs {
                properties: &[#(&#costs),*],
                flatten: &[#(&#flat_costs),*],
                ..#p::Costs::NONE
            }
        };
    }
    match node.base {
        Base::Type(ty) | Base::Unmodeled(ty) => costs_of(ty, p),
        _ => quote!(#p::Costs::NONE),
    }
}

/// The `Costs` of a node whose rules follow its type's (`Rules { before, own }`): the type's, with
/// `own` after the type's rules' costs.
pub(super) fn chained_costs(
    type_costs: &TokenStream,
    own: &[TokenStream],
    p: &TokenStream,
) -> TokenStream {
    quote! {
        #p::Costs {
            rules: #p::CostList {
                before: #p::Some(&#type_costs.rules),
                own: &[#(#own),*],
            },
            ..#type_costs
        }
    }
}

/// `X` when `ty` is spelled `Option<X>`: the derive reads the option itself, so that an optional
/// field of a type without a model is still optional and nullable.
pub(super) fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    single_argument(ty, &["Option"])
}

/// The model of a field type: its own (`CelSchema`), or unknown for a type known only by its
/// `JsonSchema` (`Probe`).
pub(crate) fn model_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    match option_inner(ty) {
        Some(inner) => {
            let inner = forwarded(inner);
            quote!(#p::Probe::<#inner>::MODEL.optional())
        }
        None => {
            let ty = forwarded(ty);
            quote!(#p::Probe::<#ty>::MODEL)
        }
    }
}

pub(super) fn optional_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    match option_inner(ty) {
        Some(_) => quote!(true),
        None => {
            let ty = forwarded(ty);
            quote!(#p::Probe::<#ty>::OPTIONAL)
        }
    }
}

pub(crate) fn costs_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    let ty = forwarded(option_inner(ty).unwrap_or(ty));
    quote!(#p::Probe::<#ty>::COSTS)
}

/// `X` for `Box<X>`, `Rc<X>` and `Arc<X>` (repeatedly): core's impls forward all three to `X`
/// (`MODEL`, `OPTIONAL` and `COSTS` are `X`'s, and they have a model exactly when `X` has), so
/// naming `Probe::<X>` gives the same constants without two more of them per field type for
/// rustc to evaluate. That matters because rustc validates every constant by walking all the
/// memory it points to: for a field `Option<Box<T>>` of a type nested `n` deep, each extra constant
/// is one more walk of the `n` models below it (measured: a third of the validation work of
/// `tests/build-overhead`'s chain of 50 types).
pub(crate) fn forwarded(ty: &syn::Type) -> &syn::Type {
    let mut ty = ty;
    while let Some(inner) = single_argument(ty, &["Box", "Rc", "Arc"]) {
        ty = inner;
    }
    ty
}

/// `X` when `ty` is spelled `W<X>` for one of `wrappers` (the last path segment).
fn single_argument<'a>(ty: &'a syn::Type, wrappers: &[&str]) -> Option<&'a syn::Type> {
    let syn::Type::Path(tp) = ty else { return None };
    if tp.qself.is_some() {
        return None;
    }
    let last = tp.path.segments.last()?;
    if !wrappers.iter().any(|w| last.ident == w) {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}
