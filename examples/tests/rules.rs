//! Unit-testing CRD rules in `cargo test`: the `WebApp` type's rules (`src/lib.rs`), tested
//! two ways.
//!
//! `cargo test -p crd-cel-examples --test rules`
//!
//! - Typed: build a value, call `validate()` (a create) or `validate_update(&old)` (an
//!   update), assert the errors. Fast, and the compiler keeps the tests in step with the type.
//! - Cases (`crd_cel::testing`, the `testing` feature, a dev-dependency): objects as JSON,
//!   run through the CRD `WebApp::crd()` generates, as the apiserver runs a request: pruning,
//!   defaults, list types, the status subresource, ratcheting after a CRD change. The same
//!   cases as a YAML suite are `tests/webapp.testsuite.yaml` (`tests/suite.rs`).

use std::collections::{BTreeMap, BTreeSet};

use crd_cel::testing::{Case, check_cases};
use crd_cel::validate::BadValue;
use crd_cel::{CelValidate, ErrorType};
use crd_cel_examples::{Autoscaling, Port, Protocol, Tier, WebApp, WebAppSpec};
use serde_json::{Value, json};

/// A valid spec, for each test to break one way.
fn spec() -> WebAppSpec {
    WebAppSpec {
        image: "shop:1.4.2".into(),
        replicas: 3,
        tier: Tier::Standard,
        ports: vec![Port {
            name: "http".into(),
            port: 8080,
            protocol: Protocol::Tcp,
        }],
        hostnames: BTreeSet::new(),
        labels: BTreeMap::new(),
        autoscaling: None,
        resources: None,
    }
}

// Typed tests.

#[test]
fn a_valid_spec_passes() {
    assert_eq!(spec().validate(), Ok(()));
}

#[test]
fn an_image_needs_a_tag() {
    let s = WebAppSpec {
        image: "shop".into(),
        ..spec()
    };
    let errors = s.validate().unwrap_err();
    // The text, as the apiserver words it (paths from the validated value: `image`, not
    // `spec.image`; validate a `WebApp` for those).
    assert_eq!(
        errors.to_string(),
        r#"image: Invalid value: "shop": image must carry a tag"#
    );
    // Or each error's parts: what `kubectl` shows as the Status causes.
    let e = &errors.errors[0];
    assert_eq!(e.kind, ErrorType::Invalid);
    assert_eq!(e.path, "image");
    assert_eq!(e.value, BadValue::Value(json!("shop")));
    assert_eq!(e.detail, "image must carry a tag");
}

#[test]
fn the_whole_object_reports_spec_paths() {
    let app = WebApp::new(
        "shop",
        WebAppSpec {
            replicas: 150,
            ..spec()
        },
    );
    assert_eq!(
        app.validate()
            .unwrap_err()
            .status_message("WebApp", "apps.example.com", "shop"),
        r#"WebApp.apps.example.com "shop" is invalid: spec: Invalid value: more than 100 replicas needs the premium tier"#
    );
}

#[test]
fn premium_may_run_more_than_100() {
    let s = WebAppSpec {
        replicas: 150,
        tier: Tier::Premium,
        ..spec()
    };
    assert_eq!(s.validate(), Ok(()));
}

#[test]
fn a_port_out_of_range_is_named() {
    let mut s = spec();
    s.ports.push(Port {
        name: "admin".into(),
        port: 70000,
        protocol: Protocol::Tcp,
    });
    // A messageExpression: the message is computed from the object.
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "ports[1]: Invalid value: port admin is out of range"
    );
}

#[test]
fn autoscaling_bounds_and_cpu_target() {
    let s = WebAppSpec {
        autoscaling: Some(Autoscaling {
            min_replicas: 5,
            max_replicas: 2,
            target_cpu_percent: Some(0),
        }),
        ..spec()
    };
    // Every error, in the apiserver's order.
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "[autoscaling: Invalid value: minReplicas must not exceed maxReplicas, \
         autoscaling.targetCpuPercent: Invalid value: 0: failed rule: self > 0 && self <= 100]"
    );
}

