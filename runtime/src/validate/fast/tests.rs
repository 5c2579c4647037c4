//! The fast path agrees with the JSON path: same verdicts, built values equal to the
//! conversion's.

use super::*;
use crate::eval::convert::to_value;
use crate::eval::value::Value;
use crate::model::Type;
use crate::model::{ListType, Property, Rule, Rules, Schema};
use crate::tree::{Reads, SchemaNode};
use crate::validate::Validator;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// No views: these tests are about the value-building path.
const OPAQUE: (
    crate::eval::view::ViewRef<'static>,
    Option<crate::eval::view::ViewRef<'static>>,
) = (crate::eval::view::ViewRef::Opaque, None);

const NAME: Schema<'static> = Schema {
    max_length: Some(8),
    pattern: Some("^[a-z-]+$"),
    ..Schema::of(Type::String)
};
const PORT: Schema<'static> = Schema {
    minimum: Some(0.0),
    maximum: Some(100.0),
    ..Schema::of(Type::Integer)
};
const PLAIN: Schema<'static> = Schema::of(Type::String);
const NULLABLE: Schema<'static> = Schema {
    nullable: true,
    ..Schema::of(Type::String)
};
const WEIGHT: Schema<'static> = Schema::of(Type::Number);
const FLAG: Schema<'static> = Schema::of(Type::Boolean);
const TIMEOUT: Schema<'static> = Schema {
    format: Some("duration"),
    ..Schema::of(Type::String)
};
const ITEM_PROPS: [Property<'static>; 3] = [
    Property {
        name: "name",
        required: true,
        schema: &NAME,
    },
    Property {
        name: "port",
        required: true,
        schema: &PORT,
    },
    Property {
        name: "note",
        required: false,
        schema: &NULLABLE,
    },
];
const ITEM_RULES: [Rule<'static>; 1] = [Rule::new("self.port >= 0")];
const ITEM: Schema<'static> = Schema {
    properties: &ITEM_PROPS,
    validations: Rules::new(&ITEM_RULES),
    ..Schema::of(Type::Object)
};
const PORTS: Schema<'static> = Schema {
    items: Some(&ITEM),
    list_type: Some(ListType::Map),
    list_map_keys: &["name"],
    max_items: Some(5),
    ..Schema::of(Type::Array)
};
const TAGS: Schema<'static> = Schema {
    items: Some(&PORT),
    list_type: Some(ListType::Set),
    ..Schema::of(Type::Array)
};
const LABELS: Schema<'static> = Schema {
    additional_properties: Some(&PLAIN),
    max_properties: Some(3),
    ..Schema::of(Type::Object)
};
const SPEC_PROPS: [Property<'static>; 8] = [
    Property {
        name: "name",
        required: true,
        schema: &NAME,
    },
    Property {
        name: "ports",
        required: true,
        schema: &PORTS,
    },
    Property {
        name: "tags",
        required: false,
        schema: &TAGS,
    },
    Property {
        name: "labels",
        required: false,
        schema: &LABELS,
    },
    Property {
        name: "weight",
        required: false,
        schema: &WEIGHT,
    },
    Property {
        name: "flag",
        required: false,
        schema: &FLAG,
    },
    Property {
        name: "timeout",
        required: false,
        schema: &TIMEOUT,
    },
    Property {
        name: "note",
        required: false,
        schema: &NULLABLE,
    },
];
const SPEC_RULES: [Rule<'static>; 2] = [
    Rule::new("self.ports.all(p, p.port < 100)"),
    Rule::new("!has(self.weight) || self.weight >= 0.0"),
];
const SPEC: Schema<'static> = Schema {
    properties: &SPEC_PROPS,
    validations: Rules::new(&SPEC_RULES),
    ..Schema::of(Type::Object)
};
const ROOT_PROPS: [Property<'static>; 1] = [Property {
    name: "spec",
    required: true,
    schema: &SPEC,
}];
const ROOT_RULES: [Rule<'static>; 1] = [Rule::new("self.metadata.name != ''")];
/// A resource root with a rule of its own, so the whole object is built.
const ROOT: Schema<'static> = Schema {
    properties: &ROOT_PROPS,
    validations: Rules::new(&ROOT_RULES),
    ..Schema::of(Type::Object)
};
/// The same without root rules: only the spec is built.
const BARE_ROOT: Schema<'static> = Schema {
    properties: &ROOT_PROPS,
    ..Schema::of(Type::Object)
};

