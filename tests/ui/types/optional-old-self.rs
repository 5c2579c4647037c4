use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    // With optional_old_self, oldSelf is optional_type(string): compare its value.
    #[cel(rule = "self == oldSelf", optional_old_self)]
    name: String,
}

fn main() {}
