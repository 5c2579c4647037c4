//! cel-go's ext.Lists (version 3: `slice`, `flatten`, `sort`, `@sortByAssociatedKeys`,
//! `lists.range`, `reverse`, `distinct`) and the Kubernetes Lists library (version 1:
//! `isSorted`, `sum`, `max`, `min`, `includes`; its `indexOf`/`lastIndexOf` share the entries of
//! ext.Strings in `strings.rs` and call [`index_of`] here).
//!
//! The helpers every library table uses (cel-go's `Compare`, `Equal(..) == true`, the Kubernetes
//! traversal cost) live here too.

use std::cmp::Ordering;

use crate::eval::error::{ErrorKind, EvalError};
use crate::eval::functions::{Function, Impl};
use crate::eval::lists::equals;
use crate::eval::time::Duration;
use crate::eval::value::{List, Value};

pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "slice",
        call: slice,
        cost: Some(allocating_result_cost),
    },
    Function {
        name: "flatten",
        call: flatten,
        cost: Some(flatten_cost),
    },
    Function {
        name: "sort",
        call: sort,
        cost: Some(sort_cost),
    },
    Function {
        name: "@sortByAssociatedKeys",
        call: sort_by_associated_keys,
        cost: Some(sort_by_cost),
    },
    Function {
        name: "lists.range",
        call: range,
        cost: Some(allocating_result_cost),
    },
    Function {
        name: "reverse",
        call: reverse,
        cost: Some(allocating_result_cost),
    },
    Function {
        name: "distinct",
        call: distinct,
        cost: Some(sort_cost),
    },
    Function {
        name: "isSorted",
        call: is_sorted,
        cost: Some(receiver_traversal_cost),
    },
    Function {
        name: "sum",
        call: sum,
        cost: Some(receiver_traversal_cost),
    },
    Function {
        name: "max",
        call: max,
        cost: Some(receiver_traversal_cost),
    },
    Function {
        name: "min",
        call: min,
        cost: Some(receiver_traversal_cost),
    },
    Function {
        name: "includes",
        call: includes,
        cost: Some(receiver_traversal_cost),
    },
];

