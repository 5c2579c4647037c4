//! The type checker against the apiserver: every rule of `tests/probes/checker.json` is checked
//! by crd-cel and must give the verdict and the text the oracle recorded in
//! `checker.expected.json` (`oracle probe`, which compiles them with the apiserver's own code).

use crd_cel::check::{self, Node, Target};
use crd_cel::schema::{OwnedSchema, SchemaArena};
use serde_json::Value;

fn compat_of(env: Option<&str>) -> u8 {
    match env {
        None | Some("new@DefaultCompatibilityVersion") => check::DEFAULT_COMPAT,
        Some(e) => e
            .strip_prefix("new@1.")
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("unsupported env {e}")),
    }
}

fn verdict(source: &str, target: Target, node: &Node<'_>) -> Option<String> {
    match check::check_source(source, target, node) {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

#[test]
fn checker_agrees_with_the_apiserver_on_every_probe() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("probes");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("checker.json")).unwrap()).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("checker.expected.json")).unwrap())
            .unwrap();
    let known: std::collections::BTreeMap<String, String> =
        std::fs::read_to_string(dir.join("known-differences.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (rule, why) = l.split_once('\t').expect("rule<TAB>reason");
                (rule.to_owned(), why.to_owned())
            })
            .collect();
    let mut seen_known = std::collections::BTreeSet::new();
    let mut total = 0;
    let mut failures = Vec::new();
    for (group, exp) in input["groups"]
        .as_array()
        .unwrap()
        .iter()
        .zip(expected["groups"].as_array().unwrap())
    {
        // The manifest path's own conversion: JSON schema -> owned schema -> model.
        let owned = OwnedSchema::from_json(&group["schema"]).expect("probe schema");
        let arena = SchemaArena::new();
        let schema = owned.with_model(&arena);
        let compat = compat_of(group["env"].as_str());
        let resource_root = group["isResourceRoot"].as_bool().unwrap_or(false);
        for (rule, want) in group["rules"]
            .as_array()
            .unwrap()
            .iter()
            .zip(exp["results"].as_array().unwrap())
        {
            total += 1;
            let source = rule["rule"].as_str().unwrap();
            let node = Node {
                resource_root,
                optional_old_self: rule["optionalOldSelf"].as_bool().unwrap_or(false),
                compat,
                ..Node::new(schema)
            };
            let got = verdict(source, Target::Rule, &node);
            let want_err = want["error"].as_str().map(str::to_owned);
            let key = format!("[{}] {source}", group["name"].as_str().unwrap());
            if let Some(why) = known.get(&key) {
                seen_known.insert(key.clone());
                if got == want_err {
                    failures.push(format!(
                        "{key}: listed as a known difference ({why}) but now agrees: remove it"
                    ));
                } else {
                    println!("known difference {key}: {why}");
                }
            } else if got != want_err {
                failures.push(format!(
                    "[{}] rule {source:?}\n  apiserver: {}\n  crd-cel:   {}",
                    group["name"],
                    want_err.as_deref().unwrap_or("accepted"),
                    got.as_deref().unwrap_or("accepted"),
                ));
            } else if got.is_none() {
                let uses = check::check_source(source, Target::Rule, &node)
                    .unwrap()
                    .uses_old_self;
                // The derive's answer for `optional_old_self`, read off the AST alone.
                let refers = crd_cel::syntax::parse_ast(source)
                    .unwrap()
                    .as_ast()
                    .references_old_self();
                let want_transition = want["transitionRule"].as_bool().unwrap_or(false);
                if uses != want_transition || refers != want_transition {
                    failures.push(format!(
                        "[{}] rule {source:?}: transition rule flag differs (checker {uses}, AST {refers})",
                        group["name"]
                    ));
                }
            }
            if got.is_none()
                && let Some(me) = rule["messageExpression"].as_str()
            {
                total += 1;
                let got = verdict(me, Target::MessageExpression, &node);
                let want_err = want["messageExpressionError"].as_str().map(str::to_owned);
                if got != want_err {
                    failures.push(format!(
                        "[{}] messageExpression {me:?}\n  apiserver: {}\n  crd-cel:   {}",
                        group["name"],
                        want_err.as_deref().unwrap_or("accepted"),
                        got.as_deref().unwrap_or("accepted"),
                    ));
                }
            }
        }
    }
    for k in known.keys() {
        if !seen_known.contains(k) {
            failures.push(format!(
                "known-differences.txt lists {k}, which is not a probe"
            ));
        }
    }
    println!(
        "checker probes: {total} expressions, {} known differences, {} unexpected",
        known.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} probes disagree with the apiserver:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
