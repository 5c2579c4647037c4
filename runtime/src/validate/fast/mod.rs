//! The typed fast path: a Rust value serialized straight into CEL values by its schema (no
//! `serde_json::Value` in between), with the OpenAPI and list-type checks done as the data goes
//! by, then the rules run on the result.
//!
//! It only ever answers "valid": the conversion builds exactly what
//! [`to_value`](crate::eval::convert::to_value) builds from the serialized JSON (entries in the
//! JSON object's key order, null and unknown fields hidden but counted), and the moment anything
//! could be reported (a bound or pattern not met, data the schema does not allow, a rule that is
//! not `true`, the budget) it gives up with [`Defer`], and the caller validates through the JSON
//! path, which produces the apiserver's errors. So the fast path cannot change a verdict or a
//! message; it can only skip work on objects that are valid.

//!
//! `serialize` is the value builder (a `serde::Serializer` per schema node); the rules then run
//! in the one walk ([`super::walk`]), in its first-failure mode.

use serde::ser;

mod map_key;
mod pick;
mod serialize;
#[cfg(test)]
mod tests;
mod unique;
pub(crate) mod viewed;

pub(crate) use pick::pick;
pub(crate) use serialize::serialize;
pub(crate) use unique::{SCAN_UP_TO, scalar_eq};

/// The fast path cannot answer: validate through the JSON path.
#[derive(Debug)]
pub(crate) struct Defer;

impl std::fmt::Display for Defer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("deferred to the JSON path")
    }
}

impl std::error::Error for Defer {}

impl ser::Error for Defer {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Defer
    }
}
