//! Compile-error UI tests (trybuild): every misuse of the derive fails the build with a message
//! on the offending attribute. `attr/` are expansion-time errors, `check/` are const-evaluation
//! errors that need field types, `cost/` the apiserver's cost limit at `cargo build`. Regenerate with `TRYBUILD=overwrite` and review the diff.

/// Every case. `CRD_CEL_UI=pass` runs the pass cases alone: CI builds them a second time
/// with debug assertions off, which compiles the rule code the derive writes for release
/// builds only (the failing cases fail before that code matters).
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    if std::env::var("CRD_CEL_UI").is_ok_and(|v| v == "pass") {
        t.pass("ui/pass/*.rs");
        return;
    }
    t.compile_fail("ui/attr/*.rs");
    t.compile_fail("ui/check/*.rs");
    t.compile_fail("ui/types/*.rs");
    t.compile_fail("ui/cost/*.rs");
    t.pass("ui/pass/*.rs");
}

/// The derive and the command line agree on every CRD: each pass case (what the derive
/// accepts) runs `crd-cel check` on its CRD in `main`, which trybuild runs. A new pass case
/// without that call fails here.
#[test]
fn every_pass_case_runs_crd_cel_check() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/pass");
    let mut cases = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            cases += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.contains("crd_cel_tests::assert_cli_accepts"),
                "{} does not run `crd-cel check` on its CRD (crd_cel_tests::assert_cli_accepts_*)",
                path.display()
            );
        }
    }
    assert!(cases > 0, "no pass cases in {}", dir.display());
}
