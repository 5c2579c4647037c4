//! What the apiserver checks on a validation rule when a CRD is created, written once in
//! `const fn`: the derive's const items run it at `cargo build` through `crd_cel::__private`,
//! which re-exports it; the runtime's CRD-creation checks (`crd_cel::crd`, behind `crd-cel
//! check`) share the rule field and `fieldPath` checks.
//!
//! - [`rule_fields`]: the fields of an `x-kubernetes-validations` entry before any compiling
//!   (`message`, `messageExpression`, `reason`, `fieldPath`, `optionalOldSelf`).
//! - [`field_path`]: `fieldPath` resolution (`ValidFieldPath`) and its const check.
//! - [`expression`]: the type check of one rule or `messageExpression` against its node.
//! - `expression_cost`: a rule over the per-expression cost limit, and the bounds that would
//!   make it fit.
//! - [`cost`]: the CRD-wide cost limits over a resource root.
//! - [`old_self`]: where `oldSelf` may be used (`optionalOldSelf`, correlatable list items).
//! - [`decoration`]: list and map attributes against the field's schema (`listType`,
//!   `x-kubernetes-list-map-keys`, item and property bounds).
//! - `rule_name`: how the messages name a rule (``CEL rule #0 on `Spec` ``).
//!
//! No module here uses one that uses it: `expression` uses `expression_cost`, `old_self` uses
//! `rule_fields`, `rule_fields` uses `field_path`, and `expression`, `expression_cost` and
//! `old_self` use `rule_name`, a leaf; the others stand alone.

pub mod cost;
pub mod decoration;
pub mod expression;
mod expression_cost;
pub mod field_path;
pub mod old_self;
pub mod rule_fields;
mod rule_name;
