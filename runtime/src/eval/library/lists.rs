//! cel-go's ext.Lists (version 3: `slice`, `flatten`, `sort`, `@sortByAssociatedKeys`,
//! `lists.range`, `reverse`, `distinct`) and the Kubernetes Lists library (version 1:
//! `isSorted`, `sum`, `max`, `min`, `includes`; its `indexOf`/`lastIndexOf` share the entries of
//! ext.Strings in `strings.rs` and call [`index_of`] here).
//!
//! The helpers every library table uses (cel-go's `Compare`, `Equal(..) == true`, the Kubernetes
//! traversal cost) live here too.

use std::cmp::Ordering;

use crate::eval::error::{ErrorKind, EvalError};
use crate::eval::function::{Function, Impl};
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

/// The argument that cel-go's cost tracker of `name` asserts to be a list without checking
/// (`ext/lists.go`: `trackListDistinct`, `trackListSort`, `trackListSortBy`), so that an error
/// there panics the interpreter instead of being the call's result.
pub(crate) fn tracker_asserts_list(name: &str) -> Option<usize> {
    match name {
        "distinct" | "sort" => Some(0),
        "@sortByAssociatedKeys" => Some(1),
        _ => None,
    }
}

/// The implementation of one overload, for the callers that know which overload the checker
/// resolved. Only `sum` needs it: its result for an empty list is the zero of the overload's
/// element type (`[].sum()` on a `list(double)` is `0.0`), which the values alone cannot tell.
/// Without a resolved overload (a `list(dyn)` receiver) cel-go dispatches to the first one,
/// `list_int_sum_int`, whose accumulator starts at `0`.
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
    (n as f64 * crate::eval::function::STRING_TRAVERSAL_FACTOR) as u64
}

/// The length of a property name once escaped for CEL (`k8s.io/apiserver/pkg/cel/escaping.go`), or of the raw name
/// when it cannot be escaped.
fn escaped_len(name: &str) -> usize {
    crate::eval::names::escape_property(name).map_or(name.len(), |e| e.len())
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
        Value::String(_) | Value::Bytes(_) => 2.0 + crate::eval::function::STRING_TRAVERSAL_FACTOR,
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
mod tests;
