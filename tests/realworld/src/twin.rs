//! The same types with a plain `JsonSchema` derive (rules removed): what kube generates without crd-cel.

use crate::GoDuration;
use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1::{EnvVar, PodTemplateSpec, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The spec of a workload, in the shapes operators use.
#[derive(CustomResource, JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "realworld.example.com",
    version = "v1",
    kind = "Workload",
    namespaced,
    status = "WorkloadStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// How many.
    pub replicas: i32,
    /// A pod template (a k8s-openapi type beyond the common ones).
    pub template: PodTemplateSpec,
    /// Environment for every container.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// Requests and limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    /// Tolerations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// chrono.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<DateTime<Utc>>,
    /// uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<uuid::Uuid>,
    /// url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<url::Url>,
    /// semver, schema given by `with`.
    #[schemars(with = "String")]
    pub version: semver::Version,
    /// A pod template kept whole (`schema_with`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::preserve_unknown")]
    pub raw_template: Option<PodTemplateSpec>,
    /// Externally tagged enum.
    pub storage: Storage,
    /// Internally tagged enum: kube's rewriting panics on it (kube-rs issue 1279), so the twin
    /// leaves it out of its schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub source: Option<Source>,
    /// Adjacently tagged enum: as above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
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
    pub timeout: Option<GoDuration>,
    /// Embedded ObjectMeta (an ordinary object here, not the resource's metadata: a rule sees
    /// every field, not only `name` and `generateName`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<ObjectMeta>,
    /// std types schemars knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<std::num::NonZeroU16>,
    /// Labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Resources per container, keyed by an enum (a map key that is not a `String`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub container_resources: BTreeMap<ContainerName, ResourceRequirements>,
    /// A port by number or name (an untagged enum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<PortRef>,
}

/// The containers of a workload, by role.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum ContainerName {
    /// The application.
    Main,
    /// The proxy beside it.
    Sidecar,
}

/// A port by number or by name.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum PortRef {
    /// By number.
    Number(i32),
    /// By name.
    Name(String),
}

/// Where data lives (externally tagged, data-carrying).
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
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

/// Where the code comes from (internally tagged).
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "kind", rename_all = "camelCase")]
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

/// How to roll out (adjacently tagged).
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "strategy", content = "value", rename_all = "camelCase")]
pub enum Rollout {
    /// Canary, the share of traffic.
    Canary(i32),
    /// Blue-green, the share moved at once.
    BlueGreen(i32),
}

/// A volume.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct VolumeStorage {
    /// Size.
    pub size: String,
}

/// Flattened into the spec.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    /// Paused.
    #[serde(default)]
    pub paused: bool,
}

/// A generic pair of bounds.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Limits<T> {
    /// Lower.
    pub min: T,
    /// Upper.
    pub max: T,
}

/// A newtype.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Owner(pub String);

/// A tuple struct: start and end hour. schemars renders it as `items: [..]`, which no
/// structural schema allows (kube's CRD is rejected by the apiserver); crd-cel writes the one
/// item schema both positions share.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
pub struct Window(pub u8, pub u8);

/// Status.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// Ready replicas.
    #[serde(default)]
    pub ready: i32,
}
