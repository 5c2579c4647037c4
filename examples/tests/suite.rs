//! The WebApp's validation test suite (`webapp.testsuite.yaml`, OpenShift API's format) run
//! against `WebApp::crd()` as generated: every case answered as the apiserver would answer it
//! (`crd-cel test --crd <(cargo run --bin crdgen) examples/tests` runs the same suite on the CLI).

use crd_cel_examples::WebApp;

#[test]
fn the_webapp_suite_passes_against_the_generated_crd() {
    let ran = crd_cel::testing::run_suite::<WebApp>(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/webapp.testsuite.yaml"
    ));
    assert_eq!(ran, 15, "every case of the suite ran");
}
