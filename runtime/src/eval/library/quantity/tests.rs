use super::super::testing::{call, cost, s, show};
use super::*;

/// For each quantity string: `[sign(q), q.isInteger(), q.asApproximateFloat()]` and
/// `q.asInteger()`, recorded from the apiserver v1.37.2 through tests/oracle.
const CASES: &[(&str, &str, &str)] = &[
    ("0", "VALUE:0 true 0", "VALUE:0"),
    ("1", "VALUE:1 true 1", "VALUE:1"),
    ("-1", "VALUE:-1 true -1", "VALUE:-1"),
    ("+1", "VALUE:1 true 1", "VALUE:1"),
    (
        "1.000",
        "VALUE:1 false 1",
        "ERR:cannot convert value to integer",
    ),
    (
        "1.5",
        "VALUE:1 false 1.5",
        "ERR:cannot convert value to integer",
    ),
    (
        ".5",
        "VALUE:1 false 0.5",
        "ERR:cannot convert value to integer",
    ),
    (".", "VALUE:0 true 0", "VALUE:0"),
    ("-", "VALUE:0 true 0", "VALUE:0"),
    ("+", "VALUE:0 true 0", "VALUE:0"),
    ("00012", "VALUE:1 true 12", "VALUE:12"),
    (
        "1.5Ki",
        "VALUE:1 false 1536",
        "ERR:cannot convert value to integer",
    ),
    ("1Ki", "VALUE:1 true 1024", "VALUE:1024"),
    ("1.Ki", "VALUE:1 true 1024", "VALUE:1024"),
    (
        "-1.5Ki",
        "VALUE:-1 false -1536",
        "ERR:cannot convert value to integer",
    ),
    (
        "16Ei",
        "VALUE:1 false 9.223372036854776e+18",
        "ERR:cannot convert value to integer",
    ),
    (
        "8Ei",
        "VALUE:1 false 9.223372036854776e+18",
        "ERR:cannot convert value to integer",
    ),
    (
        "-16Ei",
        "VALUE:-1 false -9.223372036854776e+18",
        "ERR:cannot convert value to integer",
    ),
    ("1E", "VALUE:1 true 1e+18", "VALUE:1000000000000000000"),
    ("1e3", "VALUE:1 true 1000", "VALUE:1000"),
    ("1E3", "VALUE:1 true 1000", "VALUE:1000"),
    (
        "1e-3",
        "VALUE:1 false 0.001",
        "ERR:cannot convert value to integer",
    ),
    ("1e+3", "VALUE:1 true 1000", "VALUE:1000"),
    (
        "1e",
        "ERR:unable to parse quantity's suffix",
        "ERR:unable to parse quantity's suffix",
    ),
    (
        "1k3",
        "ERR:unable to parse quantity's suffix",
        "ERR:unable to parse quantity's suffix",
    ),
    ("1Mi", "VALUE:1 true 1.048576e+06", "VALUE:1048576"),
    (
        "1m",
        "VALUE:1 false 0.001",
        "ERR:cannot convert value to integer",
    ),
    (
        "123n",
        "VALUE:1 false 1.23e-07",
        "ERR:cannot convert value to integer",
    ),
    (
        "0.0000000001",
        "VALUE:1 false 1e-09",
        "ERR:cannot convert value to integer",
    ),
    (
        "0.00000000015",
        "VALUE:1 false 1e-09",
        "ERR:cannot convert value to integer",
    ),
    (
        "-0.0000000001",
        "VALUE:-1 false -1e-09",
        "ERR:cannot convert value to integer",
    ),
    (
        "1.0000000001",
        "VALUE:1 false 1.000000001",
        "ERR:cannot convert value to integer",
    ),
    (
        "12345678901234567890",
        "VALUE:1 false 1.234567890123457e+19",
        "ERR:cannot convert value to integer",
    ),
    (
        "9999999999999999999999999999999999999",
        "VALUE:1 false 1.0000000000000001e+37",
        "ERR:cannot convert value to integer",
    ),
    (
        "123456789.123456789",
        "VALUE:1 false 1.2345678912345679e+08",
        "ERR:cannot convert value to integer",
    ),
    (
        "1e100",
        "VALUE:1 false 1e+100",
        "ERR:cannot convert value to integer",
    ),
    (
        "1e308",
        "VALUE:1 false 1e+308",
        "ERR:cannot convert value to integer",
    ),
    (
        "1e309",
        "VALUE:1 false +Inf",
        "ERR:cannot convert value to integer",
    ),
    (
        "1e400",
        "VALUE:1 false +Inf",
        "ERR:cannot convert value to integer",
    ),
    ("0e400", "VALUE:0 true NaN", "VALUE:0"),
    (
        "1e-400",
        "VALUE:1 false 1e-09",
        "ERR:cannot convert value to integer",
    ),
    (
        "1e-10",
        "VALUE:1 false 1e-09",
        "ERR:cannot convert value to integer",
    ),
    (
        ".e-10",
        "ERR:unable to parse numeric part of quantity",
        "ERR:unable to parse numeric part of quantity",
    ),
    (
        "1ki",
        "ERR:unable to parse quantity's suffix",
        "ERR:unable to parse quantity's suffix",
    ),
    (
        "1Ki2",
        "ERR:unable to parse quantity's suffix",
        "ERR:unable to parse quantity's suffix",
    ),
    (
        "1.2.3",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    (
        "abc",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    (
        "1 ",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    (
        " 1",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        "ERR:quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    (
        "1e9223372036854775807",
        "VALUE:1 false 0.1",
        "ERR:cannot convert value to integer",
    ),
    (
        "1e9223372036854775808",
        "ERR:unable to parse quantity's suffix",
        "ERR:unable to parse quantity's suffix",
    ),
    (
        "1.5e-5",
        "VALUE:1 false 1.4999999999999999e-05",
        "ERR:cannot convert value to integer",
    ),
    ("50.703k", "VALUE:1 true 50703", "VALUE:50703"),
    ("1P", "VALUE:1 true 1e+15", "VALUE:1000000000000000"),
    (
        "100Pi",
        "VALUE:1 false 1.125899906842624e+17",
        "ERR:cannot convert value to integer",
    ),
    (
        "0.1Ki",
        "VALUE:1 false 102.4",
        "ERR:cannot convert value to integer",
    ),
];

fn q(v: &str) -> Value {
    call("quantity", &[s(v)]).expect("valid quantity")
}

#[test]
fn parsing_and_conversions_match_the_apiserver() {
    for &(input, summary, as_integer) in CASES {
        let parsed = call("quantity", &[s(input)]);
        assert_eq!(
            show(call("isQuantity", &[s(input)])),
            format!("VALUE:{}", parsed.is_ok()),
            "isQuantity({input:?})"
        );
        let quantity = match parsed {
            Err(e) => {
                assert_eq!(format!("ERR:{}", e.message), summary, "quantity({input:?})");
                continue;
            }
            Ok(v) => v,
        };
        let want: Vec<&str> = summary.trim_start_matches("VALUE:").split(' ').collect();
        let sign = show(call("sign", std::slice::from_ref(&quantity)));
        assert_eq!(sign, format!("VALUE:{}", want[0]), "sign({input:?})");
        let is_int = show(call("isInteger", std::slice::from_ref(&quantity)));
        assert_eq!(
            is_int,
            format!("VALUE:{}", want[1]),
            "{input:?}.isInteger()"
        );
        let Ok(Value::Double(f)) = call("asApproximateFloat", std::slice::from_ref(&quantity))
        else {
            panic!("asApproximateFloat gives a double")
        };
        let expected: f64 = want[2].parse().expect("a Go float");
        assert!(
            f.to_bits() == expected.to_bits() || f.is_nan() && expected.is_nan(),
            "{input:?}.asApproximateFloat() = {f:e}, want {expected:e}"
        );
        assert_eq!(
            show(call("asInteger", &[quantity])),
            as_integer,
            "{input:?}.asInteger()"
        );
    }
}

fn eq(a: &Value, b: &Value) -> Result<bool, EvalError> {
    match (a, b) {
        (Value::Opaque(x), Value::Opaque(y)) => x.equals(&**y),
        _ => panic!("not library values"),
    }
}

#[test]
fn comparisons_and_equality() {
    // library/quantity_test.go.
    assert_eq!(eq(&q("200M"), &q("0.2G")), Ok(true));
    assert_eq!(eq(&q("2M"), &q("0.002G")), Ok(true));
    assert_eq!(eq(&q("2000k"), &q("2M")), Ok(true));
    assert_eq!(
        show(call("isLessThan", &[q("50M"), q("50Mi")])),
        "VALUE:true"
    );
    assert_eq!(
        show(call("isGreaterThan", &[q("50Mi"), q("50M")])),
        "VALUE:true"
    );
    assert_eq!(show(call("compareTo", &[q("200M"), q("0.2G")])), "VALUE:0");
    assert_eq!(
        show(call("compareTo", &[q("1e400"), q("1e399")])),
        "VALUE:1"
    );
    assert_eq!(show(call("compareTo", &[q("-1e400"), q("-1")])), "VALUE:-1");
    assert_eq!(show(call("compareTo", &[q("1.5Ki"), q("1536")])), "VALUE:0");
    assert_eq!(
        show(call("compareTo", &[q("1"), s("1")])),
        "ERR:no such overload"
    );
}

#[test]
fn add_and_sub() {
    // library/quantity_test.go: sums, differences, and the receiver left untouched.
    let sum = call("add", &[q("50k"), q("20")]).unwrap();
    assert_eq!(eq(&sum, &q("50.02k")), Ok(true));
    let diff = call("sub", &[q("50k"), q("20")]).unwrap();
    assert_eq!(eq(&diff, &q("49.98k")), Ok(true));
    let diff = call("sub", &[q("50k"), Value::Int(20)]).unwrap();
    assert_eq!(eq(&diff, &q("49980")), Ok(true));
    let x = call("add", &[q("50k"), Value::Int(20)]).unwrap();
    let x = call("sub", &[x, q("100k")]).unwrap();
    assert_eq!(
        show(call("asInteger", std::slice::from_ref(&x))),
        "VALUE:-49980"
    );
    let x = call("sub", &[x, Value::Int(-50000)]).unwrap();
    assert_eq!(show(call("asInteger", &[x])), "VALUE:20");
    let big = q("9999999999999999999999999999999999999");
    let a = call("add", &[big.clone(), q("1")]).unwrap();
    let b = call("add", &[big.clone(), q("2")]).unwrap();
    assert_eq!(show(call("compareTo", &[a, b])), "VALUE:-1");
    assert_eq!(show(call("compareTo", &[big, q("1e37")])), "VALUE:-1");
    // int64Amount.Sub negates with wrap-around: math.MinInt64 is added, not subtracted
    // (apiserver: quantity("1").sub(-9223372036854775808) == quantity("-9223372036854775807")).
    let wrapped = call("sub", &[q("1"), Value::Int(i64::MIN)]).unwrap();
    assert_eq!(
        eq(&q("-9223372036854775807"), &wrapped),
        Err(EvalError::no_such_overload())
    );
    assert_eq!(eq(&wrapped, &q("-9223372036854775807")), Ok(true));
    // Overflow of the int64 form moves to the exact decimal form.
    let over = call("add", &[q("9223372036854775807"), Value::Int(1)]).unwrap();
    assert_eq!(eq(&over, &q("9223372036854775808")), Ok(true));
    assert_eq!(show(call("isInteger", &[over])), "VALUE:false");
}

#[test]
fn go_pointer_and_in_place_conversion_quirks() {
    // `add`/`sub` results are `*Quantity`, which Go's `Equal` refuses as its argument
    // (apiserver: `quantity("50.02k") == quantity("50k").add(quantity("20"))` is
    // `no such overload`, the reverse order is true).
    let sum = call("add", &[q("50k"), q("20")]).unwrap();
    assert_eq!(eq(&q("50.02k"), &sum), Err(EvalError::no_such_overload()));
    assert_eq!(eq(&sum, &sum), Err(EvalError::no_such_overload()));
    // `Cmp` converts its receiver to inf.Dec when the other side is one, after which
    // `isInteger` is false (apiserver: `[quantity("1")].all(x,
    // x.compareTo(quantity("1.5Ki")) < 0 && x.isInteger())` fails).
    let one = q("1");
    assert_eq!(
        show(call("isInteger", std::slice::from_ref(&one))),
        "VALUE:true"
    );
    assert_eq!(
        show(call("compareTo", &[one.clone(), q("1.5Ki")])),
        "VALUE:-1"
    );
    assert_eq!(show(call("isInteger", &[one])), "VALUE:false");
}

#[test]
fn costs_match_the_upstream_cost_tests() {
    // library/cost_test.go: quantity("12Mi") costs 1; the methods 1 each.
    assert_eq!(cost("quantity", &[s("12Mi")]), 1);
    assert_eq!(cost("isQuantity", &[s("20M")]), 1);
    assert_eq!(cost("quantity", &[s("123456789012345678901")]), 3);
    assert_eq!(cost("isLessThan", &[q("50M"), q("50Mi")]), 1);
    assert_eq!(cost("add", &[q("50k"), Value::Int(20)]), 1);
}

#[test]
fn huge_exponents_are_refused_not_materialized() {
    // Go would spend minutes computing 10^2147483648 here; crd-cel gives up.
    let r = call("quantity", &[s("1e2147483648")]);
    assert!(r.is_err_and(|e| e.message.starts_with("quantity too large")));
    assert_eq!(show(call("isQuantity", &[s("1e2147483648")])), "VALUE:true");
    // Values Go keeps as int64 amounts with a large scale stay cheap.
    assert_eq!(
        show(call("compareTo", &[q("1e2000000000"), q("1")])),
        "VALUE:1"
    );
}
