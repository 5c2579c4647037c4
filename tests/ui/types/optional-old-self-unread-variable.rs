// A macro variable named `oldSelf` is a reference to `oldSelf` only where the rule reads it
// (cel-go records the comprehension variable's uses; the apiserver's oracle calls
// `[1].all(oldSelf, true)` no transition rule): `optional_old_self` is rejected here, as the
// apiserver and `crd-cel check` reject it. ui/pass/old-self-as-a-variable.rs reads it.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "[1, 2].all(oldSelf, true)", optional_old_self)]
struct Spec {
    a: i32,
}

fn main() {}
