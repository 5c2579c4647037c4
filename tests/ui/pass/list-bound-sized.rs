// ui/cost/list-bound-sized.rs with the maxItems its help computes: accepted, at the estimate
// the apiserver gives (the Go oracle's check-crd: 9968996 at maxItems 567; 568 is rejected).
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[schemars(inner(length(max = 63)))]
    #[cel(rule = "self.all(x, self.all(y, x == y))", max_items = 567)]
    names: Vec<String>,
}

const _: () = assert!(Spec::CEL_RULE_COSTS[0].max_cost == 9968996);

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_type::<Spec>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_type::<Spec>();
}
