use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct NotDerived {
    a: i32,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    inner: NotDerived,
}

fn main() {}
