//! Limits crd-cel puts on what the string functions build.

use crate::eval::error::EvalError;

/// Results above this many bytes are refused rather than built: `replace` and `join` can
/// multiply their inputs' sizes while their cost only counts the inputs, and the apiserver would
/// try to allocate such a string (gigabytes from a few megabytes of data).
pub(crate) const MAX_RESULT_BYTES: usize = 64 << 20;

/// The error for a result beyond [`MAX_RESULT_BYTES`].
pub(crate) fn too_large(function: &str) -> EvalError {
    EvalError::new(format!(
        "{function}: result larger than {MAX_RESULT_BYTES} bytes (refused by crd-cel)"
    ))
}
