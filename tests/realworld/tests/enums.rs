//! Data-carrying enums in every serde representation: each compiles with `CelValidate`, its
//! schema is structural (where kube's own rewriting panics, kube-rs issue 1279, crd-cel merges
//! the variants itself), the apiserver's CRD checks accept it, its model is built at compile
//! time where the variants say what the schema is (so rules on it are checked by the build),
//! and rules on it are enforced.

use crd_cel::crd::{Options, check_type};
use crd_cel::schema::{compare, generate};
use crd_cel::{CelSchema, CelValidate};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Internally tagged: kube's rewriting panics on the differing `kind` of each variant.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cel(
    rule = "self.kind != 'git' || self.url.startsWith('https://')",
    message = "git over https"
)]
enum Source {
    Git { url: String },
    Local { path: String, depth: i32 },
}

/// Adjacently tagged: the content differs per variant.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
enum Setting {
    Flag(bool),
    Level(i32),
}

/// Externally tagged with a unit variant: a string or an object, kube's rewriting panics.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
enum Mode {
    Off,
    Limited { max: i32 },
}

/// Untagged objects: kube's hoisting works, and the CRD is kube's.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(untagged)]
enum Target {
    Host { host: String },
    Ip { ip: String },
}

/// Externally tagged, every variant carrying data: kube hoists each variant into an optional
/// property.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
#[cel(rule = "!has(self.bucket) || self.bucket.bucketName != ''")]
enum Store {
    Volume(Volume),
    Bucket {
        bucket_name: String,
        #[serde(default)]
        region: Option<String>,
    },
    Paths(Vec<String>),
    #[serde(rename_all = "UPPERCASE")]
    Legacy {
        the_path: String,
    },
}

#[derive(CelValidate, Serialize, Deserialize, Debug)]
struct Volume {
    size: i64,
}

/// Adjacently tagged with one payload type: the content keeps it.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(tag = "type", content = "value")]
#[cel(rule = "self.value.size() > 0")]
enum Label {
    Team(String),
    Owner(String),
}

/// Adjacently tagged struct variants whose fields have the same types but different names:
/// the contents differ, and only the generated schema merges them.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(tag = "type", content = "value")]
enum Change {
    Rename { to: String },
    Move { path: String },
}

/// Untagged objects sharing a field that only their documentation tells apart: kube's rewriting
/// panics on the two descriptions; crd-cel keeps the field's type.
#[derive(CelValidate, Serialize, Deserialize, Debug)]
#[serde(untagged)]
#[cel(rule = "self.port > 0")]
enum Endpoint {
    Host {
        /// The host's port.
        port: i32,
        host: String,
    },
    Ip {
        /// The address' port.
        port: i32,
        ip: String,
    },
}

#[derive(CelValidate, Serialize, Deserialize, Debug)]
struct Spec {
    source: Source,
    setting: Setting,
    mode: Mode,
    target: Target,
    store: Store,
    label: Label,
    endpoint: Endpoint,
    change: Change,
}

#[test]
fn internally_tagged_variants_merge_into_one_object() {
    let s = crd_cel::schema::generate::<Source>();
    assert_eq!(s["type"], "object");
    assert_eq!(
        s["properties"]["kind"],
        json!({"type": "string", "enum": ["git", "local"]})
    );
    assert_eq!(s["properties"]["url"]["type"], "string");
    assert_eq!(s["properties"]["depth"]["type"], "integer");
    assert_eq!(s["required"], json!(["kind"]));
    assert!(s.get("oneOf").is_none());
}

#[test]
fn differing_content_and_mixed_types_become_any_value() {
    let s = crd_cel::schema::generate::<Setting>();
    assert_eq!(s["properties"]["type"]["enum"], json!(["flag", "level"]));
    assert_eq!(
        s["properties"]["value"],
        json!({"x-kubernetes-preserve-unknown-fields": true})
    );
    let m = crd_cel::schema::generate::<Mode>();
    assert_eq!(m["x-kubernetes-preserve-unknown-fields"], true);
    assert!(m.get("oneOf").is_none() && m.get("type").is_none());
}

