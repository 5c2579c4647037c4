use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.a <= self.b", message = "a must not exceed b")]
#[cel(rule = "self.a >= 0", reason = "FieldValueForbidden", field_path = ".a")]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[cel(rule = "!oldSelf.hasValue() || oldSelf.value() == self", optional_old_self)]
    a: i32,
    #[cel(rule = "self > 0", message_expression = "'b must be positive'")]
    b: i32,
    #[cel(list_type = "map", list_map_keys = ["name", "port"], max_items = 4, min_items = 1)]
    ports: Vec<Port>,
    #[cel(max_properties = 8, map_type = "granular")]
    labels: BTreeMap<String, String>,
    #[cel(list_type = "set")]
    tags: Vec<String>,
    // A #[cel] decoration together with schemars' inner(..) on the same field.
    #[cel(max_items = 16)]
    #[schemars(inner(length(max = 63)))]
    names: Vec<String>,
}

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(map_type = "atomic")]
struct Port {
    name: String,
    port: i32,
}

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_type::<Spec>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_type::<Spec>();
}
