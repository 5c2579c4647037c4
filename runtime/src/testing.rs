//! CRD validation test suites, run offline: OpenShift API's `*.testsuite.yaml` format (the
//! one envtest-based runners read), each case answered by crd-cel's request path as a real
//! apiserver would answer it (pruning, defaults, OpenAPI checks, list types, CEL rules,
//! ratcheting, status updates), in milliseconds and without a server.
//!
//! In a Rust project, a suite runs against the type's own CRD in `cargo test`:
//!
//! ```no_run
//! # use kube::CustomResource;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(CustomResource, crd_cel::CelValidate, Serialize, Deserialize, Clone, Debug)]
//! # #[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
//! # struct WidgetSpec { replicas: i32 }
//! #[test]
//! fn widget_rules() {
//!     crd_cel::testing::run_suite::<Widget>("tests/widget.testsuite.yaml");
//! }
//! ```
//!
//! The command line runs suites against CRD manifests: `crd-cel test --crd config/crd tests/`.
//! [`Runner`] is the API under both. The format is [`Suite`]'s; the runner's semantics:
//!
//! - the suite's CRD is the one named `crdName` (`crd`, a file beside the suite, in the older
//!   format), with the `version` under test alone, served and stored (a CRD of one version
//!   needs no `version`); several CRD files of that name (feature sets) each run the suite,
//!   those its `featureGates` select as OpenShift's runner selects them (`testing/gates.rs`);
//! - every object is created as `test-<suffix>` (`metadata.generateName: test-`) in the
//!   `default` namespace, unless the case gives `resourceName`;
//! - `onCreate`: `initial` is created; with `expectedError` the create must fail with an error
//!   containing it (a substring of the whole Status message), else it must succeed and the
//!   stored object, as a GET reads it back (pruned and defaulted again, as the storage codec
//!   does), equal `expected` (default: `initial`), name and namespace aside and the metadata
//!   the server sets ignored (uid, generation, resourceVersion, ...);
//! - `onUpdate`: `initial` is created (under the CRD with `initialCRDPatches` applied, when
//!   given; then the CRD is restored) and must succeed, its `status`, if any, set through
//!   `/status`; then `updated` is sent with the stored name, namespace and resourceVersion:
//!   `expectedError` is checked against that update, then `updated`'s `status`, if any, is
//!   sent to `/status` and checked against `expectedStatusError`; finally the stored object
//!   must equal `expected` (default: `updated`).
//!
//! Requests carry no `fieldValidation` (the server's default, `Warn`), as controller-runtime's
//! client sends them.

mod compare;
mod gates;
mod patch;
mod run;
mod scaffold;
mod suite;

use std::fmt;
use std::path::Path;

use serde_json::Value as Json;

pub use scaffold::scaffold;
pub use suite::{Case, CaseKind, Object, Suite};

/// A suite that cannot be run: malformed YAML, a missing field or one of the wrong type, a CRD
/// not found (also the shape of [`Suite::warnings`]).
/// `Display`: `FILE:LINE: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    /// The suite file (or CRD file) as given.
    pub file: String,
    /// The line (1-based), when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for SuiteError {}

/// The result of one case against one CRD file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    /// The CRD file the case ran against.
    pub crd_file: String,
    /// The case's `name`.
    pub name: String,
    /// `onCreate` or `onUpdate`.
    pub kind: CaseKind,
    /// The line the case starts on in the suite file.
    pub line: usize,
    /// Why the case fails (expected and actual), or `None` when it passes.
    pub failure: Option<String>,
}