#[derive(Serialize, Clone)]
struct Port {
    name: String,
    port: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<Option<String>>,
}

#[derive(Serialize, Clone)]
struct Spec {
    name: String,
    ports: Vec<Port>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    labels: Option<HashMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flag: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<String>,
    note: Option<String>,
    /// Not in the schema: hidden from CEL, counted in equality.
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<BTreeMap<String, i64>>,
}

#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
struct Root {
    api_version: String,
    kind: String,
    metadata: BTreeMap<String, String>,
    spec: Spec,
}

fn port(name: &str, port: i64) -> Port {
    Port {
        name: name.into(),
        port,
        note: None,
    }
}

fn base() -> Root {
    Root {
        api_version: "x/v1".into(),
        kind: "K".into(),
        metadata: [("name", "a"), ("namespace", "ns"), ("uid", "u")]
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        spec: Spec {
            name: "web".into(),
            ports: vec![port("http", 80), port("dns", 53)],
            tags: Some(vec![3, 1, 2]),
            labels: Some(
                [("b", "2"), ("a", "1"), ("c", "3")]
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
            weight: Some(0.5),
            flag: Some(true),
            timeout: Some("1m30s".into()),
            note: None,
            extra: Some([("z".to_owned(), 1)].into_iter().collect()),
        },
    }
}

/// Valid objects, varied in every way the conversion distinguishes.
fn valid_objects() -> Vec<Root> {
    let mut out = vec![base()];
    let mut o = base();
    o.spec.note = Some("n".into());
    o.spec.ports[0].note = Some(None);
    o.spec.ports[1].note = Some(Some("x".into()));
    o.spec.extra = None;
    o.spec.tags = None;
    o.spec.labels = Some(HashMap::new());
    out.push(o);
    let mut o = base();
    o.spec.ports.clear();
    o.spec.weight = Some(-0.0);
    o.spec.flag = Some(false);
    o.spec.timeout = None;
    o.metadata.retain(|k, _| k == "name");
    out.push(o);
    out
}

/// Structural equality, entry order and hidden counts included.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Map(x), Value::Map(y)) => {
            x.object == y.object
                && x.raw_len() == y.raw_len()
                && x.unknown() == y.unknown()
                && x.entries().len() == y.entries().len()
                && x.entries()
                    .iter()
                    .zip(y.entries())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        (Value::List(x), Value::List(y)) => {
            x.kind == y.kind
                && x.items.len() == y.items.len()
                && x.items.iter().zip(&y.items).all(|(p, q)| same(p, q))
        }
        _ => format!("{a:?}") == format!("{b:?}"),
    }
}

#[test]
fn serialized_values_equal_the_json_conversion() {
    let v = Validator::from_model(&ROOT, true);
    for o in valid_objects() {
        let json = serde_json::to_value(&o).unwrap();
        let want = to_value(&json, &v.root, true);
        let got = serialize(&o, &v.root, &v.nodes, true, true, true)
            .expect("taken by the fast path")
            .expect("built");
        assert!(same(&got, &want), "{json}\nfast: {got:?}\njson: {want:?}");
        // The old object of an update is only built for transition rules: none here.
        assert!(
            serialize(&o, &v.root, &v.nodes, true, false, true)
                .unwrap()
                .is_none()
        );
    }
}

#[test]
fn a_root_without_rules_builds_only_what_rules_see() {
    let v = Validator::from_model(&BARE_ROOT, true);
    let o = base();
    let Some(Value::Map(root)) = serialize(&o, &v.root, &v.nodes, true, true, true).unwrap() else {
        panic!("a skeleton root")
    };
    let keys: Vec<String> = root.entries().iter().map(|(k, _)| k.to_string()).collect();
    assert_eq!(
        keys,
        ["spec"],
        "metadata, apiVersion and kind are not built"
    );
    // The spec's rules read `self.ports` and `self.weight` only: just those are built, each
    // as the JSON conversion builds it.
    let Some(Value::Map(spec)) = root.get_str("spec") else {
        panic!("spec")
    };
    let keys: Vec<String> = spec.entries().iter().map(|(k, _)| k.to_string()).collect();
    assert_eq!(keys, ["ports", "weight"]);
    let json = serde_json::to_value(&o).unwrap();
    let Value::Map(want) = to_value(&json["spec"], v.root.property("spec").unwrap(), false) else {
        panic!("spec")
    };
    for (k, got) in spec.entries() {
        assert!(same(got, want.get(k).unwrap()), "{k}");
    }
}

