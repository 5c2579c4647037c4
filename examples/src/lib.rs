//! A realistic operator CRD written with crd-cel: `WebApp`, a web workload with ports, host
//! names, labels, autoscaling and resources, and a status with conditions.

use crd_cel::CelValidate;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A web application managed by the operator.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kube(
    group = "apps.example.com",
    version = "v1",
    kind = "WebApp",
    namespaced,
    status = "WebAppStatus",
    shortname = "wa",
    validation = "self.metadata.name.size() <= 40"
)]
#[cel(
    rule = "self.replicas <= 100 || self.tier == 'premium'",
    message = "more than 100 replicas needs the premium tier"
)]
#[serde(rename_all = "camelCase")]
pub struct WebAppSpec {
    /// Container image, with a tag.
    #[schemars(length(max = 256))]
    #[cel(rule = "self.contains(':')", message = "image must carry a tag")]
    pub image: String,

    /// Desired number of pods.
    #[schemars(range(min = 0, max = 1000))]
    pub replicas: i32,

    /// Service tier; fixed at creation.
    #[cel(rule = "self == oldSelf", message = "tier is immutable")]
    pub tier: Tier,

    /// Ports the application listens on, by name.
    #[cel(list_type = "map", list_map_keys = ["name"], max_items = 16)]
    pub ports: Vec<Port>,

    /// Host names routed to the application.
    // A set to the apiserver too (it refuses a duplicate): a `BTreeSet` alone is a plain list.
    #[serde(default)]
    #[schemars(length(max = 32), inner(length(max = 253)))]
    #[cel(list_type = "set")]
    pub hostnames: BTreeSet<String>,

    /// Labels added to every pod.
    #[serde(default)]
    #[cel(max_properties = 64)]
    #[cel(
        rule = "self.all(k, k.size() <= 63)",
        message = "label keys are at most 63 characters"
    )]
    pub labels: BTreeMap<String, String>,

    /// Horizontal autoscaling; fixed replicas when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscaling: Option<Autoscaling>,

    /// Compute resources of each pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
}

/// Service tier.
#[derive(CelValidate, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Best effort.
    Standard,
    /// Guaranteed capacity.
    Premium,
}

/// A named port.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cel(
    rule = "self.port >= 1 && self.port <= 65535",
    message_expression = "'port ' + self.name + ' is out of range'"
)]
pub struct Port {
    /// Port name, unique in the list.
    #[schemars(length(max = 15))]
    pub name: String,
    /// Port number.
    pub port: i32,
    /// Transport protocol.
    #[serde(default = "default_protocol")]
    pub protocol: Protocol,
}

fn default_protocol() -> Protocol {
    Protocol::Tcp
}

/// Transport protocol of a port.
#[derive(CelValidate, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "UPPERCASE")]
pub enum Protocol {
    /// TCP.
    Tcp,
    /// UDP.
    Udp,
}

/// Horizontal autoscaling bounds.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cel(
    rule = "self.minReplicas <= self.maxReplicas",
    message = "minReplicas must not exceed maxReplicas"
)]
#[serde(rename_all = "camelCase")]
pub struct Autoscaling {
    /// Lower bound.
    pub min_replicas: i32,
    /// Upper bound.
    pub max_replicas: i32,
    /// Target average CPU utilization, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(rule = "self > 0 && self <= 100")]
    pub target_cpu_percent: Option<i32>,
}

/// Compute resources.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Resources {
    /// CPU per pod.
    pub cpu: Quantity,
    /// Memory per pod.
    pub memory: Quantity,
    /// Optional limits; the same keys as requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<BTreeMap<String, Quantity>>,
}

/// Observed state.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct WebAppStatus {
    /// Pods ready.
    #[serde(default)]
    pub ready_replicas: i32,
    /// Generation last acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Current conditions, by type.
    #[serde(default)]
    #[cel(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Vec<Condition>,
}
