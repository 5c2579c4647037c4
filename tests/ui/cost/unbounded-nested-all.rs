// An unbounded list of unbounded strings compared pairwise: the apiserver rejects the CRD with
// its cost error; the help names the field and the attributes that bound it.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self.all(x, self.all(y, x == y))")]
    names: Vec<String>,
}

fn main() {}
