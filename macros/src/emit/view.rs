//! The view of a struct (`__private::CelView` and `ObjView`): its serialized fields by JSON
//! name, read in place, so that the typed fast path runs rules without building CEL values.
//!
//! A view must say exactly what serde's derive serializes, or nothing: a field serialized in
//! a way the derive does not follow (`serialize_with`, `with`, `getter`, a rename that differs
//! when serializing) is opaque, and so is a container whose serialization is another's
//! (`into`, `tag`, `remote`). A flattened field's entries are the struct's own when its value
//! is a struct with a view (or `None`); any other flattened value (a map, another crate's type)
//! leaves the struct without a view, decided per value. A rule reading an opaque value is
//! evaluated on built values instead; a field's type without a view is opaque too
//! (`ViewProbe`). An enum of unit variants is the string serde writes for the variant.

use super::*;

/// `expr`'s view: through the runtime's autoref probe, its `CelView` if it has one, else
/// `ViewRef::Ser` if serde can write it, else `ViewRef::Opaque`.
pub(super) fn probe(p: &TokenStream, expr: TokenStream) -> TokenStream {
    quote!({
        use #p::{ViewKnown as _, ViewSer as _, ViewUnknown as _};
        (&&#p::ViewProbe(#expr)).cel_probe()
    })
}

/// `self` as a `SerValue` when its type is known to be `Serialize` (in a generic impl whose
/// bounds do not say so, `None`): the autoref probe without its `CelView` level.
pub(super) fn serde_probe(p: &TokenStream) -> TokenStream {
    quote!({
        use #p::{ViewSer as _, ViewUnknown as _};
        match (&#p::ViewProbe(self)).cel_probe() {
            #p::ViewRef::Ser(__cel_serde) => #p::Some(__cel_serde),
            _ => #p::None,
        }
    })
}

/// The view impls of the container (none for enums and opaque data). Their methods are
/// `#[inline]`, as `validate()` is: the vtables, and the code of the rules written as Rust,
/// are generated only in the crates that validate, not in every crate defining CRD types.
pub(super) fn view_impls(cont: &Container, p: &TokenStream) -> TokenStream {
    let ident = cont.ident;
    let (impl_generics, ty_generics, where_clause) = cont.original.generics.split_for_impl();
    let reroutes = container_reroutes(&cont.original.attrs);
    match &cont.data {
        Data::Struct(fields) if !reroutes && plain_fields(fields) => {
            let own: Vec<&Field> = fields.iter().filter(|f| !f.serde.flatten).collect();
            let views: Vec<_> = own.iter().filter_map(|f| field_view(f, p)).collect();
            let named: Vec<&str> = views.iter().map(|(name, _)| name.as_str()).collect();
            let rules = super::rule_code::methods(cont, fields, &named, p);
            let flat = Flattened::of(fields, p);
            let arms = views.iter().map(|(name, view)| {
                // serde writes a key again for a flattened struct declared later, and the
                // last one written is the one read back.
                let later = flat.after(fields, name);
                match later.is_empty() {
                    true => quote!(#name => #view,),
                    false => quote!(#name => {
                        #(#later)*
                        #view
                    }),
                }
            });
            let rest = flat.lookups(&flat.views);
            let count = entry_count(&own);
            let flat_counts = flat.views.iter().map(|v| {
                quote!(+ match #v {
                    #p::ViewRef::Obj(__cel_o) => __cel_o.cel_count(),
                    _ => 0,
                })
            });
            // A flattened value that is not a struct with a view (a map, another crate's
            // type) leaves the whole struct without one.
            let viewable = flat
                .views
                .iter()
                .map(|v| quote!(&&matches!(#v, #p::ViewRef::Obj(_) | #p::ViewRef::Null)));
            let serde = serde_probe(p);
            quote! {
                #[automatically_derived]
                impl #impl_generics #p::ObjView for #ident #ty_generics #where_clause {
                    #[inline]
                    fn cel_field(&self, __cel_name: &str) -> #p::ViewRef<'_> {
                        match __cel_name {
                            #(#arms)*
                            _ => {
                                #rest
                                #p::ViewRef::Absent
                            }
                        }
                    }

                    #[inline]
                    fn cel_count(&self) -> usize {
                        #count #(#flat_counts)*
                    }

                    #[inline]
                    fn cel_serde(&self) -> #p::Option<&dyn #p::SerValue> {
                        #serde
                    }

                    #rules
                }
                #[automatically_derived]
                impl #impl_generics #p::CelView for #ident #ty_generics #where_clause {
                    #[inline]
                    fn cel_view(&self) -> #p::ViewRef<'_> {
                        match true #(#viewable)* {
                            true => #p::ViewRef::Obj(self),
                            false => #p::ViewRef::Opaque,
                        }
                    }
                }
            }
        }
        Data::Newtype(f) if !reroutes && plain_newtype(f) => {
            let view = probe(p, {
                let access = access(f);
                quote!(&self.#access)
            });
            quote! {
                #[automatically_derived]
                impl #impl_generics #p::CelView for #ident #ty_generics #where_clause {
                    #[inline]
                    fn cel_view(&self) -> #p::ViewRef<'_> {
                        #view
                    }
                }
            }
        }
        Data::UnitEnum(_) if !reroutes => match unit_variant_names(cont) {
            Some(arms) => {
                let arms = arms.iter().map(|(variant, name)| match name {
                    Some(name) => quote!(Self::#variant => #p::ViewRef::Str(#name),),
                    // serde fails to write a skipped variant: the value path reports it.
                    None => quote!(Self::#variant => #p::ViewRef::Opaque,),
                });
                quote! {
                    #[automatically_derived]
                    impl #impl_generics #p::CelView for #ident #ty_generics #where_clause {
                        #[inline]
                        fn cel_view(&self) -> #p::ViewRef<'_> {
                            match self {
                                #(#arms)*
                            }
                        }
                    }
                }
            }
            None => TokenStream::new(),
        },
        _ => TokenStream::new(),
    }
}

