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

// The same kind of cases, written in Rust.
#[test]
fn cases_written_in_rust_run_against_the_generated_crd() {
    use crd_cel::testing::{Case, check_cases};
    use serde_json::json;
    let app = |tier: &str, replicas: i32| {
        json!({"apiVersion": "apps.example.com/v1", "kind": "WebApp",
            "spec": {"image": "shop:1", "replicas": replicas, "tier": tier,
                "ports": [{"name": "http", "port": 80}]}})
    };
    check_cases::<WebApp>(&[
        Case::on_create("premium may run 200", app("premium", 200)).expect(json!({
            "apiVersion": "apps.example.com/v1", "kind": "WebApp",
            "spec": {"image": "shop:1", "replicas": 200, "tier": "premium", "hostnames": [],
                "labels": {}, "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}})),
        Case::on_create("standard may not", app("standard", 200))
            .expect_error("more than 100 replicas needs the premium tier"),
        Case::on_update("the tier is fixed", app("standard", 1), app("premium", 1))
            .expect_error("tier is immutable"),
    ]);
}
