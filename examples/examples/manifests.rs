//! Validating manifests against a CRD manifest, with no Rust types: `Validator::from_crd`.
//!
//! `cargo run -p crd-cel-examples --example manifests`
//!
//! Any CRD (another project's, a Helm chart's, one written by hand) and objects read as YAML or
//! JSON: `Validator::from_crd` compiles the CRD's rules once, then `validate_request` /
//! `validate_body` answer each object as the apiserver's custom-resource handler would
//! (pruning, defaults, metadata, OpenAPI checks, list types, then the CEL rules), and
//! `dry_run` also gives the object as it would be stored. `crd-cel validate --crd CRD OBJECTS`
//! is the same on the command line.
//!
//! The files: `examples/manifests/crontab-crd.yaml` (the CronTab of the Kubernetes
//! documentation, with rules) and `examples/manifests/crontabs.yaml` (three objects).

use crd_cel::Validator;
use crd_cel::validate::{Body, Endpoint, FieldValidation};
use serde_json::{Value, json};

/// Every document of a YAML stream, read as kubectl reads YAML (YAML 1.1 scalars: a plain
/// `yes` is `true`), each with its repeated keys kept for the strict field validation.
fn read_yaml(path: &str) -> Vec<Body> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| Body::from_yaml(doc, &text).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/manifests");
    let crd: Value = read_yaml(&format!("{dir}/crontab-crd.yaml"))
        .remove(0)
        .object;

    // What the apiserver says when the CRD is created (`crd-cel check`): the rules compile
    // and are within the cost limits.
    let report = crd_cel::crd::check_crd(&crd, &Default::default()).expect("a CRD");
    assert!(report.accepted(), "{}", report.text());

    // One validator per CRD version, built once. `kubectl apply` asks for strict field
    // validation (an unknown field refuses the object); the apiserver's default, and the
    // validator's, is `Warn` (a warning, and the field is pruned).
    let validator = Validator::from_crd(&crd, Some("v1"))
        .expect("a CRD with a v1 schema")
        .with_field_validation(FieldValidation::Strict);

    let expected = [
        None,
        Some(
            "CronTab.stable.example.com \"busy\" is invalid: [spec: Invalid value: replicas \
             should be greater than or equal to minReplicas., spec.cronSpec: Invalid value: \
             \"*/5 * * *\": cronSpec */5 * * * does not have 5 fields]",
        ),
        Some(
            "CronTab in version \"v1\" cannot be handled as a CronTab: strict decoding error: \
             unknown field \"spec.replica\"",
        ),
    ];
    let objects = read_yaml(&format!("{dir}/crontabs.yaml"));
    assert_eq!(objects.len(), expected.len());
    for (body, expected) in objects.iter().zip(expected) {
        let out = validator.validate_body(body, None, Endpoint::Resource);
        // The text kubectl prints after `error when creating "crontabs.yaml": `.
        let text = if let Some(refusal) = &out.refusal {
            Some(refusal.to_string())
        } else if !out.is_valid() {
            let name = out.name.as_deref().unwrap_or_default();
            Some(
                out.errors
                    .status_message("CronTab", "stable.example.com", name),
            )
        } else {
            None
        };
        println!(
            "{}: {}",
            body.object["metadata"]["name"],
            text.as_deref().unwrap_or("valid")
        );
        assert_eq!(text.as_deref(), expected);
    }

    // A dry run: the object as the apiserver would store it (what `kubectl apply
    // --dry-run=server -o yaml` prints): defaults applied, the namespace set.
    let (out, stored) = validator.dry_run(&objects[0].object, &[], None, Endpoint::Resource);
    assert!(out.is_valid());
    let stored = stored.expect("a valid object is stored");
    print!(
        "nightly as stored:\n{}",
        crd_cel::yaml::to_string(&stored).expect("YAML")
    );
    assert_eq!(
        stored["spec"],
        json!({"cronSpec": "0 3 * * *", "image": "my-cron-image:1.0",
               "minReplicas": 1, "replicas": 1, "maxReplicas": 10})
    );
    assert_eq!(stored["metadata"]["namespace"], "default");

    // An update: the stored object is the old one; `image` has a transition rule.
    let mut updated = stored.clone();
    updated["spec"]["image"] = json!("my-cron-image:2.0");
    let out = validator.validate_request(&updated, Some(&stored), Endpoint::Resource);
    let text = out
        .errors
        .status_message("CronTab", "stable.example.com", "nightly");
    println!("update nightly's image: {text}");
    assert_eq!(
        text,
        "CronTab.stable.example.com \"nightly\" is invalid: spec.image: Invalid value: \
         \"my-cron-image:2.0\": image is immutable"
    );
    println!("manifests: every verdict is as expected");
}
