//! Shared by the targets: the CRDs objects are validated against.

use serde_json::Value;
use std::path::PathBuf;

/// The CRDs the object target validates against: every file named by `CRD_CEL_FUZZ_CRDS`
/// (`:`-separated), else Gateway API's HTTPRoute and Gateway from `../../shared/corpus`, else
/// the example `WebApp` CRD alone (said on stderr, once).
pub fn crds() -> Vec<Value> {
    let paths: Vec<PathBuf> = match std::env::var("CRD_CEL_FUZZ_CRDS") {
        Ok(list) => list.split(':').map(PathBuf::from).collect(),
        Err(_) => ["httproutes", "gateways", "grpcroutes"]
            .iter()
            .map(|n| {
                PathBuf::from(format!(
                    "../../shared/corpus/gateway-api/crd/experimental/gateway.networking.k8s.io_{n}.yaml"
                ))
            })
            .collect(),
    };
    let mut out: Vec<Value> = paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .filter_map(|t| serde_yaml::from_str(&t).ok())
        .collect();
    if out.is_empty() {
        eprintln!("crd-cel-fuzz: no CRD from CRD_CEL_FUZZ_CRDS or ../../shared/corpus: using the example WebApp CRD only");
    }
    use kube::CustomResourceExt;
    out.push(serde_json::to_value(crd_cel_examples::WebApp::crd()).expect("the example CRD serializes"));
    out
}
