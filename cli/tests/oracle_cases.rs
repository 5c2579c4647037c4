//! `crd-cel check` against the apiserver: the oracle's recorded verdicts on the project's own
//! `crd-create` cases (`tests/cases/<name>.json` + `<name>.expected.json`), and the `expect` of
//! the `crd-create` reference vectors (`../shared/reference/vectors`, skipped if absent).
//!
//! For each case the CRD (the case's `crd`, or its `openAPIV3Schema` wrapped the way the oracle
//! wraps it) is checked and compared with the oracle's `check` object: `accepted`, every error
//! text (sorted by field), the Status `text`, and the `path`, `rule` and cost figures
//! (`estimatedCost`, `maxCost`, `maxCardinality`, `messageExpressionMaxCost`) of every listed
//! rule. Every case must match exactly, including the type checker's messages and the cost
//! errors, except the listed known differences. The `estimate` reference vector (v06) is run
//! through the checker's estimator directly. A table and a summary are printed (`--nocapture`).

use crd_cel_cli::crd::{CrdReport, Options, check_crd};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cases")
}

/// The oracle's `syntheticCRD`.
fn synthetic_crd(schema: &Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}]
        }
    })
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Class {
    /// Nothing in the verdict depends on what the type checker says: must match.
    Asserted,
    /// The oracle reports cost errors (the per-expression or per-schema limit): must match.
    Cost,
    /// The oracle or crd-cel reports a compile result (an error from the type checker): must
    /// match, except the listed `KNOWN_TYPE_CHECK_DIFFERENCES`.
    TypeChecked,
}

/// Whether an error text is the result of compiling an expression (the checker's verdict).
fn is_type_check_result(e: &str) -> bool {
    [
        ": compilation failed: ",
        ": cel expression must evaluate to a bool",
        ": messageExpression compilation failed: ",
        ": messageExpression must evaluate to a string",
        ": not supported by crd-cel yet",
        ": messageExpression not supported by crd-cel yet",
    ]
    .iter()
    .any(|m| e.contains(m))
}

struct Outcome {
    name: String,
    class: Class,
    mismatches: Vec<String>,
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn compare(report: &CrdReport, want: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let accepted = want["accepted"].as_bool().unwrap_or(false);
    if report.accepted() != accepted {
        out.push(format!(
            "accepted: crd-cel {}, oracle {accepted}",
            report.accepted()
        ));
    }
    let got: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    let expected = strings(&want["errors"]);
    if got != expected {
        out.push(format!(
            "errors:\n      crd-cel {got:#?}\n      oracle  {expected:#?}"
        ));
    }
    if report.text() != want["text"].as_str().unwrap_or("") {
        out.push(format!(
            "text:\n      crd-cel {:?}\n      oracle  {:?}",
            report.text(),
            want["text"]
        ));
    }
    let got_rules: Vec<Value> = report
        .rules
        .iter()
        .map(|r| {
            json!({"path": r.path, "rule": r.rule, "estimatedCost": r.estimated_cost,
                "maxCost": r.max_cost, "maxCardinality": r.max_cardinality,
                "messageExpressionMaxCost": r.message_expression_max_cost})
        })
        .collect();
    let want_rules: Vec<Value> = want["rules"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    json!({"path": r["path"], "rule": r["rule"],
                        "estimatedCost": r["estimatedCost"], "maxCost": r["maxCost"],
                        "maxCardinality": r["maxCardinality"],
                        "messageExpressionMaxCost": r["messageExpressionMaxCost"]})
                })
                .collect()
        })
        .unwrap_or_default();
    if got_rules != want_rules {
        out.push(format!(
            "rules:\n      crd-cel {got_rules:?}\n      oracle  {want_rules:?}"
        ));
    }
    out
}

