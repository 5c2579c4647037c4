use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Port {
    #[cel(rule = "self == oldSelf", message = "immutable")]
    number: i32,
}

// Items of a plain Vec are not correlated with the old object: the apiserver rejects the
// transition rule on Port.number.
#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    ports: Vec<Port>,
}

fn main() {}
