//! `allOf`, `anyOf`, `oneOf` and `not`, as kube-openapi's `schemaPropsValidator` evaluates them
//! (`validate/schema_props.go`).

use serde_json::Value as Json;

use super::{At, Check, Pair, Walk, node};
use crate::validate::{BadValue, ErrorType, FieldError};

/// The errors of `value` against `sub`, ignoring ratcheting (what decides whether a branch of
/// `allOf`/`anyOf`/`oneOf`/`not` validates).
fn errors_of(sub: &Check, value: &Json, old: Option<&Json>, at: &At<'_>) -> Vec<FieldError> {
    let mut out = Vec::new();
    node(&mut Walk { out: &mut out }, sub, value, None, old, at);
    out
}

/// kube-openapi's `schemaPropsValidator`: `anyOf`, `oneOf`, `allOf`, `not`, in that order. Its
/// own errors are plain errors, which the apiserver reports at a nil path with an empty value.
/// For a failed `anyOf`/`oneOf` it also reports the errors of one failing branch (see
/// `reached` for which).
pub(super) fn composition(
    w: &mut Walk<'_>,
    c: &Check,
    value: &Json,
    pair: Pair<'_>,
    old: Option<&Json>,
    at: &At<'_>,
) {
    let plain = |detail: String| FieldError {
        kind: ErrorType::Invalid,
        path: "<nil>".into(),
        value: BadValue::Value(Json::String(String::new())),
        detail,
    };
    let path = crate::validate::go_quoted(&at.body());
    // kube-openapi keeps the failing branch with the largest `MatchCount`, which grows with
    // every validator run on every schema node the data reaches: approximated by the number of
    // the branch's nodes the data reaches (the first of equal counts wins, as there).
    fn reached(c: &Check, value: &Json) -> usize {
        let below: usize = match value {
            Json::Object(o) => o
                .iter()
                .map(|(k, v)| match c.property(k).or(c.additional.as_deref()) {
                    Some(sub) => reached(sub, v),
                    None => 0,
                })
                .sum(),
            Json::Array(items) => c
                .items
                .as_deref()
                .map_or(0, |sub| items.iter().map(|v| reached(sub, v)).sum()),
            _ => 0,
        };
        1 + below
    }
    fn best_failure<'c>(
        branches: &'c [Check],
        value: &Json,
        old: Option<&Json>,
        at: &At<'_>,
    ) -> Option<&'c Check> {
        let mut best: Option<(&Check, usize)> = None;
        for b in branches {
            if errors_of(b, value, old, at).is_empty() {
                continue;
            }
            let n = reached(b, value);
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((b, n));
            }
        }
        best.map(|(b, _)| b)
    }
    if !c.any_of.is_empty() {
        let valid = c
            .any_of
            .iter()
            .any(|b| errors_of(b, value, old, at).is_empty());
        if !valid {
            w.push(
                pair,
                plain(format!("{path} must validate at least one schema (anyOf)")),
            );
            if let Some(b) = best_failure(&c.any_of, value, old, at) {
                node(w, b, value, pair, old, at);
            }
        }
    }
    if !c.one_of.is_empty() {
        let valid = c
            .one_of
            .iter()
            .filter(|b| errors_of(b, value, old, at).is_empty())
            .count();
        if valid != 1 {
            let found = if valid == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {valid} valid alternatives")
            };
            w.push(
                pair,
                plain(format!(
                    "{path} must validate one and only one schema (oneOf). {found}"
                )),
            );
            if valid == 0
                && let Some(b) = best_failure(&c.one_of, value, old, at)
            {
                node(w, b, value, pair, old, at);
            }
        }
    }
    if !c.all_of.is_empty() {
        let mut validated = 0;
        for b in &c.all_of {
            if errors_of(b, value, old, at).is_empty() {
                validated += 1;
            } else {
                node(w, b, value, pair, old, at);
            }
        }
        if validated != c.all_of.len() {
            let none = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            w.push(
                pair,
                plain(format!(
                    "{path} must validate all the schemas (allOf){none}"
                )),
            );
        }
    }
    if let Some(not) = &c.not
        && errors_of(not, value, old, at).is_empty()
    {
        w.push(
            pair,
            plain(format!("{path} must not validate the schema (not)")),
        );
    }
}
