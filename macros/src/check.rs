//! Checks that need no types: CEL syntax and the apiserver's rule field checks
//! (CEL-SEMANTICS.md 3.2), list/map attribute consistency. Each error names what the apiserver
//! would say at CRD creation. Checks that need field types are emitted as `const` items instead.

use crate::ast::{Container, Field};
use crate::attr::{RuleAttr, SchemaAttrs, sym};
use crate::ctxt::Ctxt;
use crd_cel_core::syntax;

pub fn check(cx: &Ctxt, cont: &Container) {
    for rule in &cont.cel.rules {
        check_rule(cx, rule);
    }
    if let Some(kube) = &cont.kube {
        for rule in &kube.rules {
            check_rule(cx, rule);
        }
    }
    check_container_schema(cx, &cont.cel.schema);
    for field in cont.fields() {
        for rule in &field.cel.rules {
            check_rule(cx, rule);
        }
        check_field_schema(cx, field);
    }
}

fn has_line_break(s: &str) -> bool {
    s.contains('\n') || s.contains('\r')
}

/// The rule field checks of CEL-SEMANTICS.md 3.2, in the apiserver's order and words, then the
/// syntax of `rule` and `messageExpression`. The first four checks form an if/else chain as in
/// the apiserver, so the user sees the error the apiserver would report.
fn check_rule(cx: &Ctxt, r: &RuleAttr) {
    let rule = r.rule.value();
    let message = r.message.as_ref().map(|m| m.value());
    let trimmed_message = message.as_deref().map(str::trim).unwrap_or("");
    if rule.trim().is_empty() {
        cx.error_spanned_by(
            &r.rule,
            "rule is not specified: a CEL rule must not be empty",
        );
    } else if message.as_deref().is_some_and(|m| !m.is_empty()) && trimmed_message.is_empty() {
        cx.error_spanned_by(r.message.as_ref(), "message must be non-empty if specified");
    } else if has_line_break(trimmed_message) {
        cx.error_spanned_by(
            r.message.as_ref(),
            "message must not contain line breaks (the apiserver rejects it); keep it on one line",
        );
    } else if has_line_break(rule.trim()) && trimmed_message.is_empty() {
        cx.error_spanned_by(
            &r.rule,
            "message must be specified if rule contains line breaks: add `message = \"...\"`",
        );
    }
    if let Some(me) = &r.message_expression
        && me.value().trim().is_empty()
    {
        cx.error_spanned_by(me, "messageExpression must be non-empty if specified");
    }
    if let Some(reason) = &r.reason
        && crd_cel_core::Reason::parse(&reason.value).is_none()
    {
        cx.push(syn::Error::new(
            reason.span,
            format!(
                "Unsupported value: \"{}\": supported values: \"FieldValueDuplicate\", \
                 \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
                reason.value
            ),
        ));
    }
    if let Some(fp) = &r.field_path {
        let v = fp.value();
        if v.trim().is_empty() {
            cx.error_spanned_by(fp, "field_path must be non-empty if specified");
        } else if has_line_break(&v) {
            cx.error_spanned_by(fp, "field_path must not contain line breaks");
        }
    }
    if !rule.trim().is_empty()
        && let Err(e) = syntax::parse(&rule)
    {
        cx.error_spanned_by(&r.rule, format!("compilation failed: {e}"));
    }
    if let Some(me) = &r.message_expression
        && !me.value().trim().is_empty()
        && let Err(e) = syntax::parse(&me.value())
    {
        cx.error_spanned_by(me, format!("messageExpression compilation failed: {e}"));
    }
}

const LIST_TYPES: &[&str] = &["atomic", "set", "map"];
const MAP_TYPES: &[&str] = &["atomic", "granular"];

fn check_container_schema(cx: &Ctxt, s: &SchemaAttrs) {
    if let Some(lt) = &s.list_type {
        cx.push(syn::Error::new(
            lt.span,
            "`list_type` describes a list field; put it on the field",
        ));
    }
    if let Some(k) = &s.list_map_keys {
        cx.push(syn::Error::new(
            k.span,
            "`list_map_keys` describes a list field; put it on the field",
        ));
    }
    if let Some(m) = &s.max_items {
        cx.push(syn::Error::new(
            m.span,
            "`max_items` describes a list field; put it on the field",
        ));
    }
    if let Some(m) = &s.min_items {
        cx.push(syn::Error::new(
            m.span,
            "`min_items` describes a list field; put it on the field",
        ));
    }
    check_map_type(cx, s);
}

fn check_map_type(cx: &Ctxt, s: &SchemaAttrs) {
    if let Some(mt) = &s.map_type
        && !MAP_TYPES.contains(&mt.value.as_str())
    {
        cx.push(syn::Error::new(
            mt.span,
            format!(
                "Unsupported value: \"{}\": supported values: \"atomic\", \"granular\"",
                mt.value
            ),
        ));
    }
}

fn check_field_schema(cx: &Ctxt, f: &Field) {
    let s = &f.cel.schema;
    if let Some(lt) = &s.list_type
        && !LIST_TYPES.contains(&lt.value.as_str())
    {
        cx.push(syn::Error::new(
            lt.span,
            format!(
                "Unsupported value: \"{}\": supported values: \"atomic\", \"map\", \"set\"",
                lt.value
            ),
        ));
    }
    check_map_type(cx, s);
    let is_map_list = s.list_type.as_ref().is_some_and(|l| l.value == "map");
    match (&s.list_map_keys, is_map_list) {
        (Some(keys), false) => cx.push(syn::Error::new(
            keys.span,
            format!(
                "`{}` needs `{} = \"map\"`: x-kubernetes-list-map-keys may only be set when \
                 x-kubernetes-list-type is map",
                sym::LIST_MAP_KEYS,
                sym::LIST_TYPE
            ),
        )),
        (None, true) => cx.push(syn::Error::new(
            s.list_type
                .as_ref()
                .expect("BUG: map list has a list type")
                .span,
            format!(
                "`{} = \"map\"` needs `{} = [\"key\", ..]`: x-kubernetes-list-map-keys must not \
                 be empty if x-kubernetes-list-type is map",
                sym::LIST_TYPE,
                sym::LIST_MAP_KEYS
            ),
        )),
        (Some(keys), true) if keys.value.is_empty() => cx.push(syn::Error::new(
            keys.span,
            "x-kubernetes-list-map-keys must not be empty if x-kubernetes-list-type is map",
        )),
        (Some(keys), true) => {
            let mut seen = std::collections::BTreeSet::new();
            for k in &keys.value {
                if !seen.insert(k) {
                    cx.push(syn::Error::new(
                        keys.span,
                        format!("duplicate list map key `{k}`"),
                    ));
                }
            }
        }
        _ => {}
    }
    // `#[cel(max_items)]` and schemars' `length` would both write maxItems.
    if let Some(m) = s.max_items.as_ref().or(s.min_items.as_ref())
        && f.schemars.validation.length.is_some()
    {
        cx.push(syn::Error::new(
            m.span,
            "this field already has #[schemars(length(..))], which sets maxItems/minItems on a list; keep one of them",
        ));
    }
    if f.serde.flatten
        && (s.list_type.is_some() || s.map_type.is_some() || s.max_properties.is_some())
    {
        cx.error_spanned_by(
            &f.original.ty,
            "a flattened field has no schema node of its own for list/map attributes",
        );
    }
}
