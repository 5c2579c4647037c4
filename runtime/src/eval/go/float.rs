//! Go's `fmt` renderings of doubles, written once in core (`crd_cel_core::go::float`).

pub(crate) use crd_cel_core::go::float::{go_g, go_special};
