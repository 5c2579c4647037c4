//! The shadow items schemars derives the JSON schema from: the type as written, with only the
//! attributes schemars reads.

use super::*;

/// Attributes the shadow type keeps: the ones schemars reads (serde, schemars, docs).
pub(super) fn read_by_schemars(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|a| {
        let p = a.path();
        p.is_ident("serde")
            || p.is_ident("schemars")
            || p.is_ident("doc")
            || p.is_ident("validate")
            || p.is_ident("garde")
    })
}

/// The attributes of a node the derive writes (a container, a struct's field): those schemars
/// reads, without the `extend`s the derive writes itself (see `attr::read_extensions`).
pub(super) fn schema_attrs(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    read_by_schemars(attrs)
        .filter_map(crate::attr::without_read_extensions)
        .collect()
}

/// The shadow of a type whose schema is read from schemars' output: the item as written, with
/// only the attributes schemars reads, at every level.
pub(super) fn opaque_shadow(input: &syn::DeriveInput) -> TokenStream {
    // The fields and variants of such a type are schemars' alone, their `extend`s included.
    fn keep(attrs: &mut Vec<syn::Attribute>) {
        let kept: Vec<syn::Attribute> = read_by_schemars(attrs).cloned().collect();
        *attrs = kept;
    }
    fn fields(f: &mut syn::Fields) {
        for field in f.iter_mut() {
            keep(&mut field.attrs);
        }
    }
    let mut shadow = input.clone();
    shadow.ident = format_ident!("__CelShadow");
    shadow.vis = syn::Visibility::Inherited;
    shadow.attrs = schema_attrs(&shadow.attrs);
    match &mut shadow.data {
        syn::Data::Struct(s) => fields(&mut s.fields),
        syn::Data::Enum(e) => {
            for v in e.variants.iter_mut() {
                keep(&mut v.attrs);
                fields(&mut v.fields);
            }
        }
        syn::Data::Union(_) => {}
    }
    shadow.to_token_stream()
}

/// `Default` for the shadow of a `#[serde(default)]` struct, from the type's own: schemars
/// writes each field's default from `Default::default()` of the type it derives from.
pub(super) fn shadow_default(cont: &Container) -> Option<TokenStream> {
    if !cont.default_from_trait || !cont.original.generics.params.is_empty() {
        return None;
    }
    let syn::Data::Struct(s) = &cont.original.data else {
        return None;
    };
    let ident = cont.ident;
    let body = match &s.fields {
        syn::Fields::Named(f) => {
            // The shadow of a modeled struct has the fields serde and schemars do not skip.
            let names: Vec<_> = match &cont.data {
                Data::Struct(fields) => fields.iter().map(|f| &f.original.ident).collect(),
                _ => f.named.iter().map(|f| &f.ident).collect(),
            };
            quote!(__CelShadow { #(#names: __cel_d.#names),* })
        }
        syn::Fields::Unnamed(f) => {
            let idx = (0..f.unnamed.len()).map(syn::Index::from);
            quote!(__CelShadow(#(__cel_d.#idx),*))
        }
        syn::Fields::Unit => return None,
    };
    Some(quote! {
        impl ::core::default::Default for __CelShadow {
            fn default() -> Self {
                let __cel_d = <#ident as ::core::default::Default>::default();
                #body
            }
        }
    })
}