impl CaseResult {
    /// Whether the case passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// Runs suites against CRD manifests.
///
/// ```
/// use crd_cel::testing::{Runner, Suite};
/// use serde_json::json;
///
/// let crd = json!({
///     "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
///     "metadata": {"name": "widgets.example.com"},
///     "spec": {"group": "example.com", "scope": "Namespaced",
///         "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
///         "versions": [{"name": "v1", "served": true, "storage": true,
///             "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
///                 "type": "object",
///                 "x-kubernetes-validations": [{"rule": "self.replicas >= 0", "message": "replicas must not be negative"}],
///                 "properties": {"replicas": {"type": "integer"}, "mode": {"type": "string", "default": "fast"}}}}}}}]}
/// });
/// let suite = Suite::from_yaml(r#"
/// name: widgets
/// crdName: widgets.example.com
/// tests:
///   onCreate:
///   - name: defaults the mode
///     initial: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: 1}
///     expected: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: 1, mode: fast}
///   - name: refuses negative replicas
///     initial: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: -1}
///     expectedError: "spec: Invalid value: replicas must not be negative"
/// "#, "widgets.testsuite.yaml").unwrap();
/// let results = Runner::new().with_crd("widgets.yaml", crd).run(&suite).unwrap();
/// assert!(results.iter().all(|r| r.passed()), "{results:?}");
/// ```
#[derive(Debug, Clone)]
pub struct Runner {
    crds: Vec<run::Crd>,
    kubernetes_minor: u8,
    feature_gates: Option<Vec<Json>>,
}

impl Default for Runner {
    fn default() -> Runner {
        Runner::new()
    }
}

impl Runner {
    /// A runner without CRDs, at the newest Kubernetes version crd-cel knows.
    pub fn new() -> Runner {
        Runner {
            crds: Vec::new(),
            kubernetes_minor: crate::crd::DEFAULT_KUBERNETES_MINOR,
            feature_gates: None,
        }
    }

    /// OpenShift's FeatureGate manifests (`payload-manifests/featuregates/*`, in file-name
    /// order), which tell which CRD files a suite with `featureGates` runs against. Without
    /// them, the manifests of the OpenShift API checkout a suite file lies in are read when
    /// there is one; else the gates' states are guessed from the files' feature sets (the
    /// rules are in the module documentation of `gates.rs`, and in tests/suites/README.md).
    #[must_use]
    pub fn with_feature_gates(mut self, manifests: Vec<Json>) -> Runner {
        self.feature_gates = Some(manifests);
        self
    }

    /// Adds a CRD document (`file` names it in results).
    #[must_use]
    pub fn with_crd(mut self, file: impl Into<String>, crd: Json) -> Runner {
        self.crds.push(run::Crd {
            file: file.into(),
            value: crd,
        });
        self
    }

    /// The Kubernetes minor version whose apiserver answers (texts of older releases).
    #[must_use]
    pub fn with_kubernetes_version(mut self, minor: u8) -> Runner {
        self.kubernetes_minor = minor;
        self
    }

    /// Cases written in Rust ([`Case::on_create`], [`Case::on_update`]) against the CRD named
    /// `crd_name` (its only version, or `version`).
    pub fn run_cases(
        &self,
        crd_name: &str,
        version: Option<&str>,
        cases: &[Case],
    ) -> Result<Vec<CaseResult>, SuiteError> {
        self.run(&Suite {
            file: "<cases>".into(),
            name: String::new(),
            crd_name: crd_name.to_owned(),
            crd_file: None,
            version: version.map(str::to_owned),
            feature_gates: Vec::new(),
            cases: cases.to_vec(),
            warnings: Vec::new(),
        })
    }

