use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "duration(self) < duration('1d')")]
    timeout: String,
    #[cel(rule = "self.matches('[a-z')")]
    name: String,
}

fn main() {}
