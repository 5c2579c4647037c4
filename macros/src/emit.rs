//! Code generation. The expansion is data plus calls: a shadow copy of the type that schemars
//! derives the JSON schema from, the model constant, and impls whose bodies call
//! `crd_cel::__private`. Checks that need field types become `const` items that rustc evaluates.

use crate::ast::{Container, Data, Field};
use crate::attr::{RuleAttr, SchemaAttrs, SchemarsValidation};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

fn krate(cont: &Container) -> TokenStream {
    match &cont.cel.crate_path {
        Some(p) => p.to_token_stream(),
        None => quote!(::crd_cel),
    }
}

/// Attributes the shadow type keeps: the ones schemars reads (serde, schemars, docs).
fn schema_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|a| {
        let p = a.path();
        p.is_ident("serde")
            || p.is_ident("schemars")
            || p.is_ident("doc")
            || p.is_ident("validate")
            || p.is_ident("garde")
    })
}

fn opt_lit(l: &Option<syn::LitStr>, p: &TokenStream) -> TokenStream {
    match l {
        Some(l) => quote!(#p::Some(#l)),
        None => quote!(#p::None),
    }
}

fn rule_tokens(r: &RuleAttr, p: &TokenStream) -> TokenStream {
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

fn decoration_tokens(rules: &[RuleAttr], s: &SchemaAttrs, p: &TokenStream) -> TokenStream {
    let rules = rules.iter().map(|r| rule_tokens(r, p));
    let list_type = match s.list_type.as_ref().map(|l| l.value.as_str()) {
        Some("atomic") => quote!(#p::Some(#p::ListType::Atomic)),
        Some("set") => quote!(#p::Some(#p::ListType::Set)),
        Some("map") => quote!(#p::Some(#p::ListType::Map)),
        _ => quote!(#p::None),
    };
    let map_type = match s.map_type.as_ref().map(|l| l.value.as_str()) {
        Some("atomic") => quote!(#p::Some(#p::MapType::Atomic)),
        Some("granular") => quote!(#p::Some(#p::MapType::Granular)),
        _ => quote!(#p::None),
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

fn has_decoration(rules: &[RuleAttr], s: &SchemaAttrs) -> bool {
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
fn bound(e: &Option<syn::Expr>, as_ty: TokenStream, p: &TokenStream) -> TokenStream {
    match e {
        Some(e) => quote!(#p::Some((#e) as #as_ty)),
        None => quote!(#p::None),
    }
}

/// The model of a node after schemars' validation attributes, as a by-value expression plus
/// struct-update overrides. References in a constant only live for `'static` when they are not
/// inside a function argument, so everything borrowed goes into the overrides, which the caller
/// puts in the outermost struct literal.
fn apply_validation(
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
fn node_literal(
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
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
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
fn model_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    match option_inner(ty) {
        Some(inner) => quote!(#p::Schema { nullable: true, ..#p::Probe::<#inner>::MODEL }),
        None => quote!(#p::Probe::<#ty>::MODEL),
    }
}

fn optional_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    match option_inner(ty) {
        Some(_) => quote!(true),
        None => quote!(#p::Probe::<#ty>::OPTIONAL),
    }
}

fn costs_of(ty: &syn::Type, p: &TokenStream) -> TokenStream {
    match option_inner(ty) {
        Some(inner) => quote!(#p::Probe::<#inner>::COSTS),
        None => quote!(#p::Probe::<#ty>::COSTS),
    }
}

struct FieldOut {
    /// Shadow field with its schemars attributes.
    shadow: TokenStream,
    /// `Property { .. }` for the model, or the flattened schema reference.
    property: Option<TokenStream>,
    flatten: Option<TokenStream>,
    /// `Costs` of the property (parallel to `property`) or of the flattened node.
    costs: TokenStream,
    /// Decoration constant item, if any.
    decoration_item: Option<TokenStream>,
    /// Const checks for this field.
    checks: TokenStream,
}

/// `property`: the field's position among the properties of the container's model (`None`
/// for newtype and flattened fields, which have none); `predicted`: its predicted node.
#[allow(clippy::too_many_arguments)]
fn emit_field(
    cont: &Container,
    f: &Field,
    index: usize,
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
    let deco = has_decoration(&f.cel.rules, &f.cel.schema);
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
    // A schema made by a function (or changed where the model cannot follow) is read from the
    // generated schema.
    let model = if f.schemars.unmodeled {
        quote!(#p::Schema::UNKNOWN)
    } else {
        model_of(ty, p)
    };
    let optional = optional_of(ty, p);
    let type_costs = costs_of(ty, p);
    let (value, mut overrides) = apply_validation(model.clone(), &f.schemars.validation, p);
    // schemars drops `nullable` from an `Option` field it is told is required.
    let value = if f.schemars.required {
        quote!((#value).with_nullable(false))
    } else {
        value
    };
    let value = if deco {
        if !f.cel.rules.is_empty() {
            overrides.push(quote! {
                validations: #p::Rules {
                    before: #p::Some(&#model.validations),
                    own: #deco_ident.rules,
                }
            });
        }
        quote!(#deco_ident.apply(#value))
    } else {
        value
    };
    // schemars writes `default` for `#[serde(default)]` unless `skip_serializing_if` skips the
    // default value; that predicate cannot run at compile time, and in practice it is there to
    // skip exactly the default (`Option::is_none`, `Vec::is_empty`), so it counts as no default.
    let has_default = f.serde.default && !f.serde.skip_serializing_if;
    if has_default {
        overrides.push(quote!(has_default: true));
    }
    let node = if overrides.is_empty() {
        value
    } else {
        quote!(#p::Schema { #(#overrides,)* ..#value })
    };
    let name = &f.name;
    let forced_required = f.schemars.required;
    let property = (!f.serde.flatten && !newtype).then(|| {
        quote! {
            #p::Property {
                name: #name,
                required: #forced_required || !(#has_default || #optional),
                schema: &#node,
            }
        }
    });
    let flatten = f.serde.flatten.then(|| quote!(&#model));
    // Checks that need the field's type. A `const _` cannot name generic parameters, so
    // generic containers skip them (the apiserver still checks the CRD).
    let mut checks = TokenStream::new();
    let cont_ident = cont.ident;
    let node_ref = match property_index {
        Some(k) => crate::rules::NodeRef::Property(quote!(#cont_ident), k),
        None => crate::rules::NodeRef::Expr(node.clone()),
    };
    let bind = node_ref.bind(p);
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
        checks.extend(quote_spanned! {key_span=>
            #[allow(long_running_const_eval)]
            const _: () = {
                #bind
                // Called through a local name so the call, where rustc reports a failed
                // const evaluation, carries this span rather than the derive's.
                use #p::check_decoration as __cel_check;
                __cel_check(#field_name, __cel_node, &#deco_ident)
            };
        });
        if let Some(keys) = &f.cel.schema.list_map_keys {
            let (span, keys) = (keys.span, &keys.value);
            checks.extend(quote_spanned! {span=>
                #[allow(long_running_const_eval)]
                const _: () = {
                    #bind
                    use #p::check_list_map_keys as __cel_check;
                    __cel_check(#field_name, __cel_node, &[#(#keys),*])
                };
            });
        }
    }
    if !newtype && !f.serde.flatten && cont.original.generics.params.is_empty() {
        let place = format!("{}.{}", cont.ident, name);
        checks.extend(quote_spanned! {f.original.ty.span()=>
            #[allow(long_running_const_eval)]
            const _: () = {
                #bind
                use #p::check_correlatable as __cel_check;
                __cel_check(#place, __cel_node)
            };
        });
    }
    let rule_costs = if !f.cel.rules.is_empty() && cont.original.generics.params.is_empty() {
        let place = if newtype {
            cont.ident.to_string()
        } else {
            format!("{}.{}", cont.ident, name)
        };
        let c = crate::rules::checks(&f.cel.rules, &node_ref, predicted, p, &place, false, costs);
        checks.extend(c.items);
        c.costs
    } else {
        crate::rules::unchecked_costs(&f.cel.rules, p)
    };
    // The property's costs mirror its node: the type's rules, then the field's.
    let field_costs = if f.cel.rules.is_empty() || newtype {
        type_costs
    } else {
        quote! {
            #p::Costs {
                rules: #p::CostList {
                    before: #p::Some(&#type_costs.rules),
                    own: &[#(#rule_costs),*],
                },
                ..#type_costs
            }
        }
    };
    FieldOut {
        shadow,
        property,
        flatten,
        costs: field_costs,
        decoration_item,
        checks,
    }
}

pub fn emit(cont: &Container) -> TokenStream {
    let krate = krate(cont);
    // Everything below is emitted inside one `const _` block that imports the private module
    // under this short name: a path is several tokens, and every token is work for rustc.
    let p = quote!(__cel_p);
    let ident = cont.ident;
    let name = ident.to_string();
    let generics = &cont.original.generics;
    let (_, ty_generics, where_clause) = generics.split_for_impl();
    let container_attrs: Vec<_> = schema_attrs(&cont.original.attrs).collect();
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
    // Validation serializes the value (serde) and caches the compiled rules per type.
    let mut validate_where = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    validate_where
        .predicates
        .push(syn::parse_quote!(Self: #p::Serialize + 'static));

    // Before the fields' checks: a type's fields may be of types derived before it.
    let predicted = crate::predict::container(cont);
    let container_deco = decoration_tokens(&cont.cel.rules, &cont.cel.schema, &p);
    let mut costs = Vec::new();
    let (container_checks, container_costs) = if generics.params.is_empty() {
        let c = crate::rules::checks(
            &cont.cel.rules,
            &crate::rules::NodeRef::Model(quote!(#ident)),
            predicted.as_ref().map(|t| &t.node),
            &p,
            &name,
            false,
            &mut costs,
        );
        (c.items, c.costs)
    } else {
        (
            TokenStream::new(),
            crate::rules::unchecked_costs(&cont.cel.rules, &p),
        )
    };

    // The costs of a node whose only rules are the container's (enums, opaque types).
    let leaf_costs = quote! {
        #p::Costs {
            rules: #p::CostList::new(&[#(#container_costs),*]),
            ..#p::Costs::NONE
        }
    };
    let (shadow_def, model, model_costs, items, checks) = match &cont.data {
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
                    emit_field(cont, f, i, k, node, &p, false, &mut costs)
                })
                .collect();
            let shadow_fields = outs.iter().map(|o| &o.shadow);
            let props = outs.iter().filter_map(|o| o.property.as_ref());
            let flat = outs.iter().filter_map(|o| o.flatten.as_ref());
            let items = outs.iter().filter_map(|o| o.decoration_item.as_ref());
            let checks = outs.iter().map(|o| &o.checks);
            let prop_costs = outs
                .iter()
                .filter(|o| o.property.is_some())
                .map(|o| &o.costs);
            let flat_costs = outs
                .iter()
                .filter(|o| o.flatten.is_some())
                .map(|o| &o.costs);
            (
                quote! {
                    #(#container_attrs)*
                    struct __CelShadow #generics #where_clause { #(#shadow_fields),* }
                },
                quote! {
                    #p::Schema {
                        properties: &[#(#props),*],
                        flatten: &[#(#flat),*],
                        validations: #p::Rules::new(__CEL_CONTAINER.rules),
                        ..__CEL_CONTAINER.apply(#p::Schema::of(#p::Type::Object))
                    }
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
            let o = emit_field(cont, f, 0, None, None, &p, true, &mut costs);
            let shadow = &o.shadow;
            let item = &o.decoration_item;
            let inner = &f.ty;
            let inner_model = model_of(inner, &p);
            let inner_costs = costs_of(inner, &p);
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
                {
                    let (value, overrides) =
                        apply_validation(model_of(inner, &p), &f.schemars.validation, &p);
                    quote! {
                        #p::Schema {
                            #(#overrides,)*
                            validations: #p::Rules {
                                before: #p::Some(&#inner_model.validations),
                                own: __CEL_CONTAINER.rules,
                            },
                            ..__CEL_CONTAINER.apply(#value)
                        }
                    }
                },
                quote! {
                    #p::Costs {
                        rules: #p::CostList {
                            before: #p::Some(&#inner_costs.rules),
                            own: &[#(#container_costs),*],
                        },
                        ..#inner_costs
                    }
                },
                quote!(#item),
                quote!(#checks),
            )
        }
        Data::UnitEnum(names) => {
            let variants = match &cont.original.data {
                syn::Data::Enum(e) => e.variants.iter().map(|v| {
                    let attrs = schema_attrs(&v.attrs);
                    let vi = &v.ident;
                    quote!(#(#attrs)* #vi)
                }),
                _ => unreachable!("BUG: unit enum from a non-enum"),
            };
            let values: Vec<String> = names
                .iter()
                .map(|n| serde_json::to_string(n).expect("BUG: a string serializes"))
                .collect();
            (
                quote! {
                    #(#container_attrs)*
                    enum __CelShadow { #(#variants),* }
                },
                quote! {
                    #p::Schema {
                        enum_values: &[#(#values),*],
                        validations: #p::Rules::new(__CEL_CONTAINER.rules),
                        ..__CEL_CONTAINER.apply(#p::Schema::of(#p::Type::String))
                    }
                },
                leaf_costs.clone(),
                quote!(),
                quote!(),
            )
        }
        // The schema is schemars' own for the item as written; the model is what it means.
        Data::IntOrString | Data::Opaque => {
            let base = match cont.data {
                Data::IntOrString => quote!(#p::k8s::INT_OR_STRING),
                _ => quote!(#p::Schema::UNKNOWN),
            };
            (
                opaque_shadow(cont.original),
                quote! {
                    #p::Schema {
                        validations: #p::Rules::new(__CEL_CONTAINER.rules),
                        ..__CEL_CONTAINER.apply(#base)
                    }
                },
                leaf_costs,
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

    let tests = generated_tests(cont, &krate);
    let shadow_default = shadow_default(cont);
    let post_process = match cont.data {
        Data::IntOrString => Some(quote!(#p::int_or_string(&mut schema);)),
        Data::Opaque if matches!(cont.original.data, syn::Data::Enum(_)) => {
            Some(quote!(#p::structural_variants(&mut schema);))
        }
        _ => None,
    };

    quote! {
        #tests
        #[doc(hidden)]
        // The lints the items inside need, once here rather than on each (fewer tokens).
        #[allow(long_running_const_eval, non_upper_case_globals, unused_qualifications, clippy::all)]
        const _: () = {
            use #krate::__private as __cel_p;
            // `Probe::<T>::MODEL` falls back to this trait's constant for types without a model.
            #[allow(unused_imports)]
            use __cel_p::Fallback as _;
            const __CEL_CONTAINER: #p::Decoration<'static> = #container_deco;
            #items

            #[automatically_derived]
            impl #bounded_impl #p::schemars::JsonSchema for #ident #ty_generics #where_clause {
                fn schema_name() -> #p::Cow<'static, str> {
                    #p::Cow::Borrowed(#name)
                }

                fn schema_id() -> #p::Cow<'static, str> {
                    #p::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
                }

                fn json_schema(generator: &mut #p::schemars::SchemaGenerator) -> #p::schemars::Schema {
                    // schemars derives the schema from a copy of the type with only the
                    // attributes it reads, so every serde/schemars attribute behaves as usual.
                    #[derive(#p::schemars::JsonSchema)]
                    #[schemars(crate = #schemars_crate)]
                    #[allow(dead_code, missing_docs)]
                    #shadow_def
                    #shadow_default
                    let mut schema = <#shadow_ty as #p::schemars::JsonSchema>::json_schema(generator);
                    #post_process
                    #p::finish_schema(&mut schema, &__CEL_CONTAINER);
                    schema
                }
            }

            #[automatically_derived]
            impl #bounded_impl #p::CelSchema for #ident #ty_generics #where_clause {
                const MODEL: #p::Schema<'static> = #model;
                const COSTS: #p::Costs<'static> = #model_costs;
            }

            #[automatically_derived]
            impl #bounded_impl #p::CelValidate for #ident #ty_generics #validate_where {
                // Inline: the serialization and validation code behind it is generated where it is
                // called, not in every crate that defines CRD types (measured: +2 s of codegen for a
                // spec embedding a pod template, in a crate that never validates).
                #[inline]
                fn validate(&self) -> #p::Result<(), #p::ValidationErrors> {
                    #p::validate(self, #name)
                }

                #[inline]
                fn validate_update(&self, old: &Self) -> #p::Result<(), #p::ValidationErrors> {
                    #p::validate_update(self, old, #name)
                }
            }

            #checks
            #container_checks
            #root
            #cost_list
        };
    }
}

/// The shadow of a type whose schema is read from schemars' output: the item as written, with
/// only the attributes schemars reads, at every level.
fn opaque_shadow(input: &syn::DeriveInput) -> TokenStream {
    fn keep(attrs: &mut Vec<syn::Attribute>) {
        let kept: Vec<syn::Attribute> = schema_attrs(attrs).cloned().collect();
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
    keep(&mut shadow.attrs);
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
fn shadow_default(cont: &Container) -> Option<TokenStream> {
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

/// `#[test]`s that check every rule of the generated schema as the apiserver does at CRD
/// creation: for the kube root (the whole CRD, with the CRD-wide limits) and for a type with
/// rules of its own. They are where rules that read into types known only by their
/// `JsonSchema` get checked (the build checks everything else), and they prove the build's
/// model against the generated schema. Outside the `const _` block: the test harness does not
/// collect tests from unnameable scopes. Generic types have no schema until instantiated.
fn generated_tests(cont: &Container, krate: &TokenStream) -> TokenStream {
    if !cont.original.generics.params.is_empty() {
        return TokenStream::new();
    }
    let has_rules =
        !cont.cel.rules.is_empty() || cont.fields().iter().any(|f| !f.cel.rules.is_empty());
    let mut out = TokenStream::new();
    let mut test = |ty: &syn::Ident, resource: bool| {
        let name = format_ident!("__crd_cel_rules_{}", ty);
        out.extend(quote! {
            #[cfg(test)]
            #[test]
            #[doc(hidden)]
            #[allow(non_snake_case, unnameable_test_items)]
            fn #name() {
                #krate::__private::assert_rules::<#ty>(#resource)
            }
        });
    };
    if has_rules {
        test(cont.ident, false);
    }
    if let Some(k) = &cont.kube {
        test(&k.root, true);
    }
    out
}

/// The kube root type (`Foo` for `FooSpec`): its model is `spec` + `status` with the root rules
/// of `#[kube(validation = ..)]`, as kube's `CustomResource` generates the CRD schema.
fn emit_root(cont: &Container, k: &crate::attr::KubeRoot, p: &TokenStream) -> TokenStream {
    let root = &k.root;
    let spec = cont.ident;
    let rules = k.rules.iter().map(|r| rule_tokens(r, p));
    let root_name = root.to_string();
    let status = k.status.as_ref().map(|s| {
        quote!(#p::Property {
            name: "status",
            required: false,
            schema: &#p::Schema { nullable: true, ..#p::Probe::<#s>::MODEL },
        })
    });
    let status_costs = k.status.as_ref().map(|s| quote!(&#p::Probe::<#s>::COSTS));
    let (props, flatten, props_costs, flatten_costs) = if k.no_spec {
        (
            quote!(&[#status]),
            quote!(&[&<#spec as #p::CelSchema>::MODEL]),
            quote!(&[#status_costs]),
            quote!(&[&<#spec as #p::CelSchema>::COSTS]),
        )
    } else {
        (
            quote!(&[#p::Property { name: "spec", required: true, schema: &<#spec as #p::CelSchema>::MODEL }, #status]),
            quote!(&[]),
            quote!(&[&<#spec as #p::CelSchema>::COSTS, #status_costs]),
            quote!(&[]),
        )
    };
    let mut costs = Vec::new();
    let root_checks = crate::rules::checks(
        &k.rules,
        &crate::rules::NodeRef::Model(quote!(#root)),
        None,
        p,
        &root_name,
        true,
        &mut costs,
    );
    let (root_checks, root_costs) = (root_checks.items, root_checks.costs);
    quote! {
        #root_checks

        // The CRD-wide limits: each expression's cost times how many times its node can occur,
        // and the total, which only the root sees whole.
        #[allow(long_running_const_eval)]
        const _: () = {
            let __cel_model = <#root as #p::CelSchema>::MODEL;
            let __cel_costs = <#root as #p::CelSchema>::COSTS;
            use #p::check_crd_costs as __cel_check;
            __cel_check(&__cel_model, &__cel_costs, #root_name)
        };

        #[automatically_derived]
        impl #root {
            /// The apiserver's estimated cost of one evaluation of each CEL rule and
            /// messageExpression of `#[kube(validation = ..)]` (the spec's are on the spec type).
            #[allow(dead_code)]
            pub const CEL_RULE_COSTS: &'static [#p::RuleCost] = &[#(#costs),*];
        }

        #[automatically_derived]
        impl #p::CelSchema for #root {
            const MODEL: #p::Schema<'static> = #p::Schema {
                properties: #props,
                flatten: #flatten,
                validations: #p::Rules::new(&[#(#rules),*]),
                ..#p::Schema::of(#p::Type::Object)
            };
            const COSTS: #p::Costs<'static> = #p::Costs {
                rules: #p::CostList::new(&[#(#root_costs),*]),
                properties: #props_costs,
                flatten: #flatten_costs,
                ..#p::Costs::NONE
            };
        }

        #[automatically_derived]
        impl #p::CelValidate for #root {
            // Inline: the serialization and validation code behind it is generated where it is
            // called, not in every crate that defines CRD types (measured: +2 s of codegen for a
            // spec embedding a pod template, in a crate that never validates).
            #[inline]
            fn validate(&self) -> #p::Result<(), #p::ValidationErrors> {
                #p::validate_resource(self, #root_name)
            }

            #[inline]
            fn validate_update(&self, old: &Self) -> #p::Result<(), #p::ValidationErrors> {
                #p::validate_resource_update(self, old, #root_name)
            }
        }
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
