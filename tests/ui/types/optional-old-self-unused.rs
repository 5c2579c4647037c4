// The apiserver rejects `optionalOldSelf` on a rule that does not use `oldSelf`, whatever its
// value, on a struct as on a field.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.a != ''", optional_old_self = true)]
struct Spec {
    #[cel(rule = "self.size() > 0", optional_old_self = false)]
    a: String,
}

fn main() {}
