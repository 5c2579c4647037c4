use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.a > 'x'")]
#[cel(rule = "self.c == 1")]
struct Spec {
    #[cel(rule = "self.startsWith(1)")]
    a: i32,
    #[cel(rule = "self.size() > 0", message_expression = "self")]
    b: Vec<String>,
}

fn main() {}
