//! Conformance harness (issue 3): the apiserver oracle (`tests/oracle`, Go) against crd-cel.
//!
//! Without Go, this test works from the oracle results committed next to the project's own cases
//! (`tests/cases/<name>.json` + `<name>.expected.json`, written by `bash tests/oracle/ci.sh --update`).
//! It fails if a case has no expectation, if an expectation does not parse or does not belong to
//! its case, or if the oracle disagreed with a case's own `expect`. It then prints one agreement
//! table per set. crd-cel's side does not exist yet, so its column says "not implemented" and is
//! never counted as agreement. The sets that need `../shared` (reference vectors, corpus vectors,
//! corpus CRDs) are skipped with a message when it is absent; running the oracle on them is the job
//! of `tests/oracle/ci.sh`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

const CRD_CEL: &str = "not implemented";
const MIN_OWN_CASE_FILES: usize = 40;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shared_dir() -> PathBuf {
    match std::env::var_os("CRD_CEL_SHARED") {
        Some(p) => PathBuf::from(p),
        None => manifest_dir().join("..").join("..").join("shared"),
    }
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

/// Counts of one set, for the table.
#[derive(Default)]
struct Row {
    items: usize,
    oracle_agree: usize,
    oracle_disagree: usize,
    oracle_unchecked: usize,
    note: String,
}

fn print_table(rows: &BTreeMap<String, Row>) {
    println!();
    println!(
        "{:<34} {:>6}  {:<28} {:<18} note",
        "set", "items", "oracle vs expect", "crd-cel vs oracle"
    );
    for (name, r) in rows {
        let oracle = if r.oracle_agree + r.oracle_disagree + r.oracle_unchecked == 0 {
            "not run here".to_string()
        } else {
            format!(
                "{} agree, {} disagree, {} n/a",
                r.oracle_agree, r.oracle_disagree, r.oracle_unchecked
            )
        };
        println!(
            "{:<34} {:>6}  {:<28} {:<18} {}",
            name, r.items, oracle, CRD_CEL, r.note
        );
    }
    println!();
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
fn conformance_tables() {
    let mut problems = Vec::new();
    let mut rows = BTreeMap::new();

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
    let mut own = Row {
        note: format!("{} files; committed oracle output", case_files.len()),
        ..Row::default()
    };
    for p in &case_files {
        check_case(p, &mut problems, &mut own);
    }
    rows.insert("tests/cases (own)".to_string(), own);

    // (a), (b), (c): need ../shared.
    let shared = shared_dir();
    if !shared.is_dir() {
        println!(
            "SKIP: {} not found: reference vectors, corpus vectors and corpus CRDs are not listed \
             (set CRD_CEL_SHARED to point at shared/)",
            shared.display()
        );
    } else {
        let vectors = json_files(&shared.join("reference").join("vectors"));
        let mut r = Row {
            note: "oracle: tests/oracle/ci.sh".into(),
            ..Row::default()
        };
        for v in &vectors {
            match read_json(v) {
                Ok(j) => {
                    r.items += j
                        .get("cases")
                        .and_then(Value::as_array)
                        .map_or(1, |c| c.len().max(1))
                }
                Err(e) => problems.push(format!("reference vector does not parse: {e}")),
            }
        }
        rows.insert("reference/vectors".into(), r);

        for set in ["gateway-api", "gateway-api-examples", "istio-api"] {
            let dir = shared.join("corpus").join("vectors").join(set);
            let n = json_files(&dir)
                .iter()
                .filter(|p| !p.ends_with("_index.json"))
                .count();
            let note = if n == 0 {
                format!("SKIP: {} missing or empty", dir.display())
            } else {
                "oracle: tests/oracle/ci.sh (known disagreements: corpus-known-disagreements.txt)"
                    .into()
            };
            rows.insert(
                format!("corpus/vectors/{set}"),
                Row {
                    items: n,
                    note,
                    ..Row::default()
                },
            );
        }

        let mut crd_files = 0;
        let mut stack = vec![shared.join("corpus")];
        while let Some(d) = stack.pop() {
            let Ok(rd) = fs::read_dir(&d) else { continue };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    if !p.ends_with("vectors") {
                        stack.push(p);
                    }
                } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                    crd_files += 1;
                }
            }
        }
        rows.insert(
            "corpus CRD files".into(),
            Row {
                items: crd_files,
                note: "oracle check-crd: tests/oracle/ci.sh".into(),
                ..Row::default()
            },
        );
    }

    print_table(&rows);
    println!("crd-cel column: {CRD_CEL} for every set (never counted as agreement).");
    assert!(
        problems.is_empty(),
        "conformance harness found {} problem(s):\n  {}",
        problems.len(),
        problems.join("\n  ")
    );
}
