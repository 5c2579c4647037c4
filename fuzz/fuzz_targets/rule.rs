//! Rule text -> parse -> check -> cost (the CRD-creation checks), and, when the rule is
//! accepted, evaluation on fixed objects (create and update), against one fixed schema that
//! has a node of every kind. Must never panic, hang or allocate without bound.
#![no_main]

use crd_cel::crd::{Options as CrdOptions, check_schema};
use crd_cel::validate::{Options, Validator};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use std::sync::LazyLock;

/// Where the rule goes: the first input byte picks one of these JSON pointers (to an
/// object holding `x-kubernetes-validations`) and whether the text is a rule or a
/// messageExpression.
const PLACES: &[&str] = &[
    "",
    "/properties/spec",
    "/properties/spec/properties/ports/items",
    "/properties/spec/properties/labels",
    "/properties/spec/properties/name",
    "/properties/spec/properties/ports",
    "/properties/spec/properties/any",
    "/properties/spec/properties/ios",
];

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "maxLength": 63},
                    "replicas": {"type": "integer", "format": "int32", "minimum": 0},
                    "ratio": {"type": "number"},
                    "enabled": {"type": "boolean"},
                    "when": {"type": "string", "format": "date-time"},
                    "every": {"type": "string", "format": "duration"},
                    "blob": {"type": "string", "format": "byte"},
                    "ios": {"x-kubernetes-int-or-string": true},
                    "qty": {"x-kubernetes-int-or-string": true, "pattern": "^[0-9]+(Mi|Gi)?$"},
                    "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                    "labels": {"type": "object", "maxProperties": 16,
                               "additionalProperties": {"type": "string", "maxLength": 63}},
                    "tags": {"type": "array", "maxItems": 8, "x-kubernetes-list-type": "set",
                             "items": {"type": "string", "maxLength": 16}},
                    "ports": {
                        "type": "array", "maxItems": 16,
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name"],
                        "items": {
                            "type": "object",
                            "required": ["name"],
                            "properties": {
                                "name": {"type": "string", "maxLength": 15},
                                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                                "protocol": {"type": "string", "enum": ["TCP", "UDP"]}
                            }
                        }
                    },
                    "matrix": {"type": "array", "maxItems": 4,
                               "items": {"type": "array", "maxItems": 4, "items": {"type": "integer"}}}
                }
            },
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}
        }
    })
});

static OBJECTS: LazyLock<[Value; 2]> = LazyLock::new(|| {
    [
        json!({"spec": {"name": "a", "replicas": 3, "ratio": 0.5, "enabled": true,
                        "when": "2024-01-02T03:04:05Z", "every": "1h30m", "blob": "aGk=",
                        "ios": "50%", "qty": "5Gi", "any": {"x": [1, {"y": null}]},
                        "labels": {"app": "web"}, "tags": ["a", "b"],
                        "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
                        "matrix": [[1, 2], []]},
               "status": {"ready": false}}),
        json!({"spec": {"name": "b", "replicas": 0, "ios": 7, "labels": {},
                        "ports": [{"name": "http", "port": 8080}, {"name": "dns", "port": 53, "protocol": "UDP"}]}}),
    ]
});

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let place = PLACES[usize::from(selector) % PLACES.len()];
    let as_message = selector & 0x80 != 0;
    let mut schema = SCHEMA.clone();
    let Some(Value::Object(node)) = schema.pointer_mut(place) else {
        return;
    };
    let entry = if as_message {
        json!({"rule": "true", "messageExpression": text})
    } else {
        json!({"rule": text, "message": "fuzzed"})
    };
    node.insert("x-kubernetes-validations".into(), json!([entry]));

    let Ok(report) = check_schema(&schema, "spec.validation.openAPIV3Schema", "fuzz", false, &CrdOptions::default()) else {
        return;
    };
    let _ = report.text();
    if !report.accepted() {
        return;
    }
    let Ok(validator) = Validator::from_schema_json(&schema, false) else {
        return;
    };
    let opts = Options::default();
    let [a, b] = &*OBJECTS;
    let _ = validator.validate(a, None, &opts).is_valid();
    let _ = validator.validate(b, Some(a), &opts).is_valid();
});
