// A rule written with schemars' `extend` is type-checked at build like a #[cel(rule)].
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[schemars(extend("x-kubernetes-validations" = [{"rule": "self.replicas > 'a'"}]))]
struct Spec {
    replicas: i32,
}

fn main() {}
