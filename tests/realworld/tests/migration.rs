//! A type moving from kube's `KubeSchema` to `CelValidate` keeps its `#[x_kube(validation)]`
//! rules: they are read, checked at build time and validated like `#[cel(..)]` rules.

use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(CelValidate, Serialize, Deserialize)]
#[x_kube(
    validation = Rule::new("self.min <= self.max")
        .message("min must not exceed max")
        .reason(Reason::FieldValueForbidden)
)]
#[x_kube(validation = Rule::new("self.min >= 0").message(Message::Expression("'min is %d'.format([self.min])".into())))]
struct Bounds {
    min: i32,
    max: i32,
    #[x_kube(validation = "self != 0")]
    step: i32,
}

#[test]
fn kube_schema_rules_are_in_the_schema_and_enforced() {
    let schema = crd_cel::schema::generate::<Bounds>();
    assert_eq!(
        schema["x-kubernetes-validations"],
        json!([
            {"rule": "self.min <= self.max", "message": "min must not exceed max", "reason": "FieldValueForbidden"},
            {"rule": "self.min >= 0", "messageExpression": "'min is %d'.format([self.min])"},
        ])
    );
    assert_eq!(
        schema["properties"]["step"]["x-kubernetes-validations"],
        json!([{"rule": "self != 0"}])
    );
    Bounds {
        min: 1,
        max: 2,
        step: 1,
    }
    .validate()
    .unwrap();
    let e = Bounds {
        min: 3,
        max: 2,
        step: 0,
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(e.contains("Forbidden: min must not exceed max"), "{e}");
    assert!(e.contains("step: Invalid value"), "{e}");
    let e = Bounds {
        min: -1,
        max: 2,
        step: 1,
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(e.contains("min is -1"), "{e}");
}
