use super::super::testing::{call, cost, err, literal, ok};
use super::*;
use crate::eval::value::{Key, ListKind, Map};
use std::sync::Arc;

fn list_of(kind: ListKind, items: Vec<Value>) -> Value {
    Value::List(Arc::new(List { items, kind }))
}

fn ints(xs: &[i64]) -> Value {
    plain(xs.iter().map(|&x| Value::Int(x)).collect())
}

fn strs(xs: &[&str]) -> Value {
    plain(xs.iter().map(|&x| Value::string(x)).collect())
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
        literal(&nested)
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
    let got: Vec<_> = sorted.items.iter().map(literal).collect();
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
    let zero = |id| literal(&(overload(id).expect(id))(&empty).expect(id));
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
    assert_eq!(literal(&index_of(&l, &Value::Int(1), false)), "0");
    assert_eq!(literal(&index_of(&l, &Value::Int(1), true)), "2");
    assert_eq!(literal(&index_of(&l, &Value::Double(2.0), false)), "1");
    assert_eq!(literal(&index_of(&l, &Value::Int(4), true)), "-1");
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
