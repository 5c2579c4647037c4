use crd_cel::CelValidate;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

// Root rules see only apiVersion, kind, metadata.name and metadata.generateName of the
// metadata (k8s.io/apiserver/pkg/cel/common/schemas.go): namespace is not visible.
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