/// Each unit variant and the string serde writes for it (`None`: skipped), when the derive
/// can tell: `rename = "x"` and `rename_all = "rule"` in their plain forms only.
fn unit_variant_names<'c>(cont: &'c Container) -> Option<Vec<(&'c syn::Ident, Option<String>)>> {
    let syn::Data::Enum(e) = &cont.original.data else {
        return None;
    };
    if e.variants.is_empty() {
        return None;
    }
    let mut rename_all = None;
    for attr in cont
        .original
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
    {
        let mut plain = true;
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if meta.input.peek(syn::token::Paren) {
                    plain = false;
                } else {
                    let rule = meta.value()?.parse::<syn::LitStr>()?.value();
                    rename_all = Some(crate::case::RenameRule::from_str(&rule));
                    return Ok(());
                }
            }
            skip(&meta)
        })
        .ok()?;
        if !plain {
            return None;
        }
    }
    let rename_all = match rename_all {
        Some(rule) => Some(rule?),
        None => None,
    };
    e.variants
        .iter()
        .map(|v| {
            let mut rename = None;
            let mut skipped = false;
            let mut plain = matches!(v.fields, syn::Fields::Unit);
            for attr in v.attrs.iter().filter(|a| a.path().is_ident("serde")) {
                attr.parse_nested_meta(|meta| {
                    let key = |k: &str| meta.path.is_ident(k);
                    if key("rename") && !meta.input.peek(syn::token::Paren) {
                        rename = Some(meta.value()?.parse::<syn::LitStr>()?.value());
                        return Ok(());
                    } else if key("skip") || key("skip_serializing") {
                        skipped = true;
                    } else if !(key("alias") || key("skip_deserializing") || key("other")) {
                        // `rename(serialize = ..)`, `serialize_with`, ...
                        plain = false;
                    }
                    skip(&meta)
                })
                .ok()?;
            }
            plain.then_some(())?;
            let raw = v.ident.to_string();
            let name = rename.unwrap_or_else(|| match rename_all {
                Some(rule) => rule.apply_to_variant(&raw),
                None => raw,
            });
            Some((&v.ident, (!skipped).then_some(name)))
        })
        .collect()
}

/// Whether a newtype's field is written by its own `Serialize`, always.
fn plain_newtype(f: &Field) -> bool {
    let ser = field_serialization(f);
    ser.plain && matches!(ser.written, Written::Always)
}

/// Whether the struct's fields are written under names of their own, or flattened by their
/// own `Serialize`, always: no two under one name (serde writes both, and the last one is read
/// back).
fn plain_fields(fields: &[Field]) -> bool {
    let mut names = std::collections::HashSet::new();
    fields
        .iter()
        .filter(|f| !f.serde.skip)
        .all(|f| match f.serde.flatten {
            true => {
                let ser = field_serialization(f);
                ser.plain && matches!(ser.written, Written::Always)
            }
            false => names.insert(f.name.as_str()),
        })
}

/// The struct's flattened fields (`#[serde(flatten)]`), whose entries serde writes among the
/// struct's own: each one's view, in declaration order.
struct Flattened {
    /// The index in the struct's fields of each.
    at: Vec<usize>,
    views: Vec<TokenStream>,
    p: TokenStream,
}

