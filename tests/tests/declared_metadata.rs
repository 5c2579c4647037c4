//! A root that declares `metadata: {type: object}` (controller-gen writes it into every CRD) keeps
//! the apiserver's metadata: not pruned by the declaration, and typed for CEL as `name` and
//! `generateName` (`tests/validate/declared-metadata`; the texts are the oracle's).

use crd_cel::validate::{Endpoint, Validator};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = format!(
        "{}/validate/declared-metadata/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(v: &Validator, object: &Value, old: Option<&Value>) -> (String, Vec<String>) {
    let out = v.validate_request(object, old, Endpoint::Resource);
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let text = if out.is_valid() {
        String::new()
    } else {
        out.errors.status_message("Singleton", "example.com", name)
    };
    (text, out.warnings)
}

#[test]
fn root_rules_read_the_declared_metadata() {
    let v = Validator::from_crd(&load("crd.yaml"), None).unwrap();
    let (cluster, other) = (load("cluster.yaml"), load("other.yaml"));
    // No "unknown field metadata.name" warnings, no "no such key: name".
    assert_eq!(text(&v, &cluster, None), (String::new(), vec![]));
    assert_eq!(
        text(&v, &other, None).0,
        "Singleton.example.com \"other\" is invalid: <nil>: Invalid value: must be named cluster"
    );
    // The decoded object keeps every metadata field.
    let (decoded, warnings) = v.decode(&cluster);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(decoded["metadata"]["labels"]["a"], "b");
}
