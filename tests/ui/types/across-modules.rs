use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

mod inner {
    use crd_cel::CelValidate;
    use serde::{Deserialize, Serialize};

    #[derive(CelValidate, Serialize, Deserialize)]
    pub struct Limits {
        pub cpu: String,
    }
}

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.limits.memory != ''")]
struct Spec {
    limits: inner::Limits,
}

fn main() {}
