use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

#[derive(CelValidate, Serialize, Deserialize)]
struct Port {
    name: String,
    port: i32,
}

#[derive(CelValidate, Serialize, Deserialize)]
#[cel(rule = "self.ports.all(p, p.port > 0 && p.protocol == 'TCP')")]
#[cel(rule = "self.primary.name == 1")]
#[cel(rule = "self.byName.all(k, self.byName[k].port.startsWith('a'))")]
#[serde(rename_all = "camelCase")]
struct Spec {
    ports: Vec<Port>,
    primary: Option<Port>,
    by_name: BTreeMap<String, Port>,
}

fn main() {}
