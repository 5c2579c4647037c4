//! The model as expressions: a field type's model, schemars' validation keywords on it, the
//! `#[cel(..)]` decoration, rules as `Rule` literals.

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
        }
    }
}

pub(super) fn has_decoration(rules: &[RuleAttr], s: &SchemaAttrs) -> bool {
    !rules.is_empty()
        || s.list_type.is_some()
        || s.list_map_keys.is_some()
        || s.map_type.is_some()
        || s.max_items.is_some()
        || s.min_items.is_some()
        || s.max_properties.is_some()
        || s.min_properties.is_some()
}

/// `Option<u64>` / `Option<f64>` tokens from a schemars bound expression.
pub(super) fn bound(e: &Option<syn::Expr>, as_ty: TokenStream, p: &TokenStream) -> TokenStream {
    match e {
        Some(e) => quote!(#p::Some((#e) as #as_ty)),
        None => quote!(#p::None),
    }
}

/// The model of a node after schemars' validation attributes, as a by-value expression plus
/// struct-update overrides. References in a constant only live for `'static` when they are not
/// inside a function argument, so everything borrowed goes into the overrides, which the caller
/// puts in the outermost struct literal.
pub(super) fn apply_validation(
    base: TokenStream,
    v: &SchemarsValidation,
    p: &TokenStream,
) -> (TokenStream, Vec<TokenStream>) {
    let mut expr = base.clone();
    if let Some(len) = &v.length {
        let (min, max) = (
            bound(&len.min, quote!(u64), p),
            bound(&len.max, quote!(u64), p),
        );
        expr = quote!((#expr).with_length(#min, #max));
    }
    if let Some(range) = &v.range {
        let (min, max) = (
            bound(&range.min, quote!(f64), p),
            bound(&range.max, quote!(f64), p),
        );
        expr = quote!((#expr).with_range(#min, #max));
    }
    // Only a literal pattern is known at compile time; a pattern given by path is still in the
    // generated JSON schema, and the model comparison test reports it if it matters.
    if let Some(syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(pat),
        ..
    })) = &v.pattern
    {
        expr = quote!((#expr).with_pattern(#pat));
    }
    if let Some(f) = v.format {
        expr = quote!((#expr).with_format(#f));
    }
    let mut overrides = Vec::new();
    if let Some(inner) = &v.inner {
        let inner_node = node_literal(quote!((*__cel_items)), inner, &[], p);
        overrides.push(quote! {
            items: match (#base).items {
                #p::Some(__cel_items) => #p::Some(&#inner_node),
                #p::None => #p::None,
            }
        });
    }
    (expr, overrides)
}

/// `Schema { <overrides>, ..<value> }`, or the value alone.
pub(super) fn node_literal(
    base: TokenStream,
    v: &SchemarsValidation,
    extra: &[TokenStream],
    p: &TokenStream,
) -> TokenStream {
    let (value, mut overrides) = apply_validation(base, v, p);
    overrides.extend(extra.iter().cloned());
    if overrides.is_empty() {
        value
    } else {
        quote!(#p::Schema { #(#overrides,)* ..#value })
    }
}

/// `X` when `ty` is spelled `Option<X>`: the derive reads the option itself, so that an optional
/// field of a type without a model is still optional and nullable.
pub(super) fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(tp) = ty else { return None };
    if tp.qself.is_some() {
        return None;
    }
    let last = tp.path.segments.last()?;
    if last.ident != "Option" {
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

/// The model of a field type: its own (`CelSchema`), or unknown for a type known only by its
/// `JsonSchema` (`Probe`).
pub(crate) fn model_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    match option_inner(ty) {
        Some(inner) => {
            let inner = forwarded(inner);
            quote!(#p::Schema { nullable: true, ..#p::Probe::<#inner>::MODEL })
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

/// A field's node as schemars writes it, before `#[cel(..)]` decorations.
pub(crate) struct FieldNode {
    /// The field type's model (unknown where the schema is made by a function).
    pub model: TokenStream,
    /// The node by value (see [`apply_validation`]).
    pub value: TokenStream,
    /// Struct-update overrides for the node's outermost literal.
    pub overrides: Vec<TokenStream>,
    /// A `bool` expression: whether the property is in `required`.
    pub required: TokenStream,
}

impl FieldNode {
    /// The node as one expression.
    pub fn node(&self, p: &TokenStream) -> TokenStream {
        let (value, overrides) = (&self.value, &self.overrides);
        if overrides.is_empty() {
            value.clone()
        } else {
            quote!(#p::Schema { #(#overrides,)* ..#value })
        }
    }
}

pub(crate) fn field_node(f: &Field, p: &TokenStream) -> FieldNode {
    let ty = &f.ty;
    // A schema made by a function (or changed where the model cannot follow) is read from the
    // generated schema.
    let model = if f.schemars.unmodeled {
        quote!(#p::Schema::UNKNOWN)
    } else {
        model_of(ty, p)
    };
    let (value, mut overrides) = apply_validation(model.clone(), &f.schemars.validation, p);
    // schemars drops `nullable` from an `Option` field it is told is required.
    let value = if f.schemars.required {
        quote!((#value).with_nullable(false))
    } else {
        value
    };
    // schemars writes `default` for `#[serde(default)]` unless `skip_serializing_if` skips the
    // default value; that predicate cannot run at compile time, and in practice it is there to
    // skip exactly the default (`Option::is_none`, `Vec::is_empty`), so it counts as no default.
    if f.serde.default && !f.serde.skip_serializing_if {
        overrides.push(quote!(has_default: true));
    }
    // Any `#[serde(default)]` makes the field optional, whatever it writes as `default`.
    let forced = f.schemars.required;
    let serde_default = f.serde.default;
    let optional = optional_of(ty, p);
    FieldNode {
        model,
        value,
        overrides,
        required: quote!(#forced || !(#serde_default || #optional)),
    }
}
