// A list of bounded strings compared pairwise, the list itself unbounded: the help gives the
// largest maxItems at which the apiserver accepts the rule (pass/cost-bounded.rs uses it).
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[schemars(inner(length(max = 63)))]
    #[cel(rule = "self.all(x, self.all(y, x == y))")]
    names: Vec<String>,
}

fn main() {}