#[test]
fn a_rule_that_uses_self_whole_sees_every_field() {
    const WHOLE_RULES: [Rule<'static>; 1] = [Rule::new("self != oldSelf || self.weight > 0.0")];
    const WHOLE: Schema<'static> = Schema {
        properties: &SPEC_PROPS,
        validations: Rules::new(&WHOLE_RULES),
        ..Schema::of(Type::Object)
    };
    use crate::eval::interp::Need::{self, Fields, Items, Whole};
    let f = |fields: Vec<(&str, Need)>| {
        Fields(fields.into_iter().map(|(n, x)| (n.into(), x)).collect())
    };
    for (rule, need) in [
        (
            "self.a == self.b && has(self.c)",
            f(vec![("a", Whole), ("b", Whole), ("c", Whole)]),
        ),
        (
            "self.x.all(i, i > 0)",
            f(vec![("x", Items(Box::new(Whole)))]),
        ),
        // A rule on a list: reading nothing else of it does not widen the items it reads.
        (
            "self.all(i, i.k == 1)",
            Items(Box::new(f(vec![("k", Whole)]))),
        ),
        (
            "self.x.exists(i, i.k == 1 && i.v.w != '') && self.x.size() > 0",
            f(vec![("x", Whole)]),
        ),
        (
            "self.x.all(i, i.k == 1 && i.v.w != '')",
            f(vec![(
                "x",
                Items(Box::new(f(vec![
                    ("k", Whole),
                    ("v", f(vec![("w", Whole)])),
                ]))),
            )]),
        ),
        (
            "self.x.filter(i, i.k == 1).size() == 0",
            f(vec![("x", Items(Box::new(Whole)))]),
        ),
        ("self.x.all(k, v, v > 0)", f(vec![("x", Whole)])),
        ("self == oldSelf", Whole),
        ("self.?a.orValue(1) == 1", Whole),
        ("size(self) > 0", Whole),
        ("[self].size() > 0 && self.a == 1", Whole),
        ("1 == 1", f(vec![])),
    ] {
        let p = crate::eval::interp::Program::compile(rule).unwrap();
        assert_eq!(p.self_need(), &need, "{rule}");
    }
    // `oldSelf` is read the same way; an optional one is read whole.
    for (rule, need) in [
        (
            "self.a == oldSelf.a && !has(oldSelf.b)",
            f(vec![("a", Whole), ("b", Whole)]),
        ),
        (
            "oldSelf.x.all(i, i.k == 1)",
            f(vec![("x", Items(Box::new(f(vec![("k", Whole)]))))]),
        ),
        ("self == oldSelf", Whole),
        ("oldSelf.value().a == self.a", Whole),
        ("self.a == 1", f(vec![])),
    ] {
        let p = crate::eval::interp::Program::compile(rule).unwrap();
        assert_eq!(p.old_self_need(), &need, "{rule}");
    }
    let props = [Property {
        name: "spec",
        required: true,
        schema: &WHOLE,
    }];
    let root = Schema {
        properties: &props,
        ..Schema::of(Type::Object)
    };
    let v = Validator::from_model(&root, true);
    let o = base();
    let Some(Value::Map(built)) = serialize(&o, &v.root, &v.nodes, true, true, true).unwrap()
    else {
        panic!("a skeleton root")
    };
    let json = serde_json::to_value(&o).unwrap();
    let want = to_value(&json["spec"], v.root.property("spec").unwrap(), false);
    assert!(same(built.get_str("spec").unwrap(), &want));
}

