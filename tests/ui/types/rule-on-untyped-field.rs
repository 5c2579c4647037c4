use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    // serde_json::Value has no schema type: CEL cannot see it, the apiserver refuses rules on it.
    #[cel(rule = "self == 1")]
    anything: serde_json::Value,
}

fn main() {}
