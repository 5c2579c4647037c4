//! Calling the registered functions from the libraries' unit tests.

use super::super::error::EvalError;
use super::super::functions::lookup;
use super::super::value::Value;
use std::sync::Arc;

/// Calls the function registered under `name`.
pub(crate) fn call(name: &str, args: &[Value]) -> Result<Value, EvalError> {
    let f = lookup(name).unwrap_or_else(|| panic!("{name} is not registered"));
    (f.call)(args)
}

/// The runtime cost of calling `name` with `args`, given its result (an error as the evaluator
/// passes it, as a value).
pub(crate) fn cost(name: &str, args: &[Value]) -> u64 {
    let f = lookup(name).unwrap_or_else(|| panic!("{name} is not registered"));
    let result = (f.call)(args).unwrap_or_else(|e| Value::Error(Arc::new(e)));
    f.cost_of(args, &result)
}

/// A string value.
pub(crate) fn s(v: &str) -> Value {
    Value::string(v)
}

/// The outcome as the probe vectors print it: `VALUE:<string(x)>` or `ERR:<message>`.
pub(crate) fn show(r: Result<Value, EvalError>) -> String {
    match r {
        Err(e) => format!("ERR:{}", e.message),
        Ok(v) => format!("VALUE:{}", text(&v)),
    }
}

/// `string(x)` for the values the tests print.
pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Double(d) => d.to_string(),
        Value::Opaque(o) => o
            .to_cel_string()
            .unwrap_or_else(|| format!("<{}>", o.type_name())),
        Value::List(l) => {
            let items: Vec<String> = l.items.iter().map(text).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Optional(None) => "optional.none()".into(),
        Value::Optional(Some(v)) => format!("optional.of({})", text(v)),
        other => format!("{other:?}"),
    }
}

/// A short rendering of a value for assertions: strings quoted, unsigned integers with `u`,
/// durations in nanoseconds.
pub(crate) fn literal(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => format!("{u}u"),
        Value::Double(d) => format!("{d:?}"),
        Value::String(s) => format!("{s:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Duration(d) => format!("{}ns", d.nanos),
        Value::List(l) => format!(
            "[{}]",
            l.items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        other => format!("{other:?}"),
    }
}

/// The result of a call that must succeed, as [`literal`] renders it.
pub(crate) fn ok(name: &str, args: &[Value]) -> String {
    literal(&call(name, args).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// The message of a call that must fail.
pub(crate) fn err(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => panic!("{name} gave {}", literal(&v)),
        Err(e) => e.message,
    }
}
