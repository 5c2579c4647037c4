//! `crd-cel test`: CRD validation test suites (OpenShift API's `*.testsuite.yaml`) run offline
//! against CRD manifests, each case answered as a real apiserver would answer it
//! (`crd_cel::testing`).

use std::path::Path;

use crd_cel::testing::{CaseResult, FileRun, Runner, SuiteError};
use serde_json::{Map, Value};

use crate::input::InputError;
use crate::report::{Cause, Entry, Status};
use crate::{
    EXIT_ACCEPTED, EXIT_BAD_INPUT, EXIT_REJECTED, Finish, Io, OutputFormat, TestArgs,
    expand_inputs, jobs, read_documents, report_input_error,
};

/// Runs `crd-cel test`; returns the exit code.
pub(crate) fn test(args: TestArgs, io: &mut Io<'_>) -> u8 {
    if matches!(args.output, OutputFormat::Jsonl | OutputFormat::Yaml) {
        let _ = writeln!(
            io.stderr,
            "crd-cel: test writes text, json, github, junit or sarif"
        );
        return EXIT_BAD_INPUT;
    }
    if let Some(file) = &args.init {
        return init(file, &args, io);
    }
    if args.suites.is_empty() {
        let _ = writeln!(
            io.stderr,
            "crd-cel: name the suite files or directories to run (see `crd-cel test --help`)"
        );
        return EXIT_BAD_INPUT;
    }
    let mut bad = Vec::<InputError>::new();
    let files = suite_files(&args.suites, &args, io, &mut bad);
    let minor = match args.kubernetes_version {
        Some(minor) => minor,
        None => match files.first().and_then(|f| envtest_release(Path::new(f))) {
            Some((minor, from)) => {
                let _ = writeln!(
                    io.stderr,
                    "crd-cel: answering as Kubernetes 1.{minor}, the release the suites' envtest runs (ENVTEST_K8S_VERSION in {from}); --kubernetes-version sets another"
                );
                minor
            }
            None => crate::DEFAULT_KUBERNETES_MINOR,
        },
    };
    let mut finish = Finish::new("test", args.output, minor, &args.run, io);
    let crd_files = expand_inputs(&args.crd, &args.inputs, io, &mut bad);
    let crds = crd_documents(&crd_files, io, &mut bad);
    let mut runner = Runner::new().with_kubernetes_version(minor);
    for doc in crds {
        runner = runner.with_crd(doc.location(), doc.value);
    }
    finish.files = files.len() + crd_files.len();
    if files.is_empty() && bad.is_empty() && !args.inputs.allow_empty {
        report_input_error(
            InputError::of_input(
                "no suite files (`*.testsuite.yaml`) in the input (pass --allow-empty if that is expected)".into(),
            ),
            io,
            &mut bad,
        );
    }
    let ran = jobs::map_in_order(&files, args.run.jobs, |file| {
        crd_cel::testing::run_file(Path::new(file), runner.clone())
    });
    let mut entries = Vec::new();
    let (mut passed, mut failed) = (0, 0);
    for (file, outcome) in files.iter().zip(ran) {
        match outcome {
            Ok(FileRun { suite, results }) => {
                // Fields the format does not have: ignored as OpenShift's runner ignores them,
                // said on stderr whatever the output format.
                for w in &suite.warnings {
                    let _ = writeln!(io.stderr, "Warning: {w}");
                }
                let suite = suite.name;
                for (i, r) in results.into_iter().enumerate() {
                    if r.passed() {
                        passed += 1;
                    } else {
                        failed += 1;
                    }
                    entries.push(entry(file, &suite, i, r));
                }
            }
            Err(e) => {
                let e = input_error(&e);
                let _ = writeln!(io.stderr, "crd-cel: {e}");
                entries.push(Entry::input_error(&e));
            }
        }
    }
    let errors = entries.iter().filter(|e| e.status == Status::Error).count() + bad.len();
    finish.trailer.push(format!(
        "Summary: {} cases - passed: {passed}, failed: {failed}, suite errors: {errors} (Kubernetes 1.{})",
        passed + failed,
        minor
    ));
    if finish.write(entries, &bad, io).is_err() || errors > 0 {
        return EXIT_BAD_INPUT;
    }
    if failed > 0 {
        EXIT_REJECTED
    } else {
        EXIT_ACCEPTED
    }
}

