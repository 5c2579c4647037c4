//! The `Database` custom resource: a PostgreSQL cluster the operator runs from a pod template.
//!
//! Copy this crate, rename the types and fields, and keep the shape. What crd-cel adds to a
//! kube-rs CRD type:
//!
//! - `#[derive(CelValidate)]` *instead of* `schemars::JsonSchema` (it implements `JsonSchema`
//!   itself; deriving both is a conflicting-implementations error), on every type of the CRD
//!   that is yours. k8s-openapi's types (`PodTemplateSpec`, `Quantity`) need nothing.
//! - `#[cel(rule = "...", message = "...")]` on the struct (the rule's `self` is the whole
//!   spec) or on a field (`self` is that field). They become the CRD's
//!   `x-kubernetes-validations`, which the apiserver runs on every create and update.
//! - Every rule is parsed, type-checked against the schema and cost-estimated at `cargo build`,
//!   as the apiserver does when the CRD is created: a typo, a type error or a rule over the
//!   cost limits is a compile error on the rule (README.md shows one).
//! - `spec.validate()` and `spec.validate_update(&old)` give the apiserver's verdict and text
//!   without a cluster (tests/rules.rs).
//!
//! Doc comments on the types and fields (`///`) are the CRD's descriptions, what
//! `kubectl explain database.spec` prints; the notes for you are `//` comments.

use crd_cel::CelValidate;
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// A PostgreSQL cluster: `replicas` instances (one primary, the others standbys) run from
/// `template`.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "db.example.com",
    version = "v1",
    kind = "Database",
    namespaced,
    shortname = "db"
)]
// Rule 1, across fields: on the struct, `self` is the spec, and the error's path is `spec`.
#[cel(
    rule = "self.syncReplicas < self.replicas",
    message = "syncReplicas must be less than replicas (one instance is the primary)"
)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseSpec {
    /// PostgreSQL major version. It can be upgraded, never downgraded.
    // Rule 2, a transition rule: `oldSelf` is the stored value. It runs on updates only (and
    // only when the field is set on both sides), so a create with any version passes it.
    // `range` is an OpenAPI bound (`minimum`/`maximum`), checked before the rules.
    #[schemars(range(min = 14, max = 18))]
    #[cel(
        rule = "self >= oldSelf",
        message = "the major version cannot go down: restore a backup into a new Database"
    )]
    pub version: i32,

    /// Number of instances, the primary included.
    #[schemars(range(min = 1, max = 9))]
    pub replicas: i32,

    /// Number of standbys the primary waits for on each commit (synchronous replication).
    // `#[serde(default)]` makes the field optional, with `default: 0` in the CRD: the
    // apiserver stores 0 when it is absent.
    #[serde(default)]
    pub sync_replicas: i32,

    /// Size of each instance's volume, such as `10Gi`.
    pub storage: Quantity,

    /// The pods of the instances. The operator adds the `postgres` container's command.
    // Rule 3, into k8s-openapi's types: type-checked at `cargo build` like your own fields
    // (a typo such as `c.resource` is a compile error listing the Container's fields).
    // k8s-openapi's lists and strings have no bounds, so the apiserver's cost estimate takes
    // every list as long as a request allows: per container, `has(..)`, `in`, `startsWith`
    // and `endsWith` fit the limits; scanning each string (`contains`, `matches`) or a loop
    // in a loop does not (README.md, and the guide's "Rules over pod templates").
    // `spec` is optional in a PodTemplateSpec, hence `!has(self.spec) ||`.
    #[cel(
        rule = "!has(self.spec) || self.spec.containers.all(c, \
                has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)",
        message = "every container must set a memory limit"
    )]
    pub template: PodTemplateSpec,
}
