//! What serde writes is what the schema declares: for fully populated values of every example
//! type, the JSON object at each node has exactly the properties of the schema node, so a rule
//! that names a field names one that exists on the wire.

use crd_cel::schema::OwnedSchema;
use crd_cel_examples::*;
use crd_cel_tests::kube_schema;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Every object in `value` has exactly the properties of its schema node (all populated).
fn same_properties(value: &Value, schema: &OwnedSchema, path: &str, errors: &mut Vec<String>) {
    match value {
        Value::Object(obj) if !schema.properties.is_empty() => {
            let have: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
            let declared: BTreeSet<&str> = schema.properties.keys().map(String::as_str).collect();
            if have != declared {
                errors.push(format!(
                    "{path}: serde wrote {have:?}, the schema declares {declared:?}"
                ));
            }
            for (k, v) in obj {
                if let Some((_, s)) = schema.properties.get(k) {
                    same_properties(v, s, &format!("{path}.{k}"), errors);
                }
            }
        }
        Value::Object(obj) => {
            if let Some(values) = &schema.additional_properties {
                for (k, v) in obj {
                    same_properties(v, values, &format!("{path}[{k}]"), errors);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = &schema.items {
                for (i, v) in items.iter().enumerate() {
                    same_properties(v, s, &format!("{path}[{i}]"), errors);
                }
            }
        }
        _ => {}
    }
}

fn assert_faithful<T: Serialize + JsonSchema>(value: &T) {
    let schema = OwnedSchema::from_json(&kube_schema::<T>()).unwrap();
    let json = serde_json::to_value(value).unwrap();
    let mut errors = Vec::new();
    same_properties(&json, &schema, "<root>", &mut errors);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

fn full_spec() -> WebAppSpec {
    WebAppSpec {
        image: "nginx:1.27".into(),
        replicas: 3,
        tier: Tier::Premium,
        ports: vec![Port {
            name: "http".into(),
            port: 80,
            protocol: Protocol::Tcp,
        }],
        hostnames: ["example.com".to_string()].into(),
        labels: BTreeMap::from([("app".to_string(), "web".to_string())]),
        autoscaling: Some(Autoscaling {
            min_replicas: 1,
            max_replicas: 5,
            target_cpu_percent: Some(80),
        }),
        resources: Some(Resources {
            cpu: Quantity("500m".into()),
            memory: Quantity("1Gi".into()),
            limits: Some(BTreeMap::from([("cpu".to_string(), Quantity("1".into()))])),
        }),
    }
}

fn full_status() -> WebAppStatus {
    WebAppStatus {
        ready_replicas: 3,
        observed_generation: Some(2),
        conditions: vec![Condition {
            last_transition_time: Time(Default::default()),
            message: "ok".into(),
            observed_generation: Some(2),
            reason: "Ready".into(),
            status: "True".into(),
            type_: "Ready".into(),
        }],
    }
}

#[test]
fn example_types_serialize_as_declared() {
    let spec = full_spec();
    assert_faithful(&spec);
    assert_faithful(&spec.ports[0]);
    assert_faithful(spec.autoscaling.as_ref().unwrap());
    assert_faithful(spec.resources.as_ref().unwrap());
    assert_faithful(&full_status());
    assert_faithful(&Tier::Standard);
    assert_faithful(&Protocol::Udp);
}

/// The check itself: a renamed field on the wire is caught.
#[test]
fn a_mismatch_is_reported() {
    let schema = OwnedSchema::from_json(&kube_schema::<Autoscaling>()).unwrap();
    let wrong = serde_json::json!({"minReplicas": 1, "max_replicas": 2, "targetCpuPercent": 5});
    let mut errors = Vec::new();
    same_properties(&wrong, &schema, "<root>", &mut errors);
    assert_eq!(errors.len(), 1, "{errors:?}");
}

/// Enum values are the serialized names.
#[test]
fn enum_values_are_serde_names() {
    let schema = OwnedSchema::from_json(&kube_schema::<Protocol>()).unwrap();
    let values: Vec<Value> = [Protocol::Tcp, Protocol::Udp]
        .iter()
        .map(|p| serde_json::to_value(p).unwrap())
        .collect();
    assert_eq!(schema.enum_values, values);
}