fn run_cases() -> Vec<Outcome> {
    let mut files: Vec<PathBuf> = fs::read_dir(cases_dir())
        .expect("tests/cases exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with(".expected.json")
        })
        .collect();
    files.sort();
    let mut outcomes = Vec::new();
    for file in files {
        let vector: Value =
            serde_json::from_str(&fs::read_to_string(&file).expect("readable")).expect("JSON");
        if vector["harness"]["mode"] != "crd-create" {
            continue;
        }
        let expected_path = file.with_extension("expected.json");
        let expected: Value = serde_json::from_str(
            &fs::read_to_string(&expected_path)
                .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display())),
        )
        .expect("JSON");
        let id = vector["id"].as_str().unwrap_or("?").to_owned();
        let cases = vector["cases"].as_array().expect("cases");
        for (i, case) in cases.iter().enumerate() {
            let recorded = &expected["cases"][i];
            let Some(want) = recorded.get("check") else {
                continue;
            };
            let label = format!(
                "{id} / {}",
                case["name"]
                    .as_str()
                    .map_or_else(|| format!("case {i}"), str::to_owned)
            );
            let crd = if let Some(c) = case.get("crd").or_else(|| vector.get("crd")) {
                c.clone()
            } else {
                let schema = case
                    .get("openAPIV3Schema")
                    .or_else(|| vector.get("openAPIV3Schema"))
                    .unwrap_or_else(|| panic!("{label}: no crd or openAPIV3Schema"));
                synthetic_crd(schema)
            };
            let report = check_crd(&crd, &Options::default())
                .unwrap_or_else(|e| panic!("{label}: not checkable: {e}"));
            let oracle_errors = strings(&want["errors"]);
            let ours: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
            let cost = oracle_errors.iter().any(|e| e.contains(" cost "));
            let typed = oracle_errors
                .iter()
                .chain(&ours)
                .any(|e| is_type_check_result(e));
            let class = if cost {
                Class::Cost
            } else if typed {
                Class::TypeChecked
            } else {
                Class::Asserted
            };
            outcomes.push(Outcome {
                name: label,
                class,
                mismatches: compare(&report, want),
            });
        }
    }
    outcomes
}

/// Type-checked cases where crd-cel's text is not the apiserver's yet (the verdict is).
const KNOWN_TYPE_CHECK_DIFFERENCES: &[(&str, &str)] = &[(
    "escape-crd-true-keyword-parse-error / case 0",
    "the cel parser reports `self.true` as \"no viable alternative at input '.true'\" at column 7, cel-go as \"mismatched input 'true' expecting IDENTIFIER\" at column 6",
)];

#[test]
fn crd_create_cases_match_the_oracle() {
    let outcomes = run_cases();
    assert!(
        outcomes.len() >= 20,
        "expected the crd-create cases of tests/cases, found {}",
        outcomes.len()
    );
    println!();
    println!("{:<70} {:<16} verdict", "case", "class");
    let mut failures = Vec::new();
    let mut counts = [[0usize; 2]; 3];
    for o in &outcomes {
        let matches = o.mismatches.is_empty();
        let class = match o.class {
            Class::Asserted => "asserted",
            Class::Cost => "cost",
            Class::TypeChecked => "type-checked",
        };
        println!(
            "{:<70} {:<16} {}",
            o.name,
            class,
            if matches { "matches" } else { "differs" }
        );
        counts[o.class as usize][usize::from(!matches)] += 1;
        if !matches {
            for m in &o.mismatches {
                println!("    {m}");
            }
            let known = KNOWN_TYPE_CHECK_DIFFERENCES
                .iter()
                .find(|(name, _)| *name == o.name);
            match known {
                Some((_, why)) => println!("    known difference: {why}"),
                None => failures.push(o.name.clone()),
            }
        }
    }
    println!(
        "\nSummary: {} crd-create cases; asserted {} ({} match), cost {} ({} match), type-checked {} ({} match)",
        outcomes.len(),
        counts[0][0] + counts[0][1],
        counts[0][0],
        counts[1][0] + counts[1][1],
        counts[1][0],
        counts[2][0] + counts[2][1],
        counts[2][0],
    );
    assert!(
        failures.is_empty(),
        "crd-cel disagrees with the oracle on: {failures:#?}"
    );
}

/// One expected error of a reference vector matches one actual error on every field it gives
/// (the oracle's `errorMatches`).
fn error_matches(want: &Value, got: &crd_cel_cli::crd::CrdError) -> bool {
    let loose = |key: &str| want[key].as_str().is_some_and(|a| a.contains("contains"));
    let text = got.to_string();
    want["type"].as_str().is_none_or(|t| t == got.kind.reason())
        && want["field"].as_str().is_none_or(|f| f == got.field)
        && want["detail"].as_str().is_none_or(|d| {
            if loose("asserted") {
                got.detail.contains(d)
            } else {
                got.detail == d
            }
        })
        && want["detailContains"]
            .as_str()
            .is_none_or(|d| got.detail.contains(d))
        && want["detailPrefix"]
            .as_str()
            .is_none_or(|d| got.detail.starts_with(d))
        && want["message"].as_str().is_none_or(|m| {
            if loose("messageAsserted") {
                text.contains(m)
            } else {
                text == m
            }
        })
}

