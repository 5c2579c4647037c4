use super::*;
use serde_json::json;

fn crd(schema: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}]}
    })
}

fn errors(schema: Value) -> Vec<String> {
    check_crd(&crd(schema), &Options::default())
        .expect("checks")
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn rule_struct_is_go_json() {
    let r = RuleInput {
        rule: "self.a < 1 && b",
        reason: Some("FieldValueForbidden"),
        optional_old_self: Some(true),
        ..RuleInput::default()
    };
    assert_eq!(
        rule_struct(&r),
        r#"{"Rule":"self.a \u003c 1 \u0026\u0026 b","Message":"","MessageExpression":"","Reason":"FieldValueForbidden","FieldPath":"","OptionalOldSelf":true}"#
    );
}

#[test]
fn schema_error_hides_compilation_of_the_node_and_its_ancestors() {
    let errs = errors(json!({
        "type": "object",
        "x-kubernetes-validations": [{"rule": "self.nope == 1"}],
        "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}},
            "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".nope"}]}}
    }));
    assert_eq!(
        errs,
        [
            "spec.validation.openAPIV3Schema.properties[a].x-kubernetes-validations[0].fieldPath: Invalid value: \".nope\": must be a valid path"
        ]
    );
}

#[test]
fn several_versions_with_different_schemas_keep_their_paths() {
    let mut c = crd(json!({"type": "object", "x-kubernetes-validations": [{"rule": " "}]}));
    let v2 = json!({"name": "v2", "served": true, "storage": false,
        "schema": {"openAPIV3Schema": {"type": "object"}}});
    c["spec"]["versions"].as_array_mut().expect("list").push(v2);
    let r = check_crd(&c, &Options::default()).expect("checks");
    assert_eq!(
        r.errors[0].to_string(),
        "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified"
    );
    assert_eq!(
        r.text(),
        "CustomResourceDefinition.apiextensions.k8s.io \"widgets.example.com\" is invalid: spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified"
    );
}

#[test]
fn rules_in_junctors_are_not_structural() {
    let errs = errors(json!({
        "type": "object",
        "properties": {"a": {"type": "string",
            "anyOf": [{"properties": {"x": {"x-kubernetes-validations": [{"rule": "true"}]}}}],
            "not": {"x-kubernetes-validations": [{"rule": ""}]}}}
    }));
    assert_eq!(
        errs,
        [
            "spec.validation.openAPIV3Schema.properties[a].anyOf[0].properties[x].x-kubernetes-validations: Forbidden: must be empty to be structural",
            "spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-validations: Forbidden: must be empty to be structural",
            "spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-validations[0].rule: Required value: rule is not specified",
        ]
    );
}

#[test]
fn root_metadata() {
    assert!(metadata_is_implicit(
        json!({"type": "object"}).as_object().expect("object")
    ));
    assert!(metadata_is_implicit(
        json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}})
            .as_object()
            .expect("object")
    ));
    assert!(!metadata_is_implicit(
        json!({"type": "object", "properties": {"labels": {"type": "object"}}})
            .as_object()
            .expect("object")
    ));
    assert!(!metadata_is_implicit(
        json!({"type": "object", "x-kubernetes-validations": [{"rule": "true"}]})
            .as_object()
            .expect("object")
    ));
}

#[test]
fn node_schema_checks() {
    let errs = errors(json!({
        "type": "object",
        "properties": {
            "l": {"type": "array", "items": {"type": "string"}, "uniqueItems": true,
                  "x-kubernetes-list-type": "bag"},
            "m": {"type": "array", "items": {"type": "object"}, "x-kubernetes-list-type": "map"},
            "o": {"type": "object", "x-kubernetes-map-type": "odd"}
        }
    }));
    assert_eq!(
        errs,
        [
            "spec.validation.openAPIV3Schema.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            "spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"",
            "spec.validation.openAPIV3Schema.properties[m].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
            "spec.validation.openAPIV3Schema.properties[o].x-kubernetes-map-type: Unsupported value: \"odd\": supported values: \"atomic\", \"granular\"",
        ]
    );
}

#[test]
fn bad_input() {
    let mut c = crd(json!({"type": "object"}));
    c["spec"]["versions"][0]
        .as_object_mut()
        .expect("object")
        .remove("schema");
    assert!(
        check_crd(&c, &Options::default())
            .expect_err("no schema")
            .contains("has no schema.openAPIV3Schema")
    );
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap"});
    assert_eq!(
        check_crd(&cm, &Options::default()).expect_err("not a CRD"),
        "not an apiextensions.k8s.io/v1 CustomResourceDefinition (apiVersion \"v1\", kind \"ConfigMap\")"
    );
}

#[test]
fn type_information_failure() {
    let r = check_crd(
        &crd(json!({"type": "object", "properties": {
            "any": {"x-kubernetes-preserve-unknown-fields": true,
                    "x-kubernetes-validations": [{"rule": "true"}]}}})),
        &Options::default(),
    )
    .expect("checks");
    assert_eq!(
        r.errors[0].to_string(),
        "spec.validation.openAPIV3Schema.properties[any].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"
    );
    assert_eq!(r.checked_expressions, 0);
}

#[test]
fn an_update_compiles_stored_expressions_in_the_stored_environment() {
    // `includes` arrives in 1.37: at 1.37 a new rule compiles at 1.36, without it.
    let schema = |rule: &str, message_expression: &str| {
        crd(json!({"type": "object", "properties": {"spec": {
            "type": "object",
            "properties": {"items": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 8}}},
            "x-kubernetes-validations": [{"rule": rule, "messageExpression": message_expression}]}}}))
    };
    let uses = schema(
        "self.items.includes('a')",
        "self.items.includes('b') ? 'b' : 'no b'",
    );
    let opts = Options::default();
    let created = check_crd(&uses, &opts).expect("checks");
    assert_eq!(created.errors.len(), 1, "{}", created.text());
    // Stored already: both expressions keep compiling.
    assert!(
        check_crd_update(&uses, &uses, &opts)
            .expect("checks")
            .accepted()
    );
    // A new rule is held to the compatibility version, even on update; so is a new
    // messageExpression beside a stored rule.
    let stored = schema("true", "'x'");
    assert!(
        !check_crd_update(&uses, &stored, &opts)
            .expect("checks")
            .accepted()
    );
    let new_message = schema(
        "self.items.includes('a')",
        "self.items.includes('c') ? 'c' : 'no'",
    );
    let r = check_crd_update(&new_message, &uses, &opts).expect("checks");
    assert_eq!(r.errors.len(), 1, "{}", r.text());
    assert!(
        r.errors[0].field.ends_with("messageExpression"),
        "{}",
        r.text()
    );
}

#[test]
fn an_update_of_another_crd_is_refused() {
    let a = crd(json!({"type": "object"}));
    let mut b = a.clone();
    b["metadata"]["name"] = json!("others.example.com");
    assert!(
        check_crd_update(&a, &b, &Options::default())
            .expect_err("not an update")
            .contains("an update keeps the name")
    );
}
