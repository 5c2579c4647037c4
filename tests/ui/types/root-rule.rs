use crd_cel::CelValidate;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

// Root rules see only apiVersion, kind, metadata.name and metadata.generateName of the
// metadata (CEL-SEMANTICS 1.2): namespace is not visible.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Widget",
    namespaced,
    validation = "self.metadata.namespace == 'default'"
)]
struct WidgetSpec {
    size: i32,
}

fn main() {}
