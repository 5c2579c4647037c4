use super::*;
use crate::eval::functions::lookup;
use std::sync::Arc;

fn s(x: &str) -> Value {
    Value::string(x)
}

fn list(items: Vec<Value>) -> Value {
    Value::list(items)
}

fn fmt(f: &str, args: Vec<Value>) -> Result<String, String> {
    let call = lookup("format").expect("format registered").call;
    match call(&[s(f), list(args)]) {
        Ok(Value::String(out)) => Ok(out.to_string()),
        Ok(other) => panic!("format gave {other:?}"),
        Err(e) => Err(e.message),
    }
}

fn ok(f: &str, args: Vec<Value>) -> String {
    fmt(f, args).unwrap_or_else(|e| panic!("{f}: {e}"))
}

fn err(f: &str, args: Vec<Value>) -> String {
    fmt(f, args).expect_err(f)
}

fn d(x: f64) -> Value {
    Value::Double(x)
}

fn secs(n: i64) -> Value {
    Value::Duration(Duration {
        nanos: n * 1_000_000_000,
    })
}

fn ts(secs: i64, nanos: u32) -> Value {
    Value::Timestamp(Timestamp::utc(secs, nanos))
}

// Expected texts below come from cel-go's formatting_test.go or, where marked, were
// measured with the apiserver's stored-expressions environment (cel-go v0.29.2, x/text
// v0.40.0).

#[test]
fn substitutions_and_percent_escapes() {
    assert_eq!(ok("no substitution", vec![]), "no substitution");
    assert_eq!(
        ok("str is %s and some more", vec![s("filler")]),
        "str is filler and some more"
    );
    assert_eq!(ok("%% and also %%", vec![]), "% and also %");
    assert_eq!(ok("%%%s%%", vec![s("text")]), "%text%");
    assert_eq!(
        ok(
            "%d %d %d, %s %s %s",
            vec![
                Value::Int(1),
                Value::Int(2),
                Value::Int(3),
                s("A"),
                s("B"),
                s("C")
            ]
        ),
        "1 2 3, A B C"
    );
    assert_eq!(ok("héllo %s wörld", vec![s("ü")]), "héllo ü wörld");
}

#[test]
fn parse_errors_have_cel_go_texts() {
    assert_eq!(
        err("%a", vec![Value::Int(1)]),
        "could not parse formatting clause: unrecognized formatting clause \"a\""
    );
    assert_eq!(
        err("%d %d %d", vec![Value::Int(0), Value::Int(1)]),
        "index 2 out of range"
    );
    assert_eq!(err("filler %", vec![]), "index 0 out of range");
    assert_eq!(
        err("filler %", vec![Value::Int(1)]),
        "unexpected end of string"
    );
    assert_eq!(
        err("%.", vec![Value::Int(1)]),
        "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
    );
    assert_eq!(
        err("%.1", vec![Value::Int(1)]),
        "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
    );
    assert_eq!(
        err("%.x", vec![Value::Int(1)]),
        "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax"
    );
    assert_eq!(
        err("%.99999999999999999999f", vec![d(1.0)]),
        "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"99999999999999999999\": value out of range"
    );
    assert_eq!(
        err("%é", vec![Value::Int(1)]),
        "could not parse formatting clause: unrecognized formatting clause \"Ã\""
    );
    assert_eq!(
        err("double is %E", vec![d(0.5)]),
        "could not parse formatting clause: unrecognized formatting clause \"E\""
    );
}

#[test]
fn type_errors_name_the_type() {
    let cases = [
        (
            "string is %b",
            s("abc"),
            "only integers and bools can be formatted as binary, was given string",
        ),
        (
            "%d",
            secs(1),
            "decimal clause can only be used on integers, was given google.protobuf.Duration",
        ),
        (
            "octal: %o",
            s("a string"),
            "octal clause can only be used on integers, was given string",
        ),
        (
            "double is %x",
            d(0.5),
            "only integers, byte buffers, and strings can be formatted as hex, was given double",
        ),
        (
            "null: %d",
            Value::Null,
            "decimal clause can only be used on integers, was given null_type",
        ),
        (
            "null: %e",
            Value::Null,
            "scientific clause can only be used on doubles, was given null_type",
        ),
        (
            "null: %f",
            Value::Null,
            "fixed-point clause can only be used on doubles, was given null_type",
        ),
        (
            "%.3f",
            s("1.5"),
            "fixed-point clause can only be used on doubles, was given string",
        ),
        (
            "%f",
            Value::Int(1),
            "fixed-point clause can only be used on doubles, was given int",
        ),
        (
            "%s",
            Value::some(Value::Int(1)),
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type",
        ),
    ];
    for (f, arg, want) in cases {
        assert_eq!(
            err(f, vec![arg]),
            format!("error during formatting: {want}"),
            "{f}"
        );
    }
    let bad = Value::Error(Arc::new(EvalError::new("bad data")));
    assert_eq!(
        err("%s", vec![list(vec![bad])]),
        "error during formatting: no formatting function for error"
    );
    assert_eq!(
        err("%s", vec![Value::Bytes(Arc::from(&b"\xff"[..]))]),
        "error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string"
    );
}