/// Objects the fast path must not call valid: each breaks one check or rule.
fn invalid_objects() -> Vec<(&'static str, Root)> {
    let mut out = Vec::new();
    let mut add = |what, f: &dyn Fn(&mut Root)| {
        let mut o = base();
        f(&mut o);
        out.push((what, o));
    };
    add("maxLength", &|o| o.spec.name = "abcdefghij".into());
    add("pattern", &|o| o.spec.name = "UPPER".into());
    add("maximum", &|o| o.spec.ports[0].port = 101);
    add("rule false", &|o| o.spec.ports[0].port = 100);
    add("map-list duplicate key", &|o| {
        o.spec.ports[1].name = "http".into()
    });
    add("maxItems", &|o| {
        o.spec.ports = (0..6).map(|i| port(&"p".repeat(i + 1), 1)).collect()
    });
    add("set duplicate", &|o| o.spec.tags = Some(vec![1, 1]));
    add("maxProperties", &|o| {
        o.spec
            .labels
            .as_mut()
            .unwrap()
            .insert("d".into(), "4".into());
    });
    add("bad duration", &|o| o.spec.timeout = Some("soon".into()));
    add("rule on a double", &|o| o.spec.weight = Some(-1.0));
    add("root rule", &|o| {
        o.metadata.insert("name".into(), String::new());
    });
    add("non-finite", &|o| o.spec.weight = Some(f64::NAN));
    out
}

#[test]
fn only_valid_objects_are_answered() {
    let v = Validator::from_model(&ROOT, true);
    for o in valid_objects() {
        let json = serde_json::to_value(&o).unwrap();
        assert!(
            v.validate_request(&json, None, crate::validate::Endpoint::Resource)
                .is_valid(),
            "{json}"
        );
        assert!(v.fast_valid(&o, None, OPAQUE), "{json}");
        assert!(v.fast_valid(&o, Some(&base()), OPAQUE), "{json}");
    }
    for (what, o) in invalid_objects() {
        let json = serde_json::to_value(&o).unwrap();
        assert!(
            !v.validate_request(&json, None, crate::validate::Endpoint::Resource)
                .is_valid(),
            "{what}: the JSON path reports it"
        );
        assert!(
            !v.fast_valid(&o, None, OPAQUE),
            "{what}: the fast path must defer"
        );
    }
}

const TIER_RULES: [Rule<'static>; 1] = [Rule::new("self == oldSelf")];
const TIER: Schema<'static> = Schema {
    validations: Rules::new(&TIER_RULES),
    ..Schema::of(Type::String)
};
const KEYED_PROPS: [Property<'static>; 2] = [
    Property {
        name: "name",
        required: true,
        schema: &PLAIN,
    },
    Property {
        name: "tier",
        required: false,
        schema: &TIER,
    },
];
const KEYED: Schema<'static> = Schema {
    properties: &KEYED_PROPS,
    ..Schema::of(Type::Object)
};
const KEYED_LIST: Schema<'static> = Schema {
    items: Some(&KEYED),
    list_type: Some(ListType::Map),
    list_map_keys: &["name"],
    ..Schema::of(Type::Array)
};
const UPDATE_PROPS: [Property<'static>; 1] = [Property {
    name: "items",
    required: true,
    schema: &KEYED_LIST,
}];
const UPDATE_ROOT: Schema<'static> = Schema {
    properties: &UPDATE_PROPS,
    ..Schema::of(Type::Object)
};

#[derive(Serialize)]
struct Keyed {
    name: String,
    tier: String,
}

#[derive(Serialize)]
struct Items {
    items: Vec<Keyed>,
}

fn items(list: &[(&str, &str)]) -> Items {
    Items {
        items: list
            .iter()
            .map(|(n, t)| Keyed {
                name: (*n).into(),
                tier: (*t).into(),
            })
            .collect(),
    }
}

/// Every node read whole: what converting the whole object gives.
fn read_whole(n: &mut SchemaNode) {
    n.reads = Some(Reads::Whole);
    for (_, c) in &mut n.properties {
        read_whole(c);
    }
    if let Some(c) = n.items.as_deref_mut() {
        read_whole(c);
    }
    if let Some(c) = n.additional_properties.as_deref_mut() {
        read_whole(c);
    }
}

