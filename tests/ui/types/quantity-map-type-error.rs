// Quantities are int-or-string: comparing one with an int needs `quantity(..)` and its methods.
use crd_cel::CelValidate;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(CelValidate, Serialize, Deserialize)]
struct Resources {
    #[cel(rule = "self.all(k, quantity(self[k]) > 1)")]
    limits: BTreeMap<String, Quantity>,
}

fn main() {}