#[test]
fn schema_bounds_are_checked_too() {
    // `#[schemars(range(max = 1000))]`: an OpenAPI check, before the rules.
    let s = WebAppSpec {
        replicas: 2000,
        tier: Tier::Premium,
        ..spec()
    };
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "replicas: Invalid value: 2000: replicas in body should be less than or equal to 1000"
    );
}

#[test]
fn the_tier_is_immutable() {
    let stored = spec();
    let premium = WebAppSpec {
        tier: Tier::Premium,
        ..spec()
    };
    // A transition rule runs on updates only.
    assert_eq!(premium.validate(), Ok(()));
    assert_eq!(
        premium.validate_update(&stored).unwrap_err().to_string(),
        r#"tier: Invalid value: "premium": tier is immutable"#
    );
}

// Cases through the generated CRD.

fn app(spec: Value) -> Value {
    json!({"apiVersion": "apps.example.com/v1", "kind": "WebApp", "spec": spec})
}

#[test]
fn cases_through_the_crd() {
    let minimal = json!({"image": "shop:1", "replicas": 1, "tier": "standard",
        "ports": [{"name": "http", "port": 80}]});
    check_cases::<WebApp>(&[
        // The stored object, with the defaults the CRD sets (`#[serde(default)]` fields) and
        // without the field the schema does not know.
        Case::on_create(
            "defaults are applied, unknown fields pruned",
            app(json!({"image": "shop:1", "replicas": 1, "tier": "standard",
                "ports": [{"name": "http", "port": 80}], "replica": 3})),
        )
        .expect(app(json!({"image": "shop:1", "replicas": 1, "tier": "standard",
            "hostnames": [], "labels": {},
            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}))),
        // `expect_error` is a substring of the whole message.
        Case::on_create(
            "two ports of one name",
            app(json!({"image": "shop:1", "replicas": 1, "tier": "standard",
                "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}]})),
        )
        .expect_error(r#"spec.ports[1]: Duplicate value: {"name":"http"}"#),
        Case::on_create(
            "an unknown tier",
            app(json!({"image": "shop:1", "replicas": 1, "tier": "gold",
                "ports": [{"name": "http", "port": 80}]})),
        )
        .expect_error(r#"spec.tier: Unsupported value: "gold": supported values: "standard", "premium""#),
        // An object stored before the image rule existed (the CRD patched for the create):
        // updating something else is accepted (ratcheting) ...
        Case::on_update(
            "an untagged image stored before the rule ratchets",
            app(json!({"image": "shop", "replicas": 1, "tier": "standard",
                "ports": [{"name": "http", "port": 80}]})),
            app(json!({"image": "shop", "replicas": 2, "tier": "standard",
                "ports": [{"name": "http", "port": 80}]})),
        )
        .with_crd_patches(vec![json!({"op": "remove",
            "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/image/x-kubernetes-validations"})])
        .expect(app(json!({"image": "shop", "replicas": 2, "tier": "standard",
            "hostnames": [], "labels": {},
            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]}))),
        // ... but the status goes through `/status`, where the schema of conditions applies.
        Case::on_update(
            "a condition without its message",
            app(minimal.clone()),
            json!({"apiVersion": "apps.example.com/v1", "kind": "WebApp", "spec": minimal,
                "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Up",
                    "lastTransitionTime": "2026-01-02T03:04:05Z"}]}}),
        )
        .expect_status_error("status.conditions[0].message: Required value"),
    ]);
}

// What a failing case looks like: `check_cases` panics with the expected and actual texts
// of every failing case.
#[test]
#[should_panic(expected = "1 of 1 cases failed")]
fn a_wrong_expectation_fails_the_test() {
    check_cases::<WebApp>(&[Case::on_create(
        "expects the wrong message",
        app(json!({"image": "shop", "replicas": 1, "tier": "standard",
            "ports": [{"name": "http", "port": 80}]})),
    )
    .expect_error("image needs a tag")]);
}
