//! `crd-cel test`: suites in OpenShift API's format run against `--crd` manifests; failing cases
//! at their line with expected and actual; malformed suites as input errors at their line.

use std::path::PathBuf;
use std::process::{Command, Output};

fn crd_cel(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crd-cel"))
        .args(args)
        .output()
        .expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn counters() -> String {
    format!("{}/tests/assets/counters.yaml", env!("CARGO_MANIFEST_DIR"))
}

/// A suite file with `body` in a fresh directory.
fn suite(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crd-cel-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.testsuite.yaml"));
    std::fs::write(&file, body).unwrap();
    file
}

const HEAD: &str = "name: counters\ncrdName: counters.example.com\n";

#[test]
fn passing_and_failing_cases_give_exit_codes_and_located_reasons() {
    let file = suite(
        "mixed",
        &format!(
            "{HEAD}tests:
  onCreate:
  - name: defaults min
    initial: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{max: 5}}
    expected: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{min: 0, max: 5}}
  - name: wrong expectation
    initial: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{min: 9, max: 5}}
    expectedError: \"spec: Invalid value: something else\"
  onUpdate:
  - name: mode is immutable
    initial: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{max: 5, mode: fast}}
    updated: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{max: 5, mode: slow}}
    expectedError: \"spec.mode: Invalid value: \\\"slow\\\": mode is immutable\"
  - name: the stored object differs
    initial: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{max: 5}}
    updated: |
      apiVersion: example.com/v1
      kind: Counter
      spec: {{max: 6, extra: pruned}}
"
        ),
    );
    let f = file.to_str().unwrap();
    let out = crd_cel(&["test", "--crd", &counters(), f]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    // The failing onCreate case, at its line, with what was expected and what came.
    assert!(
        stdout.contains(&format!("{f}:14: FAIL onCreate \"wrong expectation\"")),
        "{stdout}"
    );
    assert!(stdout.contains("expected an error containing:\n  spec: Invalid value: something else\ngot:\n  Counter.example.com \"test-00000\" is invalid: spec: Invalid value: min must not exceed max"), "{stdout}");
    // The stored object is the updated one with defaults and pruning: `expected` defaults to
    // `updated`, so the pruned field and the default differ, marked in the diff.
    assert!(
        stdout.contains(&format!(
            "{f}:31: FAIL onUpdate \"the stored object differs\""
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("it differs at spec.extra, spec.min"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-   extra: pruned") && stdout.contains("+   min: 0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Summary: 4 cases - passed: 2, failed: 2, suite errors: 0"),
        "{stdout}"
    );
    // JUnit: a test case per case, failures with their reason.
    let out = crd_cel(&["test", "--crd", &counters(), "-o", "junit", f]);
    let xml = text(&out.stdout);
    assert!(xml.contains("tests=\"4\" failures=\"2\""), "{xml}");
}

#[test]
fn malformed_suites_are_input_errors_at_their_line() {
    let cases = [
        (
            "no-crd-name",
            "name: x\ntests: {}\n",
            ":1: missing required field `crdName`",
        ),
        (
            "unknown-field",
            &format!(
                "{HEAD}tests:\n  onCreate:\n  - name: a\n    intial: |\n      kind: Counter\n"
            ),
            ":6: unknown field `tests.onCreate[0].intial`",
        ),
        (
            "yaml-error",
            &format!("{HEAD}tests:\n  onCreate: [\n"),
            ": YAML: ",
        ),
        (
            "object-yaml-error",
            &format!(
                "{HEAD}tests:\n  onCreate:\n  - name: a\n    initial: |\n      kind: Counter\n      spec: {{max: [}}\n"
            ),
            ":8: `tests.onCreate[0].initial`: YAML: ",
        ),
        (
            "unknown-crd",
            "name: x\ncrdName: nopes.example.com\ntests: {}\n",
            ":1: no CRD named \"nopes.example.com\" among the CRDs given (counters.example.com)",
        ),
        (
            "no-initial",
            &format!(
                "{HEAD}tests:\n  onUpdate:\n  - name: a\n    updated: |\n      kind: Counter\n"
            ),
            ":5: `tests.onUpdate[0]` (\"a\") has no `initial` object",
        ),
        (
            "bad-patch",
            &format!(
                "{HEAD}tests:\n  onUpdate:\n  - name: a\n    initialCRDPatches:\n    - {{op: patch, path: /x}}\n    initial: |\n      kind: Counter\n    updated: |\n      kind: Counter\n"
            ),
            ":7: `tests.onUpdate[0].initialCRDPatches[0]`: `op` must be add, remove, replace, move, copy or test",
        ),
    ];
    for (name, body, want) in cases {
        let file = suite(name, body);
        let f = file.to_str().unwrap();
        let out = crd_cel(&["test", "--crd", &counters(), f]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("crd-cel: {f}")) && stderr.contains(want),
            "{name}: want {want:?} in {stderr}"
        );
    }
}

#[test]
fn directories_are_searched_for_testsuite_files() {
    let file = suite(
        "dir",
        &format!(
            "{HEAD}tests:\n  onCreate:\n  - name: ok\n    initial: |\n      apiVersion: example.com/v1\n      kind: Counter\n      spec: {{max: 1}}\n    expected: |\n      apiVersion: example.com/v1\n      kind: Counter\n      spec: {{min: 0, max: 1}}\n"
        ),
    );
    std::fs::write(file.parent().unwrap().join("notes.yaml"), "not: a suite\n").unwrap();
    let dir = file.parent().unwrap().to_str().unwrap().to_owned();
    let out = crd_cel(&["test", "--crd", &counters(), &dir]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("Summary: 1 cases - passed: 1, failed: 0"));
}

#[test]
fn init_writes_a_suite_whose_minimal_case_passes_and_a_template_per_rule() {
    let out = crd_cel(&["test", "--init", &counters()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let suite_text = text(&out.stdout);
    // A rule reading an optional field without has() (`self.min <= self.max`) made the
    // smallest object give `max` a value; the stored object carries the default of `min`.
    assert!(
        suite_text.contains("      spec:\n        max: 1\n    expected: |"),
        "{suite_text}"
    );
    assert!(suite_text.contains("        min: 0"), "{suite_text}");
    assert!(
        suite_text
            .contains("  #   expectedError: \"spec: Invalid value: min must not exceed max\""),
        "{suite_text}"
    );
    let file = suite("init", &suite_text);
    let run = crd_cel(&["test", "--crd", &counters(), file.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stdout));
    // A file of several CRDs needs --crd-name.
    let out = crd_cel(&[
        "test",
        "--init",
        &format!("{}/tests/assets/gadgets.json", env!("CARGO_MANIFEST_DIR")),
    ]);
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "{}",
        text(&out.stderr)
    );
}