/// The `crd-create` vectors of `../shared/reference/vectors` against their `expect` (which the
/// oracle agrees with): expected errors as a multiset, no error left over.
#[test]
fn reference_crd_create_vectors_match_their_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/reference/vectors");
    if !dir.is_dir() {
        eprintln!(
            "SKIPPED reference crd-create vectors: {} is missing (the shared test data sits beside the checkout)",
            dir.display()
        );
        return;
    }
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut seen = 0;
    println!();
    for file in files {
        let v: Value =
            serde_json::from_str(&fs::read_to_string(&file).expect("readable")).expect("JSON");
        if v["harness"]["mode"] != "crd-create" {
            continue;
        }
        seen += 1;
        let id = v["id"].as_str().unwrap_or("?");
        let report = check_crd(&synthetic_crd(&v["openAPIV3Schema"]), &Options::default())
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let expected = v["expect"]["errors"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut used = vec![false; report.errors.len()];
        let mut mismatches = Vec::new();
        for want in &expected {
            match (0..report.errors.len())
                .find(|&i| !used[i] && error_matches(want, &report.errors[i]))
            {
                Some(i) => used[i] = true,
                None => mismatches.push(format!("missing: {want}")),
            }
        }
        for (i, e) in report.errors.iter().enumerate() {
            if !used[i] {
                mismatches.push(format!("unexpected: {e}"));
            }
        }
        let cost = expected
            .iter()
            .any(|e| e["detail"].as_str().is_some_and(|d| d.contains(" cost ")));
        let typed = expected
            .iter()
            .filter_map(|e| e["message"].as_str().or(e["detail"].as_str()))
            .map(|d| format!(": {d}"))
            .chain(report.errors.iter().map(ToString::to_string))
            .any(|e| is_type_check_result(&e));
        let class = if cost {
            "cost"
        } else if typed {
            "type-checked"
        } else {
            "asserted"
        };
        println!(
            "{id:<60} {class:<16} {}",
            if mismatches.is_empty() {
                "matches"
            } else {
                "differs"
            }
        );
        for m in &mismatches {
            println!("    {m}");
        }
        if !mismatches.is_empty() {
            failures.push(id.to_owned());
        }
    }
    assert!(
        seen >= 3,
        "expected the crd-create reference vectors, found {seen}"
    );
    assert!(
        failures.is_empty(),
        "crd-cel disagrees with the reference vectors: {failures:#?}"
    );
}

/// The `estimate` reference vector (v06, the upstream `TestCostEstimation` cases): the
/// estimated cost of the only rule on the schema root, unbounded and bounded, exactly.
#[test]
fn reference_estimate_vectors_give_the_recorded_costs() {
    use crd_cel::check::{Node, Target, check_source};
    use crd_cel::schema::{OwnedSchema, SchemaArena};
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference/vectors/v06-static-cost-estimation.json");
    if !file.is_file() {
        eprintln!("SKIPPED {}: missing", file.display());
        return;
    }
    let v: Value =
        serde_json::from_str(&fs::read_to_string(&file).expect("readable")).expect("JSON");
    let mut compared = 0;
    let mut failures = Vec::new();
    for case in v["cases"].as_array().expect("cases") {
        for variant in ["unbounded", "bounded"] {
            let Some(c) = case.get(variant) else { continue };
            let owned = OwnedSchema::from_json(&c["schema"]).expect("schema reads");
            let arena = SchemaArena::new();
            let model = owned.with_model(&arena);
            let rule = c["schema"]["x-kubernetes-validations"][0]["rule"]
                .as_str()
                .expect("a rule");
            let root = case["harnessOverride"]["isResourceRoot"] == true;
            let node = Node {
                resource_root: root,
                ..Node::new(model)
            };
            let got = check_source(rule, Target::Rule, &node)
                .map(|c| c.max_cost)
                .map_err(|e| e.to_string());
            compared += 1;
            let (want, ok) = match (
                c["estimatedMaxCost"].as_u64(),
                c["estimatedMaxCostAtLeast"].as_u64(),
            ) {
                (Some(w), _) => (w, got == Ok(w)),
                (None, Some(w)) => (w, got.as_ref().is_ok_and(|g| *g >= w)),
                (None, None) => panic!("{}: no expected cost", case["name"]),
            };
            println!(
                "{:<50} {variant:<9} {want:>15} {got:?}",
                case["name"].as_str().unwrap_or("?")
            );
            if !ok {
                failures.push(format!(
                    "{} ({variant}): want {want}, got {got:?}",
                    case["name"]
                ));
            }
        }
    }
    assert!(
        compared >= 20,
        "expected the v06 cases, compared {compared}"
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
