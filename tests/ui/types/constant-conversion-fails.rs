// A conversion of a constant that fails: cel-go's planner folds it when the apiserver builds the
// program, so the CRD is rejected (`program instantiation failed`), and so is the build.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self < int('1e3')")]
    replicas: i32,
    #[cel(rule = "self.all(t, t.size() < int(18446744073709551615u))")]
    tags: Vec<String>,
    #[cel(rule = "duration(self) > duration(string(b'90'))")]
    window: String,
}

fn main() {}
