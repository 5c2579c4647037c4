use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self > 0", reason = "FieldValueWrong")]
    x: i32,
}

fn main() {}
