//! The `Database` rules, tested in `cargo test` three ways:
//!
//! - typed: build a spec, call `validate()` (what the apiserver runs on a create) or
//!   `validate_update(&old)` (on an update: transition rules too), compare the error text;
//! - cases (`crd_cel::testing`, the `testing` feature of the dev-dependency): objects as JSON
//!   sent through the CRD `Database::crd()` generates, as the apiserver handles a request;
//! - the YAML suite `tests/suites/database.testsuite.yaml`, the one `crd-cel test` runs.
//!
//! The derive adds a test of its own (`__crd_cel_rules_Database`): every rule of the generated
//! CRD through the apiserver's CRD-creation checks.

use std::collections::BTreeMap;

use crd_cel::CelValidate;
use crd_cel::testing::{Case, check_cases, run_suite};
use database_operator::{Database, DatabaseSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde_json::{Value, json};

/// A container with the given memory limit (none when `None`).
fn container(name: &str, memory_limit: Option<&str>) -> Container {
    Container {
        name: name.into(),
        image: Some("postgres:17.2".into()),
        resources: Some(ResourceRequirements {
            limits: memory_limit
                .map(|m| BTreeMap::from([("memory".to_string(), Quantity(m.into()))])),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A valid spec, for each test to break one way.
fn spec() -> DatabaseSpec {
    DatabaseSpec {
        version: 17,
        replicas: 3,
        sync_replicas: 1,
        storage: Quantity("50Gi".into()),
        template: PodTemplateSpec {
            spec: Some(PodSpec {
                containers: vec![container("postgres", Some("4Gi"))],
                ..Default::default()
            }),
            ..Default::default()
        },
    }
}

// Typed tests. On a spec alone, paths start at the spec (`<nil>` is the spec itself, as the
// apiserver prints a rule at the root); on a `Database` they start at `spec`.

#[test]
fn a_valid_spec_passes() {
    assert_eq!(spec().validate(), Ok(()));
}

#[test]
fn sync_replicas_must_be_fewer_than_replicas() {
    let s = DatabaseSpec {
        sync_replicas: 3,
        ..spec()
    };
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "<nil>: Invalid value: syncReplicas must be less than replicas (one instance is the primary)"
    );
}

#[test]
fn every_container_needs_a_memory_limit() {
    let mut s = spec();
    let pod = s.template.spec.as_mut().unwrap();
    pod.containers.push(container("pgbouncer", None));
    let db = Database::new("orders", s);
    // `status_message` is the whole text kubectl prints for the refused request.
    assert_eq!(
        db.validate()
            .unwrap_err()
            .status_message("Database", "db.example.com", "orders"),
        r#"Database.db.example.com "orders" is invalid: spec.template: Invalid value: every container must set a memory limit"#
    );
}

#[test]
fn schema_bounds_are_checked_before_the_rules() {
    // `#[schemars(range(min = 14, max = 18))]`: an OpenAPI check, with the apiserver's text.
    let s = DatabaseSpec {
        version: 13,
        ..spec()
    };
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "version: Invalid value: 13: version in body should be greater than or equal to 14"
    );
}

#[test]
fn the_version_cannot_go_down() {
    let stored = spec();
    let downgraded = DatabaseSpec {
        version: 16,
        ..spec()
    };
    // A transition rule runs on updates only: as a create, the downgrade is valid.
    assert_eq!(downgraded.validate(), Ok(()));
    assert_eq!(
        downgraded.validate_update(&stored).unwrap_err().to_string(),
        "version: Invalid value: 16: the major version cannot go down: restore a backup into a new Database"
    );
    // Upgrades pass.
    let upgraded = DatabaseSpec {
        version: 18,
        ..spec()
    };
    assert_eq!(upgraded.validate_update(&stored), Ok(()));
}

// Cases through the generated CRD: JSON objects, as `kubectl` would send them.

fn database(spec: Value) -> Value {
    json!({"apiVersion": "db.example.com/v1", "kind": "Database", "spec": spec})
}

#[test]
fn cases_through_the_crd() {
    let minimal = json!({"version": 17, "replicas": 1, "storage": "1Gi", "template": {}});
    check_cases::<Database>(&[
        // The stored object: `syncReplicas` defaulted, an unknown field (a typo) pruned.
        Case::on_create(
            "defaults are set and unknown fields pruned",
            database(json!({"version": 17, "replicas": 1, "storage": "1Gi", "template": {},
                "syncReplica": 1})),
        )
        .expect(database(
            json!({"version": 17, "replicas": 1, "syncReplicas": 0, "storage": "1Gi", "template": {}}),
        )),
        // `expect_error` is a substring of the apiserver's whole message.
        Case::on_create(
            "a container without a memory limit",
            database(json!({"version": 17, "replicas": 1, "storage": "1Gi",
                "template": {"spec": {"containers": [{"name": "postgres"}]}}})),
        )
        .expect_error("spec.template: Invalid value: every container must set a memory limit"),
        Case::on_update(
            "a downgrade",
            database(minimal.clone()),
            database(json!({"version": 16, "replicas": 1, "storage": "1Gi", "template": {}})),
        )
        .expect_error("spec.version: Invalid value: 16: the major version cannot go down"),
    ]);
}

// The YAML suite, against `Database::crd()` (the same cases `crd-cel test` runs against the
// committed crds/database.yaml). Panics with every failing case, at its line.

#[test]
fn suite() {
    run_suite::<Database>("tests/suites/database.testsuite.yaml");
}
