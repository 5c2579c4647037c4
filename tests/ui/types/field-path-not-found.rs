use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.min <= self.max", field_path = ".maximum")]
struct Range {
    min: i32,
    max: i32,
}

fn main() {}
