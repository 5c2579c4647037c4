use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cel(rule = "self.minReplica <= self.maxReplicas")]
struct Scale {
    min_replicas: i32,
    max_replicas: i32,
}

fn main() {}
