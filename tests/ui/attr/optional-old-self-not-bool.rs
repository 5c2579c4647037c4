use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self == oldSelf", optional_old_self = "yes")]
    x: i32,
}

fn main() {}
