//! Code generation. The expansion is data plus calls: a shadow copy of the type that schemars
//! derives the JSON schema from, the model constant, and impls whose bodies call
//! `crd_cel::__private`. Checks that need field types become `const` items that rustc evaluates.

use crate::ast::{Container, Data, Field};
use crate::attr::{RuleAttr, SchemaAttrs};
use crate::model::{Base, DecorationName, Node, Required, Slot, Step};
use crd_cel_core::model::{ListType, MapType, Type};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

fn krate(cont: &Container) -> TokenStream {
    match &cont.cel.crate_path {
        Some(p) => p.to_token_stream(),
        None => quote!(::crd_cel),
    }
}

mod field;
mod node;
mod root;
mod rule_code;
mod shadow;
mod view;

use field::*;
use node::*;
use root::*;
use shadow::*;
use view::*;

pub fn emit(cont: &Container) -> TokenStream {
    let krate = krate(cont);
    // Everything below is emitted inside one `const _` block that imports the private module
    // under this short name: a path is several tokens, and every token is work for rustc.
    let p = quote!(__cel_p);
    let ident = cont.ident;
    let name = ident.to_string();
    let generics = &cont.original.generics;
    let (_, ty_generics, where_clause) = generics.split_for_impl();
    let container_attrs = schema_attrs(&cont.original.attrs);
    let schemars_crate = format!("{}", quote!(#p::schemars)).replace(' ', "");

    // Bounds: every type parameter must itself have a model and a schema.
    let mut bounded = generics.clone();
    for param in bounded.type_params_mut() {
        param.bounds.push(syn::parse_quote!(#p::CelSchema));
        param
            .bounds
            .push(syn::parse_quote!(#p::schemars::JsonSchema));
    }
    let (bounded_impl, _, _) = bounded.split_for_impl();
    // The schema needs no model: a generic type's `JsonSchema` needs what its shadow's (which
    // schemars derives) needs, so schemars decides which parameters need `JsonSchema` and reads
    // `#[schemars(bound)]`/`#[serde(bound)]`. A generic type instantiated with a type that has
    // no model (another crate's, `()`) has its schema, and through `Probe` an unknown model, as
    // it had with schemars.
    let (plain_impl, _, _) = generics.split_for_impl();
    let schema_where = if generics.params.is_empty() {
        where_clause.cloned()
    } else {
        let mut w = where_clause
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(where));
        w.predicates
            .push(syn::parse_quote!(__CelShadow #ty_generics: #p::schemars::JsonSchema));
        Some(w)
    };
    // Validation serializes the value (serde) and caches the compiled rules per type. The
    // `Serialize` bound is higher-ranked so that rustc does not check it where the impl is
    // written: a type that derives `JsonSchema` without `Serialize` (a type only described, never
    // sent) still builds, without `validate`, as it did with schemars' derive.
    let mut validate_where = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    validate_where
        .predicates
        .push(syn::parse_quote!(for<'__cel> Self: #p::Serialize));
    validate_where
        .predicates
        .push(syn::parse_quote!(Self: 'static));
    if !generics.params.is_empty() {
        // Validation reads the schema, whose bounds may be more than the model's.
        validate_where
            .predicates
            .push(syn::parse_quote!(Self: #p::schemars::JsonSchema));
    }

    // The model, built once: emitted below, and evaluated here (before the fields' checks: a
    // type's fields may be of types derived before it).
    let view_impls = view_impls(cont, &p);
    let ir = crate::model::build(cont);
    let predicted = crate::predict::container(cont, &ir);
    let model = render(&ir.node, &p);
    let container_deco = decoration_tokens(&cont.cel.rules, &cont.cel.schema, &p);
    let mut costs = Vec::new();
    // A generic type's rules are checked for each instantiation (see `rules::checks`): its
    // checks are associated constants of an inherent impl, named through `Self`.
    let generic = !generics.params.is_empty();
    let owner = if generic {
        quote!(Self)
    } else {
        quote!(#ident)
    };
    let mut assoc = TokenStream::new();
    let (container_checks, container_costs) = {
        let c = crate::rules::checks(
            &cont.cel.rules,
            &crate::rules::NodeRef::Model(owner.clone()),
            predicted.as_ref().map(|t| &t.node),
            &p,
            &name,
            false,
            generic,
            &mut costs,
        );
        let mut free = c.free;
        if generic {
            assoc.extend(c.items);
        } else {
            free.extend(c.items);
        }
        (free, c.costs)
    };

    let (shadow_def, model_costs, items, checks) = match &cont.data {
        Data::Struct(fields) => {
            let mut properties = 0;
            let outs: Vec<FieldOut> = fields
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    // The model lists the fields that are not flattened, in order.
                    let k = (!f.serde.flatten).then(|| {
                        properties += 1;
                        properties - 1
                    });
                    // Only a property has the node predicted for it.
                    let node = k.and(predicted.as_ref()).and_then(|t| t.fields.get(i));
                    emit_field(cont, f, i, &ir.fields[i], k, node, &p, false, &mut costs)
                })
                .collect();
            let shadow_fields = outs.iter().map(|o| &o.shadow);
            let items = outs.iter().filter_map(|o| o.decoration_item.as_ref());
            let checks = outs.iter().map(|o| &o.checks);
            for o in &outs {
                assoc.extend(o.assoc.clone());
            }
            let prop_costs = outs
                .iter()
                .zip(fields)
                .filter(|(_, f)| !f.serde.flatten)
                .map(|(o, _)| &o.costs);
            let flat_costs = outs
                .iter()
                .zip(fields)
                .filter(|(_, f)| f.serde.flatten)
                .map(|(o, _)| &o.costs);
            (
                quote! {
                    #(#container_attrs)*
                    struct __CelShadow #generics #where_clause { #(#shadow_fields),* }
                },
                quote! {
                    #p::Costs {
                        rules: #p::CostList::new(&[#(#container_costs),*]),
                        properties: &[#(&#prop_costs),*],
                        flatten: &[#(&#flat_costs),*],
                        ..#p::Costs::NONE
                    }
                },
                quote!(#(#items)*),
                quote!(#(#checks)*),
            )
        }
        Data::Newtype(f) => {
            let o = emit_field(cont, f, 0, &ir.fields[0], None, None, &p, true, &mut costs);
            let shadow = &o.shadow;
            let item = &o.decoration_item;
            let inner_costs = costs_of(&f.ty, &p);
            let semi = if f.original.ident.is_some() {
                quote!({ #shadow })
            } else {
                quote!((#shadow);)
            };
            let checks = &o.checks;
            (
                quote! {
                    #(#container_attrs)*
                    struct __CelShadow #generics #where_clause #semi
                },
                chained_costs(&inner_costs, &container_costs, &p),
                quote!(#item),
                quote!(#checks),
            )
        }
        Data::UnitEnum(_) => {
            let variants = match &cont.original.data {
                syn::Data::Enum(e) => e.variants.iter().map(|v| {
                    // A variant's `extend`s are schemars' (the derive does not read them).
                    let attrs = read_by_schemars(&v.attrs);
                    let vi = &v.ident;
                    quote!(#(#attrs)* #vi)
                }),
                _ => unreachable!("BUG: unit enum from a non-enum"),
            };
            (
                quote! {
                    #(#container_attrs)*
                    enum __CelShadow { #(#variants),* }
                },
                // A string: its only rules are the container's.
                quote! {
                    #p::Costs {
                        rules: #p::CostList::new(&[#(#container_costs),*]),
                        ..#p::Costs::NONE
                    }
                },
                quote!(),
                quote!(),
            )
        }
        // The schema is schemars' own for the item as written; the model is what it means.
        Data::Enum(_) | Data::IntOrString | Data::Opaque => {
            let costs = node_costs(&ir.node, &p);
            (
                opaque_shadow(cont.original),
                quote! {
                    #p::Costs {
                        rules: #p::CostList::new(&[#(#container_costs),*]),
                        ..#costs
                    }
                },
                quote!(),
                quote!(),
            )
        }
    };

    let shadow_ty = if generics.params.is_empty() {
        quote!(__CelShadow)
    } else {
        quote!(__CelShadow #ty_generics)
    };

    let root = cont.kube.as_ref().map(|k| emit_root(cont, k, &p));
    // The estimate of every rule, for users' tests (`Spec::CEL_RULE_COSTS`). Generic types
    // are not checked at their definition, so they have no list.
    let prediction = match predicted.as_ref().map(|t| &t.node) {
        Some(pr) => {
            let deep = if pr.complete {
                u64::MAX
            } else {
                pr.complete_props
            };
            let fp = crd_cel_core::fingerprint::of_node(pr.schema, deep);
            quote!(#p::Some((#deep, #fp)))
        }
        None => quote!(#p::None),
    };
    let cost_list = generics.params.is_empty().then(|| {
        quote! {
            #[automatically_derived]
            impl #ident {
                /// The apiserver's estimated cost of one evaluation of each CEL rule and
                /// messageExpression declared on this type and its fields (generated by
                /// `#[derive(CelValidate)]`).
                #[allow(dead_code)]
                pub const CEL_RULE_COSTS: &'static [#p::RuleCost] = &[#(#costs),*];
                /// The model the derive predicted (see `crd-cel-macros`' `predict`), for tests:
                /// the properties predicted whole and the fingerprint over them.
                #[doc(hidden)]
                #[allow(dead_code)]
                pub const __CEL_PREDICTION: ::core::option::Option<(u64, u64)> = #prediction;
            }
        }
    });

    let assoc_impl = (!assoc.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            #[allow(dead_code)]
            impl #bounded_impl #ident #ty_generics #where_clause { #assoc }
        }
    });
    // `#[x_kube(cel)]`: the `validate_cel` kube's `KubeSchema` generates, on crd-cel's validator.
    let validate_cel = cont.x_kube_cel.as_ref().map(|kube_core| {
        quote! {
            #[automatically_derived]
            impl #bounded_impl #ident #ty_generics #validate_where {
                /// Validates a serialized value of this type (`serde_json::to_value(&x)`) as the
                /// apiserver does, its CEL rules included; `old` is the stored value of an update
                /// (transition rules), `None` on creation. Generated by `#[x_kube(cel)]`, as
                /// kube's `KubeSchema` does, backed by crd-cel's validator.
                #[allow(dead_code)]
                pub fn validate_cel(
                    value: &#p::serde_json::Value,
                    old: #p::Option<&#p::serde_json::Value>,
                ) -> #p::Result<(), #kube_core::cel::ValidationErrors> {
                    #p::validate_cel_value::<Self, #kube_core::cel::ValidationErrors>(value, old, #name)
                }
            }
        }
    });
    // A transparent newtype is optional when what it wraps is (schemars forwards it for
    // `#[serde(transparent)]` only; see `json_schema`).
    let optional = match &cont.data {
        Data::Newtype(f) if cont.transparent => {
            let o = optional_of(&f.ty, &p);
            Some(quote!(const OPTIONAL: bool = #o;))
        }
        _ => None,
    };
    let tests = generated_tests(cont, &krate);
    let shadow_default = shadow_default(cont);
    let post_process = match cont.data {
        Data::IntOrString => Some(quote!(#p::int_or_string(&mut schema);)),
        Data::Enum(_) | Data::Opaque if matches!(cont.original.data, syn::Data::Enum(_)) => {
            Some(quote!(#p::structural_variants(&mut schema);))
        }
        _ => None,
    };

    let (self_view, old_view) = (probe(&p, quote!(self)), probe(&p, quote!(old)));
    quote! {
        #tests
        #[doc(hidden)]
        // The lints the items inside need, once here rather than on each (fewer tokens).
        #[allow(long_running_const_eval, non_upper_case_globals, unused_qualifications, deprecated, clippy::all)]
        const _: () = {
            use #krate::__private as __cel_p;
            // `Probe::<T>::MODEL` falls back to this trait's constant for types without a model.
            #[allow(unused_imports)]
            use __cel_p::Fallback as _;
            const __CEL_CONTAINER: #p::Decoration<'static> = #container_deco;
            #items

            // schemars derives the schema from a copy of the type with only the attributes
            // it reads, so every serde/schemars attribute behaves as usual.
            #[derive(#p::schemars::JsonSchema)]
            #[schemars(crate = #schemars_crate)]
            #[allow(dead_code, missing_docs, non_camel_case_types, non_snake_case)]
            #shadow_def
            #shadow_default

            #[automatically_derived]
            #[allow(private_bounds)]
            impl #plain_impl #p::schemars::JsonSchema for #ident #ty_generics #schema_where {
                fn schema_name() -> #p::Cow<'static, str> {
                    #p::Cow::Borrowed(#name)
                }

                fn schema_id() -> #p::Cow<'static, str> {
                    #p::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
                }

                fn json_schema(generator: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
                    let mut schema = <#shadow_ty as #p::schemars::JsonSchema>::json_schema(generator);
                    #post_process
                    #p::finish_schema(&mut schema, &__CEL_CONTAINER);
                    schema
                }

                // What schemars' derive forwards for a newtype (an `Option` inside one is
                // optional, and not nullable where `#[schemars(required)]` asks): the
                // shadow's, which schemars derives.
                fn inline_schema() -> bool {
                    <#shadow_ty as #p::schemars::JsonSchema>::inline_schema()
                }

                fn _schemars_private_is_option() -> bool {
                    <#shadow_ty as #p::schemars::JsonSchema>::_schemars_private_is_option()
                }

                fn _schemars_private_non_optional_json_schema(
                    generator: &mut #p::schemars::SchemaGenerator,
                ) -> #p::schemars::Schema {
                    let mut schema = <#shadow_ty as #p::schemars::JsonSchema>::_schemars_private_non_optional_json_schema(generator);
                    #post_process
                    #p::finish_schema(&mut schema, &__CEL_CONTAINER);
                    schema
                }
            }

            #[automatically_derived]
            impl #bounded_impl #p::CelSchema for #ident #ty_generics #where_clause {
                const MODEL: #p::Schema<'static> = #model;
                const COSTS: #p::Costs<'static> = #model_costs;
                #optional
            }

            #[automatically_derived]
            impl #bounded_impl #p::CelValidate for #ident #ty_generics #validate_where {
                // Inline: the serialization and validation code behind it is generated where it is
                // called, not in every crate that defines CRD types (measured: +2 s of codegen for a
                // spec embedding a pod template, in a crate that never validates).
                #[inline]
                fn validate(&self) -> #p::Result<(), #p::ValidationErrors> {
                    #p::validate(self, #name, #self_view)
                }

                #[inline]
                fn validate_update(&self, old: &Self) -> #p::Result<(), #p::ValidationErrors> {
                    let __cel_views = (#self_view, #old_view);
                    #p::validate_update(self, old, #name, __cel_views)
                }
            }

            #view_impls

            #checks
            #container_checks
            #assoc_impl
            #root
            #cost_list
            #validate_cel
        };
    }
}

/// On errors: the errors, plus stub impls so that uses of the type elsewhere do not pile up
/// follow-on errors (thiserror's `fallback.rs`).
pub fn fallback(
    input: &syn::DeriveInput,
    cont: Option<&Container>,
    errors: syn::Error,
) -> TokenStream {
    let krate = cont.map(krate).unwrap_or_else(|| quote!(::crd_cel));
    let p = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let errors = errors.to_compile_error();
    let _ = input.span();
    quote! {
        #errors
        #[doc(hidden)]
        const _: () = {
            impl #impl_generics #p::schemars::JsonSchema for #ident #ty_generics #where_clause {
                fn schema_name() -> #p::Cow<'static, str> {
                    ::core::unimplemented!()
                }
                fn json_schema(_: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
                    ::core::unimplemented!()
                }
            }
            impl #impl_generics #p::CelSchema for #ident #ty_generics #where_clause {
                const MODEL: #p::Schema<'static> = #p::Schema::of(#p::Type::Any);
            }
            impl #impl_generics #p::CelValidate for #ident #ty_generics #where_clause {
                fn validate(&self) -> #p::Result<(), #p::ValidationErrors> {
                    ::core::unimplemented!()
                }
                fn validate_update(&self, _: &Self) -> #p::Result<(), #p::ValidationErrors> {
                    ::core::unimplemented!()
                }
            }
        };
    }
}
