//! Shared helpers of crd-cel's cross-crate tests.

use schemars::JsonSchema;

/// The JSON schema of `T` exactly as kube's `CustomResource` generates CRD schemas (OpenAPI v3,
/// subschemas inlined, kube's structural transforms).
pub fn kube_schema<T: JsonSchema>() -> serde_json::Value {
    crd_cel::schema::generate::<T>()
}

/// The path of `../shared` (read-only test data beside the checkout), or `None` with a message
/// on stderr saying which test is skipped.
pub fn shared_dir(what: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED {what}: {} is missing (the shared test data sits beside the checkout)",
            dir.display()
        );
        None
    }
}

pub mod conformance;
pub mod mirror;
pub mod yaml_pieces;

/// A CRD manifest whose `spec` is `T`: how a type that is not a kube root reaches the
/// apiserver (its rules checked where a spec puts them, under a resource root).
pub fn crd_of_type<T: JsonSchema>() -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.ui.example.com"},
        "spec": {
            "group": "ui.example.com",
            "scope": "Namespaced",
            "names": {"kind": "Thing", "plural": "things", "singular": "thing", "listKind": "ThingList"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": kube_schema::<T>()},
                    "required": ["spec"],
                }},
            }],
        },
    })
}

/// Runs the command line in process (its own entry point, `crd_cel_cli::run`) with `args`
/// (the program name first) and `stdin`, not a terminal, without colour: the exit code, stdout
/// and stderr.
pub fn run_cli<I, T>(args: I, stdin: &str) -> (u8, String, String)
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let code = crd_cel_cli::run(
        args,
        &mut crd_cel_cli::Io {
            stdin: &mut stdin.as_bytes(),
            stdin_is_terminal: false,
            stdout: &mut stdout,
            stdout_is_terminal: false,
            no_color: true,
            stderr: &mut stderr,
        },
    );
    (
        code,
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

/// Runs `crd-cel check -` (the command line's own entry point) on `crd`: the exit code, then
/// stdout and stderr.
pub fn cli_check(crd: &serde_json::Value) -> (u8, String) {
    // JSON, not serde_yaml's YAML: that leaves keys such as `n` and `y` unquoted, which
    // kubectl (and crd-cel, reading YAML as kubectl does) reads as the booleans `false` and
    // `true` (YAML 1.1).
    let text = serde_json::to_string_pretty(crd).expect("a CRD serializes as JSON");
    let (code, stdout, stderr) = run_cli(["crd-cel", "check", "-"], &text);
    (code, format!("{stdout}{stderr}"))
}

/// What every UI pass case runs: the derive accepted the types (they compiled), so
/// `crd-cel check`, which is the apiserver's verdict, must accept their CRD too. Panics with
/// the command's output otherwise.
pub fn assert_cli_accepts(crd: &serde_json::Value) {
    let (code, out) = cli_check(crd);
    assert_eq!(
        code,
        crd_cel_cli::EXIT_ACCEPTED,
        "the derive accepted what `crd-cel check` rejects:\n{out}"
    );
}

/// [`assert_cli_accepts`] on the CRD of a type that is not a kube root ([`crd_of_type`]).
pub fn assert_cli_accepts_type<T: JsonSchema>() {
    assert_cli_accepts(&crd_of_type::<T>());
}

/// [`assert_cli_accepts`] on a kube root's own CRD (`K::crd()`, as `crdgen` prints it).
pub fn assert_cli_accepts_resource<K: kube::CustomResourceExt>() {
    assert_cli_accepts(&serde_json::to_value(K::crd()).expect("a CRD serializes"));
}
