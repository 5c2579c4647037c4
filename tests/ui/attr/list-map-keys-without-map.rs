use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Item {
    name: String,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(list_map_keys = ["name"])]
    items: Vec<Item>,
}

fn main() {}
