//! cel-go's ext.Sets (`ext/sets.go`): `sets.contains`, `sets.equivalent` and `sets.intersects`
//! over lists of any element type, with CEL equality (so `[1]` contains `1.0`).

use super::lists::contains;
use crate::eval::error::EvalError;
use crate::eval::function::Function;
use crate::eval::value::{List, Value};

pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "sets.contains",
        call: sets_contains,
        cost: Some(product_cost::<1>),
    },
    Function {
        name: "sets.equivalent",
        call: sets_equivalent,
        cost: Some(product_cost::<2>),
    },
    Function {
        name: "sets.intersects",
        call: sets_intersects,
        cost: Some(product_cost::<1>),
    },
];

/// cel-go's `trackSetsCost`: `1 + size(a) * size(b) * factor` (Go's product wraps).
fn product_cost<const FACTOR: u64>(args: &[Value], _: &Value) -> u64 {
    let size = |i: usize| args.get(i).map_or(1, Value::cost_size);
    let product = size(0).wrapping_mul(size(1));
    1u64.saturating_add((product as f64 * FACTOR as f64) as u64)
}

fn two_lists(args: &[Value]) -> Result<(&List, &List), EvalError> {
    match args {
        [Value::List(a), Value::List(b)] => Ok((a, b)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Every element of `sub` is in `list`; the first element that is not found (or whose search
/// fails) decides.
fn all_in(list: &List, sub: &List) -> Result<bool, EvalError> {
    for x in &sub.items {
        if !contains(list, x)? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn sets_contains(args: &[Value]) -> Result<Value, EvalError> {
    let (list, sub) = two_lists(args)?;
    all_in(list, sub).map(Value::Bool)
}

fn sets_equivalent(args: &[Value]) -> Result<Value, EvalError> {
    let (a, b) = two_lists(args)?;
    Ok(Value::Bool(all_in(a, b)? && all_in(b, a)?))
}

/// True as soon as one element of `a` is in `b`; search errors count as "not found" here, as
/// cel-go only looks for a true answer.
fn sets_intersects(args: &[Value]) -> Result<Value, EvalError> {
    let (a, b) = two_lists(args)?;
    Ok(Value::Bool(
        a.items.iter().any(|x| matches!(contains(b, x), Ok(true))),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::functions::lookup;
    use crate::eval::value::ListKind;
    use std::sync::Arc;

    fn ints(xs: &[i64]) -> Value {
        Value::list(xs.iter().map(|&x| Value::Int(x)).collect())
    }

    fn call(name: &str, a: Value, b: Value) -> Result<bool, String> {
        let f = lookup(name).unwrap_or_else(|| panic!("{name}"));
        match (f.call)(&[a, b]) {
            Ok(Value::Bool(x)) => Ok(x),
            Ok(other) => panic!("{name} gave {other:?}"),
            Err(e) => Err(e.message),
        }
    }

    fn cost(name: &str, a: Value, b: Value) -> u64 {
        let f = lookup(name).unwrap_or_else(|| panic!("{name}"));
        f.cost_of(&[a, b], &Value::Bool(true))
    }

    #[test]
    fn sets_functions_use_cel_equality() {
        assert_eq!(
            call("sets.contains", ints(&[1, 2, 3]), ints(&[2, 3])),
            Ok(true)
        );
        assert_eq!(
            call("sets.contains", ints(&[1, 2, 3]), ints(&[2, 4])),
            Ok(false)
        );
        assert_eq!(call("sets.contains", ints(&[]), ints(&[])), Ok(true));
        assert_eq!(call("sets.contains", ints(&[]), ints(&[1])), Ok(false));
        assert_eq!(
            call(
                "sets.contains",
                ints(&[1, 2]),
                Value::list(vec![Value::Double(1.0), Value::Uint(2)])
            ),
            Ok(true)
        );
        assert_eq!(
            call("sets.equivalent", ints(&[1, 2, 3]), ints(&[3, 2, 1, 1])),
            Ok(true)
        );
        assert_eq!(
            call("sets.equivalent", ints(&[1, 2]), ints(&[1, 2, 3])),
            Ok(false)
        );
        assert_eq!(
            call("sets.intersects", ints(&[1, 2]), ints(&[3, 2])),
            Ok(true)
        );
        assert_eq!(call("sets.intersects", ints(&[1, 2]), ints(&[])), Ok(false));
        let nested = Value::list(vec![ints(&[1, 2]), ints(&[3])]);
        assert_eq!(
            call(
                "sets.contains",
                nested.clone(),
                Value::list(vec![ints(&[3])])
            ),
            Ok(true)
        );
        assert_eq!(
            call("sets.intersects", nested, Value::list(vec![ints(&[2, 1])])),
            Ok(false)
        );
    }

    #[test]
    fn bad_data_fails_a_search_that_finds_nothing() {
        let bad = Value::Error(Arc::new(EvalError::new("bad data")));
        let data = Value::List(Arc::new(List {
            items: vec![bad.clone(), Value::Int(1)],
            kind: ListKind::Set,
        }));
        assert_eq!(call("sets.contains", data.clone(), ints(&[1])), Ok(true));
        assert_eq!(
            call("sets.contains", data.clone(), ints(&[2])),
            Err("bad data".into())
        );
        assert_eq!(call("sets.intersects", data.clone(), ints(&[2])), Ok(false));
        assert_eq!(call("sets.intersects", ints(&[3]), data), Ok(false));
    }

    #[test]
    fn costs_are_the_product_of_the_sizes() {
        // Measured on the apiserver: 1 + 3*2, 1, 1 + 3*4*2, 1 + 2*2.
        assert_eq!(cost("sets.contains", ints(&[1, 2, 3]), ints(&[2, 3])), 7);
        assert_eq!(cost("sets.contains", ints(&[]), ints(&[])), 1);
        assert_eq!(
            cost("sets.equivalent", ints(&[1, 2, 3]), ints(&[3, 2, 1, 1])),
            25
        );
        assert_eq!(cost("sets.intersects", ints(&[1, 2]), ints(&[3, 2])), 5);
    }
}