#[test]
fn the_json_walk_reading_part_of_a_node_gives_the_whole_conversions_verdicts() {
    for schema in [&ROOT, &BARE_ROOT] {
        let planned = Validator::from_model(schema, true);
        let mut whole = Validator::from_model(schema, true);
        read_whole(&mut whole.root);
        // Under BARE_ROOT (no root rule) the spec is read in part.
        let spec = &planned.root.property("spec").unwrap().reads;
        assert_eq!(spec == &Some(Reads::Whole), std::ptr::eq(schema, &ROOT));
        let objects = valid_objects()
            .into_iter()
            .chain(invalid_objects().into_iter().map(|(_, o)| o));
        for o in objects {
            let json = serde_json::to_value(&o).unwrap();
            for old in [None, Some(serde_json::to_value(base()).unwrap())] {
                let a = planned.validate_request(
                    &json,
                    old.as_ref(),
                    crate::validate::Endpoint::Resource,
                );
                let b = whole.validate_request(
                    &json,
                    old.as_ref(),
                    crate::validate::Endpoint::Resource,
                );
                assert_eq!(a.errors.to_string(), b.errors.to_string(), "{json}");
            }
        }
    }
}

#[test]
fn transition_rules_see_the_item_with_the_same_key() {
    // The items are skeletons (no rule on them), so their key fields must be kept.
    let v = Validator::from_model(&UPDATE_ROOT, false);
    let old = items(&[("a", "1"), ("b", "2")]);
    let old_json = serde_json::to_value(&old).unwrap();
    let Some(Value::Map(built)) = serialize(&old, &v.root, &v.nodes, false, false, true).unwrap()
    else {
        panic!("the old object is built for its transition rule")
    };
    let Some(Value::List(list)) = built.get_str("items") else {
        panic!("items")
    };
    let want = to_value(&old_json["items"], v.root.property("items").unwrap(), false);
    assert!(same(&Value::List(list.clone()), &want));
    let moved = items(&[("b", "2"), ("a", "1"), ("c", "9")]);
    assert!(v.fast_valid(&moved, Some(&old), OPAQUE));
    let changed = items(&[("b", "3"), ("a", "1")]);
    assert!(!v.fast_valid(&changed, Some(&old), OPAQUE));
    let json = serde_json::to_value(&changed).unwrap();
    assert!(
        !v.validate_request(&json, Some(&old_json), crate::validate::Endpoint::Resource)
            .is_valid()
    );
}

/// A schema whose objects the apiserver's decoding changes: a `default`, pruned keys, counts
/// and `anyOf`/`oneOf` of required properties (the shapes of a type's generated schema).
fn decoding_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "minProperties": 2,
        "required": ["replicas"],
        "x-kubernetes-validations": [{
            "rule": "self.mode != 'fast' || self.replicas <= 3",
            "message": "fast mode allows at most 3 replicas"
        }],
        "properties": {
            "replicas": {"type": "integer"},
            "mode": {"type": "string", "default": "fast", "x-kubernetes-validations": [{
                "rule": "self == oldSelf || oldSelf != 'fast'",
                "message": "fast mode is kept"
            }]},
            "source": {
                "type": "object",
                "oneOf": [{"required": ["git"]}, {"required": ["image"]}],
                "properties": {"git": {"type": "string"}, "image": {"type": "string"}}
            },
            "either": {
                "type": "object",
                "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}
            },
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "any": {"x-kubernetes-preserve-unknown-fields": true},
            "schemaless": {"type": "object", "additionalProperties": true}
        }
    })
}

