// Every k8s-openapi type has a build-time model: a rule reading into a pod template is checked
// against the real PodSpec, with the apiserver's message and the fields there are.
use crd_cel::CelValidate;
use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "!has(self.spec) || self.spec.containers.all(c, c.imagePullPolicyy != 'Always')")]
    template: PodTemplateSpec,
}

fn main() {}
