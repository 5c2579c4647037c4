use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self > 0", message = "a", message = "b")]
    x: i32,
}

fn main() {}
