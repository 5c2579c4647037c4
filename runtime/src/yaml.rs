//! YAML as kubectl reads it.
//!
//! `kubectl apply` reads YAML with `sigs.k8s.io/yaml`, whose scalars follow YAML 1.1: a plain
//! `on`, `no` or `y` is a boolean, `0777` is 511, `1_000` is 1000. A YAML 1.2 writer
//! (`serde_yaml` and its forks) leaves such strings unquoted, so an enum of `["on", "off"]` in a
//! CRD printed with it reaches the apiserver as `[true, false]` and the CRD is refused.
//! [`to_string`] writes YAML that kubectl and YAML 1.2 readers both read back as the value
//! written. Reading applies merge keys (`<<: *base`) as kubectl does (`merge.rs`).

mod lines;
pub(crate) mod merge;
pub(crate) mod resolve;
mod write;

pub use lines::line_of;
pub use write::{Error, to_string};
