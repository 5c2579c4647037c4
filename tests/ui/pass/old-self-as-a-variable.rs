// A comprehension variable named `oldSelf` that the rule reads makes a transition rule, as the
// apiserver decides it (its `UsesOldSelf` looks for the name among the checked AST's
// references, and cel-go records the variable's): `optional_old_self` is accepted on it, by
// the derive and by `crd-cel check` alike (the oracle's probe: transitionRule true).
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "[1, 2].all(oldSelf, oldSelf > 0)", optional_old_self)]
struct Spec {
    #[cel(rule = "optional.of(self).optMap(oldSelf, 1).hasValue()", optional_old_self)]
    a: i32,
}

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_type::<Spec>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_type::<Spec>();
}
