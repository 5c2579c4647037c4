// ui/pass/list-pair-sized.rs with one item more than the suggested pair allows: rejected, so
// the suggestion is the largest that fits.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[schemars(inner(length(max = 2048)))]
    #[cel(rule = "self.all(x, self.all(y, x == y))", max_items = 111)]
    names: Vec<String>,
}

fn main() {}
