use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.name != ''", message_expression = "self.name.size()")]
struct Spec {
    name: String,
}

fn main() {}
