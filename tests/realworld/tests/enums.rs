//! Data-carrying enums in every serde representation: each compiles with `CelValidate`, its
//! schema is structural (where kube's own rewriting panics, kube-rs issue 1279, crd-cel merges
//! the variants itself), the apiserver's CRD checks accept it, and rules on it are enforced.

use crd_cel::CelValidate;
use crd_cel::crd::{Options, check_type};
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

#[derive(CelValidate, Serialize, Deserialize, Debug)]
struct Spec {
    source: Source,
    setting: Setting,
    mode: Mode,
    target: Target,
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
