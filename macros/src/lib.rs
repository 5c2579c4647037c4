//! Implementation detail of [crd-cel](https://docs.rs/crd-cel): the `CelValidate` derive. Depend on
//! `crd-cel`, which re-exports it; nothing here is a stable API.
//!
//! The derive runs in three stages: [`attr`] reads `#[cel(..)]`, `#[serde(..)]`, `#[schemars(..)]`
//! and `#[kube(..)]` into the IR of [`ast`], accumulating every error; [`check`] validates what
//! can be validated at expansion (CEL syntax, rule fields); [`model`] describes how the type's
//! `CelSchema::MODEL` is built; [`emit`] writes the `JsonSchema`, `CelSchema` (that model) and
//! `CelValidate` impls. Type-dependent checks are emitted as `const` items that the
//! runtime crate evaluates, so they see field types from anywhere.
//!
//! Const evaluation of the checker costs milliseconds per rule, so [`predict`] first evaluates the
//! same [`model`] here, guessing field types' models from their names (std and common k8s-openapi
//! types, the types deriving `CelValidate` in the crate), and [`rules`] type-checks the rule
//! natively when everything it reads was predicted. Its
//! const item then only compares a fingerprint of the real model with the prediction's and runs
//! the const checker when they differ: a wrong guess costs build time, never a verdict.

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod emit;
mod intern;
mod model;
mod predict;
mod rules;

use proc_macro::TokenStream;

/// Derives `JsonSchema` (with `x-kubernetes-validations`), `CelSchema` and `CelValidate`.
///
/// See the `crd-cel` crate documentation for the attributes.
// `schemars` is a helper too: users write `#[schemars(length(..))]` without deriving
// `JsonSchema`, which this derive implements.
// `validate` and `garde` as schemars' own derive registers them, and kube's `KubeSchema`
// `x_kube`: code that compiled with `#[derive(JsonSchema)]` or `KubeSchema` keeps compiling.
#[proc_macro_derive(CelValidate, attributes(cel, schemars, validate, garde, x_kube))]
pub fn derive_cel_validate(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    check::clear_parsed();
    predict::scan_sources();
    let cx = ctxt::Ctxt::new();
    let container = ast::Container::from_ast(&cx, &input);
    if let Some(container) = &container {
        check::check(&cx, container);
    }
    let mut out = cx.warnings();
    out.extend(match (cx.check(), container) {
        (Ok(()), Some(container)) => emit::emit(&container),
        (Err(errors), container) => emit::fallback(&input, container.as_ref(), errors),
        (Ok(()), None) => unreachable!("BUG: no container and no error"),
    });
    out.into()
}
