use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.a ==")]
struct Spec {
    #[cel(rule = "self >", reason = "Nope")]
    a: i32,
    #[cel(list_type = "bag")]
    b: Vec<i32>,
}

fn main() {}
