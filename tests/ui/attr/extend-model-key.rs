use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    items: Vec<String>,
}

fn main() {}
