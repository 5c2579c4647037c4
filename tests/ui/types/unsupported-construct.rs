use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    // Valid for the apiserver, but crd-cel cannot check this macro yet: it fails closed.
    #[cel(rule = "self.?name.optMap(n, n.size()).orValue(0) < 10")]
    inner: Inner,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Inner {
    name: Option<String>,
}

fn main() {}
