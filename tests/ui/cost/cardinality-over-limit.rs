// A rule that is cheap once (2,001) on the items of a list of 100,000: at CRD creation the
// apiserver multiplies it by how many times the node can occur (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go),
// which only the root type's derive can see. The error names the rule, its path from the root
// and the bound that would fit.
use crd_cel::CelValidate;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.contains('keyword')")]
struct Keyword(#[schemars(length(max = 5000))] String);

#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "example.com", version = "v1", kind = "Search", namespaced)]
struct SearchSpec {
    #[cel(max_items = 100000)]
    keywords: Vec<Keyword>,
}

fn main() {}
