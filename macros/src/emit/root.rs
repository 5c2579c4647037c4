//! The kube root type (`Foo` of `FooSpec`) and the `#[test]`s the derive generates.

use super::*;

/// `#[test]`s that check every rule of the generated schema as the apiserver does at CRD
/// creation: for the kube root (the whole CRD, with the CRD-wide limits) and for a type with
/// rules of its own. They are where rules that read into types known only by their
/// `JsonSchema` get checked (the build checks everything else), and they prove the build's
/// model against the generated schema. Outside the `const _` block: the test harness does not
/// collect tests from unnameable scopes. Generic types have no schema until instantiated.
pub(super) fn generated_tests(cont: &Container, krate: &TokenStream) -> TokenStream {
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
            #[allow(non_snake_case, unnameable_test_items, deprecated)]
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
pub(super) fn emit_root(
    cont: &Container,
    k: &crate::attr::KubeRoot,
    p: &TokenStream,
) -> TokenStream {
    let root = &k.root;
    let spec = cont.ident;
    let rules = k.rules.iter().map(|r| rule_tokens(r, p));
    let root_name = root.to_string();
    let scale = match &k.scale {
        Some(sc) => {
            let (spec_path, status_path) = (&sc.spec_replicas_path, &sc.status_replicas_path);
            let selector = match &sc.label_selector_path {
                Some(l) => quote!(::core::option::Option::Some(#l)),
                None => quote!(::core::option::Option::None),
            };
            quote!(::core::option::Option::Some(&#p::ScalePaths {
                spec_replicas_path: #spec_path,
                status_replicas_path: #status_path,
                label_selector_path: #selector,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
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
    // The object's view: `apiVersion` and `kind` as kube's `Resource` gives them, `metadata`
    // (which has no view: the checks serialize it, rules read it from values), `spec` and
    // `status` (kube serializes `status` when it is `Some`).
    let root_view = (!k.no_spec).then(|| {
        let (spec, metadata) = (
            probe(p, quote!(&self.spec)),
            probe(p, quote!(&self.metadata)),
        );
        let status = k.status.as_ref().map(|_| {
            let some = probe(p, quote!(__cel_status));
            quote!("status" => match &self.status {
                ::core::option::Option::Some(__cel_status) => #some,
                ::core::option::Option::None => #p::ViewRef::Absent,
            },)
        });
        let serde = super::view::serde_probe(p);
        let count = match k.status {
            Some(_) => quote!(4 + usize::from(self.status.is_some())),
            None => quote!(4),
        };
        quote! {
            #[automatically_derived]
            impl #p::ObjView for #root {
                #[inline]
                fn cel_field(&self, __cel_name: &str) -> #p::ViewRef<'_> {
                    match __cel_name {
                        "apiVersion" => #p::resource_type_view::<Self>(false),
                        "kind" => #p::resource_type_view::<Self>(true),
                        "metadata" => #metadata,
                        "spec" => #spec,
                        #status
                        _ => #p::ViewRef::Opaque,
                    }
                }

                #[inline]
                fn cel_count(&self) -> usize {
                    // `apiVersion`, `kind`, `metadata` and `spec`, and `status` when kube
                    // writes it.
                    #count
                }

                #[inline]
                fn cel_serde(&self) -> #p::Option<&dyn #p::SerValue> {
                    #serde
                }
            }
            #[automatically_derived]
            impl #p::CelView for #root {
                #[inline]
                fn cel_view(&self) -> #p::ViewRef<'_> {
                    #p::ViewRef::Obj(self)
                }
            }
        }
    });
    let mut costs = Vec::new();
    let root_checks = crate::rules::checks(
        &k.rules,
        &crate::rules::NodeRef::Model(quote!(#root)),
        None,
        p,
        &root_name,
        true,
        false,
        &mut costs,
    );
    let (root_free, root_costs) = (root_checks.free, root_checks.costs);
    let root_checks = root_checks.items;
    let (self_view, old_view) = (probe(p, quote!(self)), probe(p, quote!(old)));
    quote! {
        #root_checks
        #root_free

        // The CRD-wide limits: each expression's cost times how many times its node can occur,
        // and the total, which only the root sees whole.
        #[allow(long_running_const_eval)]
        const _: () = {
            let __cel_model = <#root as #p::CelSchema>::MODEL;
            let __cel_costs = <#root as #p::CelSchema>::COSTS;
            use #p::check_crd_costs as __cel_check;
            // Panics here with the message the check returns: no frames of the check's.
            if let ::core::result::Result::Err(__cel_message) =
                __cel_check(&__cel_model, &__cel_costs, #root_name)
            {
                ::core::panic!("{}", __cel_message.as_str())
            }
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
            // Inline, as the derived type's `validate` (see `emit`).
            #[inline]
            fn validate(&self) -> #p::Result<(), #p::ValidationErrors> {
                #p::validate_resource(self, #root_name, #scale, #self_view)
            }

            #[inline]
            fn validate_update(&self, old: &Self) -> #p::Result<(), #p::ValidationErrors> {
                let __cel_views = (#self_view, #old_view);
                #p::validate_resource_update(self, old, #root_name, #scale, __cel_views)
            }
        }

        #root_view
    }
}
