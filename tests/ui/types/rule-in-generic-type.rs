// A generic type's rules depend on its type parameters, so they are checked for each
// instantiation the CRD uses: `Range<i32>` passes, `Range<String>` is rejected (a string
// compared with an int), and the error names the rule.
use crd_cel::CelValidate;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.min <= self.max", message = "min must not exceed max")]
struct Range<T> {
    #[cel(rule = "self > 0")]
    min: T,
    max: T,
}

#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "example.com", version = "v1", kind = "Pool")]
struct PoolSpec {
    ports: Range<i32>,
    names: Range<String>,
}

fn main() {}
