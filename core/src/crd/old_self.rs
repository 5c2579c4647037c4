//! Where `oldSelf` may be used, as the apiserver checks it at CRD creation: `optionalOldSelf`
//! only on a rule that uses `oldSelf`, and transition rules only where the old object can be
//! correlated with the new one (not under the items of a list that is not
//! `list_type = "map"`). The first is told by the derive whether the rule uses `oldSelf`, from
//! its AST; the second reads the rules of other types from the model, which carries them as
//! text, and scans it for the identifier.

use crate::check::Target;
use crate::crd::rule_fields::OPTIONAL_OLD_SELF_UNUSED;
use crate::crd::rule_name::push_rule_name;
use crate::model::{ListType, Schema};
use crate::msg::Buf;
use crate::types::bytes_eq;

/// Const check behind `optional_old_self` (either value): the apiserver rejects the field on a
/// rule that does not use `oldSelf` (`x-kubernetes-validations[i].optionalOldSelf: Invalid
/// value: true: may not be set if oldSelf is not used in rule`). The derive's form of
/// [`rule_fields::check_optional_old_self`](crate::crd::rule_fields::check_optional_old_self);
/// both are told whether the rule uses `oldSelf` from its AST
/// ([`Ast::references_old_self`](crate::ast::Ast::references_old_self), the checker's answer).
/// A const item, so that the error is reported on the attribute like every other check's: it
/// panics with the message this returns.
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_optional_old_self(
    uses_old_self: bool,
    value: bool,
    place: &str,
    index: usize,
) -> Result<(), Buf<1024>> {
    if uses_old_self {
        return Ok(());
    }
    let mut m = Buf::<1024>::new();
    push_rule_name(&mut m, Target::Rule, index, place);
    m.push(" is rejected by the apiserver: optionalOldSelf: Invalid value: ");
    m.push(if value { "true" } else { "false" });
    m.push(": ");
    m.push(OPTIONAL_OLD_SELF_UNUSED);
    m.push("\nhelp: remove `optional_old_self`, or use `oldSelf` in the rule");
    Err(m.finish())
}

/// Const check of `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go` for one field: a transition rule (one that uses
/// `oldSelf`) anywhere under the items of a list that is not `list_type = "map"` cannot be
/// correlated with the old object, and the apiserver rejects the CRD: the error is its message.
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_correlatable(field: &str, node: &Schema<'_>) -> Result<(), Buf<1024>> {
    if let Some(items) = node.items
        && !matches!(node.list_type, Some(ListType::Map))
        && uses_old_self_below(items, 0)
    {
        let mut m = Buf::<1024>::new();
        m.push("a rule under `");
        m.push(field);
        m.push("` is rejected by the apiserver: oldSelf cannot be used on the uncorrelatable portion of the schema within `");
        m.push(field);
        m.push("`: list items are only correlated with the old object when the list has `list_type = \"map\"`");
        m.push("\nhelp: add #[cel(list_type = \"map\", list_map_keys = [..])] to the field, or move the transition rule onto the list itself");
        return Err(m.finish());
    }
    Ok(())
}

const fn uses_old_self_below(s: &Schema<'_>, depth: u32) -> bool {
    // Recursive types nest without end; deeper than any real schema, stop.
    if depth > 32 {
        return false;
    }
    let mut r = 0;
    while r < s.validations.len() {
        if let Some(rule) = s.validations.get(r)
            && mentions_old_self(rule.rule)
        {
            return true;
        }
        r += 1;
    }
    let mut i = 0;
    while i < s.properties.len() {
        if uses_old_self_below(s.properties[i].schema, depth + 1) {
            return true;
        }
        i += 1;
    }
    let mut f = 0;
    while f < s.flatten.len() {
        if uses_old_self_below(s.flatten[f], depth + 1) {
            return true;
        }
        f += 1;
    }
    if let Some(items) = s.items
        && uses_old_self_below(items, depth + 1)
    {
        return true;
    }
    if let Some(values) = s.additional_properties
        && uses_old_self_below(values, depth + 1)
    {
        return true;
    }
    false
}

/// Whether the expression has the identifier `oldSelf` as a variable: a token outside string
/// literals and comments that is not a field selection (`x.oldSelf`). Every rule that refers to
/// `oldSelf` ([`Ast::references_old_self`](crate::ast::Ast::references_old_self)) has such a
/// token; the one rule of this kind that does not refer to it binds a macro variable named
/// `oldSelf` its body never reads (`[1].all(oldSelf, true)`), which the placement check then
/// rejects though the apiserver would not: an error on the safe side, for a rule nobody
/// writes. (Telling it apart needs the macro expansions: `optMap(oldSelf, 1)` does refer.)
const fn mentions_old_self(rule: &str) -> bool {
    let b = rule.as_bytes();
    let mut i = 0;
    let mut prev_dot = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' || c == b'"' {
            // Skip a string literal (triple quotes end at the same triple).
            let triple = i + 2 < b.len() && b[i + 1] == c && b[i + 2] == c;
            i += if triple { 3 } else { 1 };
            while i < b.len() {
                if b[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if b[i] == c && (!triple || (i + 2 < b.len() && b[i + 1] == c && b[i + 2] == c)) {
                    i += if triple { 3 } else { 1 };
                    break;
                }
                i += 1;
            }
            prev_dot = false;
            continue;
        }
        if c == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let (_, tail) = b.split_at(start);
            let (word, _) = tail.split_at(i - start);
            if !prev_dot && bytes_eq(word, b"oldSelf") {
                return true;
            }
            prev_dot = false;
            continue;
        }
        if !c.is_ascii_whitespace() {
            prev_dot = c == b'.';
        }
        i += 1;
    }
    false
}