#[test]
fn integers_in_every_base() {
    assert_eq!(
        ok("this is 5 in binary: %b", vec![Value::Int(5)]),
        "this is 5 in binary: 101"
    );
    assert_eq!(ok("%b", vec![Value::Int(-5)]), "-101");
    assert_eq!(ok("%b", vec![Value::Uint(64)]), "1000000");
    assert_eq!(ok("%b", vec![Value::Bool(true)]), "1");
    assert_eq!(ok("%b", vec![Value::Bool(false)]), "0");
    assert_eq!(ok("%o", vec![Value::Int(11)]), "13");
    assert_eq!(ok("%o", vec![Value::Int(-11)]), "-13");
    assert_eq!(ok("%o", vec![Value::Uint(65535)]), "177777");
    assert_eq!(ok("%x", vec![Value::Int(30)]), "1e");
    assert_eq!(ok("%X", vec![Value::Int(30)]), "1E");
    assert_eq!(ok("%x", vec![Value::Int(-30)]), "-1e");
    assert_eq!(ok("%x", vec![Value::Int(i64::MIN)]), "-8000000000000000");
    assert_eq!(ok("%X", vec![Value::Uint(6000)]), "1770");
    assert_eq!(
        ok("%x", vec![s("Hello world!")]),
        "48656c6c6f20776f726c6421"
    );
    assert_eq!(
        ok("%X", vec![s("Hello world!")]),
        "48656C6C6F20776F726C6421"
    );
    assert_eq!(
        ok(
            "%x",
            vec![Value::Bytes(Arc::from(&b"\x00\x00byte string\x00"[..]))]
        ),
        "00006279746520737472696e6700"
    );
    assert_eq!(ok("%d", vec![Value::Uint(64)]), "64");
    assert_eq!(ok("%s", vec![Value::Int(999999999999)]), "999999999999");
}

#[test]
fn fixed_point_is_localized_for_en_us() {
    assert_eq!(ok("%.3f", vec![d(1.2345)]), "1.234");
    assert_eq!(ok("%f", vec![d(2.71828)]), "2.718280");
    // Measured on the apiserver.
    assert_eq!(ok("%f", vec![d(1234567.891)]), "1,234,567.891000");
    assert_eq!(ok("%.2f", vec![d(-1234.5)]), "-1,234.50");
    assert_eq!(ok("%.2f", vec![d(-0.001)]), "-0.00");
    assert_eq!(ok("%f", vec![d(-0.0)]), "0.000000");
    assert_eq!(ok("%.0f", vec![d(2.5)]), "2");
    assert_eq!(ok("%.0f", vec![d(3.5)]), "4");
    assert_eq!(ok("%.1f", vec![d(0.25)]), "0.2");
    assert_eq!(ok("%.2f", vec![d(0.125)]), "0.12");
    assert_eq!(ok("%.0f", vec![d(1234567.0)]), "1,234,567");
    assert_eq!(ok("%.256f", vec![d(1.5)]), "1.5");
    assert_eq!(ok("%.300f", vec![d(1.5)]), format!("1.5{}", "0".repeat(43)));
    assert_eq!(
        ok("%.40000f", vec![d(1.5)]),
        format!("1.5{}", "0".repeat(63))
    );
    assert_eq!(ok("%.100000000f", vec![d(1.5)]), "%!(NOVERB)");
    assert_eq!(
        ok("%f", vec![d(1e21)]),
        "1,000,000,000,000,000,000,000.000000"
    );
    assert_eq!(
        ok("%f", vec![d(123456789012345678901234567890.0)]),
        "123,456,789,012,345,677,877,719,597,056.000000"
    );
    assert_eq!(ok("%f", vec![s("NaN")]), "NaN");
    assert_eq!(ok("%f", vec![s("Infinity")]), "∞");
    assert_eq!(ok("%f", vec![s("-Infinity")]), "-∞");
    assert_eq!(ok("%.3f", vec![d(0.05)]), "0.050");
    assert_eq!(ok("%.3f", vec![d(-1e-7)]), "-0.000");
    // int16(32768) is negative: the shortest representation, no minimum.
    assert_eq!(ok("%.32768f", vec![d(0.1)]), "0.1");
    // int16(65536) is 0, uint8(65537) is 1.
    assert_eq!(ok("%.65536f", vec![d(2.5)]), "2");
    assert_eq!(ok("%.65537f", vec![d(2.5)]), "2.5");
    // The largest precision x/text still reads: shortest digits, uint8 gives 137 decimals.
    assert_eq!(ok("%.10000009f", vec![d(2.5)]).len(), 139);
    assert_eq!(ok("%.10000010f", vec![d(2.5)]), "%!(NOVERB)");
}