/// On a validator whose objects are decoded (a type's generated schema), the fast path
/// answers only where decoding changes nothing, and never for an object the JSON path (which
/// decodes) finds invalid.
#[test]
fn the_fast_path_defers_where_decoding_would_change_the_object() {
    use serde_json::json;
    let v = Validator::from_generated_schema(&decoding_schema(), false).unwrap();
    let cases = [
        // (object, answered by the fast path, valid)
        (json!({"replicas": 5, "mode": "slow"}), true, true),
        // The default makes it invalid: the rule reads "fast".
        (json!({"replicas": 5}), false, false),
        // Valid once defaulted, but not as serde wrote it: left to the JSON path.
        (json!({"replicas": 1}), false, true),
        // `minProperties` counts after pruning: `extra` is pruned.
        (
            json!({"replicas": 5, "mode": "slow", "extra": 1}),
            false,
            true,
        ),
        (json!({"replicas": 5, "extra": "x"}), false, false),
        // Unknown keys are kept under `x-kubernetes-preserve-unknown-fields`.
        (
            json!({"replicas": 5, "mode": "slow", "free": {"x": 1}}),
            true,
            true,
        ),
        // `oneOf`/`anyOf` of required properties.
        (
            json!({"replicas": 2, "mode": "slow", "source": {"git": "g"}}),
            true,
            true,
        ),
        (
            json!({"replicas": 2, "mode": "slow", "source": {"git": "g", "image": "i"}}),
            false,
            false,
        ),
        (
            json!({"replicas": 2, "mode": "slow", "source": {}}),
            false,
            false,
        ),
        (
            json!({"replicas": 2, "mode": "slow", "either": {"a": 1, "b": 2}}),
            true,
            true,
        ),
        (
            json!({"replicas": 2, "mode": "slow", "either": {}}),
            false,
            false,
        ),
        // A `null` where the property is not nullable is defaulted.
        (json!({"replicas": 5, "mode": null}), false, false),
        // Any value, kept whole; `additionalProperties: true` (whose values' objects decoding
        // empties) is left to the JSON path.
        (
            json!({"replicas": 5, "mode": "slow", "any": {"a": [1, {"b": "c"}]}}),
            true,
            true,
        ),
        (
            json!({"replicas": 5, "mode": "slow", "any": "x"}),
            true,
            true,
        ),
        (
            json!({"replicas": 5, "mode": "slow", "schemaless": {}}),
            false,
            true,
        ),
        (
            json!({"replicas": 5, "mode": "slow", "schemaless": {"k": {"x": 1}}}),
            false,
            true,
        ),
    ];
    for (object, fast, valid) in cases {
        let json_valid = v
            .validate_request(&object, None, crate::validate::Endpoint::Resource)
            .is_valid();
        assert_eq!(json_valid, valid, "the JSON path's verdict on {object}");
        assert_eq!(v.fast_valid(&object, None, OPAQUE), fast, "{object}");
        // As the old object of an update: decoded too, where a transition rule reads it.
        let new = json!({"replicas": 5, "mode": "slow"});
        let update_valid = v
            .validate_request(&new, Some(&object), crate::validate::Endpoint::Resource)
            .is_valid();
        if v.fast_valid(&new, Some(&object), OPAQUE) {
            assert!(update_valid, "answered for an invalid update from {object}");
        }
    }
    // The old `mode` is defaulted to "fast", which the transition rule then refuses to change.
    let (new, old) = (
        json!({"replicas": 5, "mode": "slow"}),
        json!({"replicas": 1}),
    );
    let update = v.validate_request(&new, Some(&old), crate::validate::Endpoint::Resource);
    assert_eq!(
        update.errors.to_string(),
        "mode: Invalid value: \"slow\": fast mode is kept"
    );
    assert!(!v.fast_valid(&new, Some(&old), OPAQUE));
}