    /// Every case of `suite` against every CRD file it selects, in order; an error when the
    /// suite cannot run (no such CRD, no such version).
    pub fn run(&self, suite: &Suite) -> Result<Vec<CaseResult>, SuiteError> {
        let mut out = Vec::new();
        for (crd, version) in run::targets(suite, &self.crds, self.feature_gates.as_deref())? {
            let target = run::Target::new(&crd, &version, self.kubernetes_minor);
            out.extend(suite.cases.iter().map(|case| target.run(case)));
        }
        Ok(out)
    }
}

/// Runs the suite in `path` against `K`'s CRD (`K::crd()`, as generated) and panics with every
/// failing case (file, line, expected and actual) when one fails or the suite is malformed: a
/// suite as one `#[test]`. A suite's `crdName` must be `K`'s CRD's name. Returns the number of
/// cases run.
///
/// ```no_run
/// # use kube::CustomResource;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(CustomResource, crd_cel::CelValidate, Serialize, Deserialize, Clone, Debug)]
/// # #[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
/// # struct WidgetSpec { replicas: i32 }
/// #[test]
/// fn widget_rules() {
///     crd_cel::testing::run_suite::<Widget>("tests/widget.testsuite.yaml");
/// }
/// ```
#[track_caller]
#[cfg(feature = "kube")]
pub fn run_suite<K: kube_core::CustomResourceExt>(path: impl AsRef<Path>) -> usize {
    let path = path.as_ref();
    let file = path.display().to_string();
    let crd = serde_json::to_value(K::crd()).expect("a CRD serializes to JSON");
    match run_file(
        path,
        Runner::new().with_crd(format!("{}::crd()", K::crd_name()), crd),
    ) {
        Ok(FileRun { suite, results }) => {
            // A suite written for this CRD has no reason to carry a field the format does not
            // have: here it fails the test, where the CLI, which also runs others' suites,
            // warns.
            let failed: Vec<String> = suite
                .warnings
                .iter()
                .map(ToString::to_string)
                .chain(results.iter().filter_map(|r| {
                    r.failure.as_ref().map(|why| {
                        format!(
                            "{file}:{}: {} {:?} failed: {why}",
                            r.line,
                            r.kind.key(),
                            r.name
                        )
                    })
                }))
                .collect();
            assert!(
                failed.is_empty(),
                "{} of {} cases of {file} failed{}:\n\n{}",
                failed.len() - suite.warnings.len(),
                results.len(),
                match suite.warnings.len() {
                    0 => String::new(),
                    n => format!(", and it has {n} field(s) the format does not have"),
                },
                failed.join("\n\n")
            );
            results.len()
        }
        Err(e) => panic!("{e}"),
    }
}

/// Runs cases written in Rust against `K`'s CRD (`K::crd()`) and panics with every failing
/// one, as [`run_suite`] does for a file.
///
/// ```no_run
/// # use kube::CustomResource;
/// # use serde::{Deserialize, Serialize};
/// # #[derive(CustomResource, crd_cel::CelValidate, Serialize, Deserialize, Clone, Debug)]
/// # #[kube(group = "example.com", version = "v1", kind = "Widget", namespaced)]
/// # struct WidgetSpec { replicas: i32 }
/// use crd_cel::testing::{Case, check_cases};
/// use serde_json::json;
///
/// check_cases::<Widget>(&[
///     Case::on_create("one replica", json!({"apiVersion": "example.com/v1", "kind": "Widget",
///         "spec": {"replicas": 1}})),
///     Case::on_update("replicas may grow",
///         json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"replicas": 1}}),
///         json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"replicas": 2}})),
/// ]);
/// ```
#[track_caller]
#[cfg(feature = "kube")]
pub fn check_cases<K: kube_core::CustomResourceExt>(cases: &[Case]) {
    let crd = serde_json::to_value(K::crd()).expect("a CRD serializes to JSON");
    let runner = Runner::new().with_crd(format!("{}::crd()", K::crd_name()), crd);
    match runner.run_cases(K::crd_name(), None, cases) {
        Ok(results) => {
            let failed: Vec<String> = results
                .iter()
                .filter_map(|r| {
                    r.failure
                        .as_ref()
                        .map(|why| format!("{} {:?} failed: {why}", r.kind.key(), r.name))
                })
                .collect();
            assert!(
                failed.is_empty(),
                "{} of {} cases failed:\n\n{}",
                failed.len(),
                results.len(),
                failed.join("\n\n")
            );
        }
        Err(e) => panic!("{e}"),
    }
}

/// A suite file and what running it gave.
#[derive(Debug, Clone, PartialEq)]
pub struct FileRun {
    /// The suite as read (its `name`, its [`Suite::warnings`]).
    pub suite: Suite,
    /// Every case against every CRD file the suite selects, in order.
    pub results: Vec<CaseResult>,
}

/// Reads the suite in `path` and runs it with `runner`, and with the CRD files the suite
/// runner would take when `runner` has none named `crdName`: in OpenShift API's layout
/// (`<group>/<version>/tests/<crdName>/<suite>.yaml`), those of
/// `<group>/<version>/zz_generated.crd-manifests`; in the older format, the file its `crd`
/// names, beside it.
pub fn run_file(path: &Path, mut runner: Runner) -> Result<FileRun, SuiteError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SuiteError {
        file: file.clone(),
        line: None,
        message: format!("cannot read the suite: {e}"),
    })?;
    let mut suite = Suite::from_yaml(&text, &file)?;
    if !suite.feature_gates.is_empty() && runner.feature_gates.is_none() {
        runner.feature_gates = gates::find_manifests(path);
    }
    if let Some(crd_file) = suite.crd_file.clone() {
        let crd_path = path.parent().unwrap_or(Path::new(".")).join(&crd_file);
        let crd = read_crd(&crd_path)?;
        if suite.crd_name.is_empty() {
            crd["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .clone_into(&mut suite.crd_name);
        }
        runner = runner.with_crd(crd_path.display().to_string(), crd);
    }
    let named = |r: &Runner| {
        r.crds
            .iter()
            .any(|c| c.value["metadata"]["name"] == suite.crd_name.as_str())
    };
    if !named(&runner) {
        for (file, crd) in layout_crds(path, &mut suite.warnings) {
            runner = runner.with_crd(file, crd);
        }
    }
    let results = runner.run(&suite)?;
    Ok(FileRun { suite, results })
}