#[test]
fn scientific_takes_the_precision_as_a_width() {
    // Measured on the apiserver (newer x/text than cel-go's test expectations: no narrow
    // no-break spaces around the ×).
    assert_eq!(ok("%.6e", vec![d(1052.032911275)]), "1.052033×10⁰³");
    assert_eq!(ok("%e", vec![d(2.71828)]), "2.718280×10⁰⁰");
    assert_eq!(ok("%e", vec![d(-0.000123)]), "-1.230000×10⁻⁰⁴");
    assert_eq!(ok("%e", vec![d(1e100)]), "1.000000×10¹⁰⁰");
    assert_eq!(ok("%e", vec![d(1e-100)]), "1.000000×10⁻¹⁰⁰");
    assert_eq!(ok("%e", vec![s("NaN")]), "   NaN");
    assert_eq!(ok("%.10e", vec![s("Infinity")]), "         ∞");
    assert_eq!(ok("%.20e", vec![d(1.0)]), "       1.000000×10⁰⁰");
    assert_eq!(ok("%.0e", vec![d(1.0)]), "1.000000×10⁰⁰");
    assert_eq!(ok("%e", vec![d(9.9999999)]), "1.000000×10⁰¹");
    assert_eq!(ok("%e", vec![d(0.0)]), "0.000000×10⁰⁰");
    assert_eq!(ok("%e", vec![d(-0.0)]), "0.000000×10⁰⁰");
    assert_eq!(ok("%e", vec![d(5e-324)]), "4.940656×10⁻³²⁴");
    assert_eq!(ok("%e", vec![d(f64::MAX)]), "1.797693×10³⁰⁸");
    assert_eq!(ok("%.3e", vec![d(123.456)]), "1.234560×10⁰²");
    assert_eq!(ok("%.1000e", vec![d(1.0)]).chars().count(), 1000);
    assert_eq!(ok("%.10000010e", vec![d(1.0)]), "%!(NOVERB)");
}

#[test]
fn string_clause_prints_like_string_conversions() {
    assert_eq!(ok("%s", vec![d(2.71)]), "2.71");
    assert_eq!(ok("%s", vec![d(0.000000002)]), "2e-09");
    assert_eq!(ok("%s", vec![d(1234567.0)]), "1.234567e+06");
    assert_eq!(ok("%s", vec![d(123456.0)]), "123456");
    assert_eq!(ok("%s", vec![d(0.0001)]), "0.0001");
    assert_eq!(ok("%s", vec![d(0.00001)]), "1e-05");
    assert_eq!(ok("%s", vec![d(1e21)]), "1e+21");
    assert_eq!(ok("%s", vec![d(-0.0)]), "-0");
    assert_eq!(ok("%s", vec![d(1.0)]), "1");
    assert_eq!(ok("%s", vec![d(f64::NAN)]), "NaN");
    assert_eq!(ok("%s", vec![d(f64::INFINITY)]), "+Inf");
    assert_eq!(ok("%s", vec![d(f64::NEG_INFINITY)]), "-Inf");
    assert_eq!(ok("null: %s", vec![Value::Null]), "null: null");
    assert_eq!(
        ok("some bytes: %s", vec![Value::Bytes(Arc::from(&b"xyz"[..]))]),
        "some bytes: xyz"
    );
    assert_eq!(
        ok("type is %s", vec![Value::Type("string".into())]),
        "type is string"
    );
    assert_eq!(ok("%s", vec![ts(1675467080, 0)]), "2023-02-03T23:31:20Z");
    assert_eq!(
        ok("%s", vec![ts(1672531200, 120_000_000)]),
        "2023-01-01T00:00:00.12Z"
    );
    assert_eq!(ok("%s", vec![secs(6347)]), "6347s");
    assert_eq!(
        ok("%s", vec![Value::Duration(Duration { nanos: 2 })]),
        "0.000000002s"
    );
    assert_eq!(ok("%s", vec![secs(-5400)]), "-5400s");
    assert_eq!(
        ok(
            "true bool: %s, false bool: %s",
            vec![Value::Bool(true), Value::Bool(false)]
        ),
        "true bool: true, false bool: false"
    );
}

