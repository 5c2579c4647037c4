//! Argument and error helpers the standard library's functions share.

use super::super::error::EvalError;
use super::super::value::Value;

pub(super) type R = Result<Value, EvalError>;

pub(super) fn overflow() -> EvalError {
    EvalError::new("integer overflow")
}

pub(super) fn uint_overflow() -> EvalError {
    EvalError::new("unsigned integer overflow")
}

pub(super) fn nso() -> EvalError {
    EvalError::no_such_overload()
}

pub(super) fn two(args: &[Value]) -> Result<(&Value, &Value), EvalError> {
    match args {
        [a, b] => Ok((a, b)),
        _ => Err(nso()),
    }
}

pub(super) fn one(args: &[Value]) -> Result<&Value, EvalError> {
    match args {
        [a] => Ok(a),
        _ => Err(nso()),
    }
}