/// Data-carrying enums as serde_json writes them (`{"variant": ..}`), and map keys that are
/// not strings, built as the JSON conversion builds them.
#[test]
fn enum_variants_and_keys_are_built_as_their_json() {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    enum Source {
        Git { url: String, depth: i64 },
        Image(String),
        Pair(i64, i64),
    }
    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    #[serde(rename_all = "camelCase")]
    enum Zone {
        East,
        West,
    }
    #[derive(Serialize)]
    struct Holder {
        sources: Vec<Source>,
        zones: BTreeMap<Zone, i64>,
        ids: BTreeMap<u32, String>,
    }
    let schema = serde_json::json!({
        "type": "object",
        "x-kubernetes-validations": [{"rule": "[self].size() == 1"}],
        "properties": {
            "sources": {"type": "array", "items": {
                "type": "object",
                "oneOf": [{"required": ["git"]}, {"required": ["image"]}, {"required": ["pair"]}],
                "properties": {
                    "git": {"type": "object", "required": ["url"], "properties": {
                        "url": {"type": "string"}, "depth": {"type": "integer"}
                    }},
                    "image": {"type": "string"},
                    "pair": {"type": "array", "items": {"type": "integer"}}
                }
            }},
            "zones": {"type": "object", "additionalProperties": {"type": "integer"}},
            "ids": {"type": "object", "additionalProperties": {"type": "string"}}
        }
    });
    let v = Validator::from_generated_schema(&schema, false).unwrap();
    let o = Holder {
        sources: vec![
            Source::Git {
                url: "u".into(),
                depth: 2,
            },
            Source::Image("i".into()),
            Source::Pair(1, 2),
        ],
        zones: BTreeMap::from([(Zone::West, 1), (Zone::East, 2)]),
        ids: BTreeMap::from([(2, "b".into()), (10, "a".into())]),
    };
    let json = serde_json::to_value(&o).unwrap();
    let want = to_value(&json, &v.root, false);
    let got = serialize(&o, &v.root, &v.nodes, false, true, true)
        .expect("taken by the fast path")
        .expect("built");
    assert!(same(&got, &want), "{json}\nfast: {got:?}\njson: {want:?}");
    assert!(v.fast_valid(&o, None, OPAQUE));
}

const SHORT: Schema<'static> = Schema {
    max_length: Some(3),
    ..Schema::of(Type::String)
};
const PAIR_PROPS: [Property<'static>; 2] = [
    Property {
        name: "a",
        required: true,
        schema: &SHORT,
    },
    Property {
        name: "b",
        required: true,
        schema: &SHORT,
    },
];
const READS_A: [Rule<'static>; 1] = [Rule::new("self.a == oldSelf.a")];
const READS_WHOLE: [Rule<'static>; 1] = [Rule::new("self == oldSelf")];
const PAIR_READS_A: Schema<'static> = Schema {
    properties: &PAIR_PROPS,
    validations: Rules::new(&READS_A),
    ..Schema::of(Type::Object)
};
const PAIR_READS_WHOLE: Schema<'static> = Schema {
    properties: &PAIR_PROPS,
    validations: Rules::new(&READS_WHOLE),
    ..Schema::of(Type::Object)
};

/// Two strings, viewed in place.
struct Pair(&'static str, &'static str);

impl crate::eval::view::ObjView for Pair {
    fn cel_field(&self, name: &str) -> crate::eval::view::ViewRef<'_> {
        use crate::eval::view::ViewRef;
        match name {
            "a" => ViewRef::Str(self.0),
            "b" => ViewRef::Str(self.1),
            _ => ViewRef::Absent,
        }
    }
    fn cel_count(&self) -> usize {
        2
    }
    fn cel_serde(&self) -> Option<&dyn crate::eval::view::SerValue> {
        None
    }
}

/// An old value is checked against the schema's bounds where its node's transition rules read
/// it (the cost they are charged on views assumes those bounds), and only there: a field they
/// do not select may be past its bounds (an old object may predate one) without sending the
/// update the value-building way.
#[test]
fn an_old_value_is_checked_where_transition_rules_read_it() {
    let within = |schema: &Schema<'static>, old: &Pair| {
        let v = Validator::from_model(schema, false);
        let tree = viewed::Tree {
            nodes: &v.nodes,
            root: &v.root,
            resource_root: false,
            minor: v.kubernetes_minor,
        };
        viewed::old_within_bounds(tree, crate::eval::view::ViewRef::Obj(old))
    };
    let (ok, long_a, long_b) = (Pair("x", "y"), Pair("long", "y"), Pair("x", "long"));
    assert!(within(&PAIR_READS_A, &ok));
    assert!(!within(&PAIR_READS_A, &long_a), "the field the rule reads");
    assert!(
        within(&PAIR_READS_A, &long_b),
        "a field the rule does not read"
    );
    assert!(within(&PAIR_READS_WHOLE, &ok));
    assert!(!within(&PAIR_READS_WHOLE, &long_a));
    assert!(!within(&PAIR_READS_WHOLE, &long_b), "`oldSelf` read whole");
}
