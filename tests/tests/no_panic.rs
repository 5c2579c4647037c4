//! Property test: converting an arbitrary JSON object under a schema and evaluating every rule of
//! that schema never panics, on create and on update, whatever the data (wrong types, nulls,
//! huge numbers, odd strings). Bad data must become the apiserver's errors, not a crash.

use crd_cel::validate::{Options, Validator};
use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z:/.0-9 -]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2024-01-02T03:04:05Z"),
            Just("2024-02-30"),
            Just("1h30m"),
            Just("aGk="),
            Just("+/8="),
            Just("10.0.0.0/8"),
            Just("https://x/y?z=1"),
            Just("1.5Gi"),
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("a".to_owned()),
                    Just("name".to_owned()),
                    Just("items".to_owned()),
                    Just("m".to_owned()),
                    Just("d".to_owned()),
                    Just("t".to_owned()),
                    Just("ios".to_owned()),
                    "[a-z]{1,3}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A schema using every kind of node the conversion knows, with rules over all of them.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "n": {"type": "number", "nullable": true},
            "name": {"type": "string", "maxLength": 20},
            "d": {"type": "string", "format": "duration"},
            "t": {"type": "string", "format": "date-time"},
            "b": {"type": "string", "format": "byte"},
            "ios": {"x-kubernetes-int-or-string": true},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "m": {"type": "object", "additionalProperties": {"type": "string"},
                  "x-kubernetes-validations": [{"rule": "self.all(k, self[k].size() < 100)"}]},
            "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "items": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}, "v": {"type": "integer"}},
                    "x-kubernetes-validations": [
                        {"rule": "self.v >= oldSelf.v", "message": "no decrease"},
                        {"rule": "has(self.v) ? self.v < 10 : true",
                         "messageExpression": "'v is ' + string(self.v)"}
                    ]
                }
            }
        },
        "x-kubernetes-validations": [
            {"rule": "self.a > 0 && self.name.startsWith('x')"},
            {"rule": "self == oldSelf", "reason": "FieldValueForbidden", "fieldPath": ".a"},
            {"rule": "self.set == ['a', 'b'] && self.items + self.items == self.items"},
            {"rule": "self.d > duration('1s') && self.t < timestamp('2030-01-01T00:00:00Z')"},
            {"rule": "size(self.b) > 0 && self.ios == 1 && self.free == self.free"},
            {"rule": "self.?n.orValue(0.0) < 1e10 && self.items.exists_one(i, i.name == 'x')"},
            {"rule": "self.name.matches('^[a-z]+$') && self.name.split('-').size() < 5",
             "optionalOldSelf": true},
            {"rule": "isURL(self.name) || isCIDR(self.name) || isQuantity(self.name) || true"}
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_objects_never_panic(new in arb_json(), old in arb_json()) {
        let v = Validator::from_schema_json(&schema(), false).expect("the schema reads");
        let opts = Options::default();
        let _ = v.validate(&v.decode(&new).0, None, &opts);
        let _ = v.validate(&new, Some(&old), &opts);
        let root = Validator::from_schema_json(&schema(), true).expect("the schema reads");
        let _ = root.validate(&new, Some(&old), &opts);
    }
}
