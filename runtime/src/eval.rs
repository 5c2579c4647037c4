//! Evaluating rules: CEL values, the schema-driven conversion of objects to them, and (in the
//! runtime stage, issue 5) the interpreter with the apiserver's list semantics and cost.

pub mod convert;
pub mod error;
pub mod functions;
pub mod interp;
pub mod library;
pub mod lists;
pub mod node;
pub mod stdlib;
pub mod time;
pub mod value;
