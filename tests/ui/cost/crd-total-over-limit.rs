// Eleven lists whose rule is each under the per-expression limit (2,001 x 4,900 = 9,804,900)
// but whose sum, 107,853,900, is over the apiserver's 100,000,000 for the whole schema: the root
// type fails with the apiserver's message and the largest contributors.
use crd_cel::CelValidate;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.contains('keyword')")]
struct Keyword(#[schemars(length(max = 5000))] String);

#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "example.com", version = "v1", kind = "Search", namespaced)]
struct SearchSpec {
    #[cel(max_items = 4900)]
    a: Vec<Keyword>,
    #[cel(max_items = 4900)]
    b: Vec<Keyword>,
    #[cel(max_items = 4900)]
    c: Vec<Keyword>,
    #[cel(max_items = 4900)]
    d: Vec<Keyword>,
    #[cel(max_items = 4900)]
    e: Vec<Keyword>,
    #[cel(max_items = 4900)]
    f: Vec<Keyword>,
    #[cel(max_items = 4900)]
    g: Vec<Keyword>,
    #[cel(max_items = 4900)]
    h: Vec<Keyword>,
    #[cel(max_items = 4900)]
    i: Vec<Keyword>,
    #[cel(max_items = 4900)]
    j: Vec<Keyword>,
    #[cel(max_items = 4900)]
    k: Vec<Keyword>,
}

fn main() {}
