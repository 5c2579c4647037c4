// kube's rules are read without compiling them: a value only running code knows (a variable,
// a function call) cannot be checked, and the error says how to write it.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

const RULE: &str = "self.x > 0";

#[derive(CelValidate, Serialize, Deserialize)]
#[x_kube(validation = Rule::new(RULE))]
#[x_kube(merge_strategy = strategy())]
struct Spec {
    x: i32,
}

fn main() {}
