//! Evaluating rules: CEL values, the schema-driven conversion of objects to them, and the
//! interpreter with cel-go's semantics, the apiserver's list semantics and its runtime cost.
//!
//! The public surface is what running a rule by hand needs: build a [`SchemaNode`] from a model,
//! turn a JSON object into a [`Value`] with [`to_value`], [`Program::compile`] a rule and
//! [`Program::eval`] it. Everything else (the function libraries, the planner, the Go ports) is
//! internal.
//!
//! The modules, in the order the data flows:
//! - `convert` (JSON to [`Value`], against the schema tree, `crate::tree`), `value`,
//!   `time`, `lists` (the values and list/map semantics), `error`;
//! - `interp` (planning, read analysis and evaluation of a program);
//! - `functions` (the table the planner resolves calls in), assembled from `stdlib` and
//!   `library` (one module per Kubernetes library), which declare their functions with the
//!   types of the leaf `function`;
//! - `go` (ports of Go's `net/netip`, `net/url`, RE2 and `%g`) and `names` (property-name
//!   escaping), leaves shared with `validate`.

pub(crate) mod convert;
pub(crate) mod error;
mod function;
mod functions;
pub(crate) mod go;
pub(crate) mod interp;
mod library;
pub(crate) mod lists;
mod names;
mod stdlib;
pub(crate) mod time;
pub(crate) mod value;
pub(crate) mod view;

pub use crate::tree::{SchemaNode, StringFormat};
pub use convert::to_value;
pub use error::{ErrorKind, EvalError};
pub use interp::{Evaluation, Need, PlanError, Program};
pub use time::{Duration, Timestamp};
pub use value::{Key, List, ListKind, Map, Opaque, Value};
