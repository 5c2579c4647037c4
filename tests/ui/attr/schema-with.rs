use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

fn any_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({})
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[schemars(schema_with = "any_schema")]
    x: i32,
}

fn main() {}
