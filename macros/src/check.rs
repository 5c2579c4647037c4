//! Checks that need no types: CEL syntax and the apiserver's rule field checks
//! (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`), list/map attribute consistency. Each error names what the apiserver
//! would say at CRD creation. Checks that need field types are emitted as `const` items instead.

use crate::ast::{Container, Field};
use crate::attr::{RuleAttr, SchemaAttrs, sym};
use crate::ctxt::Ctxt;
use crd_cel_core::ast::AstBuf;
use crd_cel_core::crd::rule_fields::{
    ErrorKind, Problem, RuleField, RuleFieldError, RuleInput, check_rule_fields,
};
use crd_cel_core::model::ListType;
use crd_cel_core::syntax;
use syn::LitStr;

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

/// The rule field checks of `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go` (`crd_cel_core::crd::rule_fields`, shared with
/// the CLI): the apiserver's text, then a hint, on the key the error is about. Then the syntax of
/// `rule` and `messageExpression`. Resolving `field_path` needs the field types, so it is a
/// const check (`__private::check_field_path`).
fn check_rule(cx: &Ctxt, r: &RuleAttr) {
    let rule = r.rule.value();
    let message = r.message.as_ref().map(LitStr::value);
    let message_expression = r.message_expression.as_ref().map(LitStr::value);
    let field_path = r.field_path.as_ref().map(LitStr::value);
    let input = RuleInput {
        rule: &rule,
        message: message.as_deref(),
        message_expression: message_expression.as_deref(),
        reason: r.reason.as_ref().map(|s| s.value.as_str()),
        field_path: field_path.as_deref(),
        optional_old_self: r.optional_old_self.as_ref().map(|b| b.value),
    };
    for e in check_rule_fields(&input, None) {
        let text = match hint(&e) {
            Some(h) => format!("{}; {h}", e.body()),
            None => e.body(),
        };
        let span = match e.field {
            RuleField::Message if e.kind == ErrorKind::Invalid => {
                r.message.as_ref().map(LitStr::span)
            }
            RuleField::MessageExpression => r.message_expression.as_ref().map(LitStr::span),
            RuleField::Reason => r.reason.as_ref().map(|s| s.span),
            RuleField::FieldPath => r.field_path.as_ref().map(LitStr::span),
            RuleField::OptionalOldSelf => r.optional_old_self.as_ref().map(|b| b.span),
            // A missing message is the rule's fault (it has line breaks).
            RuleField::Rule | RuleField::Message => None,
        };
        cx.push(syn::Error::new(span.unwrap_or_else(|| r.rule.span()), text));
    }
    if !rule.trim().is_empty()
        && let Err(e) = parse(&rule)
    {
        cx.error_spanned_by(&r.rule, format!("compilation failed: {e}"));
    }
    if let Some(me) = &r.message_expression
        && !me.value().trim().is_empty()
        && let Err(e) = parse(&me.value())
    {
        cx.error_spanned_by(me, format!("messageExpression compilation failed: {e}"));
    }
}

thread_local! {
    /// Expressions parsed (and lowered) by [`check`] this expansion, for [`crate::rules`] to
    /// take rather than parse again: parsing is most of the derive's own time per rule.
    static PARSED: std::cell::RefCell<std::collections::HashMap<String, AstBuf>> =
        std::cell::RefCell::default();
}

/// Forgets what an earlier expansion parsed (the proc-macro server may reuse the thread).
pub fn clear_parsed() {
    PARSED.with(|p| p.borrow_mut().clear());
}

/// Parses and lowers `source`, keeping the result for [`take_parsed`].
fn parse(source: &str) -> Result<(), syntax::SyntaxError> {
    let ast = syntax::parse_ast(source)?;
    PARSED.with(|p| p.borrow_mut().insert(source.to_owned(), ast));
    Ok(())
}

/// `source` parsed and lowered, as [`check`] left it (`None` if it was not, or failed).
pub fn parsed(source: &str) -> Option<AstBuf> {
    PARSED.with(|p| p.borrow().get(source).cloned())
}

/// `source` parsed and lowered: as [`check`] left it, or parsed now.
pub fn take_parsed(source: &str) -> Result<AstBuf, syntax::SyntaxError> {
    match parsed(source) {
        Some(ast) => Ok(ast),
        None => syntax::parse_ast(source),
    }
}

/// What to do about a rule field error, in the derive's terms.
fn hint(e: &RuleFieldError<'_>) -> Option<&'static str> {
    Some(match (e.field, e.problem) {
        (RuleField::Rule, _) => "a CEL rule must not be empty",
        (RuleField::Message, Problem::Blank) => "write a message or remove `message`",
        (RuleField::Message, Problem::LineBreak) => "keep the message on one line",
        (RuleField::Message, _) => "add `message = \"...\"`",
        (RuleField::MessageExpression, _) => "write an expression or remove `message_expression`",
        (RuleField::FieldPath, Problem::Blank) => {
            "write a path such as `.field` or remove `field_path`"
        }
        (RuleField::FieldPath, Problem::LineBreak) => "keep the path on one line",
        _ => return None,
    })
}

fn check_container_schema(cx: &Ctxt, s: &SchemaAttrs) {
    let list_keys = [
        (s.list_type.as_ref().map(|v| v.span), sym::LIST_TYPE),
        (s.list_map_keys.as_ref().map(|v| v.span), sym::LIST_MAP_KEYS),
        (s.max_items.as_ref().map(|v| v.span), sym::MAX_ITEMS),
        (s.min_items.as_ref().map(|v| v.span), sym::MIN_ITEMS),
    ];
    for (span, key) in list_keys {
        if let Some(span) = span {
            cx.push(syn::Error::new(
                span,
                format!("`{key}` describes a list field; put it on the field"),
            ));
        }
    }
}

fn check_field_schema(cx: &Ctxt, f: &Field) {
    let s = &f.cel.schema;
    let is_map_list = s
        .list_type
        .as_ref()
        .is_some_and(|l| l.value == ListType::Map);
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
        && !s.bounds_from_extend
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
