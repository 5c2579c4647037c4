//! CRD types in the shapes public kube-rs operators use (written for this test, not copied):
//! a pod template and the core types around it, third-party types known only by their
//! `JsonSchema`, a schema hidden behind `schema_with`, data-carrying enums, flatten, generics,
//! newtypes and tuple structs, `#[validate(..)]` attributes, an embedded `ObjectMeta`.
//!
//! [`crd::Workload`] derives `CelValidate`; [`twin::Workload`] is the same type with a plain
//! `JsonSchema` derive and no rules. The tests compare their CRDs and validate objects.

/// A schema the apiserver keeps as is: what operators put on a pod template they do not
/// want to prune (`#[schemars(schema_with = ..)]`).
pub fn preserve_unknown(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true,
    })
}

/// A duration written as `"30s"`, with a hand-written `JsonSchema` (a common operator newtype).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct GoDuration(pub String);

impl schemars::JsonSchema for GoDuration {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "GoDuration".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^[0-9]+(s|m|h)$"})
    }
}

pub mod crd;
pub mod dropin;
pub mod twin;
