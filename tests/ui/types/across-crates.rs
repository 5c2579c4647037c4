use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

use crd_cel_examples::Autoscaling;

// Autoscaling comes from another crate; its fields are camelCase there.
#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.scale.min_replicas <= self.scale.maxReplicas")]
struct Spec {
    scale: Autoscaling,
}

fn main() {}
