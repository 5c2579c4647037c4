use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(max_properties = 3)]
    items: Vec<String>,
}

fn main() {}
