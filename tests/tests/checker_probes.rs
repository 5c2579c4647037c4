//! The type checker against the apiserver: every rule of `tests/probes/checker.json` is checked
//! by crd-cel and must give the verdict and the text the oracle recorded in
//! `checker.expected.json` (`oracle probe`, which compiles them with the apiserver's own code):
//! the rule's error, its messageExpression's error and, for accepted rules, the estimated
//! `maxCost` and whether it is a transition rule.

use serde_json::Value;

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
    let actual = crd_cel_tests::mirror::probe(&input).expect("the probe file is well formed");
    let mut seen_known = std::collections::BTreeSet::new();
    let mut total = 0;
    let mut failures = Vec::new();
    let groups = |v: &Value| v["groups"].as_array().cloned().unwrap_or_default();
    let results = |g: &Value| g["results"].as_array().cloned().unwrap_or_default();
    for (got_group, want_group) in groups(&actual).iter().zip(&groups(&expected)) {
        let group = got_group["name"].as_str().unwrap_or_default();
        assert_eq!(Some(group), want_group["name"].as_str(), "groups in order");
        for (got, want) in results(got_group).iter().zip(&results(want_group)) {
            total += 1;
            let source = got["rule"].as_str().unwrap_or_default();
            let key = format!("[{group}] {source}");
            let same_error = got.get("error") == want.get("error");
            if let Some(why) = known.get(&key) {
                seen_known.insert(key.clone());
                if same_error {
                    failures.push(format!(
                        "{key}: listed as a known difference ({why}) but now agrees: remove it"
                    ));
                } else {
                    println!("known difference {key}: {why}");
                }
                continue;
            }
            let text = |v: &Value, k: &str| v[k].as_str().unwrap_or("accepted").to_owned();
            if !same_error {
                failures.push(format!(
                    "[{group}] rule {source:?}\n  apiserver: {}\n  crd-cel:   {}",
                    text(want, "error"),
                    text(got, "error"),
                ));
                continue;
            }
            if got.get("error").is_none() && got.get("maxCost") != want.get("maxCost") {
                failures.push(format!(
                    "[{group}] rule {source:?}: maxCost {} (the apiserver's {})",
                    got["maxCost"], want["maxCost"]
                ));
            }
            if got.get("error").is_none() {
                let uses = got.get("transitionRule").is_some();
                // The derive's answer for `optional_old_self`, read off the AST alone.
                let refers = crd_cel::syntax::parse_ast(source)
                    .unwrap()
                    .as_ast()
                    .references_old_self();
                let want_transition = want["transitionRule"].as_bool().unwrap_or(false);
                if uses != want_transition || refers != want_transition {
                    failures.push(format!(
                        "[{group}] rule {source:?}: transition rule flag differs (checker {uses}, AST {refers})"
                    ));
                }
            }
            if let Some(me) = got["messageExpression"].as_str()
                && got.get("error").is_none()
            {
                total += 1;
                if got.get("messageExpressionError") != want.get("messageExpressionError") {
                    failures.push(format!(
                        "[{group}] messageExpression {me:?}\n  apiserver: {}\n  crd-cel:   {}",
                        text(want, "messageExpressionError"),
                        text(got, "messageExpressionError"),
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