/// The implementation of one overload, for the callers that know which overload the checker
/// resolved. Only `sum` needs it: its result for an empty list is the zero of the overload's
/// element type (`[].sum()` on a `list(double)` is `0.0`), which the values alone cannot tell.
/// Without a resolved overload (a `list(dyn)` receiver) cel-go dispatches to the first one,
/// `list_int_sum_int`, whose accumulator starts at `0`.
// For the interpreter, which knows the checker's overload ids (not wired up yet).
#[allow(dead_code)]
pub(crate) fn overload(id: &str) -> Option<Impl> {
    Some(match id {
        "list_int_sum_int" => sum_int,
        "list_uint_sum_uint" => sum_uint,
        "list_double_sum_double" => sum_double,
        "list_duration_sum_duration" => sum_duration,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Shared helpers.

/// cel-go's `ListCreateBaseCost`.
const LIST_CREATE_COST: u64 = 10;

/// `lists.range`'s limit (cel-go's `defaultMaxRangeSize`).
const MAX_RANGE: i64 = 1_000_000;

/// The list a value is, if it is one.
pub(super) fn as_list(v: &Value) -> Option<&List> {
    match v {
        Value::List(l) => Some(l),
        _ => None,
    }
}

/// A new plain list.
pub(super) fn plain(items: Vec<Value>) -> Value {
    Value::list(items)
}

/// The error a value stands for, as an `Err` (cel-go returns error elements it meets as they are).
fn propagate(v: &Value) -> EvalError {
    match v {
        Value::Error(e) => (**e).clone(),
        _ => EvalError::no_such_overload(),
    }
}

/// cel-go's runtime signature check of an overload declared on a list of a concrete element
/// type: a non-empty list matches when its *first* element has an accepted type. When it does not
/// (a bad-data element, a list in a `list(dyn)`), the call fails with the signature in the
/// message, as cel-go's `MaybeNoSuchOverload` words it.
pub(super) fn first_element_guard(
    function: &str,
    args: &[Value],
    accepts: impl Fn(&Value) -> bool,
) -> Result<(), EvalError> {
    let first = args.first().and_then(as_list).and_then(|l| l.items.first());
    match first {
        Some(v) if !accepts(v) => Err(signature_mismatch(function, args)),
        _ => Ok(()),
    }
}

/// `no such overload: f(t1, t2)`.
pub(super) fn signature_mismatch(function: &str, args: &[Value]) -> EvalError {
    let types: Vec<&str> = args.iter().map(Value::type_name).collect();
    EvalError {
        kind: ErrorKind::NoSuchOverload,
        message: format!("no such overload: {function}({})", types.join(", ")),
    }
}

/// `a.Equal(b) == true`: cel-go's list searches treat an error (bad data, a set list holding
/// lists) as "not equal".
pub(super) fn equal_true(a: &Value, b: &Value) -> bool {
    matches!(equals(a, b), Ok(true))
}

/// Whether cel-go's values of this kind implement `traits.Comparer`.
fn comparable(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Bool(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
    )
}

/// cel-go's `a.Compare(b)`: `None` when it is an error (different types, a NaN). Numbers compare
/// across int, uint and double as cel-go does (a double beyond the int64 range is beyond every
/// int; otherwise the int is converted to a double).
pub(super) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    fn double_int(d: f64, i: i64) -> Option<Ordering> {
        if d < i64::MIN as f64 {
            return Some(Ordering::Less);
        }
        if d > i64::MAX as f64 {
            return Some(Ordering::Greater);
        }
        d.partial_cmp(&(i as f64))
    }
    fn double_uint(d: f64, u: u64) -> Option<Ordering> {
        if d < 0.0 {
            return Some(Ordering::Less);
        }
        if d > u64::MAX as f64 {
            return Some(Ordering::Greater);
        }
        d.partial_cmp(&(u as f64))
    }
    fn int_uint(i: i64, u: u64) -> Ordering {
        match u64::try_from(i) {
            Ok(i) => i.cmp(&u),
            Err(_) => Ordering::Less,
        }
    }
    match (a, b) {
        (Value::Double(x), _) if x.is_nan() => None,
        (_, Value::Double(y)) if y.is_nan() => None,
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Uint(y)) => Some(int_uint(*x, *y)),
        (Value::Uint(x), Value::Int(y)) => Some(int_uint(*y, *x).reverse()),
        (Value::Double(x), Value::Int(y)) => double_int(*x, *y),
        (Value::Int(x), Value::Double(y)) => double_int(*y, *x).map(Ordering::reverse),
        (Value::Double(x), Value::Uint(y)) => double_uint(*x, *y),
        (Value::Uint(x), Value::Double(y)) => double_uint(*y, *x).map(Ordering::reverse),
        (Value::String(x), Value::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Duration(x), Value::Duration(y)) => Some(x.cmp(y)),
        (Value::Timestamp(x), Value::Timestamp(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// The Kubernetes library's `traversalCost`: a string or bytes costs `floor(len * 0.1)` of its
/// *bytes*, a list the sum of its elements, a map the sum of its keys and values, anything else 1.
pub(super) fn traversal(v: &Value) -> u64 {
    match v {
        Value::String(s) => tenth(s.len()),
        Value::Bytes(b) => tenth(b.len()),
        Value::List(l) => l
            .items
            .iter()
            .fold(0u64, |acc, x| acc.saturating_add(traversal(x))),
        Value::Map(m) => {
            let mut cost = 0u64;
            for (k, v) in m.entries() {
                let key = match k {
                    // An object's iterator yields escaped property names.
                    crate::eval::value::Key::String(s) if m.object => tenth(escaped_len(s)),
                    k => traversal(&k.to_value()),
                };
                cost = cost.saturating_add(key).saturating_add(traversal(v));
            }
            if m.object {
                // The apiserver's object iterator yields a nil key (cost 1, and 1 for the
                // value it fails to find) for every field the schema does not know, and the
                // name of a null-valued property whose lookup fails (1; its name is not
                // kept, so its key is counted as a short one).
                let unknown = m.unknown().len() as u64;
                let nulls = (m.raw_len() - m.len()) as u64;
                let nulls = nulls.saturating_sub(unknown);
                cost = cost
                    .saturating_add(unknown.saturating_mul(2))
                    .saturating_add(nulls);
            }
            cost
        }
        _ => 1,
    }
}

/// `uint64(float64(n) * 0.1)`: the traversal factor, truncated.
fn tenth(n: usize) -> u64 {
    (n as f64 * crate::eval::functions::STRING_TRAVERSAL_FACTOR) as u64
}

/// The length of a property name once escaped for CEL (CEL-SEMANTICS 2), or of the raw name
/// when it cannot be escaped.
fn escaped_len(name: &str) -> usize {
    super::strings::escape_property(name).map_or(name.len(), |e| e.len())
}

/// The cost of a call that allocates a list: `size * factor + 1 + 10`, as cel-go's
/// `trackAllocatingListCall` (a negative factor counts as 1; `as` saturates where Go's
/// conversion would give an implementation-defined value, beyond any cost limit either way).
fn allocating(factor: f64, size: u64) -> u64 {
    let factor = if factor < 0.0 { 1.0 } else { factor };
    ((size as f64 * factor) as u64)
        .saturating_add(1)
        .saturating_add(LIST_CREATE_COST)
}

/// cel-go's `trackListSelfCompare`: a quadratic comparison of the list, a bit dearer for strings
/// and bytes (decided by the first element).
fn self_compare(l: &Value) -> u64 {
    let size = l.cost_size();
    let Some(first) = as_list(l).and_then(|l| l.items.first()) else {
        return allocating(2.0, 0);
    };
    let factor = match first {
        Value::String(_) | Value::Bytes(_) => 2.0 + crate::eval::functions::STRING_TRAVERSAL_FACTOR,
        _ => 2.0,
    };
    allocating(factor, size.saturating_mul(size))
}

fn allocating_result_cost(_: &[Value], result: &Value) -> u64 {
    allocating(1.0, result.cost_size())
}

fn flatten_cost(args: &[Value], _: &Value) -> u64 {
    let depth = match args.get(1) {
        Some(Value::Int(d)) => *d as f64,
        _ => 1.0,
    };
    allocating(depth, args.first().map_or(1, Value::cost_size))
}

fn sort_cost(args: &[Value], _: &Value) -> u64 {
    args.first().map_or(1, self_compare)
}

fn sort_by_cost(args: &[Value], _: &Value) -> u64 {
    args.get(1).map_or(1, self_compare)
}

/// The Kubernetes `CallCost` of `isSorted`, `sum`, `max`, `min`, `indexOf`, `lastIndexOf` and
/// `includes`: one traversal of the receiver (also for the string overloads of `indexOf`).
pub(super) fn receiver_traversal_cost(args: &[Value], _: &Value) -> u64 {
    args.first().map_or(0, traversal)
}

// ---------------------------------------------------------------------------------------------
// ext.Lists.

fn slice(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::List(l), Value::Int(start), Value::Int(end)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let (start, end) = (*start, *end);
    if start < 0 || end < 0 {
        return Err(EvalError::new(format!(
            "cannot slice({start}, {end}), negative indexes not supported"
        )));
    }
    if start > end {
        return Err(EvalError::new(format!(
            "cannot slice({start}, {end}), start index must be less than or equal to end index"
        )));
    }
    let len = l.items.len();
    let (s, e) = (start as usize, end as usize);
    match l.items.get(s..e) {
        Some(part) if e <= len => Ok(plain(part.to_vec())),
        _ => Err(EvalError::new(format!(
            "cannot slice({start}, {end}), list is length {len}"
        ))),
    }
}

fn flatten(args: &[Value]) -> Result<Value, EvalError> {
    let (l, depth) = match args {
        [Value::List(l)] => (l, 1),
        [Value::List(l), Value::Int(d)] => (l, *d),
        _ => return Err(EvalError::no_such_overload()),
    };
    if depth < 0 {
        return Err(EvalError::new("level must be non-negative"));
    }
    let mut out = Vec::with_capacity(l.items.len());
    flatten_into(&l.items, depth, &mut out);
    Ok(plain(out))
}

fn flatten_into(items: &[Value], depth: i64, out: &mut Vec<Value>) {
    for v in items {
        match v {
            Value::List(inner) if depth > 0 => flatten_into(&inner.items, depth - 1, out),
            _ => out.push(v.clone()),
        }
    }
}

fn sort(args: &[Value]) -> Result<Value, EvalError> {
    let [list @ Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    sorted_by_keys(list, l, &l.items)
}

fn sort_by_associated_keys(args: &[Value]) -> Result<Value, EvalError> {
    let [list @ Value::List(l), Value::List(keys)] = args else {
        return Err(EvalError::no_such_overload());
    };
    sorted_by_keys(list, l, &keys.items)
}

/// cel-go's `sortListByAssociatedKeys`: the elements of `l` ordered by their keys. An empty list
/// is returned as it is (with its list type).
fn sorted_by_keys(list: &Value, l: &List, keys: &[Value]) -> Result<Value, EvalError> {
    if l.items.len() != keys.len() {
        return Err(EvalError::new(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            l.items.len(),
            keys.len()
        )));
    }
    let Some(first) = keys.first() else {
        return Ok(list.clone());
    };
    if !comparable(first) {
        return Err(EvalError::new("list elements must be comparable"));
    }
    // Go's comparator flags any pair of keys of different types, and every key takes part in
    // at least one comparison: the check is the same done up front.
    if keys.iter().any(|k| k.type_name() != first.type_name()) {
        return Err(EvalError::new("list elements must have the same type"));
    }
    let less = |i: usize, j: usize| compare(&keys[i], &keys[j]) == Some(Ordering::Less);
    let mut order: Vec<usize> = (0..keys.len()).collect();
    sort_indices(&mut order, &less);
    Ok(plain(order.iter().map(|&i| l.items[i].clone()).collect()))
}

/// Go's `sort.Slice` sorts up to 12 elements by insertion sort, which this reproduces exactly
/// (also with the inconsistent answers a NaN gives). Longer lists use a stable merge sort: the
/// same result whenever equal keys mean indistinguishable elements, but Go's pattern-defeating
/// quicksort may order the elements of equal keys differently (`sortBy` with duplicate keys).
fn sort_indices(order: &mut [usize], less: &impl Fn(usize, usize) -> bool) {
    const INSERTION_MAX: usize = 12;
    if order.len() <= INSERTION_MAX {
        for i in 1..order.len() {
            let mut j = i;
            while j > 0 && less(order[j], order[j - 1]) {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    // Bottom-up merge sort: never panics, whatever the comparator answers.
    let mut buf = order.to_vec();
    let n = order.len();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                if less(order[j], order[i]) {
                    buf[k] = order[j];
                    j += 1;
                } else {
                    buf[k] = order[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - i)].copy_from_slice(&order[i..mid]);
            k += mid - i;
            buf[k..k + (end - j)].copy_from_slice(&order[j..end]);
            start = end;
        }
        order.copy_from_slice(&buf);
        width *= 2;
    }
}

fn range(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::Int(n)] = args else {
        return Err(EvalError::no_such_overload());
    };
    if *n < 0 {
        return Err(EvalError::new(format!(
            "lists.range: size must be non-negative, got {n}"
        )));
    }
    if *n > MAX_RANGE {
        return Err(EvalError::new(format!(
            "lists.range: size {n} exceeds maximum allowed ({MAX_RANGE})"
        )));
    }
    Ok(plain((0..*n).map(Value::Int).collect()))
}

fn reverse(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(plain(l.items.iter().rev().cloned().collect()))
}

fn distinct(args: &[Value]) -> Result<Value, EvalError> {
    let [list @ Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    if l.items.is_empty() {
        return Ok(list.clone());
    }
    let mut unique: Vec<Value> = Vec::with_capacity(l.items.len());
    for v in &l.items {
        // The later element is the left operand, as in cel-go.
        if !unique.iter().any(|u| equal_true(v, u)) {
            unique.push(v.clone());
        }
    }
    Ok(plain(unique))
}

// ---------------------------------------------------------------------------------------------
// Kubernetes Lists.

fn is_sorted(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    first_element_guard("isSorted", args, comparable)?;
    let mut prev: Option<&Value> = None;
    for next in &l.items {
        if !comparable(next) {
            return Err(propagate(next));
        }
        // A comparison error (a NaN, mixed types) does not count as out of order.
        if let Some(p) = prev
            && compare(p, next) == Some(Ordering::Greater)
        {
            return Ok(Value::Bool(false));
        }
        prev = Some(next);
    }
    Ok(Value::Bool(true))
}

/// `min` and `max`: the first element, replaced by every later one that compares as preferred.
fn extreme(args: &[Value], name: &str, replace_when: Ordering) -> Result<Value, EvalError> {
    let [Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    first_element_guard(name, args, comparable)?;
    let mut best: Option<&Value> = None;
    for next in &l.items {
        if !comparable(next) {
            return Err(propagate(next));
        }
        best = match best {
            Some(b) if compare(b, next) != Some(replace_when) => Some(b),
            _ => Some(next),
        };
    }
    best.cloned()
        .ok_or_else(|| EvalError::new(format!("{name} called on empty list")))
}

fn max(args: &[Value]) -> Result<Value, EvalError> {
    extreme(args, "max", Ordering::Less)
}

fn min(args: &[Value]) -> Result<Value, EvalError> {
    extreme(args, "min", Ordering::Greater)
}

/// `sum` by name: the accumulator starts at the zero of the first element's type (what the
/// checker's overload gives for every statically typed non-empty list), `0` for an empty list.
/// [`overload`] gives the per-overload implementations.
fn sum(args: &[Value]) -> Result<Value, EvalError> {
    first_element_guard("sum", args, |v| {
        matches!(
            v,
            Value::Int(_) | Value::Uint(_) | Value::Double(_) | Value::Duration(_)
        )
    })?;
    let zero = match args {
        [Value::List(l)] => match l.items.first() {
            Some(Value::Uint(_)) => Value::Uint(0),
            Some(Value::Double(_)) => Value::Double(0.0),
            Some(Value::Duration(_)) => Value::Duration(Duration { nanos: 0 }),
            _ => Value::Int(0),
        },
        _ => return Err(EvalError::no_such_overload()),
    };
    sum_from(args, zero)
}

fn sum_int(args: &[Value]) -> Result<Value, EvalError> {
    first_element_guard("sum", args, |v| matches!(v, Value::Int(_)))?;
    sum_from(args, Value::Int(0))
}

fn sum_uint(args: &[Value]) -> Result<Value, EvalError> {
    first_element_guard("sum", args, |v| matches!(v, Value::Uint(_)))?;
    sum_from(args, Value::Uint(0))
}

fn sum_double(args: &[Value]) -> Result<Value, EvalError> {
    first_element_guard("sum", args, |v| matches!(v, Value::Double(_)))?;
    sum_from(args, Value::Double(0.0))
}

fn sum_duration(args: &[Value]) -> Result<Value, EvalError> {
    first_element_guard("sum", args, |v| matches!(v, Value::Duration(_)))?;
    sum_from(args, Value::Duration(Duration { nanos: 0 }))
}

/// cel-go's `acc.Add(next)` over the list, with its overflow errors.
fn sum_from(args: &[Value], zero: Value) -> Result<Value, EvalError> {
    let [Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let overflow = || EvalError::new("integer overflow");
    let mut acc = zero;
    for next in &l.items {
        acc = match (&acc, next) {
            (_, Value::Error(e)) => return Err((**e).clone()),
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_add(*b).ok_or_else(overflow)?),
            (Value::Uint(a), Value::Uint(b)) => Value::Uint(
                a.checked_add(*b)
                    .ok_or_else(|| EvalError::new("unsigned integer overflow"))?,
            ),
            (Value::Double(a), Value::Double(b)) => Value::Double(a + b),
            (Value::Duration(a), Value::Duration(b)) => Value::Duration(Duration {
                nanos: a.nanos.checked_add(b.nanos).ok_or_else(overflow)?,
            }),
            _ => return Err(EvalError::no_such_overload()),
        };
    }
    Ok(acc)
}

fn includes(args: &[Value]) -> Result<Value, EvalError> {
    let [target, arg] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::Bool(match target {
        Value::List(l) => l.items.iter().any(|item| equal_true(item, arg)),
        _ => equal_true(target, arg),
    }))
}

/// The Kubernetes list overloads of `indexOf` and `lastIndexOf`: the first (last) position whose
/// element equals the argument, `-1` when none does.
pub(super) fn index_of(l: &List, item: &Value, last: bool) -> Value {
    let found = if last {
        l.items.iter().rposition(|x| equal_true(x, item))
    } else {
        l.items.iter().position(|x| equal_true(x, item))
    };
    Value::Int(found.map_or(-1, |i| i as i64))
}

/// `list.contains(x)` for the set functions, as the apiserver's data lists answer it: an error
/// argument is returned, an element equal to it gives true, otherwise the first comparison error
/// (a data error element), otherwise false.
pub(super) fn contains(l: &List, x: &Value) -> Result<bool, EvalError> {
    if let Value::Error(e) = x {
        return Err((**e).clone());
    }
    let mut first_err = None;
    for item in &l.items {
        match equals(item, x) {
            Ok(true) => return Ok(true),
            Ok(false) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::functions::lookup;
    use crate::eval::value::{Key, ListKind, Map};
    use std::sync::Arc;

    fn list_of(kind: ListKind, items: Vec<Value>) -> Value {
        Value::List(Arc::new(List { items, kind }))
    }

    fn call(name: &str, args: &[Value]) -> Result<Value, EvalError> {
        let f = lookup(name).unwrap_or_else(|| panic!("{name} not registered"));
        (f.call)(args)
    }

    fn cost(name: &str, args: &[Value]) -> u64 {
        let f = lookup(name).unwrap_or_else(|| panic!("{name} not registered"));
        let result = match (f.call)(args) {
            Ok(v) => v,
            Err(e) => Value::Error(Arc::new(e)),
        };
        f.cost_of(args, &result)
    }

    fn ints(xs: &[i64]) -> Value {
        plain(xs.iter().map(|&x| Value::Int(x)).collect())
    }

    fn strs(xs: &[&str]) -> Value {
        plain(xs.iter().map(|&x| Value::string(x)).collect())
    }

    /// A short rendering of results for assertions.
    fn show(v: &Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::Uint(u) => format!("{u}u"),
            Value::Double(d) => format!("{d:?}"),
            Value::String(s) => format!("{s:?}"),
            Value::Bool(b) => b.to_string(),
            Value::Duration(d) => format!("{}ns", d.nanos),
            Value::List(l) => format!(
                "[{}]",
                l.items.iter().map(show).collect::<Vec<_>>().join(", ")
            ),
            other => format!("{other:?}"),
        }
    }

    fn ok(name: &str, args: &[Value]) -> String {
        show(&call(name, args).unwrap_or_else(|e| panic!("{name}: {e}")))
    }

    fn err(name: &str, args: &[Value]) -> String {
        match call(name, args) {
            Ok(v) => panic!("{name} gave {}", show(&v)),
            Err(e) => e.message,
        }
    }

    fn bad() -> Value {
        Value::Error(Arc::new(EvalError::new("bad data")))
    }

    #[test]
    fn slice_checks_bounds_with_cel_go_messages() {
        assert_eq!(
            ok(
                "slice",
                &[ints(&[1, 2, 3, 4]), Value::Int(1), Value::Int(3)]
            ),
            "[2, 3]"
        );
        assert_eq!(
            ok("slice", &[ints(&[1, 2]), Value::Int(2), Value::Int(2)]),
            "[]"
        );
        assert_eq!(
            err(
                "slice",
                &[ints(&[1, 2, 3, 4]), Value::Int(-1), Value::Int(3)]
            ),
            "cannot slice(-1, 3), negative indexes not supported"
        );
        assert_eq!(
            err(
                "slice",
                &[ints(&[1, 2, 3, 4]), Value::Int(3), Value::Int(1)]
            ),
            "cannot slice(3, 1), start index must be less than or equal to end index"
        );
        assert_eq!(
            err(
                "slice",
                &[ints(&[1, 2, 3, 4]), Value::Int(1), Value::Int(5)]
            ),
            "cannot slice(1, 5), list is length 4"
        );
        // Measured on the apiserver: 2 elements + 1 + 10; an error result has size 1.
        assert_eq!(
            cost(
                "slice",
                &[ints(&[1, 2, 3, 4]), Value::Int(1), Value::Int(3)]
            ),
            13
        );
        assert_eq!(
            cost(
                "slice",
                &[ints(&[1, 2, 3, 4]), Value::Int(1), Value::Int(5)]
            ),
            12
        );
    }

    #[test]
    fn flatten_descends_to_the_given_depth() {
        let nested = plain(vec![
            Value::Int(1),
            plain(vec![Value::Int(2), plain(vec![Value::Int(3), ints(&[4])])]),
        ]);
        assert_eq!(
            ok("flatten", std::slice::from_ref(&nested)),
            "[1, 2, [3, [4]]]"
        );
        assert_eq!(
            ok("flatten", &[nested.clone(), Value::Int(2)]),
            "[1, 2, 3, [4]]"
        );
        assert_eq!(
            ok("flatten", &[nested.clone(), Value::Int(0)]),
            show(&nested)
        );
        assert_eq!(
            err("flatten", &[nested.clone(), Value::Int(-1)]),
            "level must be non-negative"
        );
        let lists = plain(vec![ints(&[1]), ints(&[2, 3]), ints(&[])]);
        assert_eq!(ok("flatten", std::slice::from_ref(&lists)), "[1, 2, 3]");
        // [[1],[2,3],[]].flatten() cost 14 on the apiserver: 3 * 1 + 11.
        assert_eq!(cost("flatten", &[lists]), 14);
        assert_eq!(cost("flatten", &[nested, Value::Int(3)]), 2 * 3 + 11);
    }

    #[test]
    fn sort_orders_comparable_keys_and_rejects_mixed_ones() {
        assert_eq!(ok("sort", &[ints(&[3, 1, 2])]), "[1, 2, 3]");
        assert_eq!(
            ok("sort", &[strs(&["b", "a", "c", "a"])]),
            r#"["a", "a", "b", "c"]"#
        );
        let empty_set = list_of(ListKind::Set, vec![]);
        let Ok(Value::List(same)) = call("sort", std::slice::from_ref(&empty_set)) else {
            panic!("empty sort")
        };
        assert_eq!(same.kind, ListKind::Set, "an empty list is returned as is");
        // The apiserver gives [1.0, NaN, 0.5]: comparisons with NaN are errors, never "less".
        let with_nan = plain(vec![
            Value::Double(1.0),
            Value::Double(f64::NAN),
            Value::Double(0.5),
        ]);
        assert_eq!(ok("sort", &[with_nan]), "[1.0, NaN, 0.5]");
        assert_eq!(
            err("sort", &[plain(vec![ints(&[1]), ints(&[2])])]),
            "list elements must be comparable"
        );
        assert_eq!(
            err("sort", &[plain(vec![Value::Int(1), Value::Uint(1)])]),
            "list elements must have the same type"
        );
        assert_eq!(
            err("sort", &[plain(vec![Value::Int(1), bad()])]),
            "list elements must have the same type"
        );
        // Longer lists go through the merge sort.
        let long: Vec<i64> = (0..40).map(|i| (i * 17) % 40).collect();
        let Ok(Value::List(sorted)) = call("sort", &[ints(&long)]) else {
            panic!("sort")
        };
        let got: Vec<_> = sorted.items.iter().map(show).collect();
        let want: Vec<_> = (0..40).map(|i: i64| i.to_string()).collect();
        assert_eq!(got, want);
        // Costs measured on the apiserver: 2 * 3^2 + 11, and 2.1 * 4^2 + 11 for strings.
        assert_eq!(cost("sort", &[ints(&[3, 1, 2])]), 29);
        assert_eq!(cost("sort", &[strs(&["b", "a", "c", "a"])]), 44);
        assert_eq!(cost("sort", &[plain(vec![])]), 11);
    }

    #[test]
    fn sort_by_associated_keys_orders_by_the_keys_list() {
        let people = strs(&["carol", "alice", "bob"]);
        let ages = ints(&[35, 20, 35]);
        assert_eq!(
            ok("@sortByAssociatedKeys", &[people.clone(), ages.clone()]),
            r#"["alice", "carol", "bob"]"#,
            "ties keep their order"
        );
        assert_eq!(
            err("@sortByAssociatedKeys", &[people.clone(), ints(&[1])]),
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 3 and 1 elements respectively"
        );
        // The cost follows the keys: [3,1,2].sortBy(x, -x)'s call is 2 * 9 + 11.
        assert_eq!(cost("@sortByAssociatedKeys", &[people, ages]), 29);
    }

    #[test]
    fn range_reverse_and_distinct() {
        assert_eq!(ok("lists.range", &[Value::Int(3)]), "[0, 1, 2]");
        assert_eq!(ok("lists.range", &[Value::Int(0)]), "[]");
        assert_eq!(
            err("lists.range", &[Value::Int(-1)]),
            "lists.range: size must be non-negative, got -1"
        );
        assert_eq!(
            err("lists.range", &[Value::Int(1_000_001)]),
            "lists.range: size 1000001 exceeds maximum allowed (1000000)"
        );
        assert_eq!(cost("lists.range", &[Value::Int(3)]), 14);
        assert_eq!(cost("lists.range", &[Value::Int(-1)]), 12);
        assert_eq!(ok("reverse", &[ints(&[1, 2, 3])]), "[3, 2, 1]");
        assert_eq!(cost("reverse", &[ints(&[1, 2, 3])]), 14);
        assert_eq!(ok("distinct", &[ints(&[1, 2, 2, 1, 3])]), "[1, 2, 3]");
        assert_eq!(
            ok(
                "distinct",
                &[plain(vec![
                    Value::Int(1),
                    Value::Double(1.0),
                    Value::Uint(1),
                    Value::Int(2)
                ])]
            ),
            "[1, 2]",
            "numbers are equal across types"
        );
        assert_eq!(cost("distinct", &[ints(&[1, 2, 2, 1, 3])]), 61);
        assert_eq!(cost("distinct", &[strs(&["a", "b", "a"])]), 29);
    }

    #[test]
    fn is_sorted_min_and_max() {
        assert_eq!(ok("isSorted", &[ints(&[1, 2, 2, 3])]), "true");
        assert_eq!(ok("isSorted", &[ints(&[3, 1, 2])]), "false");
        assert_eq!(ok("isSorted", &[plain(vec![])]), "true");
        assert_eq!(ok("isSorted", &[strs(&["a", "b"])]), "true");
        assert_eq!(
            ok(
                "isSorted",
                &[plain(vec![Value::Int(3), Value::Int(1), bad()])]
            ),
            "false",
            "stops at the first descent before reaching the bad element"
        );
        assert_eq!(
            err("isSorted", &[plain(vec![Value::Int(1), bad()])]),
            "bad data"
        );
        // A first element of the wrong type fails cel-go's runtime signature check (measured:
        // `[dyn(null), dyn(1)].isSorted()`, `[dyn([1]), dyn(2)].max()`).
        assert_eq!(
            err("isSorted", &[plain(vec![Value::Null, Value::Int(1)])]),
            "no such overload: isSorted(list)"
        );
        assert_eq!(
            err("isSorted", &[plain(vec![bad(), Value::Int(1)])]),
            "no such overload: isSorted(list)"
        );
        assert_eq!(
            err("max", &[plain(vec![ints(&[1]), Value::Int(2)])]),
            "no such overload: max(list)"
        );
        assert_eq!(
            call("min", &[plain(vec![bad()])]).unwrap_err().kind,
            ErrorKind::NoSuchOverload
        );
        assert_eq!(
            err("max", &[plain(vec![Value::Int(2), ints(&[1])])]),
            "no such overload"
        );
        assert_eq!(
            ok("max", &[plain(vec![Value::Int(2), Value::string("a")])]),
            "2",
            "a comparison error is not a preference"
        );
        assert_eq!(
            err("isSorted", &[plain(vec![ints(&[1])])]),
            "no such overload: isSorted(list)"
        );
        assert_eq!(ok("max", &[ints(&[1, 3, 2])]), "3");
        assert_eq!(ok("min", &[ints(&[1, 3, 2])]), "1");
        assert_eq!(ok("min", &[strs(&["b", "a"])]), r#""a""#);
        assert_eq!(err("max", &[plain(vec![])]), "max called on empty list");
        assert_eq!(err("min", &[plain(vec![])]), "min called on empty list");
        assert_eq!(
            ok(
                "max",
                &[plain(vec![
                    Value::Int(1),
                    Value::Double(2.5),
                    Value::Uint(2)
                ])]
            ),
            "2.5",
            "numbers compare across types"
        );
        // Traversal costs measured on the apiserver: 1 per number, floor(bytes * 0.1) per string.
        assert_eq!(cost("isSorted", &[ints(&[1, 2, 3])]), 3);
        assert_eq!(cost("isSorted", &[strs(&["a", "b"])]), 0);
        assert_eq!(cost("max", &[plain(vec![])]), 0);
    }

    #[test]
    fn sum_uses_the_element_zero_and_reports_overflow() {
        assert_eq!(ok("sum", &[ints(&[1, 2, 3])]), "6");
        assert_eq!(
            ok(
                "sum",
                &[plain(vec![Value::Double(1.5), Value::Double(2.5)])]
            ),
            "4.0"
        );
        assert_eq!(
            ok("sum", &[plain(vec![Value::Uint(1), Value::Uint(2)])]),
            "3u"
        );
        let secs = |s: i64| {
            Value::Duration(Duration {
                nanos: s * 1_000_000_000,
            })
        };
        assert_eq!(ok("sum", &[plain(vec![secs(1), secs(2)])]), "3000000000ns");
        assert_eq!(ok("sum", &[plain(vec![])]), "0");
        assert_eq!(err("sum", &[ints(&[i64::MAX, 1])]), "integer overflow");
        assert_eq!(
            err("sum", &[plain(vec![Value::Uint(u64::MAX), Value::Uint(1)])]),
            "unsigned integer overflow"
        );
        assert_eq!(
            err("sum", &[plain(vec![Value::Int(1), Value::Double(1.0)])]),
            "no such overload"
        );
        assert_eq!(err("sum", &[plain(vec![Value::Int(1), bad()])]), "bad data");
        assert_eq!(
            err("sum", &[plain(vec![bad(), Value::Int(1)])]),
            "no such overload: sum(list)"
        );
        assert_eq!(
            err("sum", &[plain(vec![Value::string("a"), Value::Int(1)])]),
            "no such overload: sum(list)"
        );
        assert_eq!(
            (overload("list_double_sum_double").expect("double sum"))(&[ints(&[1])])
                .unwrap_err()
                .message,
            "no such overload: sum(list)"
        );
        // Per overload, an empty list sums to that type's zero.
        let empty = [plain(vec![])];
        let zero = |id| show(&(overload(id).expect(id))(&empty).expect(id));
        assert_eq!(zero("list_int_sum_int"), "0");
        assert_eq!(zero("list_uint_sum_uint"), "0u");
        assert_eq!(zero("list_double_sum_double"), "0.0");
        assert_eq!(zero("list_duration_sum_duration"), "0ns");
        assert!(overload("list_int_max_int").is_none());
        assert_eq!(cost("sum", &[ints(&[1, 2, 3])]), 3);
    }

    #[test]
    fn includes_index_of_and_contains() {
        assert_eq!(ok("includes", &[ints(&[1, 2, 3]), Value::Int(2)]), "true");
        assert_eq!(ok("includes", &[ints(&[1, 2, 3]), Value::Int(5)]), "false");
        assert_eq!(ok("includes", &[Value::Int(3), Value::Int(3)]), "true");
        assert_eq!(
            ok(
                "includes",
                &[plain(vec![bad(), Value::Int(2)]), Value::Int(2)]
            ),
            "true",
            "bad elements compare unequal"
        );
        assert_eq!(cost("includes", &[ints(&[1, 2, 3]), Value::Int(2)]), 3);
        assert_eq!(
            cost(
                "includes",
                &[Value::string("abcdefghijklmnopqrst"), Value::string("x")]
            ),
            2
        );
        let Value::List(l) = ints(&[1, 2, 1]) else {
            unreachable!()
        };
        assert_eq!(show(&index_of(&l, &Value::Int(1), false)), "0");
        assert_eq!(show(&index_of(&l, &Value::Int(1), true)), "2");
        assert_eq!(show(&index_of(&l, &Value::Double(2.0), false)), "1");
        assert_eq!(show(&index_of(&l, &Value::Int(4), true)), "-1");
        let Value::List(with_bad) = plain(vec![bad(), Value::Int(1)]) else {
            unreachable!()
        };
        assert_eq!(contains(&with_bad, &Value::Int(1)), Ok(true));
        assert_eq!(
            contains(&with_bad, &Value::Int(2)).unwrap_err().message,
            "bad data"
        );
        assert_eq!(contains(&l, &bad()).unwrap_err().message, "bad data");
    }

    #[test]
    fn traversal_costs_follow_the_data() {
        let obj = Value::Map(Arc::new(Map::object(
            vec![
                (Key::String("a-very-long-name".into()), Value::Int(1)),
                (Key::String("s".into()), Value::string("0123456789")),
            ],
            2,
            vec![(Arc::from("extra"), Arc::new(serde_json::json!(1)))],
        )));
        // "a__dash__very__dash__long__dash__name" is 37 bytes: 3; its value 1; "s" 0, its value 1;
        // the unknown field 2 and the null-valued property 1.
        assert_eq!(traversal(&obj), 3 + 1 + 1 + 2 + 1);
        let map = Value::Map(Arc::new(Map::new(vec![(
            Key::String("a-very-long-name".into()),
            Value::Bool(true),
        )])));
        assert_eq!(traversal(&map), 1 + 1);
        assert_eq!(
            traversal(&Value::string("é".repeat(10))),
            2,
            "bytes, not runes"
        );
    }

    #[test]
    fn compare_follows_cel_go_across_numbers() {
        use Ordering::*;
        assert_eq!(compare(&Value::Int(-1), &Value::Uint(0)), Some(Less));
        assert_eq!(
            compare(&Value::Uint(u64::MAX), &Value::Int(1)),
            Some(Greater)
        );
        assert_eq!(
            compare(&Value::Double(1e19), &Value::Int(i64::MAX)),
            Some(Greater)
        );
        assert_eq!(compare(&Value::Int(2), &Value::Double(1.5)), Some(Greater));
        assert_eq!(compare(&Value::Double(-0.5), &Value::Uint(0)), Some(Less));
        assert_eq!(compare(&Value::Double(f64::NAN), &Value::Int(1)), None);
        assert_eq!(compare(&Value::Int(1), &Value::string("1")), None);
        assert_eq!(compare(&Value::Bool(false), &Value::Bool(true)), Some(Less));
    }
}
