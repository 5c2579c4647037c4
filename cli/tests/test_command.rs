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

/// One onCreate case of the counters CRD that passes (a defaulted `min`).
const ONE_CASE: &str = "tests:\n  onCreate:\n  - name: ok\n    initial: |\n      apiVersion: example.com/v1\n      kind: Counter\n      spec: {max: 1}\n    expected: |\n      apiVersion: example.com/v1\n      kind: Counter\n      spec: {min: 0, max: 1}\n";

/// A checkout in OpenShift API's layout in a fresh temporary folder `name`: the FeatureGate
/// manifests given (file name, feature set as written, enabled and disabled gates as YAML flow
/// lists; `set` is a line of the manifest's metadata or spec), and the counters CRD as the
/// `Default` and `TechPreviewNoUpgrade` files of the self-managed-HA profile. Returns the
/// root, the CRD folder and the counters suites' folder.
fn openshift_checkout(
    name: &str,
    manifests: &[(&str, String)],
) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let root = std::env::temp_dir().join(format!("crd-cel-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let fg = root.join("payload-manifests/featuregates");
    let crds = root.join("example/v1/zz_generated.crd-manifests");
    let tests = root.join("example/v1/tests/counters.example.com");
    for d in [&fg, &crds, &tests] {
        std::fs::create_dir_all(d).unwrap();
    }
    for (file, text) in manifests {
        std::fs::write(fg.join(file), text).unwrap();
    }
    let base = std::fs::read_to_string(counters()).unwrap();
    for set in ["Default", "TechPreviewNoUpgrade"] {
        let annotated = base.replace(
            "  name: counters.example.com\n",
            &format!("  name: counters.example.com\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n    release.openshift.io/feature-set: {set}\n"),
        );
        std::fs::write(crds.join(format!("counters-{set}.crd.yaml")), annotated).unwrap();
    }
    (root, crds, tests)
}

/// A FeatureGate manifest of the self-managed-HA profile: `set` (its feature set, as an
/// annotation line or a `spec`), the gates enabled and disabled (YAML flow list items).
fn feature_gates(set: &str, enabled: &str, disabled: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: false-except-for-the-config-operator\n{set}\nstatus:\n  featureGates:\n  - enabled: [{enabled}]\n    disabled: [{disabled}]\n"
    )
}

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
            ":5: `tests.onCreate[0]` (\"a\") has no `initial` object (it has `intial`, which the format does not have)",
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

