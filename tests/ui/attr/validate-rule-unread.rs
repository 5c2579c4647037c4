// `#[validate(rule = ..)]` (written in a real operator, read by no derive) builds as it does with
// schemars and kube, the CRD without the rule, but with a warning at the key; denied here so that
// trybuild shows it. The container's `#[validate(..)]` is the validator crate's and is only looked
// at for the same key.
#![deny(deprecated)]

use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[validate(schema(function = "whole"), rule = "self.a != ''")]
struct Spec {
    #[validate(length(max = 10), rule = "self == oldSelf")]
    a: String,
    #[validate(range(min = 1))]
    b: i64,
}

fn main() {}
