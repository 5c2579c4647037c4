// A data-carrying enum's schema is read from schemars' output, but the struct of a variant is a
// type of its own: its rules are checked at build time like any other.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Storage {
    Volume(Volume),
    Bucket { name: String },
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Volume {
    #[cel(rule = "self.sise > 0")]
    claim: Claim,
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Claim {
    size: i64,
}

fn main() {}
