// The same rule as ui/cost/unbounded-nested-all.rs with the list and its strings bounded: the
// estimate is small, and the type lists it in CEL_RULE_COSTS.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
struct Name(#[schemars(length(max = 16))] String);

#[derive(CelValidate, Serialize, Deserialize)]
struct Spec {
    #[cel(rule = "self.all(x, self.all(y, x == y))", max_items = 10)]
    names: Vec<Name>,
}

// Evaluated at compile time: inner loop 2 + 10 * (2 + 1 + 2 + ceil(64 * 0.1)) = 122, outer
// 2 + 10 * (2 + 1 + 122) = 1252 (64: maxLength 16 counted as 4 bytes a rune).
const _: () = assert!(Spec::CEL_RULE_COSTS.len() == 1);
const _: () = assert!(Spec::CEL_RULE_COSTS[0].max_cost == 1252);

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_type::<Spec>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_type::<Spec>();
}
