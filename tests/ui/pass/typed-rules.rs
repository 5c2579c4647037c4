use crd_cel::CelValidate;
use crd_cel_examples::Autoscaling;
use kube::CustomResource;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct Port {
    name: String,
    port: i32,
    host: Option<String>,
}

/// Rules the apiserver accepts must compile: through Vec, Option, maps, sets, other crates,
/// optional syntax, macros, the Kubernetes libraries.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Thing",
    namespaced,
    validation = "self.metadata.name.size() <= 63 && self.kind == 'Thing'"
)]
#[cel(rule = "self.ports.all(p, p.port > 0 && (!has(p.host) || p.host != ''))")]
#[cel(rule = "self.byName.all(k, self.byName[k].port > 0)")]
#[cel(rule = "self.scale.minReplicas <= self.scale.maxReplicas")]
#[cel(rule = "self.?primary.?host.orValue('') != 'x'")]
#[cel(rule = "self.tags.exists(t, t.matches('^[a-z]+$')) || size(self.tags) == 0")]
#[cel(rule = "self.ports.map(p, p.name).all(n, n.size() < 16)")]
#[cel(rule = "isURL(self.endpoint) ? url(self.endpoint).getScheme() == 'https' : true")]
#[cel(rule = "quantity(self.memory).isLessThan(quantity('1Gi'))")]
#[cel(rule = "self.ports.filter(p, p.port > 1024).size() <= 3")]
#[cel(rule = "self.ports.exists_one(p, p.name == 'http') || self.ports.size() == 0")]
#[cel(rule = "self.?scale.?targetCpuPercent.orValue(50) > 0")]
#[serde(rename_all = "camelCase")]
struct ThingSpec {
    ports: Vec<Port>,
    primary: Option<Port>,
    by_name: BTreeMap<String, Port>,
    scale: Autoscaling,
    // Bounded: unbounded, `tags.exists(t, t.matches(..))` is over the apiserver's cost limit.
    #[schemars(length(max = 16), inner(length(max = 63)))]
    tags: BTreeSet<String>,
    endpoint: String,
    memory: String,
    #[cel(rule = "self == oldSelf", message = "immutable")]
    #[cel(rule = "!oldSelf.hasValue() || oldSelf.value() <= self", optional_old_self)]
    generation: i64,
}

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_resource::<Thing>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_resource::<Thing>();
}
