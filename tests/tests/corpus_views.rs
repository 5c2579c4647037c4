//! Real CRDs' rules run on views of a Rust value: every rule of `../shared/corpus` (Gateway
//! API, Istio, cert-manager, Cluster API, ...) is planned for the typed fast path's viewed
//! evaluation, except the shapes listed below, which read what views do not keep and run on
//! values built by serde (rule by rule). A rule of a new shape that views leave out fails the
//! test, and so does a listed shape that views start to take (the list must be kept true).

use std::collections::BTreeMap;

/// Rules views do not plan, by their text's start, with why.
const LEFT_TO_VALUES: &[(&str, &str)] = &[
    (
        "has(self.portLevelMtls) ?",
        "a map literal (`{}`) compared with a field",
    ),
    (
        "size(self) == 0 || format.dns1123Label()",
        "a `format` library value compared with `null`",
    ),
];

#[test]
fn corpus_rules_are_planned_for_views() {
    let Some(shared) = crd_cel_tests::shared_dir("the corpus rules") else {
        return;
    };
    let mut files = Vec::new();
    for set in std::fs::read_dir(shared.join("corpus")).expect("the corpus exists") {
        let dir = set.expect("a corpus entry").path();
        if !dir.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("a corpus set") {
            let f = f.expect("a corpus file").path();
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            // `rules-all.json` holds both of Gateway API's channels.
            if name == "rules.json" || name == "rules-all.json" {
                files.push(f);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no rules.json under the corpus");
    let (mut total, mut left) = (0, BTreeMap::<&str, Vec<String>>::new());
    let mut unexpected = Vec::new();
    for f in &files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f).expect("readable")).expect("JSON");
        for r in v["crd_rules"].as_array().expect("crd_rules") {
            let rule = r["rule"].as_str().expect("a rule's text");
            total += 1;
            if crd_cel::__private::plans_on_views(rule) {
                continue;
            }
            match LEFT_TO_VALUES
                .iter()
                .find(|(start, _)| rule.starts_with(start))
            {
                Some((start, _)) => left.entry(start).or_default().push(rule.to_owned()),
                None => unexpected.push(format!("{}: {rule}", f.display())),
            }
        }
    }
    eprintln!(
        "{} of {total} corpus rules planned for views",
        total - left.values().map(Vec::len).sum::<usize>() - unexpected.len()
    );
    assert!(total > 1000, "{total} rules: the corpus is incomplete");
    assert_eq!(unexpected, Vec::<String>::new(), "rules views leave out");
    for (start, why) in LEFT_TO_VALUES {
        assert!(
            left.contains_key(start),
            "no corpus rule starting {start:?} is left to values any more ({why}): update the list"
        );
    }
}
