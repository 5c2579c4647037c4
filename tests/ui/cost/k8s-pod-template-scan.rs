// A scan of every container's image in a k8s-openapi pod template: the apiserver rejects the
// CRD with its cost error; the help names the lists and strings the rule reads (declared in
// k8s-openapi's types, where no bound can be added) and what can be done instead.
use crd_cel::CelValidate;
use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct BackupSpec {
    #[cel(
        rule = "!has(self.spec) || self.spec.containers.all(c, has(c.image) && c.image.contains('@sha256:'))"
    )]
    template: PodTemplateSpec,
}

fn main() {}