/// The CRDs among the `--crd` documents. Documents of other kinds are left out, as the suite
/// runner's loader leaves out files that are not CRDs: a project's CRD folder often holds a
/// `kustomization.yaml` or policies beside its CRDs (Gateway API's does). A CRD of another
/// apiVersion is still an input error.
fn crd_documents(
    files: &[String],
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Vec<crate::input::Document> {
    let mut out = Vec::new();
    for d in read_documents(files, io, bad) {
        if d.value.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            continue;
        }
        match crd_cel::crd::crd_kind_problem(&d.value) {
            None => out.push(d),
            Some(message) => {
                report_input_error(crate::validate::input_error(&d, message), io, bad);
            }
        }
    }
    out
}

/// `--init FILE`: a starting suite for the CRD in FILE (the one named `--crd-name` when FILE
/// holds several), on stdout.
fn init(file: &str, args: &TestArgs, io: &mut Io<'_>) -> u8 {
    let crds = match crd_cel::testing::read_crds(Path::new(file)) {
        Ok(crds) => crds,
        Err(e) => {
            let _ = writeln!(io.stderr, "crd-cel: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let name = |c: &Value| {
        c["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let chosen = match (&args.crd_name, crds.as_slice()) {
        (None, [one]) => Some(one),
        (Some(want), _) => crds.iter().find(|c| name(c) == *want),
        (None, _) => None,
    };
    let Some(crd) = chosen else {
        let names: Vec<String> = crds.iter().map(name).collect();
        let _ = writeln!(
            io.stderr,
            "crd-cel: {file}: {}; name one with --crd-name ({})",
            if crds.is_empty() {
                "no CustomResourceDefinition"
            } else if args.crd_name.is_some() {
                "no CRD of that name"
            } else {
                "several CRDs"
            },
            names.join(", ")
        );
        return EXIT_BAD_INPUT;
    };
    match crd_cel::testing::scaffold(crd, args.version.as_deref(), file) {
        Ok((text, passes)) => {
            let _ = write!(io.stdout, "{text}");
            if !passes {
                let _ = writeln!(
                    io.stderr,
                    "crd-cel: the minimal object of the suite does not pass as written: see the TODO in its first case"
                );
            }
            EXIT_ACCEPTED
        }
        Err(e) => {
            let _ = writeln!(io.stderr, "crd-cel: {e}");
            EXIT_BAD_INPUT
        }
    }
}

/// The suite files: those named, and in directories those named `*.testsuite.yaml` (or `.yml`)
/// and, as OpenShift API's runner finds them, every `.yaml` file in a folder of a `tests`
/// folder (`<group>/<version>/tests/<crdName>/<suite>.yaml`) but `testdata`.
fn suite_files(
    names: &[String],
    args: &TestArgs,
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Vec<String> {
    let mut out = Vec::new();
    for name in names {
        let expanded = expand_inputs(std::slice::from_ref(name), &args.inputs, io, bad);
        if Path::new(name).is_dir() {
            out.extend(expanded.into_iter().filter(|f| {
                f.ends_with(".testsuite.yaml")
                    || f.ends_with(".testsuite.yml")
                    || in_openshift_layout(Path::new(f))
            }));
        } else {
            out.extend(expanded);
        }
    }
    out
}

/// The release a suite's own runner uses: `ENVTEST_K8S_VERSION` (the kube-apiserver envtest
/// downloads) of the nearest `Makefile` or `tests/Makefile` above the suite that sets it, as
/// `1.N[.P]` or as kubebuilder's scaffold computes it from `k8s.io/api` in the `go.mod` beside
/// the Makefile; and the Makefile. A release crd-cel does not emulate is none.
fn envtest_release(suite: &Path) -> Option<(u8, String)> {
    let suite = std::fs::canonicalize(suite).ok()?;
    for dir in suite.ancestors().skip(1) {
        for makefile in [dir.join("Makefile"), dir.join("tests").join("Makefile")] {
            let Ok(text) = std::fs::read_to_string(&makefile) else {
                continue;
            };
            let Some(value) = text.lines().find_map(|l| {
                let rest = l.trim_start().strip_prefix("ENVTEST_K8S_VERSION")?;
                let rest = rest.trim_start();
                let value = ["?=", "::=", ":=", "="]
                    .iter()
                    .find_map(|op| rest.strip_prefix(op))?;
                Some(value.trim().to_owned())
            }) else {
                continue;
            };
            let minor = if value.contains("k8s.io/api") {
                // `$(shell go list -m -f "{{ .Version }}" k8s.io/api | ...)`: v0.N.P is 1.N.
                let go_mod = std::fs::read_to_string(makefile.parent()?.join("go.mod")).ok()?;
                go_mod.lines().find_map(|l| {
                    let v = l.trim().strip_prefix("k8s.io/api ")?.trim();
                    v.strip_prefix("v0.")?.split('.').next()?.parse().ok()
                })
            } else {
                let v = value.strip_prefix('v').unwrap_or(&value);
                v.strip_prefix("1.")?.split('.').next()?.parse().ok()
            }?;
            let known = crate::MIN_KUBERNETES_MINOR..=crate::DEFAULT_KUBERNETES_MINOR;
            return known
                .contains(&minor)
                .then(|| (minor, makefile.display().to_string()));
        }
    }
    None
}

/// A `.yaml` file whose folder's folder is `tests` (and whose folder is not `testdata`): where
/// OpenShift API's runner (`LoadTestSuiteSpecs`) takes suites from.
fn in_openshift_layout(file: &Path) -> bool {
    fn name(p: Option<&Path>) -> Option<&str> {
        p.and_then(Path::file_name).and_then(|n| n.to_str())
    }
    let folder = file.parent();
    file.extension().is_some_and(|e| e == "yaml")
        && name(folder) != Some("testdata")
        && name(folder.and_then(Path::parent)) == Some("tests")
}

fn input_error(e: &SuiteError) -> InputError {
    match e.line {
        Some(line) => InputError::at(&e.file, line, e.message.clone()),
        None => InputError::in_file(&e.file, e.message.clone()),
    }
}

/// The result of one case: `FILE:LINE` of the case, its name, and why it failed.
fn entry(file: &str, suite: &str, index: usize, r: CaseResult) -> Entry {
    let subject = format!("{} {:?}", r.kind.key(), r.name);
    let mut details = Map::new();
    details.insert("suite".into(), Value::String(suite.to_owned()));
    details.insert("case".into(), Value::String(r.name.clone()));
    details.insert("operation".into(), Value::String(r.kind.key().to_owned()));
    details.insert("crd".into(), Value::String(r.crd_file.clone()));
    let (status, message, text) = match &r.failure {
        None => (Status::Passed, String::new(), String::new()),
        Some(why) => (
            Status::Failed,
            why.clone(),
            format!("FAIL {subject} (CRD {}): {why}", r.crd_file),
        ),
    };
    Entry {
        file: file.to_owned(),
        line: Some(r.line),
        doc: Some(index),
        item: None,
        subject,
        causes: r
            .failure
            .iter()
            .map(|why| Cause {
                field: String::new(),
                reason: "TestFailed".into(),
                message: why.clone(),
                line: None,
            })
            .collect(),
        status,
        warnings: Vec::new(),
        text,
        locate_warnings: false,
        details,
        jsonl: None,
        stored: None,
        message,
    }
}
