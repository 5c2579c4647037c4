//! Runtime validation (issue 5) against the apiserver: every `runtime`-mode case of the project's
//! own cases (`tests/cases`, compared with what the oracle recorded for them: result, every error's
//! field, type and whole message, warnings, runtime cost and remaining budget) and of the
//! reference vectors (`../shared/reference/vectors`, compared with their `expect`).
//!
//! A case that disagrees fails the test unless it is listed, with its reason, in
//! `tests/runtime-known-differences.txt`; a listed case that starts to agree fails it too, so the
//! list only shrinks.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crd_cel_tests::mirror::{
    compare_with_oracle, runtime_case as run_case, sorted_strings as strs,
};
use serde_json::{Value, json};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "json")
                        && !p.to_string_lossy().ends_with(".expected.json")
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// crd-cel's result against a reference vector's `expect` (README "expect fields").
fn compare_with_expect(actual: &Value, expect: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(r) = expect.get("result")
        && actual["result"] != *r
    {
        out.push(format!("result {} (expected {r})", actual["result"]));
    }
    let mut left: Vec<Value> = actual["errors"].as_array().cloned().unwrap_or_default();
    for want in expect
        .get("errors")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let contains = want.get("asserted").and_then(Value::as_str) == Some("contains");
        let message_contains =
            want.get("messageAsserted").and_then(Value::as_str) == Some("contains");
        let ok = |got: &Value| {
            let s = |k: &str| got[k].as_str().unwrap_or_default().to_owned();
            want.get("type")
                .and_then(Value::as_str)
                .is_none_or(|t| s("type") == t)
                && want
                    .get("field")
                    .and_then(Value::as_str)
                    .is_none_or(|f| s("field") == f)
                && want.get("detail").and_then(Value::as_str).is_none_or(|d| {
                    if contains {
                        s("detail").contains(d)
                    } else {
                        s("detail") == d
                    }
                })
                && want
                    .get("detailContains")
                    .and_then(Value::as_str)
                    .is_none_or(|d| s("detail").contains(d))
                && want
                    .get("detailPrefix")
                    .and_then(Value::as_str)
                    .is_none_or(|d| s("detail").starts_with(d))
                && want.get("message").and_then(Value::as_str).is_none_or(|m| {
                    if message_contains {
                        s("message").contains(m)
                    } else {
                        s("message") == m
                    }
                })
        };
        match left.iter().position(ok) {
            Some(i) => {
                left.remove(i);
            }
            None => out.push(format!("missing error {want}")),
        }
    }
    if expect.get("errors").is_some() && !left.is_empty() {
        out.push(format!("unexpected errors {left:?}"));
    }
    if expect.get("warnings").is_some()
        && strs(actual.get("warnings")) != strs(expect.get("warnings"))
    {
        out.push(format!(
            "warnings {:?} (expected {:?})",
            strs(actual.get("warnings")),
            strs(expect.get("warnings"))
        ));
    }
    for k in ["runtimeCost", "remainingBudget"] {
        if let Some(want) = expect.get(k)
            && actual[k] != *want
        {
            out.push(format!("{k} {} (expected {want})", actual[k]));
        }
    }
    out
}

fn is_runtime(vector: &Value) -> bool {
    vector.pointer("/harness/mode").and_then(Value::as_str) == Some("runtime")
        || vector.get("mode").and_then(Value::as_str) == Some("runtime")
}

fn known_differences() -> BTreeSet<String> {
    let path = manifest_dir().join("runtime-known-differences.txt");
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(" -- ").next())
        .map(|s| s.trim().to_owned())
        .collect()
}

struct Tally {
    cases: usize,
    agree: usize,
    disagreements: Vec<(String, Vec<String>)>,
}

fn run_set(files: &[PathBuf], with_oracle: bool) -> Tally {
    let mut t = Tally {
        cases: 0,
        agree: 0,
        disagreements: Vec::new(),
    };
    for file in files {
        let vector = read_json(file);
        if !is_runtime(&vector) {
            continue;
        }
        let id = vector["id"].as_str().unwrap_or_default().to_owned();
        let oracle = with_oracle.then(|| read_json(&file.with_extension("expected.json")));
        for (i, case) in vector["cases"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let label = case["name"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| case["rule"].as_str().map(str::to_owned))
                .unwrap_or_else(|| format!("case {i}"));
            let name = format!("{id} / {label}");
            t.cases += 1;
            let mismatches = match run_case(&vector, case) {
                Err(e) => vec![format!("could not run: {e}")],
                Ok(actual) => match &oracle {
                    Some(o) => compare_with_oracle(&actual, &o["cases"][i]),
                    None => compare_with_expect(&actual, &case["expect"]),
                },
            };
            if mismatches.is_empty() {
                t.agree += 1;
            } else {
                t.disagreements.push((name, mismatches));
            }
        }
    }
    t
}

fn report(set: &str, t: &Tally, known: &BTreeSet<String>) -> Vec<String> {
    println!("{set}: {} of {} runtime cases agree", t.agree, t.cases);
    let mut failures = Vec::new();
    for (name, why) in &t.disagreements {
        let listed = known.contains(name);
        println!(
            "  {} {name}\n      {}",
            if listed { "known" } else { "DIFFERS" },
            why.join("\n      ")
        );
        if !listed {
            failures.push(name.clone());
        }
    }
    failures
}