/// A directory without suites (a crate's `tests/`, Rust integration tests) is an input error,
/// said once on stderr, unless `--allow-empty`.
#[test]
fn a_directory_without_suites_is_an_input_error_unless_allowed() {
    let dir = std::env::temp_dir().join(format!("crd-cel-test-{}-nosuites", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("validation.rs"), "#[test]\nfn t() {}\n").unwrap();
    let dir = dir.to_str().unwrap().to_owned();
    let out = crd_cel(&["test", "--crd", &counters(), &dir]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stderr),
        "crd-cel: no suite files (`*.testsuite.yaml`) in the input (pass --allow-empty if that is expected)\n"
    );
    let out = crd_cel(&["test", "--crd", &counters(), &dir, "--allow-empty"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
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
    // A transition rule's case is an update: under a commented `onUpdate`, with `updated`.
    let update = suite_text
        .find("  # onUpdate:")
        .expect("an onUpdate section");
    assert!(
        suite_text[update..].contains("self == oldSelf")
            && suite_text[update..].contains("  #   updated: |"),
        "{suite_text}"
    );
    assert!(
        !suite_text[..update].contains("self == oldSelf"),
        "{suite_text}"
    );
    // A messageExpression under a list: the path up to the index.
    assert!(
        suite_text.contains("  #   expectedError: \"spec.limits[\""),
        "{suite_text}"
    );
    // The part of the error that is certain whatever the failing value and the release.
    assert!(
        suite_text.contains("  #   expectedError: \"min must not exceed max\""),
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

// A CRD folder often holds other manifests beside the CRDs (kustomization.yaml, policies):
// `--crd DIR` leaves them out, as the suite runner's loader does, instead of failing the run.
#[test]
fn documents_that_are_not_crds_in_a_crd_folder_are_left_out() {
    let file = suite(
        "crd-folder",
        &format!(
            "{HEAD}tests:\n  onCreate:\n  - name: ok\n    initial: |\n      apiVersion: example.com/v1\n      kind: Counter\n      spec: {{max: 1}}\n    expected: |\n      apiVersion: example.com/v1\n      kind: Counter\n      spec: {{min: 0, max: 1}}\n"
        ),
    );
    let crds = file.parent().unwrap().join("crds");
    std::fs::create_dir_all(&crds).unwrap();
    std::fs::copy(counters(), crds.join("counters.yaml")).unwrap();
    std::fs::write(
        crds.join("kustomization.yaml"),
        "resources:\n- counters.yaml\n",
    )
    .unwrap();
    std::fs::write(
        crds.join("policy.yaml"),
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n",
    )
    .unwrap();
    let out = crd_cel(&[
        "test",
        "--crd",
        crds.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("Summary: 1 cases - passed: 1, failed: 0"));
    // A CRD of an apiVersion no longer served is still an input error.
    std::fs::write(
        crds.join("old.yaml"),
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: olds.example.com}\n",
    )
    .unwrap();
    let out = crd_cel(&[
        "test",
        "--crd",
        crds.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("v1beta1 CustomResourceDefinitions are not served"));
}

// featureGates pick the CRD files as OpenShift API's runner does: in an OpenShift API checkout
// the payload's FeatureGate manifests say which gates each file's feature set enables; without
// them the gates are taken as on in the preview feature sets only; a suite that selects no file,
// or names a gate the manifests lack, is an input error.
#[test]
fn feature_gates_select_crd_files_from_the_payload_manifests() {
    let annotation = |set: &str| format!("    release.openshift.io/feature-set: {set}");
    let (root, crds, tests) = openshift_checkout(
        "gates",
        &[
            (
                "featureGate-SelfManagedHA-Default.yaml",
                feature_gates(
                    &annotation("Default"),
                    "{name: Promoted}",
                    "{name: Example}",
                ),
            ),
            (
                "featureGate-SelfManagedHA-TechPreviewNoUpgrade.yaml",
                feature_gates(
                    &annotation("TechPreviewNoUpgrade"),
                    "{name: Example}, {name: Promoted}",
                    "",
                ),
            ),
        ],
    );
    let case = ONE_CASE;
    let run = |gates: &str, dir: &std::path::Path| {
        let file = dir.join("gated.testsuite.yaml");
        std::fs::write(&file, format!("{HEAD}featureGates: {gates}\n{case}")).unwrap();
        let out = crd_cel(&[
            "test",
            "--crd",
            crds.to_str().unwrap(),
            "-o",
            "json",
            file.to_str().unwrap(),
        ]);
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let files_run = |stdout: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
        let mut crds: Vec<String> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let crd = r["crd"].as_str().unwrap();
                crd.rsplit('-')
                    .next()
                    .unwrap()
                    .split('.')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        crds.sort();
        crds
    };
    // Read from the manifests: Example is on in TechPreview only, Promoted in both.
    let (code, stdout, stderr) = run("[Example]", &tests);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(files_run(&stdout), ["TechPreviewNoUpgrade"]);
    let (code, stdout, stderr) = run("[-Example]", &tests);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(files_run(&stdout), ["Default"]);
    let (code, stdout, stderr) = run("[Promoted]", &tests);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(files_run(&stdout), ["Default", "TechPreviewNoUpgrade"]);
    let (code, _, stderr) = run("[Unknown]", &tests);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("feature gate \"Unknown\" is not in the FeatureGate manifest"),
        "{stderr}"
    );
    let (code, _, stderr) = run("[Example, -Promoted]", &tests);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("select none of the CRDs named"), "{stderr}");
    // Outside the checkout, no manifests: a gate counts as on in the preview sets only.
    let outside = root.with_file_name(format!("crd-cel-test-{}-gates-outside", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let (code, stdout, stderr) = run("[Promoted]", &outside);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(files_run(&stdout), ["TechPreviewNoUpgrade"]);
}

// An OpenShift API checkout, run as its runner runs it (`tests/generator.go`,
// `tests/crd_filter.go` there): a directory finds the `.yaml` suites of
// `<group>/<version>/tests/<crdName>/` (not `testdata`), their CRDs come from
// `<group>/<version>/zz_generated.crd-manifests` without --crd, and a FeatureGate manifest
// names its feature set in `spec.featureSet` (none: Default), as openshift/api's own
// payload-manifests do. A field the format does not have is a warning, as the runner ignores
// it. `tests/suites/openshift-api.sh` runs openshift/api's 3,302 cases the same way.
#[test]
fn an_openshift_api_checkout_runs_as_its_runner_runs_it() {
    let (root, _, tests) = openshift_checkout(
        "openshift",
        &[
            (
                "featureGate-SelfManagedHA-Default.yaml",
                feature_gates("spec: {}", "", "{name: Example}"),
            ),
            (
                "featureGate-SelfManagedHA-TechPreviewNoUpgrade.yaml",
                feature_gates(
                    "spec: {featureSet: TechPreviewNoUpgrade}",
                    "{name: Example}",
                    "",
                ),
            ),
        ],
    );
    let testdata = root.join("example/v1/tests/testdata");
    std::fs::create_dir_all(&testdata).unwrap();
    let case = ONE_CASE;
    std::fs::write(tests.join("AAA_ungated.yaml"), format!("{HEAD}{case}")).unwrap();
    std::fs::write(
        tests.join("Example.yaml"),
        format!("{HEAD}featureGates: [Example]\n{case}"),
    )
    .unwrap();
    // Misspelt: the runner runs it ungated, and so does crd-cel, saying so.
    std::fs::write(
        tests.join("Misspelt.yaml"),
        format!("{HEAD}featureGate: [Example]\n{case}"),
    )
    .unwrap();
    // Fixtures of the runner's own unit tests, which it does not run.
    std::fs::write(testdata.join("fixture.yaml"), "not: [a suite\n").unwrap();
    let out = crd_cel(&["test", "-o", "json", root.to_str().unwrap()]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut ran: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let file = |k: &str| {
                let path = r[k].as_str().unwrap().to_owned();
                path.rsplit('/').next().unwrap().to_owned()
            };
            format!("{} on {}", file("file"), file("crd"))
        })
        .collect();
    ran.sort();
    assert_eq!(
        ran,
        [
            "AAA_ungated.yaml on counters-Default.crd.yaml",
            "AAA_ungated.yaml on counters-TechPreviewNoUpgrade.crd.yaml",
            "Example.yaml on counters-TechPreviewNoUpgrade.crd.yaml",
            "Misspelt.yaml on counters-Default.crd.yaml",
            "Misspelt.yaml on counters-TechPreviewNoUpgrade.crd.yaml",
        ],
        "{stdout}"
    );
    assert!(
        stderr.contains("Misspelt.yaml:3: unknown field `featureGate` ignored, as the suite runner ignores it; a suite has `apiVersion`, `name`, `crdName`, `crd`, `version`, `featureGates`, `tests`"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // --crd naming the CRD wins over the layout's files.
    let out = crd_cel(&[
        "test",
        "--crd",
        &counters(),
        "-o",
        "json",
        tests.join("Example.yaml").to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let crd = v["results"][0]["crd"].as_str().unwrap();
    assert!(crd.contains("tests/assets/counters.yaml"), "{crd}");
}

// Without --kubernetes-version, the release the suites' own envtest runs: ENVTEST_K8S_VERSION
// of the nearest Makefile (or tests/Makefile) above the first suite, written as a version or
// as kubebuilder's scaffold computes it from k8s.io/api in go.mod; said on stderr.
#[test]
fn the_release_of_the_suites_envtest_is_the_default() {
    let root = std::env::temp_dir().join(format!("crd-cel-test-{}-envtest", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let suites = root.join("test/suites");
    std::fs::create_dir_all(&suites).unwrap();
    let suite = suites.join("a.testsuite.yaml");
    std::fs::write(&suite, format!("{HEAD}{ONE_CASE}")).unwrap();
    let crd = counters();
    let run = |extra: &[&str]| {
        let mut args = vec!["test", "--crd", &crd];
        args.extend_from_slice(extra);
        let path = suite.to_str().unwrap().to_owned();
        args.push(&path);
        let out = crd_cel(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    // No Makefile: the newest release, nothing said.
    let (stdout, stderr) = run(&[]);
    assert!(
        stdout.contains("(Kubernetes 1.37)") && stderr.is_empty(),
        "{stdout}{stderr}"
    );
    std::fs::write(
        root.join("Makefile"),
        "# envtest\nENVTEST_K8S_VERSION = 1.31.0\n\ntest:\n\tgo test ./...\n",
    )
    .unwrap();
    let (stdout, stderr) = run(&[]);
    assert!(stdout.contains("(Kubernetes 1.31)"), "{stdout}");
    assert!(
        stderr.contains("answering as Kubernetes 1.31, the release the suites' envtest runs (ENVTEST_K8S_VERSION in "),
        "{stderr}"
    );
    let (stdout, stderr) = run(&["--kubernetes-version", "1.37"]);
    assert!(
        stdout.contains("(Kubernetes 1.37)") && stderr.is_empty(),
        "{stdout}{stderr}"
    );
    // kubebuilder's scaffold: the minor of k8s.io/api.
    std::fs::write(
        root.join("Makefile"),
        "ENVTEST_K8S_VERSION ?= $(shell go list -m -f \"{{ .Version }}\" k8s.io/api | awk -F'[v.]' '{printf \"1.%d\", $$3}')\n",
    )
    .unwrap();
    std::fs::write(
        root.join("go.mod"),
        "module example.com/op\n\nrequire (\n\tk8s.io/api v0.34.2\n)\n",
    )
    .unwrap();
    let (stdout, _) = run(&[]);
    assert!(stdout.contains("(Kubernetes 1.34)"), "{stdout}");
}

// The stored object is compared as a GET returns it: read back from storage, where defaults
// apply again (KEP 1002), so a status the status subresource drops on create comes back as
// its default (Gateway API's GatewayClass: checked against kube-apiserver 1.37 with
// tests/suites/envtest). crd-cel compared the object as the create stored it.
#[test]
fn the_stored_object_is_read_back_with_its_defaults() {
    let dir = std::env::temp_dir().join(format!("crd-cel-test-{}-read-back", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let crd = dir.join("classes.yaml");
    std::fs::write(
        &crd,
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: classes.example.com}
spec:
  group: example.com
  names: {kind: Class, plural: classes, singular: class, listKind: ClassList}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {controller: {type: string}}}
          status:
            type: object
            default: {phase: Pending}
            properties: {phase: {type: string}}
",
    )
    .unwrap();
    let file = suite(
        "read-back",
        "name: classes\ncrdName: classes.example.com\ntests:\n  onCreate:\n  - name: the status is dropped, then defaulted when read\n    initial: |\n      apiVersion: example.com/v1\n      kind: Class\n      spec: {controller: a}\n      status: {phase: Ready}\n    expected: |\n      apiVersion: example.com/v1\n      kind: Class\n      spec: {controller: a}\n      status: {phase: Pending}\n",
    );
    let out = crd_cel(&[
        "test",
        "--crd",
        crd.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // --init writes that `expected` too, and its suite passes as written.
    let out = crd_cel(&["test", "--init", crd.to_str().unwrap()]);
    let scaffold = text(&out.stdout);
    assert!(scaffold.contains("phase: Pending"), "{scaffold}");
    let init = dir.join("init.testsuite.yaml");
    std::fs::write(&init, scaffold).unwrap();
    let out = crd_cel(&[
        "test",
        "--crd",
        crd.to_str().unwrap(),
        init.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}
