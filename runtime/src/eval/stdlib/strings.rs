//! The string functions: `contains`, `startsWith`, `endsWith`, `matches`.

use super::super::error::EvalError;
use super::super::go::regex::compiled_regex;
use super::super::value::Value;
use super::args::*;

pub(super) fn strings2(args: &[Value]) -> Result<(&str, &str), EvalError> {
    match args {
        [Value::String(a), Value::String(b)] => Ok((a, b)),
        _ => Err(nso()),
    }
}

pub(super) fn contains(args: &[Value]) -> R {
    let (a, b) = strings2(args)?;
    Ok(Value::Bool(a.contains(b)))
}

pub(super) fn starts_with(args: &[Value]) -> R {
    let (a, b) = strings2(args)?;
    Ok(Value::Bool(a.starts_with(b)))
}

pub(super) fn ends_with(args: &[Value]) -> R {
    let (a, b) = strings2(args)?;
    Ok(Value::Bool(a.ends_with(b)))
}

pub(super) fn matches(args: &[Value]) -> R {
    let (s, re) = strings2(args)?;
    Ok(Value::Bool(compiled_regex(re)?.is_match(s)))
}
