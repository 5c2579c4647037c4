//! Ratcheting on an update whose object is unchanged, as the real kube-apiserver 1.37 answered
//! it (tests/e2e/ratchet: PUT of the object as read, a no-op merge patch and a server-side
//! apply alike): "unchanged" is decided by a walk of the schema, so a node holding keys its
//! schema does not declare (a resource root's `metadata.uid`, a preserve-unknown-fields
//! object's extra fields) is changed and its failing rules are errors, while `spec` with only
//! declared fields ratchets, and a map list ratchets in any order.

use crd_cel::validate::{Endpoint, Validator};
use serde_json::{Value, json};

fn crd(root_rules: Value, spec: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.ratchet.example.com"},
        "spec": {
            "group": "ratchet.example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "x-kubernetes-validations": root_rules,
                    "properties": {"spec": spec},
                }},
            }],
        },
    })
}

/// The object as the apiserver stores it: metadata the schema does not declare.
fn stored(spec: Value) -> Value {
    json!({
        "apiVersion": "ratchet.example.com/v1",
        "kind": "Widget",
        "metadata": {
            "name": "other", "namespace": "default", "uid": "7d2c1c40-0d7e-4b9f-9d59-1f6f2a0b7c11",
            "resourceVersion": "122", "generation": 1, "creationTimestamp": "2026-12-06T06:12:22Z",
        },
        "spec": spec,
    })
}

fn errors(crd: &Value, new: &Value, old: &Value) -> Vec<String> {
    let v = Validator::from_crd(crd, None).unwrap();
    let out = v.validate_request(new, Some(old), Endpoint::Resource);
    out.errors.errors.iter().map(ToString::to_string).collect()
}

#[test]
fn a_root_rule_does_not_ratchet_on_an_unchanged_object() {
    let spec = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    let c = crd(json!([{"rule": "self.metadata.name == 'cluster'"}]), spec);
    let o = stored(json!({"x": "b"}));
    assert_eq!(
        errors(&c, &o, &o),
        ["<nil>: Invalid value: failed rule: self.metadata.name == 'cluster'"]
    );
    let c = crd(
        json!([{"rule": "self.spec.x == 'a'"}]),
        json!({"type": "object", "properties": {"x": {"type": "string"}}}),
    );
    assert_eq!(
        errors(&c, &o, &o),
        ["<nil>: Invalid value: failed rule: self.spec.x == 'a'"]
    );
}

#[test]
fn a_spec_rule_ratchets_unless_spec_holds_undeclared_fields() {
    let spec = json!({
        "type": "object",
        "properties": {"x": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "self.x == 'a'"}],
    });
    let c = crd(json!([]), spec.clone());
    let o = stored(json!({"x": "b"}));
    assert!(errors(&c, &o, &o).is_empty());
    let mut preserving = spec;
    preserving["x-kubernetes-preserve-unknown-fields"] = json!(true);
    let c = crd(json!([]), preserving);
    let o = stored(json!({"x": "b", "y": 1}));
    assert_eq!(
        errors(&c, &o, &o),
        ["spec: Invalid value: failed rule: self.x == 'a'"]
    );
}

#[test]
fn a_map_list_ratchets_in_any_order() {
    let spec = json!({
        "type": "object",
        "x-kubernetes-validations": [{"rule": "self.items.size() <= 1"}],
        "properties": {"items": {
            "type": "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        }},
    });
    let c = crd(json!([]), spec);
    let old = stored(json!({"items": [{"name": "a"}, {"name": "b"}]}));
    let new = stored(json!({"items": [{"name": "b"}, {"name": "a"}]}));
    assert!(
        errors(&c, &new, &old).is_empty(),
        "{:?}",
        errors(&c, &new, &old)
    );
}
