//! Drop-in on real operators' code: CRD types in the shapes public kube-rs operators write
//! (written for this crate, not copied), each built twice from one source: with
//! `CelValidate`, and as upstream.
//!
//! Every shape module writes its types once, in a `macro_rules!`, and instantiates it twice:
//!
//! - `celvalidate`: `#[derive(CelValidate)]` where the operator wrote `JsonSchema` (or kube's
//!   `KubeSchema`), plus the `#[cel(..)]` rules the shape adds;
//! - `jsonschema`: what upstream writes, `JsonSchema` (or `KubeSchema` on the structs with
//!   `#[x_kube(..)]`), without the `#[cel(..)]` rules.
//!
//! So the only differences are the derive and the `#[cel(..)]` attributes, which the macros
//! write as `#[cfg_attr($on(), cel(..))]`: `all()` (always) in `celvalidate`, `any()` (never)
//! in `jsonschema`.
//!
//! | module | shape | forms |
//! | --- | --- | --- |
//! | [`database`] | a PostgreSQL cluster | `schemars(extend("x-kubernetes-validations" = ..))` on the spec, on a nested struct and on fields (JSON literals and `serde_json::json!` items), `extend("x-kubernetes-list-type" = "map", ..)` on `Option<Vec<..>>` and on `Vec<Condition>`, `serde(default = "f", skip_serializing_if = ..)` defaulting an `Option` to `Some`, `Quantity`, `ResourceRequirements`, `BTreeMap` |
//! | [`gateway`] | an ingress gateway | untagged `Port { Number(NonZeroU16), Name(String) }`, untagged enums of `Ipv4Addr`/`Ipv6Addr` and of `IpAddr`/`String`, `schemars(length(..), extend(..))` together, `extend` on an enum, unit enums, `#[cel]` rules |
//! | [`certificate`] | a certificate issuer | kube's `#[x_kube(validation = Rule::new(..).message(..))]` with `.reason(..)`, `.field_path(..)` and `.optional_old_self(true)` in any order, the `(rule, message)` tuple form, `Message::Expression`, `#[kube(validation = ..)]` root rules, plain string rules |
//! | [`autoscaler`] | a horizontal autoscaler | `schemars(schema_with = "..", default)` on an `Option`, defaults of `Some(struct)`, externally tagged enums with `rename_all_fields`, `LabelSelector`, `Quantity`, two `extend`s next to `length`, `#[cel]` rules over enums |
//! | [`backup`] | a scheduled backup | `PodTemplateSpec` and `#[cel]` rules reading into it, `serde(flatten)`, `Option<Vec<String>>`, externally tagged enums with newtype and struct variants, `LabelSelector`, `BTreeMap` labels |
//! | [`route`] | an HTTP route (Gateway API bindings' style) | `#[serde(flatten)]` of an `Option` of a struct that flattens another, `Option<Vec<..>>`, a `#[cel]` rule over the merged properties |
//! | [`platform`] | a data-platform product on shared "commons" types | a generic struct with a defaulted `T = ()` parameter it flattens, inside another generic struct's `Option<Options<O>>`, instantiated with `()` and with a struct; a flattened untagged enum; a type deriving the schema without `Serialize`; validator's `#[validate(regex(path = "NAME"))]`; `#[schemars(description = "")]`; a generic struct instantiated with another crate's type that has no model |
//! | [`pipeline`] | a UI task pipeline | a generic struct with `#[schemars(bound = "Spec: Default + JsonSchema")]` and `#[serde(bound)]` whose `#[serde(default)]` field is the parameter, defaulting to `serde_json::Map<String, Value>`; garde's `length`, `pattern`, `skip`; kube's `root` |
//! | [`mesh`] | a service-mesh traffic policy | `KubeSchema` shapes: `#[x_kube]` next to `schemars(length, extend)` on one field, `#[kube(validation = ..)]` root rules as a string, a tuple and `Rule::new`, unit enums |
//!
//! [`merge`] has kube's `#[x_kube(merge_strategy = ..)]`, read as the list and map types it means.

use schemars::{Schema, SchemaGenerator, json_schema};

pub mod autoscaler;
pub mod backup;
pub mod certificate;
pub mod database;
pub mod gateway;
pub mod merge;
pub mod mesh;
pub mod pipeline;
pub mod platform;
pub mod route;

/// The schema operators give an integer-or-percentage field by hand (`"25%"` or `3`), the
/// way k8s-openapi's `IntOrString` is written, nullable because the field is an `Option`.
pub fn int_or_percent(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "x-kubernetes-int-or-string": true,
        "nullable": true,
    })
}

/// A cron schedule written as a plain string with a pattern (five fields), by hand.
pub fn cron_schedule(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": "^(\\S+\\s+){4}\\S+$",
    })
}