impl Flattened {
    fn of(fields: &[Field], p: &TokenStream) -> Flattened {
        let mut out = Flattened {
            at: Vec::new(),
            views: Vec::new(),
            p: p.clone(),
        };
        for (i, f) in fields.iter().enumerate() {
            if f.serde.flatten && !f.serde.skip {
                let access = access(f);
                out.at.push(i);
                out.views.push(probe(p, quote!(&self.#access)));
            }
        }
        out
    }

    /// Lookups of `__cel_name` in each of `views`, the last declared first (its key is the
    /// one read back), each returning what it finds.
    fn lookups(&self, views: &[TokenStream]) -> TokenStream {
        let p = &self.p;
        let each = views.iter().rev().map(|v| {
            quote! {
                if let #p::ViewRef::Obj(__cel_o) = #v {
                    match __cel_o.cel_field(__cel_name) {
                        #p::ViewRef::Absent => {}
                        __cel_v => return __cel_v,
                    }
                }
            }
        });
        quote!(#(#each)*)
    }

    /// The lookups of the flattened fields declared after the own field `name`.
    fn after(&self, fields: &[Field], name: &str) -> Vec<TokenStream> {
        let Some(own) = fields
            .iter()
            .position(|f| !f.serde.flatten && f.name == name)
        else {
            return Vec::new();
        };
        let later: Vec<TokenStream> = self
            .at
            .iter()
            .zip(&self.views)
            .filter(|(i, _)| **i > own)
            .map(|(_, v)| v.clone())
            .collect();
        match later.is_empty() {
            true => Vec::new(),
            false => vec![self.lookups(&later)],
        }
    }
}

/// How many entries serde writes for the struct: its fields, less those skipped.
fn entry_count(fields: &[&Field]) -> TokenStream {
    let mut always = 0usize;
    let mut maybe = Vec::new();
    for f in fields {
        match field_serialization(f).written {
            Written::Never => {}
            Written::Always => always += 1,
            Written::SkipIf(pred) => {
                let access = access(f);
                maybe.push(quote!(usize::from(!#pred(&self.#access))));
            }
        }
    }
    quote!(#always #(+ #maybe)*)
}

fn access(f: &Field) -> TokenStream {
    match &f.original.ident {
        Some(ident) => quote!(#ident),
        None => {
            let index = syn::Index::from(0);
            quote!(#index)
        }
    }
}

/// The field's JSON name and its view (an arm of `cel_field`).
fn field_view(f: &Field, p: &TokenStream) -> Option<(String, TokenStream)> {
    if f.serde.skip {
        return None;
    }
    let name = &f.name;
    let access = access(f);
    let ser = field_serialization(f);
    let value = if ser.plain {
        probe(p, quote!(&self.#access))
    } else {
        quote!(#p::ViewRef::Opaque)
    };
    let view = match ser.written {
        Written::Always => value,
        // serde calls the predicate with a reference to the field, as here.
        Written::SkipIf(pred) => {
            quote!(if #pred(&self.#access) { #p::ViewRef::Absent } else { #value })
        }
        Written::Never => quote!(#p::ViewRef::Absent),
    };
    Some((name.clone(), view))
}

/// How serde writes a field.
struct Serialization {
    /// By its own `Serialize`, under its (schema) name; else opaque.
    plain: bool,
    written: Written,
}

/// Whether serde writes a field.
enum Written {
    Always,
    /// Unless `skip_serializing_if`'s predicate says to skip it.
    SkipIf(syn::ExprPath),
    /// `skip` or `skip_serializing`: never.
    Never,
}

/// How serde writes the field, from its `#[serde(..)]` keys (errors are the serde and
/// schema parsers' to report; an attribute this cannot read makes the field opaque, written
/// always).
fn field_serialization(f: &Field) -> Serialization {
    let mut out = Serialization {
        plain: true,
        written: Written::Always,
    };
    for attr in f
        .original
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
    {
        let read = attr.parse_nested_meta(|meta| {
            let key = |k: &str| meta.path.is_ident(k);
            if key("serialize_with") || key("with") || key("getter") {
                out.plain = false;
            } else if key("rename") && meta.input.peek(syn::token::Paren) {
                // `rename(serialize = ..)` may differ from the schema's (deserialize) name.
                out.plain = false;
            } else if key("skip") || key("skip_serializing") {
                out.written = Written::Never;
            } else if key("skip_serializing_if") {
                let pred = meta
                    .value()?
                    .parse::<syn::LitStr>()?
                    .parse::<syn::ExprPath>()?;
                if !matches!(out.written, Written::Never) {
                    out.written = Written::SkipIf(pred);
                }
                return Ok(());
            }
            skip(&meta)
        });
        if read.is_err() {
            return Serialization {
                plain: false,
                written: Written::Always,
            };
        }
    }
    out
}

/// Whether the container's `#[serde(..)]` serializes it as something other than its fields.
fn container_reroutes(attrs: &[syn::Attribute]) -> bool {
    let mut reroutes = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let read = attr.parse_nested_meta(|meta| {
            let key = |k: &str| meta.path.is_ident(k);
            reroutes |= key("into") || key("tag") || key("remote") || key("untagged");
            skip(&meta)
        });
        reroutes |= read.is_err();
    }
    reroutes
}

/// Consumes a key's value.
fn skip(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}