#[test]
fn lists_and_maps_quote_their_elements() {
    assert_eq!(ok("%s", vec![list(vec![d(2.71)])]), "[2.710000]");
    assert_eq!(ok("%s", vec![list(vec![d(0.000000002)])]), "[0.000000]");
    assert_eq!(
        ok(
            "%s",
            vec![list(vec![
                s("abc"),
                d(3.14),
                Value::Null,
                list(vec![Value::Int(9), Value::Int(8)]),
                ts(1675467080, 0)
            ])]
        ),
        r#"["abc", 3.140000, null, [9, 8], timestamp("2023-02-03T23:31:20Z")]"#
    );
    assert_eq!(
        ok(
            "%s",
            vec![list(vec![
                d(f64::NAN),
                d(f64::INFINITY),
                d(f64::NEG_INFINITY),
                d(-0.0)
            ])]
        ),
        r#"["NaN", "+Inf", "-Inf", -0.000000]"#
    );
    assert_eq!(
        ok(
            "%s",
            vec![list(vec![
                Value::Duration(Duration {
                    nanos: 1_500_000_000
                }),
                Value::Duration(Duration { nanos: -1 }),
                Value::Type("int".into()),
                Value::Bool(true),
                Value::Uint(1),
            ])]
        ),
        r#"[duration("1.5s"), duration("-0.000000001s"), int, true, 1]"#
    );
    let map = Value::Map(Arc::new(Map::new(vec![
        (
            Key::String("key1".into()),
            Value::Bytes(Arc::from(&b"xyz"[..])),
        ),
        (Key::String("key5".into()), Value::Null),
        (Key::String("key2".into()), secs(7200)),
        (Key::String("key4".into()), Value::Bool(true)),
        (Key::String("key3".into()), d(2.71828)),
    ])));
    assert_eq!(
        ok("%s", vec![map]),
        r#"{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}"#
    );
    let mixed = Value::Map(Arc::new(Map::new(vec![
        (Key::Int(1), Value::Int(2)),
        (Key::Bool(true), Value::Int(3)),
        (Key::String("x".into()), Value::Int(4)),
        (Key::Uint(2), Value::Int(5)),
    ])));
    assert_eq!(ok("%s", vec![mixed]), r#"{"x":4, 1:2, 2:5, true:3}"#);
    let object = Value::Map(Arc::new(Map::object(
        vec![
            (Key::String("a-b".into()), Value::Int(1)),
            (Key::String("if".into()), s("q\"\n\u{e9}\u{200b}")),
        ],
        0,
        Vec::new(),
    )));
    assert_eq!(
        ok("%s", vec![object]),
        r#"{"__if__":"q\"\né\u200b", "a__dash__b":1}"#
    );
}

#[test]
fn go_quote_escapes_unprintable_characters() {
    assert_eq!(
        go_quote("a\u{0}\u{7f}\u{a0}\u{ad}\u{378}é😀\u{e000}\u{10ffff}"),
        r#""a\x00\x7f\u00a0\u00ad\u0378é😀\ue000\U0010ffff""#
    );
}

#[test]
fn runtime_argument_errors_come_before_clause_errors() {
    // Measured with a dynamic argument list (constant lists are checked at compile time).
    assert_eq!(err("%", vec![]), "index 0 out of range");
    assert_eq!(
        err("filler %", vec![Value::Int(1)]),
        "unexpected end of string"
    );
    let nested = Value::Map(Arc::new(Map::new(vec![
        (Key::String("b".into()), list(vec![Value::Int(1), d(2.5)])),
        (
            Key::String("a".into()),
            Value::Map(Arc::new(Map::new(vec![(
                Key::String("x".into()),
                Value::Null,
            )]))),
        ),
    ])));
    assert_eq!(
        ok("%s", vec![nested]),
        r#"{"a":{"x":null}, "b":[1, 2.500000]}"#
    );
    assert_eq!(
        ok("%s", vec![list(vec![ts(-62135596800, 0)])]),
        r#"[timestamp("0001-01-01T00:00:00Z")]"#
    );
    assert_eq!(
        ok(
            "%s",
            vec![Value::Duration(Duration {
                nanos: 1_000_000_001
            })]
        ),
        "1.000000001s"
    );
}

#[test]
fn format_costs_a_scan_of_the_format_string() {
    let f = lookup("format").expect("format");
    let args = [s("abcdefghijklmnopqrstuvwxyz"), list(vec![])];
    assert_eq!(f.cost_of(&args, &s("")), 3);
}
