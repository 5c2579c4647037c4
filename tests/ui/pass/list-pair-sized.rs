// ui/cost/unbounded-nested-all.rs with the first pair of bounds its help suggests when no bound
// on the strings alone fits (maxItems 110 with items of maxLength 2048): accepted.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[schemars(inner(length(max = 2048)))]
    #[cel(rule = "self.all(x, self.all(y, x == y))", max_items = 110)]
    names: Vec<String>,
}

const _: () = assert!(Spec::CEL_RULE_COSTS[0].max_cost <= 10_000_000);

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_type::<Spec>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_type::<Spec>();
}