#[test]
fn runtime_cases_agree_with_the_oracle_and_the_reference_vectors() {
    let known = known_differences();
    let own = run_set(&json_files(&manifest_dir().join("cases")), true);
    assert!(
        own.cases >= 40,
        "expected the project's runtime cases, found {}",
        own.cases
    );
    let mut failures = report("tests/cases (vs oracle)", &own, &known);
    let mut differing: BTreeSet<String> = own.disagreements.iter().map(|d| d.0.clone()).collect();
    if let Some(shared) = crd_cel_tests::shared_dir("the reference vectors") {
        let refs = run_set(
            &json_files(&shared.join("reference").join("vectors")),
            false,
        );
        failures.extend(report("reference vectors (vs expect)", &refs, &known));
        differing.extend(refs.disagreements.iter().map(|d| d.0.clone()));
    }
    // `cr-*` entries belong to the validate-mode test below.
    let stale: Vec<&String> = known
        .iter()
        .filter(|k| !k.starts_with("cr-") && !differing.contains(*k))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as known differences but now agree (remove them): {stale:?}"
    );
    assert!(
        failures.is_empty(),
        "runtime cases that differ: {failures:#?}"
    );
}

/// The project's `validate`-mode cases (a CRD manifest and objects through the apiserver's
/// create/update path) through `crd-cel validate`'s code, compared with the oracle's recorded
/// `validate` output: verdict, every error (field, type, message), the whole text, warnings.
#[test]
fn validate_cases_agree_with_the_oracle() {
    use crd_cel_cli::input::Document;
    use crd_cel_cli::validate::{Crds, validate_one};

    let known = known_differences();
    let mut cases = 0;
    let mut agree = 0;
    let mut differing = BTreeSet::new();
    let mut failures = Vec::new();
    for file in json_files(&manifest_dir().join("cases")) {
        let vector = read_json(&file);
        if vector.pointer("/harness/mode").and_then(Value::as_str) != Some("validate") {
            continue;
        }
        let oracle = read_json(&file.with_extension("expected.json"));
        let id = vector["id"].as_str().unwrap_or_default().to_owned();
        for (i, case) in vector["cases"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            cases += 1;
            let name = format!("{id} / {}", case["name"].as_str().unwrap_or_default());
            let crd = case
                .get("crd")
                .or_else(|| vector.get("crd"))
                .cloned()
                .unwrap_or_default();
            let mut crds = Crds::new(vec![Document {
                file: "crd".into(),
                index: 0,
                item: None,
                line: 1,
                value: crd,
                duplicate_fields: Vec::new(),
                yaml11_booleans: Vec::new(),
                source: Default::default(),
            }])
            .with_default_namespace(
                vector
                    .pointer("/harness/namespace")
                    .and_then(Value::as_str)
                    .unwrap_or("default"),
            );
            let doc = Document {
                file: "object".into(),
                index: 0,
                item: None,
                line: 1,
                value: case["object"].clone(),
                duplicate_fields: Vec::new(),
                yaml11_booleans: Vec::new(),
                source: Default::default(),
            };
            let old = case.get("oldObject").filter(|o| !o.is_null());
            let version = case.get("version").and_then(Value::as_str);
            let actual = match crds.target(&doc.value, version) {
                Err(e) => json!({ "error": e.to_string() }),
                Ok(target) => {
                    let v = validate_one(
                        &doc,
                        old,
                        &target,
                        case.get("subresource").and_then(Value::as_str) == Some("status"),
                    );
                    let mut j = serde_json::to_value(&v.json).unwrap_or_default();
                    if let Some(o) = j.as_object_mut() {
                        o.remove("file");
                        o.remove("doc");
                    }
                    j
                }
            };
            let want = &oracle["cases"][i]["validate"];
            let mut mismatches = compare_with_oracle(
                &json!({
                    "result": if actual["valid"] == true { "pass" } else { "error" },
                    "errors": actual["errors"],
                    "warnings": actual["warnings"],
                }),
                &json!({
                    "result": if want["valid"] == true { "pass" } else { "error" },
                    "errors": want["errors"],
                    "warnings": want["warnings"],
                }),
            );
            if actual["text"] != want["text"] {
                mismatches.push(format!("text {} (oracle {})", actual["text"], want["text"]));
            }
            if mismatches.is_empty() {
                agree += 1;
            } else {
                differing.insert(name.clone());
                let listed = known.contains(&name);
                println!(
                    "  {} {name}\n      {}",
                    if listed { "known" } else { "DIFFERS" },
                    mismatches.join("\n      ")
                );
                if !listed {
                    failures.push(name);
                }
            }
        }
    }
    println!("tests/cases validate mode (vs oracle): {agree} of {cases} cases agree");
    assert!(
        cases >= 10,
        "expected the project's validate cases, found {cases}"
    );
    let stale: Vec<&String> = known
        .iter()
        .filter(|k| k.starts_with("cr-") && !differing.contains(*k))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as known differences but now agree (remove them): {stale:?}"
    );
    assert!(
        failures.is_empty(),
        "validate cases that differ: {failures:#?}"
    );
}
