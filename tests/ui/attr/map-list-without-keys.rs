use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Item {
    name: String,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(list_type = "map")]
    items: Vec<Item>,
}

fn main() {}
