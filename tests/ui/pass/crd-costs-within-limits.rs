// The list of ui/cost/cardinality-over-limit.rs bounded to what its help suggests: 2,001 x 4,997
// = 9,998,997 fits the per-expression limit, and the total fits the per-CRD one.
use crd_cel::CelValidate;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.contains('keyword')")]
struct Keyword(#[schemars(length(max = 5000))] String);

#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "example.com", version = "v1", kind = "Search", namespaced)]
struct SearchSpec {
    #[cel(max_items = 4997)]
    keywords: Vec<Keyword>,
}

const _: () = assert!(Keyword::CEL_RULE_COSTS[0].max_cost == 2001);

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_resource::<Search>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_resource::<Search>();
}
