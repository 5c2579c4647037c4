//! `allOf`, `anyOf`, `oneOf` and `not`, as kube-openapi's `schemaPropsValidator` evaluates them
//! (`validate/schema_props.go`).

use serde_json::Value as Json;

use super::super::path::Path;
use super::{Check, Pair, Walk, node, plain_error};
use crate::validate::FieldError;

/// The errors of `value` against `sub`, ignoring ratcheting (what decides whether a branch of
/// `allOf`/`anyOf`/`oneOf`/`not` validates).
fn errors_of(
    sub: &Check,
    value: &Json,
    old: Option<&Json>,
    at: &Path<'_>,
    minor: u8,
) -> Vec<FieldError> {
    let mut out = Vec::new();
    node(
        &mut Walk {
            out: &mut out,
            minor,
        },
        sub,
        value,
        None,
        old,
        at,
    );
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
    at: &Path<'_>,
) {
    if c.any_of.is_empty() && c.one_of.is_empty() && c.all_of.is_empty() && c.not.is_none() {
        return;
    }
    // The quoted name is rendered only for an error's message: building it for every node
    // walked cost more than the rest of a valid object's OpenAPI checks.
    let path = || crate::validate::go_quoted(&at.body());
    let minor = w.minor;
    // Whether each branch validates, worked out once per branch.
    let valid = |branches: &[Check]| -> Vec<bool> {
        branches
            .iter()
            .map(|b| errors_of(b, value, old, at, minor).is_empty())
            .collect()
    };
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
    let best_failure = |branches: &'_ [Check], ok: &[bool]| {
        let mut best: Option<(usize, usize)> = None;
        for (i, b) in branches.iter().enumerate() {
            if ok[i] {
                continue;
            }
            let n = reached(b, value);
            if best.is_none_or(|(_, m)| n > m) {
                best = Some((i, n));
            }
        }
        best.map(|(i, _)| i)
    };
    if !c.any_of.is_empty() {
        let ok = valid(&c.any_of);
        if !ok.contains(&true) {
            w.push(
                pair,
                plain_error(
                    at,
                    format!("{} must validate at least one schema (anyOf)", path()),
                ),
            );
            if let Some(i) = best_failure(&c.any_of, &ok) {
                node(w, &c.any_of[i], value, pair, old, at);
            }
        }
    }
    if !c.one_of.is_empty() {
        let ok = valid(&c.one_of);
        let validated = ok.iter().filter(|v| **v).count();
        if validated != 1 {
            let found = if validated == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {validated} valid alternatives")
            };
            w.push(
                pair,
                plain_error(
                    at,
                    format!(
                        "{} must validate one and only one schema (oneOf). {found}",
                        path()
                    ),
                ),
            );
            if validated == 0
                && let Some(i) = best_failure(&c.one_of, &ok)
            {
                node(w, &c.one_of[i], value, pair, old, at);
            }
        }
    }
    if !c.all_of.is_empty() {
        let ok = valid(&c.all_of);
        for (b, _) in c.all_of.iter().zip(&ok).filter(|(_, ok)| !**ok) {
            node(w, b, value, pair, old, at);
        }
        let validated = ok.iter().filter(|v| **v).count();
        if validated != c.all_of.len() {
            let none = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            w.push(
                pair,
                plain_error(
                    at,
                    format!("{} must validate all the schemas (allOf){none}", path()),
                ),
            );
        }
    }
    if let Some(not) = &c.not
        && errors_of(not, value, old, at, minor).is_empty()
    {
        w.push(
            pair,
            plain_error(at, format!("{} must not validate the schema (not)", path())),
        );
    }
}
