//! Implementation detail of [crd-cel](https://docs.rs/crd-cel): the CEL type model, the parser
//! front end and the checker, shared by the `CelValidate` derive at expansion time and by the
//! `crd-cel` runtime. Use `crd-cel`; this crate's API is not semver-stable.

pub mod ast;
pub mod check;
pub mod convert;
pub mod cost;
pub mod crd;
pub mod decl;
pub mod env;
pub mod go;
pub mod literals;
pub mod model;
pub mod msg;
pub mod names;
pub mod release;
pub mod size;
pub mod syntax;
pub(crate) mod typed;
pub mod types;

// Fingerprints are a function of model nodes (the generated models carry precomputed ones).
pub use model::fingerprint;
pub use model::{
    CelSchema, CostList, Costs, Decoration, ExprCosts, ListType, MapType, Property, Reason, Rule,
    Rules, Schema, Type,
};
