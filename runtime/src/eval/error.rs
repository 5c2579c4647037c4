//! Evaluation errors, with cel-go's texts (the apiserver prints them verbatim, `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`).

use std::fmt;

/// Why an evaluation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No overload of the function accepts the argument values (`no such overload`).
    NoSuchOverload,
    /// The per-call cost limit was exceeded
    /// (`operation cancelled: actual cost limit exceeded`).
    CostLimit,
    /// Anything else (`no such key: x`, `division by zero`, invalid data, ...).
    Other,
}

/// An evaluation error: its kind and cel-go's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError {
    /// The kind, which decides how the apiserver reports it.
    pub kind: ErrorKind,
    /// The message, as cel-go words it.
    pub message: String,
}

impl EvalError {
    /// An error of kind [`ErrorKind::Other`].
    pub fn new(message: impl Into<String>) -> EvalError {
        EvalError {
            kind: ErrorKind::Other,
            message: message.into(),
        }
    }

    /// `no such overload`.
    pub fn no_such_overload() -> EvalError {
        EvalError {
            kind: ErrorKind::NoSuchOverload,
            message: "no such overload".into(),
        }
    }

    /// `no such key: <key>`.
    pub fn no_such_key(key: impl fmt::Display) -> EvalError {
        EvalError::new(format!("no such key: {key}"))
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}
