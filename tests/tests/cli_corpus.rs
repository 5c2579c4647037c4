//! `crd-cel check` on every CRD of `../shared/corpus` (CRDs real apiservers accepted): none may
//! be rejected, except by crd-cel's own fail-closed "not supported by crd-cel yet" (reported,
//! counted). Prints the number of CRDs, rules and checked expressions. Every rule's cost figures
//! (`estimatedCost`, `maxCost`, `maxCardinality`, `messageExpressionMaxCost`) must be the ones
//! the oracle printed for it, recorded in `tests/oracle/corpus-costs.jsonl` (which
//! `tests/oracle/ci.sh` checks against the oracle; it holds no corpus text, only paths and
//! numbers).

use crd_cel_cli::crd::{Options, check_crd, crd_kind_problem};
use crd_cel_cli::input::split_documents;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The oracle's figures of one rule, keyed by (file relative to the corpus, document, path).
type Recorded = BTreeMap<(String, usize, String), serde_json::Value>;

fn recorded_costs() -> Recorded {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/corpus-costs.jsonl");
    let text = std::fs::read_to_string(&file).expect("tests/oracle/corpus-costs.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            let key = (
                v["file"].as_str().unwrap_or("").to_owned(),
                v["doc"].as_u64().unwrap_or(0) as usize,
                v["path"].as_str().unwrap_or("").to_owned(),
            );
            (key, v)
        })
        .collect()
}

/// What the apiserver oracle counted on the same corpus (tests/oracle/README.md).
const ORACLE_CRDS: usize = 76;
const ORACLE_RULES: usize = 815;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            out.push(p);
        }
    }
}

#[test]
fn corpus_crds_are_accepted() {
    let Some(shared) = crd_cel_tests::shared_dir("corpus CRDs through `crd-cel check`") else {
        return;
    };
    let mut files = Vec::new();
    yaml_files(&shared.join("corpus"), &mut files);
    files.sort();
    assert!(
        !files.is_empty(),
        "no YAML files under {}",
        shared.display()
    );
    let (mut crds, mut rules, mut checked, mut skipped) = (0, 0, 0, 0);
    let mut unsupported = Vec::new();
    let mut rejected = Vec::new();
    let recorded = recorded_costs();
    let corpus = shared.join("corpus");
    let (mut compared, mut cost_mismatches, mut over_limit) = (0usize, Vec::new(), Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let name = f.display().to_string();
        let docs = split_documents(&name, &text).unwrap_or_else(|e| panic!("{e}"));
        for doc in docs {
            if crd_kind_problem(&doc.value).is_some() {
                skipped += 1;
                continue;
            }
            let report = check_crd(&doc.value, &Options::default())
                .unwrap_or_else(|e| panic!("{}: {e}", doc.location()));
            crds += 1;
            rules += report.rules.len();
            let rel = f
                .strip_prefix(&corpus)
                .unwrap_or(f)
                .to_string_lossy()
                .into_owned();
            for r in &report.rules {
                let key = (rel.clone(), doc.index, r.path.clone());
                let Some(want) = recorded.get(&key) else {
                    cost_mismatches.push(format!("{rel} {}: not in the oracle's record", r.path));
                    continue;
                };
                compared += 1;
                let got = (
                    r.estimated_cost,
                    r.max_cost,
                    r.max_cardinality,
                    r.message_expression_max_cost,
                );
                let exp = (
                    want["estimatedCost"].as_u64().unwrap_or(u64::MAX),
                    want["maxCost"].as_u64().unwrap_or(u64::MAX),
                    want["maxCardinality"].as_u64().unwrap_or(u64::MAX),
                    want["messageExpressionMaxCost"].as_u64(),
                );
                if got != exp {
                    cost_mismatches.push(format!(
                        "{rel} {} `{}`: crd-cel (estimatedCost, maxCost, maxCardinality, messageExpressionMaxCost) = {got:?}, oracle {exp:?}",
                        r.path, r.rule
                    ));
                }
                if r.estimated_cost > crd_cel::cost::PER_EXPRESSION_LIMIT {
                    over_limit.push(format!("{rel} {}", r.path));
                }
            }
            checked += report.checked_expressions;
            for e in &report.errors {
                if e.is_unsupported_construct() {
                    unsupported.push(format!("{}: {e}", report.name));
                } else {
                    rejected.push(format!("{}: {e}", report.name));
                }
            }
        }
    }
    println!(
        "corpus: {} files, {crds} CRDs, {rules} rules, {checked} expressions type-checked, {skipped} other documents skipped, {} not supported by crd-cel yet, {} false rejections",
        files.len(),
        unsupported.len(),
        rejected.len()
    );
    for u in &unsupported {
        println!("  unsupported: {u}");
    }
    println!(
        "cost figures: {compared} rules compared with the oracle's, {} mismatches, {} over the per-expression limit",
        cost_mismatches.len(),
        over_limit.len()
    );
    for m in &cost_mismatches {
        println!("  cost mismatch: {m}");
    }
    assert!(
        cost_mismatches.is_empty(),
        "crd-cel's cost figures differ from the oracle's: {cost_mismatches:#?}"
    );
    assert!(over_limit.is_empty(), "{over_limit:#?}");
    assert_eq!(compared, recorded.len(), "every recorded rule is compared");
    assert!(
        rejected.is_empty(),
        "CRDs the apiserver accepted are rejected: {rejected:#?}"
    );
    assert_eq!(
        (crds, rules),
        (ORACLE_CRDS, ORACLE_RULES),
        "the oracle found {ORACLE_CRDS} CRDs with {ORACLE_RULES} rules in this corpus"
    );
}
