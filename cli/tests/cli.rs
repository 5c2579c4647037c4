//! The `crd-cel` binary end to end: outputs, exit codes, stdin, bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/assets");

fn asset(name: &str) -> String {
    format!("{ASSETS}/{name}")
}

fn crd_cel(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_crd-cel"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    {
        let mut input = child.stdin.take().expect("stdin");
        // A usage error exits before reading stdin: a closed pipe is not a failure here.
        if let Err(e) = input.write_all(stdin.unwrap_or("").as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    child.wait_with_output().expect("finishes")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const P: &str = "spec.validation.openAPIV3Schema.properties[spec]";

#[test]
fn rejected_crd_prints_the_apiserver_text_and_exits_1() {
    let out = crd_cel(&["check", &asset("widgets.yaml")], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let want = format!(
        "{}:2: CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: [\
         {P}.properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within {P}.properties[tags], \
         {P}.x-kubernetes-validations[0].message: Invalid value: \"   \": must be non-empty if specified, \
         {P}.x-kubernetes-validations[1].fieldPath: Invalid value: \".tags[0]\": must be a valid path]",
        asset("widgets.yaml")
    );
    assert_eq!(lines[0], want);
    assert_eq!(
        lines[1],
        format!(
            "{}:36: gadgets.example.com accepted (1 rule)",
            asset("widgets.yaml")
        )
    );
    assert_eq!(
        lines[2],
        "Summary: 2 CRDs with 4 rules in 1 file - accepted: 1, rejected: 1, input errors: 0 (Kubernetes 1.37)"
    );
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn jsonl_output_is_the_oracle_shape() {
    let out = crd_cel(
        &["check", "--output", "jsonl", &asset("gadgets.json")],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let want = format!(
        "{{\"file\":{file:?},\"doc\":0,\"crd\":\"gadgets.example.com\",\"accepted\":false,\
         \"errors\":[\"spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: \\\"FieldValueNope\\\": supported values: \\\"FieldValueDuplicate\\\", \\\"FieldValueForbidden\\\", \\\"FieldValueInvalid\\\", \\\"FieldValueRequired\\\"\"],\
         \"text\":\"CustomResourceDefinition.apiextensions.k8s.io \\\"gadgets.example.com\\\" is invalid: spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].reason: Unsupported value: \\\"FieldValueNope\\\": supported values: \\\"FieldValueDuplicate\\\", \\\"FieldValueForbidden\\\", \\\"FieldValueInvalid\\\", \\\"FieldValueRequired\\\"\",\
         \"warnings\":[],\
         \"rules\":[{{\"path\":\"spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule\",\"rule\":\"self.name.startsWith('a') \\u0026\\u0026 self.name.size() \\u003c 10\",\"estimatedCost\":7,\"maxCost\":7,\"maxCardinality\":1,\"messageExpressionMaxCost\":7}},\
         {{\"path\":\"spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule\",\"rule\":\"self.name.size() \\u003c 10\",\"estimatedCost\":4,\"maxCost\":4,\"maxCardinality\":1}}]}}\n",
        file = asset("gadgets.json")
    );
    assert_eq!(stdout, want);
}

#[test]
fn stdin_and_an_accepted_crd_exit_0() {
    let yaml = std::fs::read_to_string(asset("widgets.yaml")).expect("readable");
    let second = yaml.split("\n---\n").nth(1).expect("two documents");
    for args in [&["check", "-"][..], &["check"][..]] {
        let out = crd_cel(args, Some(second));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).starts_with("<stdin>:1: gadgets.example.com accepted (1 rule)\n"),
            "{}",
            text(&out.stdout)
        );
    }
}

#[test]
fn bad_input_exits_2_with_file_and_line() {
    let cases = [
        (
            "not-a-crd.yaml",
            "not-a-crd.yaml:1: not an apiextensions.k8s.io/v1 CustomResourceDefinition (apiVersion \"v1\", kind \"ConfigMap\")",
        ),
        (
            "no-schema.yaml",
            "no-schema.yaml:1: spec.versions[0] has no schema.openAPIV3Schema",
        ),
        ("broken.yaml", "broken.yaml:1: YAML error: "),
        ("missing.yaml", "missing.yaml: cannot read: "),
    ];
    for (file, want) in cases {
        let out = crd_cel(&["check", &asset(file)], None);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(want), "{file}: {stderr}");
    }
    let out = crd_cel(&["check", &asset("broken.yaml")], None);
    assert!(
        text(&out.stderr).contains("line 4 column"),
        "{}",
        text(&out.stderr)
    );
    // Bad input wins over a rejection.
    let out = crd_cel(
        &["check", &asset("widgets.yaml"), &asset("not-a-crd.yaml")],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    let out = crd_cel(&["check", "--kubernetes-version", "1.40", "x"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("Kubernetes 1.40 is not supported"),
        "{}",
        text(&out.stderr)
    );
    let out = crd_cel(&["check", "-", "-"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = crd_cel(&["frobnicate"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = crd_cel(&["check", "--help"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("--kubernetes-version"));
}

#[test]
fn kubernetes_version_is_echoed() {
    let out = crd_cel(
        &[
            "check",
            "--kubernetes-version",
            "v1.30.2",
            &asset("gadgets.json"),
        ],
        None,
    );
    assert!(
        text(&out.stdout).ends_with("(Kubernetes 1.30)\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn validate_prints_the_apiserver_text_and_exits_by_verdict() {
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &["validate", "--crd", &crd, &asset("counter-ok.yaml")],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).lines().next().unwrap_or_default(),
        format!(
            "{}:1: Counter.example.com \"c1\" is valid",
            asset("counter-ok.yaml")
        )
    );
    // status is dropped on create (status subresource); min defaults to 0 before the rules run.
    let out = crd_cel(
        &["validate", "--crd", &crd, &asset("counter-bad.yaml")],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).lines().next().unwrap_or_default(),
        format!(
            "{}:1: Counter.example.com \"c2\" is invalid: [spec: Invalid value: min must not exceed max, spec.limits[0]: Invalid value: limit a must be positive]",
            asset("counter-bad.yaml")
        )
    );
}

// `--kubernetes-version` selects the message format: up to 1.34 a failed rule shows the
// schema type of its node, from 1.35 the value of a scalar and nothing for an object.
#[test]
fn validate_prints_the_messages_of_the_kubernetes_version() {
    let crd = asset("counters.yaml");
    let bad = asset("counter-bad.yaml");
    let first_line = |version: &str| {
        let out = crd_cel(
            &[
                "validate",
                "--kubernetes-version",
                version,
                "--crd",
                &crd,
                &bad,
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(
        first_line("1.34"),
        format!(
            "{bad}:1: Counter.example.com \"c2\" is invalid: [spec: Invalid value: \"object\": min must not exceed max, spec.limits[0]: Invalid value: \"object\": limit a must be positive]"
        )
    );
    assert_eq!(
        first_line("1.35"),
        format!(
            "{bad}:1: Counter.example.com \"c2\" is invalid: [spec: Invalid value: min must not exceed max, spec.limits[0]: Invalid value: limit a must be positive]"
        )
    );
    let out = crd_cel(
        &[
            "validate",
            "--kubernetes-version",
            "1.24",
            "--crd",
            &crd,
            &bad,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn validate_update_runs_transition_rules_and_jsonl_is_the_oracle_shape() {
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--old",
            &asset("counter-bad-old.yaml"),
            "-o",
            "jsonl",
            &asset("counter-bad.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["operation"], "UPDATE");
    assert_eq!(v["valid"], false);
    let fields: Vec<&str> = v["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|e| e["field"].as_str())
        .collect();
    assert_eq!(fields, ["spec", "spec.limits[0]", "spec.mode"]);
    assert_eq!(v["errors"][2]["value"], "slow");
    assert_eq!(
        v["errors"][2]["message"],
        "spec.mode: Invalid value: \"slow\": mode is immutable"
    );
}

#[test]
fn validate_bad_input_exits_2_and_says_where() {
    let crd = asset("counters.yaml");
    let cases = [
        (asset("counter-broken.yaml"), "counter-broken.yaml"),
        (
            asset("gadget-object.yaml"),
            "no matches for kind \"Gadget\" in version \"example.com/v1\": ensure CRDs are installed first (the CRDs given define: Counter.example.com)",
        ),
        (asset("missing.yaml"), "cannot read"),
    ];
    for (file, want) in cases {
        let out = crd_cel(&["validate", "--crd", &crd, &file], None);
        assert_eq!(out.status.code(), Some(2), "{file}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(want), "{file}: {stderr}");
    }
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--version",
            "v9",
            &asset("counter-ok.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("has no version \"v9\" (it has: v1)"),
        "{}",
        text(&out.stderr)
    );
    let out = crd_cel(&["validate", &asset("counter-ok.yaml")], None);
    assert_eq!(out.status.code(), Some(2), "--crd is required");
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &asset("counter-ok.yaml"),
            &asset("counter-ok.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "--crd must be a CRD");
}

#[test]
fn validate_update_of_another_name_is_refused_as_not_found() {
    // The old object is the stored one: an update whose name differs addresses an
    // object that does not exist, which the apiserver answers with NotFound before
    // any validation runs.
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--old",
            &asset("counter-ok.yaml"),
            "-o",
            "jsonl",
            &asset("counter-bad.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["valid"], false);
    assert_eq!(v["errors"], serde_json::json!([]));
    assert_eq!(v["text"], "counters.example.com \"c2\" not found");
}

#[test]
fn validate_update_without_a_name_is_refused_as_the_handler_does() {
    // An update is sent to the stored object's URL; a body without a name is refused by the
    // handler's name check before anything else (a real kube-apiserver 1.37.2:
    // tests/e2e/selftest/vectors/selftest/007-update-no-name.json).
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--old",
            &asset("counter-ok.yaml"),
            "-o",
            "jsonl",
            "-",
        ],
        Some("apiVersion: example.com/v1\nkind: Counter\nmetadata: {}\nspec: {max: 1}\n"),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["valid"], false);
    assert_eq!(
        v["text"],
        "the name of the object (c1 based on URL) was undeterminable: name must be provided"
    );
}

/// A counter object with one spec field repeated and one the schema does not have.
const REPEATED_AND_UNKNOWN: &str = "apiVersion: example.com/v1\nkind: Counter\nmetadata: {name: c3}\nspec:\n  max: 1\n  max: 5\n  extra: true\n";

#[test]
fn strict_field_validation_refuses_repeated_and_unknown_fields_as_the_apiserver_does() {
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &["validate", "--crd", &crd, "-"],
        Some(REPEATED_AND_UNKNOWN),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with(
            "<stdin>:1: Counter in version \"v1\" cannot be handled as a Counter: strict decoding error: duplicate field \"spec.max\", unknown field \"spec.extra\"\n"
        ),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn warn_field_validation_prints_a_warning_per_field_and_validates() {
    let crd = asset("counters.yaml");
    let args = ["validate", "--crd", &crd, "--field-validation", "warn", "-"];
    let out = crd_cel(&args, Some(REPEATED_AND_UNKNOWN));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "Warning: duplicate field \"spec.max\"\nWarning: unknown field \"spec.extra\"\n"
    );
    let args = [
        "validate",
        "--crd",
        &crd,
        "--field-validation",
        "ignore",
        "-",
    ];
    let out = crd_cel(&args, Some(REPEATED_AND_UNKNOWN));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn a_repeated_key_in_a_crd_manifest_rejects_it_under_strict_and_warns_under_warn() {
    let yaml = std::fs::read_to_string(asset("widgets.yaml")).expect("readable");
    let second = yaml.split("\n---\n").nth(1).expect("two documents");
    let repeated = second.replacen("  scope:", "  scope: Cluster\n  scope:", 1);
    let out = crd_cel(&["check", "-"], Some(&repeated));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("<stdin>:1: CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: strict decoding error: duplicate field \"spec.scope\"\n"),
        "{}",
        text(&out.stdout)
    );
    let out = crd_cel(
        &["check", "--field-validation", "warn", "-"],
        Some(&repeated),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("Warning: <stdin>:1: duplicate field \"spec.scope\""),
        "{}",
        text(&out.stderr)
    );
}

/// Client-side `kubectl apply` stores the manifest as JSON in an annotation, and the apiserver
/// refuses annotations over 262144 bytes: `check` warns about a CRD that big, in each output
/// that has warnings, and still accepts it (exit 0).
#[test]
fn a_crd_too_big_for_client_side_apply_is_accepted_with_a_warning() {
    let crd = |description_len: usize| {
        serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "bigs.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"kind": "Big", "plural": "bigs"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object",
                        "description": "x".repeat(description_len)}}}]}
        })
    };
    // What kubectl would store: the manifest with an (empty) annotations map, encoded with a
    // final newline, as the value of a 48-byte key.
    const KEY: &str = "kubectl.kubernetes.io/last-applied-configuration";
    let value_len = |c: &serde_json::Value| {
        let mut c = c.clone();
        c["metadata"]["annotations"] = serde_json::json!({});
        serde_json::to_string(&c).unwrap().len() + 1
    };
    let fill = 262144 - KEY.len() - value_len(&crd(0));
    let fits = crd(fill).to_string();
    let out = crd_cel(&["check", "-"], Some(&fits));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let over = crd(fill + 1);
    let warning = format!(
        "client-side `kubectl apply` cannot apply this CRD: it would store the CRD as JSON ({} bytes) in the {KEY} annotation, and the apiserver refuses annotations over 262144 bytes (`metadata.annotations: Too long`); use `kubectl apply --server-side`, or `kubectl create` and `kubectl replace`",
        value_len(&over)
    );
    let over = over.to_string();
    let out = crd_cel(&["check", "-"], Some(&over));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        format!("Warning: <stdin>:1: {warning}\n")
    );
    assert!(
        text(&out.stdout).starts_with("<stdin>:1: bigs.example.com accepted (0 rules)\n"),
        "{}",
        text(&out.stdout)
    );
    let out = crd_cel(&["check", "-o", "json", "-"], Some(&over));
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc["results"][0]["warnings"], serde_json::json!([warning]));
    let out = crd_cel(&["check", "-o", "github", "-"], Some(&over));
    assert!(
        text(&out.stdout).starts_with("::warning file=<stdin>,line=1,"),
        "{}",
        text(&out.stdout)
    );
    // Not the apiserver's: the oracle's shape has no such warning.
    let out = crd_cel(&["check", "-o", "jsonl", "-"], Some(&over));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("jsonl");
    assert_eq!(line["warnings"], serde_json::json!([]));
    // A project that applies its CRDs server-side says so, and is not warned on every run.
    let out = crd_cel(&["check", "--server-side", "-"], Some(&over));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn json_documents_separated_by_yaml_separators_are_read_one_by_one() {
    // What `helm template` writes for JSON manifests.
    let one = r#"{"apiVersion": "example.com/v1", "kind": "Counter", "metadata": {"name": "NAME"}, "spec": {"max": 5}}"#;
    let stream = format!(
        "{}\n---\n{}\n",
        one.replace("NAME", "a"),
        one.replace("NAME", "b")
    );
    let crd = asset("counters.yaml");
    let out = crd_cel(&["validate", "--crd", &crd, "-"], Some(&stream));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "<stdin>:1: Counter.example.com \"a\" is valid\n<stdin>:3: Counter.example.com \"b\" is valid\nSummary: 2 objects - valid: 2, invalid: 0, skipped: 0, input errors: 0 (Kubernetes 1.37)\n"
    );
}

#[test]
fn hostile_input_ends_with_exit_2_and_a_located_message() {
    // 100,000 levels of flow mappings, which libyaml alone takes minutes to refuse.
    let deep = format!(
        "apiVersion: example.com/v1\nkind: Counter\nspec: {}{}\n",
        "{a: ".repeat(100_000),
        "}".repeat(100_000)
    );
    let big = format!(
        "apiVersion: example.com/v1\nkind: Counter\nspec: {{mode: \"{}\"}}\n",
        "x".repeat(4 << 20)
    );
    let too_big = format!(
        "<stdin>:1: the document is {} bytes, more than the apiserver accepts in a request (Request entity too large: limit is 3145728)",
        big.len()
    );
    let crd = asset("counters.yaml");
    for (input, want) in [
        (deep, "<stdin>:1: YAML error: recursion limit exceeded at line 3 column 519 (more than 128 levels of nesting)".to_owned()),
        (big, too_big),
        ("a: 1\n--- {b: 2}\n".to_owned(), "<stdin>:2: invalid Yaml document separator: {b: 2}".to_owned()),
    ] {
        for args in [&["validate", "--crd", &crd, "-"][..], &["check", "-"][..]] {
            let out = crd_cel(args, Some(&input));
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
            assert!(text(&out.stderr).contains(&want), "{args:?}: {}", text(&out.stderr));
        }
    }
}

/// A directory holding a CRD, objects of it, a built-in kind, a kind no CRD defines and a
/// file to leave out, for the input-selection tests.
fn project_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("crd-cel-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("deploy/nested")).expect("creates");
    std::fs::copy(asset("counters.yaml"), dir.join("deploy/00-crd.yaml")).expect("copies");
    std::fs::copy(asset("counter-ok.yaml"), dir.join("deploy/nested/ok.yml")).expect("copies");
    std::fs::write(
        dir.join("deploy/web.json"),
        r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}"#,
    )
    .expect("writes");
    std::fs::copy(asset("gadget-object.yaml"), dir.join("deploy/gadget.yaml")).expect("copies");
    std::fs::write(dir.join("deploy/notes.txt"), "not a manifest").expect("writes");
    dir
}

#[test]
fn a_directory_is_its_manifests_and_crds_among_them_are_registered() {
    let dir = project_dir("dir");
    let deploy = dir.join("deploy").display().to_string();
    let out = crd_cel(
        &["validate", &deploy, "--ignore-filename-pattern", "gadget"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{deploy}/nested/ok.yml:1: Counter.example.com \"c1\" is valid\n\
             {deploy}/web.json:1: Deployment \"web\" skipped: apps/v1 Deployment is a built-in kind (crd-cel validates custom resources)\n\
             Summary: 1 object - valid: 1, invalid: 0, skipped: 1, input errors: 0, CRDs among them: 1 (Kubernetes 1.37)\n"
        )
    );
    // Without the pattern the Gadget, whose CRD is not given, is kubectl's input error ...
    let out = crd_cel(&["validate", &deploy], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("gadget.yaml:1: no matches for kind \"Gadget\""),
        "{}",
        text(&out.stderr)
    );
    // ... unless missing CRDs are to be skipped; --skip leaves out a kind that has one.
    let out = crd_cel(
        &[
            "validate",
            &deploy,
            "--ignore-missing-crds",
            "--skip",
            "example.com/v1/Counter",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("Counter \"c1\" skipped: example.com/v1 Counter is skipped (--skip)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Summary: 0 objects - valid: 0, invalid: 0, skipped: 3,"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).expect("removes");
}

#[test]
fn no_documents_at_all_is_an_input_error_unless_allowed() {
    let crd = asset("counters.yaml");
    for (args, what) in [
        (&["validate", "--crd", &crd, "-"][..], "objects"),
        (&["check", "-"][..], "documents"),
    ] {
        let out = crd_cel(args, Some("# nothing here\n---\n"));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        // The error names no file, and says `crd-cel:` once.
        assert_eq!(
            text(&out.stderr),
            format!("crd-cel: no {what} in the input (pass --allow-empty if that is expected)\n")
        );
        let allowed: Vec<&str> = args.iter().copied().chain(["--allow-empty"]).collect();
        let out = crd_cel(&allowed, Some("# nothing here\n---\n"));
        assert_eq!(
            out.status.code(),
            Some(0),
            "{allowed:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn exit_zero_turns_invalid_into_success_but_not_input_errors() {
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--exit-zero",
            &asset("counter-bad.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("is invalid"));
    let out = crd_cel(&["check", "--exit-zero", &asset("widgets.yaml")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--exit-zero",
            &asset("missing.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn github_output_annotates_each_cause_on_its_fields_line() {
    let crd = asset("counters.yaml");
    let bad = asset("counter-bad.yaml");
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "-o",
            "github",
            &bad,
            &asset("counter-ok.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let file = bad.replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        text(&out.stdout),
        format!(
            "::error file={file},line=4,title=crd-cel%3A Counter.example.com \"c2\"::spec: Invalid value: min must not exceed max\n\
             ::error file={file},line=4,title=crd-cel%3A Counter.example.com \"c2\"::spec.limits[0]: Invalid value: limit a must be positive\n"
        )
    );
}

#[test]
fn annotations_of_block_yaml_point_at_the_failing_field() {
    // The second document; its spec.limits[1] fails (line 14 of the stream).
    let stream = "apiVersion: example.com/v1\nkind: Counter\nmetadata: {name: a}\n---\n\
                  apiVersion: example.com/v1\nkind: Counter\nmetadata:\n  name: b\nspec:\n  max: 5\n  limits:\n  - name: x\n    value: 1\n  - name: z\n    value: 0\n";
    let crd = asset("counters.yaml");
    let out = crd_cel(
        &["validate", "--crd", &crd, "-o", "github", "-"],
        Some(stream),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "::error file=<stdin>,line=14,title=crd-cel%3A Counter.example.com \"b\"::spec.limits[1]: Invalid value: limit z must be positive\n"
    );
}

#[test]
fn junit_and_sarif_reports_are_written_beside_the_text_output() {
    let dir = std::env::temp_dir().join(format!("crd-cel-reports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("creates");
    let (xml, sarif) = (dir.join("r.xml"), dir.join("r.sarif"));
    let crd = asset("counters.yaml");
    let junit_arg = format!("junit={}", xml.display());
    let sarif_arg = format!("sarif={}", sarif.display());
    let args = [
        "validate", "--crd", &crd, "--report", &junit_arg, "--report", &sarif_arg,
    ];
    let files = [
        asset("counter-bad.yaml"),
        asset("counter-ok.yaml"),
        asset("missing.yaml"),
    ];
    let all: Vec<&str> = args
        .iter()
        .copied()
        .chain(files.iter().map(String::as_str))
        .collect();
    let out = crd_cel(&all, None);
    assert_eq!(out.status.code(), Some(2), "missing.yaml is an input error");
    assert!(
        text(&out.stdout).contains("Summary: 2 objects - valid: 1, invalid: 1"),
        "{}",
        text(&out.stdout)
    );
    let xml = std::fs::read_to_string(&xml).expect("junit written");
    assert!(
        xml.contains("tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\""),
        "{xml}"
    );
    assert!(
        xml.contains("counter-ok.yaml:1 Counter.example.com &quot;c1&quot;\"/>"),
        "{xml}"
    );
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).expect("sarif written"))
            .expect("JSON");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let rules: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(
        rules,
        ["FieldValueInvalid", "FieldValueInvalid", "InputError"]
    );
    std::fs::remove_dir_all(&dir).expect("removes");
}

#[test]
fn a_report_in_a_streaming_format_is_a_usage_error() {
    let out = crd_cel(
        &["check", "--report", "text=out.txt", &asset("widgets.yaml")],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--report writes json, github, junit or sarif"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn check_old_checks_an_update_and_lists_stored_objects_the_new_crd_rejects() {
    let dir = std::env::temp_dir().join(format!("crd-cel-upgrade-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("objects")).expect("creates");
    let old = std::fs::read_to_string(asset("counters.yaml")).expect("readable");
    // The new version caps max at 10.
    let first = "            - rule: self.min <= self.max\n              message: min must not exceed max\n";
    assert!(old.contains(first));
    let new = old.replacen(
        first,
        &format!(
            "{first}            - rule: self.max <= 10\n              message: max is at most 10\n"
        ),
        1,
    );
    assert_ne!(old, new);
    std::fs::write(dir.join("new.yaml"), &new).expect("writes");
    let object = |name: &str, max: u32| {
        format!(
            "apiVersion: example.com/v1\nkind: Counter\nmetadata: {{name: {name}}}\nspec: {{max: {max}}}\n"
        )
    };
    std::fs::write(dir.join("objects/small.yaml"), object("small", 5)).expect("writes");
    std::fs::write(dir.join("objects/big.yaml"), object("big", 50)).expect("writes");
    // As `kubectl get -o yaml` exports it: a create would refuse its resourceVersion, so the
    // objects are judged as created again, without it.
    std::fs::write(
        dir.join("objects/exported.yaml"),
        "apiVersion: example.com/v1\nkind: Counter\nmetadata:\n  name: exported\n  namespace: default\n  resourceVersion: \"43\"\n  uid: 0b6d7f0e-3c1a-4a53-9a8e-2f1d2c3b4a5e\n  creationTimestamp: \"2026-01-02T03:04:05Z\"\n  generation: 3\nspec: {max: 60}\n",
    )
    .expect("writes");
    // Invalid under the stored CRD already: counted, not listed.
    std::fs::write(
        dir.join("objects/broken.yaml"),
        "apiVersion: example.com/v1\nkind: Counter\nmetadata: {name: broken}\nspec: {min: 9, max: 5}\n",
    )
    .expect("writes");
    let (old_path, new_path, objects) = (
        asset("counters.yaml"),
        dir.join("new.yaml").display().to_string(),
        dir.join("objects").display().to_string(),
    );
    let out = crd_cel(
        &[
            "check",
            "--old",
            &old_path,
            "--objects",
            &objects,
            &new_path,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "{objects}/big.yaml:1: Counter.example.com \"big\" is accepted by the stored CRD, rejected by the new one: Counter.example.com \"big\" is invalid: spec: Invalid value: max is at most 10\n"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "{objects}/exported.yaml:1: Counter.example.com \"exported\" is accepted by the stored CRD, rejected by the new one: Counter.example.com \"exported\" is invalid: spec: Invalid value: max is at most 10\n"
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("small"), "{stdout}");
    assert!(!stdout.contains("broken.yaml"), "{stdout}");
    assert!(
        stdout.contains(
            "Stored objects: 4 checked, 2 accepted by the stored CRD and rejected by the new one (1 rejected by both, not listed: invalid before the upgrade)"
        ),
        "{stdout}"
    );
    // The CRD itself is a valid update.
    assert!(
        stdout.contains("counters.example.com accepted (5 rules)"),
        "{stdout}"
    );
    assert!(stdout.contains("accepted: 1, rejected: 0"), "{stdout}");
    std::fs::remove_dir_all(&dir).expect("removes");
}

/// Runs the library (not the binary) with a chosen terminal state and `NO_COLOR`: what a
/// spawned process cannot be given in a test.
fn run_lib(
    args: &[&str],
    stdin: &str,
    stdin_is_terminal: bool,
    stdout_is_terminal: bool,
    no_color: bool,
) -> (u8, String, String) {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut input = stdin.as_bytes();
    let code = crd_cel_cli::run(
        std::iter::once("crd-cel").chain(args.iter().copied()),
        &mut crd_cel_cli::Io {
            stdin: &mut input,
            stdin_is_terminal,
            stdout: &mut stdout,
            stdout_is_terminal,
            no_color,
            stderr: &mut stderr,
        },
    );
    (code, text(&stdout), text(&stderr))
}

/// A `kind: List` of two counters; the second is invalid. Items start on lines 4 and 8.
const COUNTER_LIST: &str = "apiVersion: v1\nkind: List\nitems:\n\
- apiVersion: example.com/v1\n  kind: Counter\n  metadata: {name: l1}\n  spec: {max: 5}\n\
- apiVersion: example.com/v1\n  kind: Counter\n  metadata: {name: l2}\n  spec: {min: 9, max: 5}\n";

#[test]
fn lists_are_expanded_into_their_items_each_with_its_line_and_index() {
    let crd = asset("counters.yaml");
    let out = crd_cel(&["validate", "--crd", &crd, "-"], Some(COUNTER_LIST));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "<stdin>:4: item 0: Counter.example.com \"l1\" is valid\n\
         <stdin>:8: item 1: Counter.example.com \"l2\" is invalid: spec: Invalid value: min must not exceed max\n\
         Summary: 2 objects - valid: 1, invalid: 1, skipped: 0, input errors: 0 (Kubernetes 1.37)\n"
    );
    // A `*List` kind is a list too, and the JSON results say where each item is.
    let typed = COUNTER_LIST.replace(
        "apiVersion: v1\nkind: List",
        "apiVersion: example.com/v1\nkind: CounterList",
    );
    let out = crd_cel(
        &["validate", "--crd", &crd, "-o", "json", "-"],
        Some(&typed),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let at: Vec<_> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["file"].clone(),
                r["line"].clone(),
                r["doc"].clone(),
                r["item"].clone(),
            )
        })
        .collect();
    assert_eq!(
        at,
        [
            ("-".into(), 4.into(), 0.into(), 0.into()),
            ("-".into(), 8.into(), 0.into(), 1.into())
        ]
    );
    // check expands a CustomResourceDefinitionList the same way.
    let crds = std::fs::read_to_string(&crd).expect("readable");
    let indented: String = crds
        .lines()
        .filter(|l| !l.starts_with('#'))
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("- {l}\n")
            } else {
                format!("  {l}\n")
            }
        })
        .collect();
    let list = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinitionList\nitems:\n{indented}"
    );
    let out = crd_cel(&["check", "-"], Some(&list));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout)
            .starts_with("<stdin>:4: item 0: counters.example.com accepted (4 rules)\n"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn stdin_is_read_for_dash_or_when_piped_and_mixes_with_files() {
    let crd = asset("counters.yaml");
    let ok = asset("counter-ok.yaml");
    let piped = "apiVersion: example.com/v1\nkind: Counter\nmetadata: {name: p}\nspec: {max: 1}\n";
    // Files and stdin, in the order named.
    let out = crd_cel(&["validate", "--crd", &crd, &ok, "-"], Some(piped));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with(&format!(
            "{ok}:1: Counter.example.com \"c1\" is valid\n<stdin>:1: Counter.example.com \"p\" is valid\n"
        )),
        "{}",
        text(&out.stdout)
    );
    // No OBJECT and stdin piped: stdin.
    let out = crd_cel(&["validate", "--crd", &crd], Some(piped));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("<stdin>:1: Counter.example.com \"p\" is valid\n"));
    // The CRDs from stdin (`cargo run --bin crdgen | crd-cel validate --crd - ...`).
    let crd_text = std::fs::read_to_string(&crd).expect("readable");
    let out = crd_cel(&["validate", "--crd", "-", &ok], Some(&crd_text));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // check: a file and stdin.
    let out = crd_cel(&["check", &crd, "-"], Some(&crd_text));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("<stdin>:3: counters.example.com accepted"),
        "{}",
        text(&out.stdout)
    );
    // `-` once only, across OBJECTs, --crd and --old.
    let out = crd_cel(&["validate", "--crd", "-", "-"], Some(piped));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`-` (stdin) may be given only once"));
}

#[test]
fn no_path_and_stdin_a_terminal_is_a_usage_error() {
    let crd = asset("counters.yaml");
    for args in [&["validate", "--crd", &crd][..], &["check"][..]] {
        let (code, stdout, stderr) = run_lib(args, "", true, false, false);
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(stderr.contains("given and stdin is a terminal"), "{stderr}");
    }
    // `-` reads the terminal when asked to.
    let (code, _, stderr) = run_lib(
        &["check", "-"],
        &std::fs::read_to_string(&crd).expect("readable"),
        true,
        false,
        false,
    );
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn yaml_output_is_the_stored_object_pruned_and_defaulted() {
    let crd = asset("counters.yaml");
    let stream = "apiVersion: example.com/v1\nkind: Counter\nmetadata: {name: y1}\n\
                  spec: {max: 5, extra: 1}\nstatus: {count: 3}\n---\n\
                  apiVersion: example.com/v1\nkind: Counter\nmetadata: {name: y2}\nspec: {min: 9, max: 5}\n";
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &crd,
            "--field-validation",
            "warn",
            "-o",
            "yaml",
            "-",
        ],
        Some(stream),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // The unknown field pruned, the default applied, the namespace of the request, the
    // generation of a create, status dropped (the CRD has a status subresource).
    assert_eq!(
        text(&out.stdout),
        "---\napiVersion: example.com/v1\nkind: Counter\nmetadata:\n  generation: 1\n  name: y1\n  namespace: default\nspec:\n  max: 5\n  min: 0\n"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("Warning: <stdin>:1: unknown field \"spec.extra\"\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("<stdin>:7: Counter.example.com \"y2\" is invalid: spec: Invalid value: min must not exceed max\n"),
        "{stderr}"
    );
    // check has no stored objects to print.
    let out = crd_cel(&["check", "-o", "yaml", &crd], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn parallel_jobs_give_the_output_of_one_job_in_input_order() {
    let crd = asset("counters.yaml");
    let stream: Vec<String> = (0..60)
        .map(|i| {
            let (min, max) = if i % 3 == 0 { (9, 5) } else { (1, 5) };
            format!("apiVersion: example.com/v1\nkind: Counter\nmetadata: {{name: c{i}}}\nspec: {{min: {min}, max: {max}}}\n")
        })
        .collect();
    let stream = stream.join("---\n");
    for format in ["text", "json", "github"] {
        let one = crd_cel(
            &["validate", "--crd", &crd, "-o", format, "-"],
            Some(&stream),
        );
        assert_eq!(one.status.code(), Some(1));
        for jobs in ["4", "0"] {
            let many = crd_cel(
                &["validate", "--crd", &crd, "-o", format, "-j", jobs, "-"],
                Some(&stream),
            );
            assert_eq!(many.status.code(), Some(1));
            assert_eq!(
                text(&many.stdout),
                text(&one.stdout),
                "-o {format} -j {jobs}"
            );
        }
    }
    let one = crd_cel(&["check", &asset("widgets.yaml"), &crd], None);
    let many = crd_cel(
        &["check", "--jobs", "3", &asset("widgets.yaml"), &crd],
        None,
    );
    assert_eq!(text(&many.stdout), text(&one.stdout));
    assert_eq!(many.status.code(), Some(1));
}

#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let bad = asset("counter-bad.yaml");
    let crd = asset("counters.yaml");
    let args = ["validate", "--crd", &crd, &bad];
    let red = format!("\x1b[1;31m{bad}:1\x1b[0m: Counter.example.com \"c2\" is invalid");
    // A terminal: coloured.
    let (code, stdout, _) = run_lib(&args, "", false, true, false);
    assert_eq!(code, 1);
    assert!(stdout.starts_with(&red), "{stdout:?}");
    // A pipe, NO_COLOR, or --color never: plain.
    for (terminal, no_color, extra) in [
        (false, false, None),
        (true, true, None),
        (true, false, Some("--color=never")),
    ] {
        let all: Vec<&str> = args.iter().copied().chain(extra).collect();
        let (_, stdout, _) = run_lib(&all, "", false, terminal, no_color);
        assert!(
            !stdout.contains('\x1b'),
            "{terminal} {no_color} {extra:?}: {stdout:?}"
        );
    }
    // --color always asks for it whatever stdout is (no-color.org: a flag beats NO_COLOR).
    let all: Vec<&str> = args.iter().copied().chain(["--color", "always"]).collect();
    let (_, stdout, _) = run_lib(&all, "", false, false, true);
    assert!(stdout.starts_with(&red), "{stdout:?}");
    // The binary's stdout is a pipe here.
    let out = crd_cel(&args, None);
    assert!(!text(&out.stdout).contains('\x1b'));
}

#[test]
fn json_output_is_one_versioned_document_with_causes_api_status_and_summary() {
    let crd = asset("counters.yaml");
    let (bad, ok) = (asset("counter-bad.yaml"), asset("counter-ok.yaml"));
    let out = crd_cel(&["validate", "--crd", &crd, "-o", "json", &bad, &ok], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["command"], "validate");
    assert_eq!(v["kubernetesVersion"], "1.37");
    assert_eq!(
        v["summary"],
        serde_json::json!({"resources": 2, "files": 2, "valid": 1, "invalid": 1, "errors": 0, "skipped": 0})
    );
    let invalid = &v["results"][0];
    let text_of = "Counter.example.com \"c2\" is invalid: [spec: Invalid value: min must not exceed max, spec.limits[0]: Invalid value: limit a must be positive]";
    assert_eq!(invalid["status"], "invalid");
    assert_eq!(invalid["file"], bad.as_str());
    assert_eq!(
        (invalid["line"].clone(), invalid["doc"].clone()),
        (1.into(), 0.into())
    );
    assert_eq!(invalid["kind"], "Counter");
    assert_eq!(invalid["name"], "c2");
    assert_eq!(invalid["namespace"], "default");
    assert_eq!(invalid["operation"], "CREATE");
    assert_eq!(invalid["text"], text_of);
    assert_eq!(
        invalid["causes"][0],
        serde_json::json!({"field": "spec", "reason": "FieldValueInvalid", "message": "spec: Invalid value: min must not exceed max", "line": 4})
    );
    // The Status the apiserver answers (kubectl-validate's JSON readers parse this).
    assert_eq!(
        invalid["apiStatus"],
        serde_json::json!({
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": text_of, "reason": "Invalid", "code": 422,
            "details": {"name": "c2", "group": "example.com", "kind": "Counter", "causes": [
                {"reason": "FieldValueInvalid", "message": "Invalid value: min must not exceed max", "field": "spec"},
                {"reason": "FieldValueInvalid", "message": "Invalid value: limit a must be positive", "field": "spec.limits[0]"}]}
        })
    );
    let valid = &v["results"][1];
    assert_eq!(valid["status"], "valid");
    assert_eq!(valid["namespace"], "default");
    assert!(valid.get("apiStatus").is_none());
    // check: the CRD's Status and every rule's cost figures; an input error is a result too.
    let out = crd_cel(
        &[
            "check",
            "-o",
            "json",
            &asset("widgets.yaml"),
            &asset("missing.yaml"),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["command"], "check");
    assert_eq!(v["results"][0]["status"], "invalid");
    assert_eq!(
        v["results"][0]["apiStatus"]["details"]["kind"],
        "CustomResourceDefinition"
    );
    assert_eq!(
        v["results"][0]["apiStatus"]["details"]["causes"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    assert_eq!(v["results"][1]["status"], "valid");
    // The rules and their cost figures are the oracle line's.
    let line = crd_cel(&["check", "-o", "jsonl", &asset("widgets.yaml")], None);
    let second: serde_json::Value =
        serde_json::from_str(text(&line.stdout).lines().nth(1).expect("two lines")).expect("JSON");
    assert_eq!(v["results"][1]["rules"], second["rules"]);
    assert!(v["results"][1]["rules"][0]["estimatedCost"].is_u64());
    assert_eq!(v["results"][2]["status"], "error");
    assert!(
        v["results"][2]["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("cannot read")),
        "{}",
        v["results"][2]
    );
    assert_eq!(v["summary"]["errors"], 1);
    // The same document as a report beside the text output.
    let dir = std::env::temp_dir().join(format!("crd-cel-json-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("creates");
    let file = dir.join("r.json");
    let arg = format!("json={}", file.display());
    let out = crd_cel(&["validate", "--crd", &crd, "--report", &arg, &ok], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("is valid"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("written")).expect("JSON");
    assert_eq!(report["summary"]["valid"], 1);
    std::fs::remove_dir_all(&dir).expect("removes");
}

#[test]
fn exit_codes_are_0_valid_1_invalid_2_usage_or_input_error_for_both_commands() {
    let crd = asset("counters.yaml");
    let cases: [(&[&str], i32); 12] = [
        (&["check", &crd], 0),
        (&["check", &asset("widgets.yaml")], 1),
        (&["check", &asset("missing.yaml")], 2),
        (&["check", &asset("not-a-crd.yaml")], 2),
        (&["check", "--output", "nope", &crd], 2),
        (&["check", "--exit-zero", &asset("widgets.yaml")], 0),
        (&["validate", "--crd", &crd, &asset("counter-ok.yaml")], 0),
        (&["validate", "--crd", &crd, &asset("counter-bad.yaml")], 1),
        (
            &["validate", "--crd", &crd, &asset("gadget-object.yaml")],
            2,
        ),
        (
            &["validate", "--crd", &crd, &asset("counter-broken.yaml")],
            2,
        ),
        (
            &[
                "validate",
                "--crd",
                &crd,
                "--kubernetes-version",
                "2.0",
                &asset("counter-ok.yaml"),
            ],
            2,
        ),
        (
            &[
                "validate",
                "--crd",
                &crd,
                "--exit-zero",
                &asset("counter-bad.yaml"),
            ],
            0,
        ),
    ];
    for (args, want) in cases {
        let out = crd_cel(args, None);
        assert_eq!(
            out.status.code(),
            Some(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn several_crd_sources_are_all_registered() {
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &asset("counters.yaml"),
            "--crd",
            &asset("widgets.yaml"),
            &asset("counter-ok.yaml"),
            &asset("gadget-object.yaml"),
        ],
        None,
    );
    let stdout = text(&out.stdout);
    assert_ne!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        stdout.contains("Counter.example.com \"c1\" is valid"),
        "{stdout}"
    );
    assert!(stdout.contains("Gadget.example.com \"g\""), "{stdout}");
}

/// A CRD whose one rule is over the per-rule cost limit (8x: 200,000 strings of up to 1,000
/// bytes) and under the per-CRD one: the apiserver refuses to create it, but keeps serving it
/// when it is stored.
fn expensive_crd(rule: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {{name: words.example.com}}\n\
         spec:\n  group: example.com\n  scope: Namespaced\n\
         \x20 names: {{plural: words, singular: word, kind: Word, listKind: WordList}}\n\
         \x20 versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n\
         \x20       type: object\n        properties:\n          l:\n            type: array\n\
         \x20           maxItems: 200000\n            items:\n              type: string\n              maxLength: 1000\n\
         \x20             x-kubernetes-validations:\n\
         \x20             - rule: \"{rule}\"\n"
    )
}

#[test]
fn check_old_directories_keep_unchanged_rules_and_hold_changed_ones_to_the_limits() {
    let dir = std::env::temp_dir().join(format!("crd-cel-upgrade-dirs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["old", "same", "changed"] {
        std::fs::create_dir_all(dir.join(sub)).expect("creates");
    }
    let stored = expensive_crd("self.contains('keyword')");
    std::fs::write(dir.join("old/words.yaml"), &stored).expect("writes");
    std::fs::write(dir.join("same/words.yaml"), &stored).expect("writes");
    std::fs::write(
        dir.join("changed/words.yaml"),
        expensive_crd("self.contains('other')"),
    )
    .expect("writes");
    let path = |s: &str| dir.join(s).display().to_string();
    // Created: over the per-rule limit.
    let out = crd_cel(&["check", &path("same")], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("estimated rule cost exceeds budget by factor of"),
        "{}",
        text(&out.stdout)
    );
    // Updated from itself: the stored rule keeps its verdict.
    let out = crd_cel(&["check", "--old", &path("old"), &path("same")], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("words.example.com accepted (1 rule)"));
    // A changed rule is a new rule: held to today's limits.
    let out = crd_cel(&["check", "--old", &path("old"), &path("changed")], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    // The JSON result says it was an update.
    let out = crd_cel(
        &["check", "-o", "json", "--old", &path("old"), &path("same")],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["results"][0]["operation"], "UPDATE");
    std::fs::remove_dir_all(&dir).expect("removes");
}

/// A status update checks only `status`, with the schema validator rooted at `status`: errors at
/// `status.x`, kube-openapi's messages naming `x`, the `anyOf`/`oneOf` errors at `status`. The
/// text is the oracle's (`tests/validate/status-update`, compared again in CI).
#[test]
fn a_status_update_is_validated_from_status() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/validate/status-update"
    );
    let run = |object: &str| {
        crd_cel(
            &[
                "validate",
                "--crd",
                &format!("{dir}/crd.yaml"),
                "--old",
                &format!("{dir}/stored.yaml"),
                "--subresource",
                "status",
                "--field-validation",
                "warn",
                "-o",
                "jsonl",
                &format!("{dir}/{object}"),
            ],
            None,
        )
    };
    let out = run("addresses.yaml");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(
        line["text"],
        "Gadget.example.com \"g1\" is invalid: [<nil>: Invalid value: null: some validation rules \
         were not checked because the object was invalid; correct the existing errors to complete \
         validation, status: Invalid value: \"\": \"addresses[0]\" must validate one and only one \
         schema (oneOf). Found none valid, status: Invalid value: \"\": \"addresses[0].value\" must \
         validate at least one schema (anyOf), status.addresses[0].type: Unsupported value: \
         \"Other\": supported values: \"IPAddress\", status.addresses[0].value: Invalid value: \
         \"1.2.3.4:8080\": addresses[0].value in body must be of type ipv4: \"1.2.3.4:8080\"]"
    );
    // The stored spec is kept: a spec that breaks its schema is not the status update's.
    let out = run("spec-ignored.yaml");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

/// `--old-crd`: the old object is stored as the CRD it was created under stored it (its
/// defaults: `level: 1`), then read under the new CRD. The texts are the oracle's
/// (`tests/validate/crd-change`, compared again in CI).
#[test]
fn old_crd_stores_the_old_object_as_that_crd_did() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/validate/crd-change");
    let run = |object: &str, old_crd: bool| {
        let crd = format!("{dir}/crd.yaml");
        let stored = format!("{dir}/stored.yaml");
        let old = format!("{dir}/old-crd.yaml");
        let object = format!("{dir}/{object}");
        let mut args = vec!["validate", "--crd", &crd, "--old", &stored, "-o", "jsonl"];
        if old_crd {
            args.extend(["--old-crd", old.as_str()]);
        }
        args.push(&object);
        let out = crd_cel(&args, None);
        let line: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
        (
            out.status.code(),
            line["text"].as_str().unwrap_or_default().to_owned(),
        )
    };
    assert_eq!(
        run("unchanged.yaml", true),
        (
            Some(1),
            "Limit.example.com \"l1\" is invalid: spec: Invalid value: level may not be removed"
                .to_owned()
        )
    );
    // Read under the new CRD alone, the stored object has no level.
    assert_eq!(run("unchanged.yaml", false), (Some(0), String::new()));
    // Unchanged values the new CRD rejects ratchet.
    assert_eq!(run("level-kept.yaml", true), (Some(0), String::new()));
    // --old-crd needs --old.
    let out = crd_cel(
        &[
            "validate",
            "--crd",
            &format!("{dir}/crd.yaml"),
            "--old-crd",
            &format!("{dir}/old-crd.yaml"),
            "-",
        ],
        Some(""),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// `--kubernetes-version` picks the release's texts: a schema's maxLength error was
/// `may not be longer than N` up to 1.31, and a status update's schema errors were at `x`
/// rather than `status.x` in 1.30 (texts of the oracle built against those releases).
#[test]
fn older_releases_print_their_own_texts() {
    let dir = std::env::temp_dir().join(format!("crd-cel-cli-release-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let crd = dir.join("crd.yaml");
    std::fs::write(
        &crd,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: notes.example.com}\n\
         spec:\n  group: example.com\n  scope: Namespaced\n  names: {kind: Note, plural: notes}\n  versions:\n  \
         - name: v1\n    served: true\n    storage: true\n    subresources: {status: {}}\n    schema:\n      openAPIV3Schema:\n        \
         type: object\n        properties:\n          spec: {type: object, properties: {text: {type: string, maxLength: 3}}}\n          \
         status: {type: object, properties: {phase: {type: string, enum: [A]}}}\n",
    )
    .expect("write");
    let old = dir.join("old.yaml");
    std::fs::write(
        &old,
        "apiVersion: example.com/v1\nkind: Note\nmetadata: {name: note}\n",
    )
    .expect("write");
    let text_at = |version: &str, object: &str, status: bool| {
        let crd = crd.display().to_string();
        let old = old.display().to_string();
        let mut args = vec![
            "validate",
            "--crd",
            &crd,
            "--kubernetes-version",
            version,
            "-o",
            "jsonl",
        ];
        if status {
            args.extend(["--old", &old, "--subresource", "status"]);
        }
        args.push("-");
        let out = crd_cel(&args, Some(object));
        let line: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
        line["text"].as_str().unwrap_or_default().to_owned()
    };
    let long =
        "apiVersion: example.com/v1\nkind: Note\nmetadata: {name: note}\nspec: {text: abcd}\n";
    assert_eq!(
        text_at("1.31", long, false),
        "Note.example.com \"note\" is invalid: spec.text: Too long: may not be longer than 3"
    );
    assert_eq!(
        text_at("1.32", long, false),
        "Note.example.com \"note\" is invalid: spec.text: Too long: may not be more than 3 bytes"
    );
    let phase =
        "apiVersion: example.com/v1\nkind: Note\nmetadata: {name: note}\nstatus: {phase: B}\n";
    assert_eq!(
        text_at("1.30", phase, true),
        "Note.example.com \"note\" is invalid: phase: Unsupported value: \"B\": supported values: \"A\""
    );
    assert_eq!(
        text_at("1.31", phase, true),
        "Note.example.com \"note\" is invalid: status.phase: Unsupported value: \"B\": supported values: \"A\""
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// YAML is read as kubectl reads it, and a plain word kubectl reads as a boolean (YAML 1.1)
/// where a YAML 1.2 reader, or the author, sees a string is pointed out: serde_yaml, which
/// kube-rs projects print CRDs with, leaves a property named `y` unquoted, and kubectl then
/// creates a property named "true".
#[test]
fn yaml_words_kubectl_reads_as_booleans_are_pointed_out() {
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
               metadata: {name: points.example.com}\nspec:\n  group: example.com\n  scope: Namespaced\n  \
               names: {kind: Point, plural: points}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    \
               schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            \
               type: object\n            properties:\n              x: {type: integer}\n              y: {type: integer}\n            \
               x-kubernetes-validations:\n            - rule: self.x <= self.y\n";
    let out = crd_cel(&["check", "-"], Some(crd));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "Warning: <stdin>:1: spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.true: \
             the key y is read as \"true\" (YAML 1.1, as kubectl reads it); quote it to keep \"y\"\n"
        ),
        "{stderr}"
    );
    assert!(
        text(&out.stdout).contains("undefined field 'y'"),
        "{}",
        text(&out.stdout)
    );
    // Quoted, the property is `y`.
    let quoted = crd.replace("              y: {type", "              'y': {type");
    let out = crd_cel(&["check", "-"], Some(&quoted));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        !text(&out.stderr).contains("Warning"),
        "{}",
        text(&out.stderr)
    );
}
