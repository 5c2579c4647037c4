// `extend("x-kubernetes-validations" = ..)` is read as rules: a malformed entry is an error at
// the entry, as a malformed #[cel(..)] is; every one is reported in one build.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[schemars(extend("x-kubernetes-validations" = [{"rule": "self.x > 0", "mesage": "typo"}]))]
struct Spec {
    #[schemars(extend("x-kubernetes-validations" = [{"message": "no rule"}]))]
    x: i32,
    #[schemars(extend("x-kubernetes-validations" = [{"rule": 5}]))]
    y: i32,
    #[schemars(extend("x-kubernetes-validations" = {"rule": "self > 0"}))]
    z: i32,
    #[cel(max_items = 3)]
    #[schemars(extend("maxItems" = 4))]
    w: Vec<i32>,
}

fn main() {}
