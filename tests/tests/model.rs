//! The model constant the derive emits (`CelSchema::MODEL`) describes exactly the JSON schema the
//! same derive makes schemars generate: field JSON names, required-ness, types, formats, bounds,
//! list/map types and rules. Each type is compared node by node under kube's CRD settings.

use crd_cel::schema::compare;
use crd_cel::{CelSchema, CelValidate};
use crd_cel_examples::*;
use crd_cel_tests::kube_schema;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, MicroTime, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResourceExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

fn assert_agrees<T: CelSchema + JsonSchema>() {
    let json = kube_schema::<T>();
    let diffs = compare(&T::MODEL, &json).expect("the generated schema reads");
    assert!(
        diffs.is_empty(),
        "model of `{}` disagrees with its schema:\n{}\nschema: {json:#}",
        std::any::type_name::<T>(),
        diffs
            .iter()
            .map(|d| format!("  {d}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Every std type with a blanket model, with the attributes that change a node.
#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StdTypes {
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    usize_: usize,
    isize_: isize,
    f32_: f32,
    f64_: f64,
    s: String,
    opt: Option<String>,
    boxed: Box<i64>,
    list: Vec<i32>,
    set: BTreeSet<String>,
    hash_set: HashSet<i64>,
    map: BTreeMap<String, i32>,
    hash_map: HashMap<String, Vec<String>>,
    any: serde_json::Value,
    ip: std::net::IpAddr,
    u128_: u128,
    i128_: i128,
    nz8: std::num::NonZeroU8,
    nz16: std::num::NonZeroU16,
    nz32: std::num::NonZeroU32,
    nz64: std::num::NonZeroU64,
    nzusize: std::num::NonZeroUsize,
    ch: char,
    path: std::path::PathBuf,
    socket: std::net::SocketAddr,
    socket4: std::net::SocketAddrV4,
    socket6: std::net::SocketAddrV6,
    timeout: std::time::Duration,
    int_keys: BTreeMap<u16, String>,
    #[serde(rename = "renamed-field")]
    renamed: i32,
    #[serde(skip)]
    _skipped: i32,
    #[serde(default)]
    defaulted: i32,
    #[serde(default)]
    opt_defaulted: Option<i32>,
    #[schemars(required)]
    forced: Option<i32>,
    #[schemars(length(min = 1, max = 5))]
    short: String,
    #[schemars(length(max = 3), inner(length(max = 10), regex(pattern = "^[a-z]+$")))]
    bounded_list: Vec<String>,
    #[schemars(range(min = -5, max = 5))]
    ranged: i32,
    #[schemars(regex(pattern = "^x"))]
    patterned: String,
    // schemars 1's own spelling (kuben writes it).
    #[schemars(pattern(r"^y"))]
    pattern_call: String,
    #[schemars(inner(pattern("^[0-9]+$")))]
    pattern_items: Vec<String>,
    #[schemars(email)]
    email: String,
    #[schemars(with = "String")]
    with_string: u128,
    #[serde(flatten)]
    flat: Flattened,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Flattened {
    flat_a: i32,
    flat_b: Option<bool>,
}

/// Every `#[cel]` schema key, rules on containers, fields, items and map values.
#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "size(self.items) > 0", message = "needs items")]
#[cel(
    rule = "!oldSelf.hasValue() || true",
    reason = "FieldValueForbidden",
    field_path = ".items",
    optional_old_self
)]
#[cel(map_type = "atomic")]
struct CelKeys {
    #[cel(list_type = "map", list_map_keys = ["key"], max_items = 8, min_items = 1)]
    #[cel(rule = "self.all(i, i.key != '')", message_expression = "'bad'")]
    items: Vec<Item>,
    #[cel(list_type = "atomic")]
    atomic: Vec<String>,
    #[cel(list_type = "set")]
    set_vec: Vec<String>,
    #[cel(max_properties = 4, min_properties = 1, map_type = "granular")]
    map: BTreeMap<String, Item>,
    /// A field whose type has rules of its own, and rules added by the field: the type's come first.
    #[cel(rule = "self.key.size() < 10")]
    item: Item,
    #[cel(rule = "self.key != oldSelf.key", optional_old_self = false)]
    opt_item: Option<Item>,
}

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.key == self.key")]
struct Item {
    key: String,
}

/// A newtype is its inner type's node, with the newtype's rules after the inner type's.
#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.size() > 0")]
struct Name(#[schemars(length(max = 63))] String);

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Mode {
    ReadOnly,
    #[serde(rename = "rw")]
    ReadWrite,
    #[serde(skip)]
    _Hidden,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Generic<T> {
    value: T,
    values: Vec<T>,
}

/// k8s-openapi types as fields, where `Option` adds `nullable`.
#[derive(CelValidate, Serialize, Deserialize)]
struct K8sFields {
    quantity: Option<Quantity>,
    int_or_string: Option<IntOrString>,
    conditions: Vec<Condition>,
    selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time: Option<Time>,
}

/// The derive predicts each type's model from the source to check rules natively (the const
/// item verifies the prediction, so a wrong one only costs build time): every slot of every
/// field the derive knows must come out as the real `MODEL` has it.
#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cel(max_properties = 64)]
struct Predictable {
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    usize_: usize,
    u128_: u128,
    i128_: i128,
    ch: char,
    nz16: std::num::NonZeroU16,
    nz64: std::num::NonZeroU64,
    path: std::path::PathBuf,
    socket: std::net::SocketAddr,
    isize_: isize,
    f32_: f32,
    f64_: f64,
    s: String,
    opt: Option<String>,
    boxed: Box<i64>,
    list: Vec<i32>,
    deque: std::collections::VecDeque<Option<Box<u32>>>,
    set: BTreeSet<String>,
    hash_set: HashSet<i64>,
    map: BTreeMap<String, i32>,
    hash_map: HashMap<String, Vec<String>>,
    #[serde(rename = "renamed-field")]
    renamed: i32,
    #[serde(default)]
    defaulted: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    opt_defaulted: Option<i32>,
    // No `default` keyword (the predicate skips it), but optional all the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    skipped_when_empty: Vec<String>,
    #[schemars(required)]
    forced: Option<i32>,
    #[schemars(length(min = 1, max = 5))]
    short: String,
    #[schemars(length(max = 3), inner(length(max = 10), regex(pattern = "^[a-z]+$")))]
    bounded_list: Vec<String>,
    #[schemars(range(min = -5, max = 5.5))]
    ranged: f64,
    #[schemars(regex(pattern = "^x"))]
    patterned: String,
    #[schemars(email)]
    email: String,
    #[schemars(with = "String")]
    with_string: u128,
    #[cel(list_type = "map", list_map_keys = ["key"], max_items = 8, min_items = 1)]
    items: Vec<Item>,
    #[cel(max_properties = 4, min_properties = 1, map_type = "granular")]
    item_map: BTreeMap<String, Item>,
    #[cel(list_type = "set")]
    modes: Vec<Mode>,
    name: Option<Name>,
    quantity: Quantity,
    int_or_string: Option<IntOrString>,
    time: Time,
    micro_time: Option<MicroTime>,
    conditions: Vec<Condition>,
    selector: Option<LabelSelector>,
    // Not predicted (placeholders): other types of other crates and types named by a path.
    any: serde_json::Value,
    ip: std::net::IpAddr,
    by_path: self::Item,
}

#[test]
fn predictions_match_the_models() {
    fn check<T: CelSchema>(prediction: Option<(u64, u64)>) -> u64 {
        let name = std::any::type_name::<T>();
        let (deep, fingerprint) = prediction.unwrap_or_else(|| panic!("`{name}` is predicted"));
        assert_eq!(
            crd_cel::__private::fingerprint::of_node(&T::MODEL, deep),
            fingerprint,
            "the prediction of `{name}` differs from its model"
        );
        deep
    }
    check::<Item>(Item::__CEL_PREDICTION);
    check::<Name>(Name::__CEL_PREDICTION);
    check::<Mode>(Mode::__CEL_PREDICTION);
    check::<WebAppSpec>(WebAppSpec::__CEL_PREDICTION);
    check::<WebAppStatus>(WebAppStatus::__CEL_PREDICTION);
    let deep = check::<Predictable>(Predictable::__CEL_PREDICTION);
    // All but the last three fields are predicted whole.
    let fields = Predictable::MODEL.properties.len();
    assert_eq!(deep, (1u64 << (fields - 3)) - 1, "{deep:b}");
    // Flattening and generic types are not predicted.
    assert_eq!(StdTypes::__CEL_PREDICTION, None);
}

/// serde leaves the empty list out of the object, so the field must be optional in the model
/// the runtime validates with (it once was required there: "Required value" on valid objects).
#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "!has(self.tags) || self.tags.all(t, t != '')")]
struct Tagged {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

#[test]
fn a_field_skipped_when_empty_is_optional() {
    assert_agrees::<Tagged>();
    assert!(!Tagged::MODEL.property("tags").unwrap().required);
    Tagged { tags: vec![] }.validate().unwrap();
    let e = Tagged {
        tags: vec![String::new()],
    }
    .validate()
    .unwrap_err();
    assert!(e.to_string().contains("failed rule"), "{e}");
}

fn preserve(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

/// Required-ness as schemars decides it: a `schema_with` field is required even when its type
/// is an `Option` (schemars names it by a wrapper type, never optional), unless it has a
/// default; `#[serde(default)]` wins over `#[schemars(required)]`. The model once said optional
/// for the first, and the generated test failed on an operator's type.
#[derive(CelValidate, Serialize, Deserialize)]
struct RequiredRules {
    #[schemars(schema_with = "preserve")]
    with_fn: Option<serde_json::Value>,
    #[serde(default)]
    #[schemars(schema_with = "preserve")]
    with_fn_default: Option<serde_json::Value>,
    #[schemars(with = "String")]
    with_type: Option<u32>,
    #[schemars(with = "Option<String>")]
    with_option: u32,
    #[serde(default)]
    #[schemars(required)]
    forced_default: Option<String>,
    #[schemars(required)]
    forced: Option<String>,
}

#[test]
fn required_as_schemars_decides() {
    assert_agrees::<RequiredRules>();
    let required = |name| RequiredRules::MODEL.property(name).unwrap().required;
    assert!(required("with_fn"));
    assert!(!required("with_fn_default"));
    assert!(required("with_type"));
    assert!(!required("with_option"));
    assert!(!required("forced_default"));
    assert!(required("forced"));
}

/// Maps of `serde_json::Value` (schemars: `additionalProperties: true`) and flattened maps:
/// kube turns a flattened map of values into `x-kubernetes-preserve-unknown-fields`, and a
/// flattened typed map into `additionalProperties` beside the properties. The model once
/// disagreed on all three, failing the generated test of an operator's type.
#[derive(CelValidate, Serialize, Deserialize)]
struct Maps {
    values: HashMap<String, serde_json::Value>,
    nested: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
    object: serde_json::Map<String, serde_json::Value>,
    objects: Vec<serde_json::Map<String, serde_json::Value>>,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct FlatObject {
    a: Option<String>,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct FlatValues {
    a: Option<String>,
    #[serde(flatten)]
    rest: BTreeMap<String, serde_json::Value>,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct FlatStrings {
    a: Option<String>,
    #[serde(flatten)]
    rest: HashMap<String, String>,
}

#[test]
fn maps_of_values_and_flattened_maps() {
    assert_agrees::<Maps>();
    assert_agrees::<FlatValues>();
    assert_agrees::<FlatObject>();
    assert_agrees::<FlatStrings>();
    // The apiserver types a map of schemaless values as an object without fields.
    assert!(
        Maps::MODEL
            .property("values")
            .unwrap()
            .schema
            .additional_properties_any()
    );
}

#[test]
fn std_types() {
    assert_agrees::<StdTypes>();
}

#[test]
fn cel_keys() {
    assert_agrees::<CelKeys>();
    // The field-level rules come after the type's own rules on the same node.
    let item = CelKeys::MODEL.property("item").unwrap().schema;
    let rules: Vec<_> = item.validations.to_vec().iter().map(|r| r.rule).collect();
    assert_eq!(rules, ["self.key == self.key", "self.key.size() < 10"]);
}

#[test]
fn newtypes_enums_generics() {
    assert_agrees::<Name>();
    assert_agrees::<Mode>();
    assert_agrees::<Generic<i32>>();
    assert_agrees::<Generic<Item>>();
}

#[test]
fn k8s_openapi_types() {
    assert_agrees::<Quantity>();
    assert_agrees::<IntOrString>();
    assert_agrees::<Time>();
    assert_agrees::<MicroTime>();
    assert_agrees::<Condition>();
    assert_agrees::<LabelSelector>();
    assert_agrees::<K8sFields>();
}

/// k8s-openapi gives `ByteString` no `JsonSchema`: its model is what its fields are written as
/// (a `Secret`'s `data` values).
#[test]
fn k8s_openapi_byte_string() {
    let secret = kube_schema::<k8s_openapi::api::core::v1::Secret>();
    let data = &secret["properties"]["data"]["additionalProperties"];
    let diffs = compare(&<k8s_openapi::ByteString as CelSchema>::MODEL, data).unwrap();
    assert!(diffs.is_empty(), "{diffs:#?}\n{data:#}");
}

#[test]
fn example_types() {
    assert_agrees::<WebAppSpec>();
    assert_agrees::<WebAppStatus>();
    assert_agrees::<Port>();
    assert_agrees::<Protocol>();
    assert_agrees::<Tier>();
    assert_agrees::<Autoscaling>();
    assert_agrees::<Resources>();
}

/// The root model (`spec`, `status`, root rules from `#[kube(validation)]`) against the schema
/// kube puts in the CRD.
#[test]
fn example_root_against_crd() {
    let crd = serde_json::to_value(WebApp::crd()).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let diffs = compare(&WebApp::MODEL, schema).unwrap();
    assert!(diffs.is_empty(), "{diffs:#?}");
    assert_eq!(WebApp::MODEL.validations.len(), 1);
}

/// The comparison itself finds a difference when there is one.
#[test]
fn comparison_detects_differences() {
    let mut json = kube_schema::<Item>();
    json["properties"]["key"]["maxLength"] = 5.into();
    json["required"] = serde_json::json!([]);
    let diffs = compare(&Item::MODEL, &json).unwrap();
    let text: Vec<String> = diffs.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "properties[key]: required: model true, schema false",
            "properties[key]: max_length: model None, schema Some(5)",
        ]
    );
}
