//! The types with `CelValidate` and rules.

use crate::GoDuration;
use chrono::{DateTime, Utc};
use crd_cel::CelValidate;
use k8s_openapi::api::core::v1::{EnvVar, PodTemplateSpec, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::CustomResource;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The spec of a workload, in the shapes operators use.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "realworld.example.com",
    version = "v1",
    kind = "Workload",
    namespaced,
    status = "WorkloadStatus"
)]
#[serde(rename_all = "camelCase")]
#[cel(
    rule = "self.replicas <= 10 || has(self.resources)",
    message = "more than 10 replicas need resources"
)]
#[cel(
    rule = "!has(self.template.spec) || self.template.spec.containers.size() <= 5",
    message = "at most 5 containers"
)]
pub struct WorkloadSpec {
    /// How many.
    #[cel(rule = "self >= 0")]
    pub replicas: i32,
    /// A pod template (a k8s-openapi type beyond the common ones).
    pub template: PodTemplateSpec,
    /// Environment for every container.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cel(
        rule = "self.all(e, !e.name.startsWith('FORBIDDEN_'))",
        message = "reserved name"
    )]
    #[cel(max_items = 64)]
    pub env: Vec<EnvVar>,
    /// Requests and limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(
        rule = "!has(self.limits) || !('memory' in self.limits) || quantity(self.limits['memory']).compareTo(quantity('64Gi')) <= 0",
        message = "at most 64Gi of memory"
    )]
    pub resources: Option<ResourceRequirements>,
    /// Tolerations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// chrono.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(
        rule = "self > timestamp('2000-01-01T00:00:00Z')",
        message = "too early"
    )]
    pub not_before: Option<DateTime<Utc>>,
    /// uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<uuid::Uuid>,
    /// url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<url::Url>,
    /// semver, schema given by `with`.
    #[schemars(with = "String")]
    #[cel(rule = "self.matches('^[0-9]+[.][0-9]+[.][0-9]+$')", message = "x.y.z")]
    pub version: semver::Version,
    /// A pod template kept whole (`schema_with`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::preserve_unknown")]
    #[cel(rule = "self == oldSelf", message = "the raw template is immutable")]
    pub raw_template: Option<PodTemplateSpec>,
    /// Externally tagged enum.
    pub storage: Storage,
    /// Internally tagged enum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Adjacently tagged enum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<Rollout>,
    /// Flattened struct.
    #[serde(flatten)]
    pub common: Common,
    /// Generic struct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits<Quantity>>,
    /// Newtype.
    pub owner: Owner,
    /// Tuple struct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    /// validator attributes, as schemars reads them.
    #[validate(length(min = 1, max = 63))]
    pub team: String,
    /// Hand-written JsonSchema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(rule = "self.endsWith('s') || self.endsWith('m') || self.endsWith('h')")]
    pub timeout: Option<GoDuration>,
    /// Embedded ObjectMeta (an ordinary object here, not the resource's metadata: a rule sees
    /// every field, not only `name` and `generateName`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(
        rule = "!has(self.labels) || 'app' in self.labels",
        message = "pod metadata needs an app label"
    )]
    pub pod_metadata: Option<ObjectMeta>,
    /// std types schemars knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<std::num::NonZeroU16>,
    /// Labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Resources per container, keyed by an enum (a map key that is not a `String`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[cel(
        rule = "!has(self.sidecar) || has(self.sidecar.limits)",
        message = "the sidecar needs limits"
    )]
    pub container_resources: BTreeMap<ContainerName, ResourceRequirements>,
    /// A port by number or name (an untagged enum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(
        rule = "type(self) != int || self > 0",
        message = "port must be positive"
    )]
    pub port: Option<PortRef>,
}

/// The containers of a workload, by role.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum ContainerName {
    /// The application.
    Main,
    /// The proxy beside it.
    Sidecar,
}

/// A port by number or by name.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum PortRef {
    /// By number.
    Number(i32),
    /// By name.
    Name(String),
}

/// Where data lives (externally tagged, data-carrying).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub enum Storage {
    /// Ephemeral (a struct variant: kube's structural rewriting panics on an enum mixing unit
    /// and data variants).
    Ephemeral {},
    /// A volume claim.
    Volume(VolumeStorage),
    /// An object store bucket.
    Bucket {
        /// The bucket.
        name: String,
    },
}

/// Where the code comes from (internally tagged: kube's own rewriting panics on it, kube-rs
/// issue 1279; crd-cel merges the variants into one object with `kind` a string enum).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cel(
    rule = "self.kind != 'git' || self.url.startsWith('https://')",
    message = "git over https"
)]
pub enum Source {
    /// A git repository.
    Git {
        /// Its URL.
        url: String,
    },
    /// An image.
    Image {
        /// The reference.
        image: String,
    },
}

/// How to roll out (adjacently tagged, one payload type: `value` keeps it).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "strategy", content = "value", rename_all = "camelCase")]
#[cel(
    rule = "self.value >= 0 && self.value <= 100",
    message = "a percentage"
)]
pub enum Rollout {
    /// Canary, the share of traffic.
    Canary(i32),
    /// Blue-green, the share moved at once.
    BlueGreen(i32),
}

/// A volume.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct VolumeStorage {
    /// Size.
    #[cel(
        rule = "quantity(self).compareTo(quantity('1Ti')) <= 0",
        message = "at most 1Ti"
    )]
    pub size: String,
}

/// Flattened into the spec.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    /// Paused.
    #[serde(default)]
    pub paused: bool,
}

/// A generic pair of bounds.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
pub struct Limits<T> {
    /// Lower.
    pub min: T,
    /// Upper.
    pub max: T,
}

/// A newtype.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.size() <= 63", message = "owner too long")]
pub struct Owner(pub String);

/// A tuple struct: start and end hour. schemars renders it as `items: [..]`, which no
/// structural schema allows (kube's CRD is rejected by the apiserver); crd-cel writes the one
/// item schema both positions share.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
pub struct Window(pub u8, pub u8);

/// Status.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// Ready replicas.
    #[serde(default)]
    pub ready: i32,
}
