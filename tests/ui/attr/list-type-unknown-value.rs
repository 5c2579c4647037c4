use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(list_type = "ordered")]
    items: Vec<String>,
}

fn main() {}
