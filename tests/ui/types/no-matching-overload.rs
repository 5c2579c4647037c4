use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self == 'x'")]
    replicas: i64,
}

fn main() {}
