//! `crd-cel check` on every CRD of `../shared/corpus` (CRDs real apiservers accepted): none may
//! be rejected, except by crd-cel's own fail-closed "not supported by crd-cel yet" (reported,
//! counted). Prints the number of CRDs, rules and checked expressions.

use crd_cel_cli::crd::{Options, check_crd, crd_kind_problem};
use crd_cel_cli::input::split_documents;
use std::path::{Path, PathBuf};

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
