//! One field of a struct: its shadow field (with the attributes schemars reads), its property
//! in the model, its costs and the const checks that need its type.

use super::*;
use crate::rules::const_check;

pub(super) struct FieldOut {
    /// Shadow field with its schemars attributes.
    pub(super) shadow: TokenStream,
    /// `Costs` of the property or of the flattened node.
    pub(super) costs: TokenStream,
    /// Decoration constant item, if any.
    pub(super) decoration_item: Option<TokenStream>,
    /// Const checks for this field.
    pub(super) checks: TokenStream,
    /// Checks of a generic container's field: items of its inherent impl.
    pub(super) assoc: TokenStream,
}

/// `property`: the field's position among the properties of the container's model (`None`
/// for newtype and flattened fields, which have none); `node`: its node in the model IR;
/// `predicted`: its predicted node.
#[allow(clippy::too_many_arguments)]
pub(super) fn emit_field(
    cont: &Container,
    f: &Field,
    index: usize,
    node: &crate::model::Node,
    property_index: Option<usize>,
    predicted: Option<&crate::predict::Predicted>,
    p: &TokenStream,
    newtype: bool,
    costs: &mut Vec<TokenStream>,
) -> FieldOut {
    let ty = &f.ty;
    let field_ty = &f.original.ty;
    let attrs = schema_attrs(&f.original.attrs);
    let vis = &f.original.vis;
    let deco = crate::model::has_decoration(&f.cel);
    let deco_ident = format_ident!("__CEL_FIELD_{}", index);
    let decoration_item = deco.then(|| {
        let d = decoration_tokens(&f.cel.rules, &f.cel.schema, p);
        quote!(const #deco_ident: #p::Decoration<'static> = #d;)
    });
    let transform = deco.then(|| quote!(#[schemars(transform = #p::Decorate(&#deco_ident))]));
    let shadow = match &f.original.ident {
        Some(ident) => quote! { #(#attrs)* #transform #vis #ident: #field_ty },
        None => quote! { #(#attrs)* #transform #vis #field_ty },
    };
    let type_costs = costs_of(ty, p);
    let name = &f.name;
    // Checks that need the field's type. A `const _` cannot name generic parameters, so
    // generic containers skip them (the apiserver still checks the CRD).
    let mut checks = TokenStream::new();
    let cont_ident = cont.ident;
    let node_ref = match property_index {
        Some(k) => crate::rules::NodeRef::Property(quote!(#cont_ident), k),
        None => crate::rules::NodeRef::Expr(render(node, p)),
    };
    if deco && cont.original.generics.params.is_empty() {
        let field_name = if newtype {
            cont.ident.to_string()
        } else {
            name.clone()
        };
        // The error of a const check lands on the key it is about.
        let sa = &f.cel.schema;
        let key_span = sa
            .list_type
            .as_ref()
            .map(|v| v.span)
            .or(sa.max_items.as_ref().map(|v| v.span))
            .or(sa.min_items.as_ref().map(|v| v.span))
            .or(sa.map_type.as_ref().map(|v| v.span))
            .or(sa.max_properties.as_ref().map(|v| v.span))
            .or(sa.min_properties.as_ref().map(|v| v.span))
            .unwrap_or_else(|| f.original.ty.span());
        let args = quote_spanned!(key_span=> #field_name, __cel_node, &#deco_ident);
        let bind = node_ref.bind(p, key_span);
        checks.extend(const_check(key_span, p, "check_decoration", &bind, args));
        if let Some(keys) = &f.cel.schema.list_map_keys {
            let (span, keys) = (keys.span, &keys.value);
            let args = quote_spanned!(span=> #field_name, __cel_node, &[#(#keys),*]);
            let bind = node_ref.bind(p, span);
            checks.extend(const_check(span, p, "check_list_map_keys", &bind, args));
        }
    }
    if !newtype && !f.serde.flatten && cont.original.generics.params.is_empty() {
        let place = format!("{}.{}", cont.ident, name);
        let span = f.original.ty.span();
        let args = quote_spanned!(span=> #place, __cel_node);
        let bind = node_ref.bind(p, span);
        checks.extend(const_check(span, p, "check_correlatable", &bind, args));
    }
    let generic = !cont.original.generics.params.is_empty();
    let mut assoc = TokenStream::new();
    // A generic container's field is reached through `Self`; a newtype's or flattened field's
    // node is a constant of its own, which cannot name the type parameters.
    let rule_costs = if !f.cel.rules.is_empty() && (!generic || property_index.is_some()) {
        let place = if newtype {
            cont.ident.to_string()
        } else {
            format!("{}.{}", cont.ident, name)
        };
        let node_ref = match (generic, property_index) {
            (true, Some(k)) => crate::rules::NodeRef::Property(quote!(Self), k),
            _ => node_ref,
        };
        let c = crate::rules::checks(
            &f.cel.rules,
            &node_ref,
            predicted,
            p,
            &place,
            false,
            generic,
            costs,
        );
        checks.extend(c.free);
        if generic {
            assoc.extend(c.items);
        } else {
            checks.extend(c.items);
        }
        c.costs
    } else {
        crate::rules::unchecked_costs(&f.cel.rules, p)
    };
    // The property's costs mirror its node: the type's rules, then the field's.
    let field_costs = if f.cel.rules.is_empty() || newtype {
        type_costs
    } else {
        chained_costs(&type_costs, &rule_costs, p)
    };
    FieldOut {
        shadow,
        costs: field_costs,
        decoration_item,
        checks,
        assoc,
    }
}