/// The CRDs of OpenShift API's generated manifests for a suite in its layout: every CRD in the
/// files of `../../zz_generated.crd-manifests` from the suite's folder, in file-name order,
/// as the runner reads them (a file that cannot be read is a warning; the runner skips it).
fn layout_crds(suite: &Path, warnings: &mut Vec<SuiteError>) -> Vec<(String, Json)> {
    let Some(dir) = suite
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(|gv| gv.join("zz_generated.crd-manifests"))
        .filter(|d| d.is_dir())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for file in files_in(&dir, &["yaml", "yml"]) {
        match read_crds(&file) {
            Ok(crds) => out.extend(crds.into_iter().map(|c| (file.display().to_string(), c))),
            Err(e) => warnings.push(e),
        }
    }
    out
}

/// The files of `dir` with one of `extensions`, in file-name order, as Go's `os.ReadDir` lists
/// them (none when it cannot be read).
fn files_in(dir: &Path, extensions: &[&str]) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .collect();
    files.sort();
    files
}

/// The CRD document in `path` (YAML or JSON, as kubectl reads it); with several documents, the
/// first CRD.
pub fn read_crd(path: &Path) -> Result<Json, SuiteError> {
    let file = path.display().to_string();
    read_crds(path)?
        .into_iter()
        .next()
        .ok_or_else(|| SuiteError {
            file,
            line: Some(1),
            message:
                "not a CustomResourceDefinition (no document of kind CustomResourceDefinition)"
                    .into(),
        })
}

/// Every CRD document in `path` (a YAML stream or JSON, as kubectl reads it; documents of
/// other kinds are left out).
pub fn read_crds(path: &Path) -> Result<Vec<Json>, SuiteError> {
    read_documents_of_kind(path, "CustomResourceDefinition")
}

/// Every document of `kind` in `path` (a YAML stream or JSON).
fn read_documents_of_kind(path: &Path, kind: &str) -> Result<Vec<Json>, SuiteError> {
    let file = path.display().to_string();
    let err = |line: Option<usize>, message: String| SuiteError {
        file: file.clone(),
        line,
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| err(None, format!("cannot read the CRD: {e}")))?;
    let mut out = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let body = crate::validate::Body::from_yaml(doc, &text)
            .map_err(|e| err(e.location().map(|l| l.line()), format!("YAML: {e}")))?;
        if body.object["kind"] == kind {
            out.push(body.object);
        }
    }
    Ok(out)
}