#[test]
fn every_representation_passes_the_crd_checks() {
    let report = check_type::<Spec>(&Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
}

#[test]
fn rules_on_a_tagged_enum_are_enforced() {
    let ok: Source = serde_json::from_value(json!({"kind": "git", "url": "https://x"})).unwrap();
    ok.validate().unwrap();
    let bad: Source = serde_json::from_value(json!({"kind": "git", "url": "http://x"})).unwrap();
    let e = bad.validate().unwrap_err().to_string();
    assert!(e.contains("git over https"), "{e}");
    let local: Source =
        serde_json::from_value(json!({"kind": "local", "path": "/", "depth": 1})).unwrap();
    local.validate().unwrap();
}

/// The build's model of `T` is its generated schema; `known`: it has no node left to the
/// generated schema.
fn assert_model<T: CelSchema + schemars::JsonSchema>(known: bool) {
    let name = T::schema_name();
    let d = compare(&T::MODEL, &generate::<T>()).unwrap();
    assert!(d.is_empty(), "{name}: {d:?}");
    assert_eq!(!T::MODEL.contains_unknown(), known, "{name}");
}

#[test]
fn every_representation_has_a_build_time_model() {
    assert_model::<Source>(true);
    assert_model::<Mode>(true);
    assert_model::<Target>(true);
    assert_model::<Store>(true);
    assert_model::<Label>(true);
    assert_model::<Endpoint>(true);
    // Two payload types: merged into "any value", which only the generated schema spells.
    assert_model::<Setting>(false);
    assert_model::<Change>(false);
    assert_model::<Spec>(false);
}

#[test]
fn merged_variants_keep_what_they_agree_on() {
    let tag = Source::MODEL.property("kind").unwrap();
    assert!(tag.required);
    assert_eq!(tag.schema.enum_values, ["\"git\"", "\"local\""]);
    // A field only some variants have is optional.
    assert!(!Source::MODEL.property("url").unwrap().required);
    let port = Endpoint::MODEL.property("port").unwrap();
    assert_eq!(port.schema.ty, crd_cel::model::Type::Integer);
    assert!(port.required);
    let legacy = Store::MODEL.property("legacy").unwrap().schema;
    assert!(legacy.property("THE_PATH").is_some());
    assert!(!Store::MODEL.property("bucket").unwrap().required);
}

#[test]
fn rules_on_hoisted_variants_are_enforced() {
    let bad: Store = serde_json::from_value(json!({"bucket": {"bucketName": ""}})).unwrap();
    assert!(bad.validate().is_err());
    let ok: Store = serde_json::from_value(json!({"volume": {"size": 1}})).unwrap();
    ok.validate().unwrap();
    let bad: Endpoint = serde_json::from_value(json!({"port": 0, "ip": "10.0.0.1"})).unwrap();
    assert!(bad.validate().is_err());
    let bad: Label = serde_json::from_value(json!({"type": "Team", "value": ""})).unwrap();
    assert!(bad.validate().is_err());
}

/// Every representation's values are read by the typed fast path (views and the serde pass),
/// which answers the valid ones with the verdict of the JSON path on the generated schema.
#[test]
fn every_representation_is_validated_without_json() {
    let schema = generate::<Spec>();
    let json_path = crd_cel::Validator::from_schema_json(&schema, false).unwrap();
    let specs = [
        Spec {
            source: Source::Git {
                url: "https://x".into(),
            },
            setting: Setting::Flag(true),
            mode: Mode::Off,
            target: Target::Host { host: "h".into() },
            store: Store::Volume(Volume { size: 1 }),
            label: Label::Team("t".into()),
            endpoint: Endpoint::Host {
                port: 1,
                host: "h".into(),
            },
            change: Change::Rename { to: "x".into() },
        },
        Spec {
            source: Source::Local {
                path: "p".into(),
                depth: 2,
            },
            setting: Setting::Level(3),
            mode: Mode::Limited { max: 2 },
            target: Target::Ip {
                ip: "1.2.3.4".into(),
            },
            store: Store::Bucket {
                bucket_name: "b".into(),
                region: None,
            },
            label: Label::Owner("o".into()),
            endpoint: Endpoint::Ip {
                port: 2,
                ip: "1.2.3.4".into(),
            },
            change: Change::Move { path: "p".into() },
        },
    ];
    for s in &specs {
        let json = serde_json::to_value(s).unwrap();
        let out = json_path.validate_request(&json, None, crd_cel::validate::Endpoint::Resource);
        assert!(out.is_valid(), "{json}: {}", out.errors);
        assert!(
            crd_cel::__private::typed_fast_valid(s, None, false),
            "not answered by the fast path: {json}"
        );
        s.validate().unwrap();
    }
}
