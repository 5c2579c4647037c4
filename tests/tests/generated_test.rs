//! The `#[test]` the derive generates (`__crd_cel_rules_<Type>`) is where rules that read into
//! types known only by their `JsonSchema` are checked: it fails on a wrong rule with the
//! checker's message, as the build does for every other rule. The types are declared inside the
//! tests so that the harness does not collect their own generated tests (which must fail);
//! the derive's `#[test]` there is what `unnameable_test_items` warns about.
#![allow(unnameable_test_items)]

use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

/// Runs the generated test's body on `T` and returns its panic message, if it failed.
fn generated_test_failure<T: crd_cel::CelSchema + schemars::JsonSchema>(
    resource: bool,
) -> Option<String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(|| crd_cel::__private::assert_rules::<T>(resource));
    std::panic::set_hook(hook);
    let payload = r.err()?;
    Some(
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default(),
    )
}

fn preserve_unknown(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

#[test]
fn a_wrong_rule_into_a_json_schema_only_type_fails_with_the_checkers_message() {
    #[derive(Serialize, Deserialize, schemars::JsonSchema)]
    struct Foreign {
        replicas: i32,
    }
    #[derive(CelValidate, Serialize, Deserialize)]
    struct Spec {
        #[cel(rule = "self.replica > 0")]
        foreign: Foreign,
    }
    let e = generated_test_failure::<Spec>(false).expect("the wrong rule is reported");
    // The apiserver's cause, path and text, caret line included.
    assert!(
        e.contains("Spec.properties[foreign].x-kubernetes-validations[0].rule: Invalid value: "),
        "{e}"
    );
    assert!(
        e.contains(
            "compilation failed: ERROR: <input>:1:5: undefined field 'replica'\n | self.replica > 0\n | ....^"
        ),
        "{e}"
    );
    assert!(
        e.contains("help: these rules read into types known only by their JsonSchema"),
        "{e}"
    );
    // The rule as it should be passes.
    #[derive(CelValidate, Serialize, Deserialize)]
    struct Fixed {
        #[cel(rule = "self.replicas > 0")]
        foreign: Foreign,
    }
    assert_eq!(generated_test_failure::<Fixed>(false), None);
}

#[test]
fn a_wrong_rule_into_a_hidden_pod_template_fails() {
    use k8s_openapi::api::core::v1::PodTemplateSpec;
    // `schema_with` keeps the template whole: an object without properties, so any field a
    // rule selects is undefined (what the apiserver says too).
    #[derive(CelValidate, Serialize, Deserialize)]
    struct Spec {
        #[schemars(schema_with = "preserve_unknown")]
        #[cel(rule = "has(self.spec)")]
        template: PodTemplateSpec,
    }
    let e = generated_test_failure::<Spec>(false).expect("the wrong rule is reported");
    assert!(e.contains("undefined field 'spec'"), "{e}");
}

#[test]
fn a_wrong_root_rule_into_a_json_schema_only_type_fails() {
    #[derive(Serialize, Deserialize, Clone, Debug, schemars::JsonSchema)]
    struct Foreign {
        replicas: i32,
    }
    #[derive(kube::CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[kube(
        group = "example.com",
        version = "v1",
        kind = "Widget",
        validation = "self.spec.foreign.replicas > 'a'"
    )]
    struct WidgetSpec {
        foreign: Foreign,
    }
    let e = generated_test_failure::<Widget>(true).expect("the wrong rule is reported");
    assert!(
        e.contains("found no matching overload for '_>_' applied to '(int, string)'"),
        "{e}"
    );
    assert!(
        e.contains("spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule"),
        "{e}"
    );
}
