//! The oracle's committed answers for the project's own cases are complete and sound: every
//! case (`tests/cases/<name>.json`) has its expectation (`<name>.expected.json`, written by
//! `bash tests/oracle/ci.sh --update` from the apiserver's own code), each expectation belongs
//! to its case, records an outcome for every case, and the oracle agrees with the case's own
//! `expect`. crd-cel is compared with these answers in `runtime_vectors.rs` (and with the shared
//! corpus in `corpus_vectors.rs` and `cli_corpus.rs`); this file keeps the answers honest.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

const MIN_OWN_CASE_FILES: usize = 40;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Agreement counts over the own cases.
#[derive(Default)]
struct Row {
    items: usize,
    oracle_agree: usize,
    oracle_disagree: usize,
    oracle_unchecked: usize,
}

/// Checks one case file against its committed expectation; returns the per-case agreement counts.
fn check_case(case_path: &Path, problems: &mut Vec<String>, row: &mut Row) {
    let name = case_path.file_stem().unwrap().to_string_lossy().to_string();
    let case = match read_json(case_path) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("case does not parse: {e}"));
            return;
        }
    };
    let expected_path = case_path.with_file_name(format!("{name}.expected.json"));
    if !expected_path.exists() {
        problems.push(format!(
            "{name}: no committed expectation {} (run `bash tests/oracle/ci.sh --update`)",
            expected_path.display()
        ));
        return;
    }
    let expected = match read_json(&expected_path) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("expectation does not parse: {e}"));
            return;
        }
    };
    if expected.get("id") != case.get("id") {
        problems.push(format!(
            "{name}: expectation id {:?} does not match case id {:?}",
            expected.get("id"),
            case.get("id")
        ));
    }
    let want_cases = case
        .get("cases")
        .and_then(Value::as_array)
        .map_or(1, |c| c.len().max(1));
    let Some(got_cases) = expected.get("cases").and_then(Value::as_array) else {
        problems.push(format!("{name}: expectation has no \"cases\" array"));
        return;
    };
    if got_cases.len() != want_cases {
        problems.push(format!(
            "{name}: case file has {want_cases} cases, expectation {}",
            got_cases.len()
        ));
    }
    for (i, c) in got_cases.iter().enumerate() {
        let label = c.get("name").and_then(Value::as_str).unwrap_or("?");
        match c.get("agreement").and_then(Value::as_str) {
            Some("agree") => row.oracle_agree += 1,
            Some("unchecked") => row.oracle_unchecked += 1,
            Some("disagree") => {
                row.oracle_disagree += 1;
                problems.push(format!(
                    "{name} case {i} ({label}): the oracle disagrees with the case's expect: {}",
                    c.get("mismatches").unwrap_or(&Value::Null)
                ));
            }
            other => problems.push(format!(
                "{name} case {i} ({label}): malformed \"agreement\": {other:?}"
            )),
        }
        let outcome_present = ["result", "check", "validate", "unbounded", "bounded"]
            .iter()
            .any(|k| c.get(*k).is_some());
        if !outcome_present {
            problems.push(format!(
                "{name} case {i} ({label}): expectation records no oracle outcome"
            ));
        }
    }
    row.items += got_cases.len();
}

#[test]
fn every_case_has_a_sound_oracle_expectation() {
    let mut problems = Vec::new();

    // (d) the project's own cases: committed oracle expectations.
    let cases_dir = manifest_dir().join("cases");
    let all = json_files(&cases_dir);
    let case_files: Vec<&PathBuf> = all
        .iter()
        .filter(|p| !p.to_string_lossy().ends_with(".expected.json"))
        .collect();
    if case_files.len() < MIN_OWN_CASE_FILES {
        problems.push(format!(
            "{}: {} case files, at least {MIN_OWN_CASE_FILES} expected",
            cases_dir.display(),
            case_files.len()
        ));
    }
    for p in all
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".expected.json"))
    {
        let stem = p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".expected.json", ".json");
        if !p.with_file_name(&stem).exists() {
            problems.push(format!("stale expectation without a case: {}", p.display()));
        }
    }
    let mut own = Row::default();
    for p in &case_files {
        check_case(p, &mut problems, &mut own);
    }

    println!(
        "tests/cases: {} files, {} cases: oracle agrees with expect on {}, disagrees on {}, {} unchecked",
        case_files.len(),
        own.items,
        own.oracle_agree,
        own.oracle_disagree,
        own.oracle_unchecked
    );
    assert!(
        problems.is_empty(),
        "the oracle expectations have {} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}
