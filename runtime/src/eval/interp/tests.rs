use std::sync::Arc;

use super::Program;
use crate::eval::error::EvalError;
use crate::eval::value::{Key, Map, Value};

fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Map(Arc::new(Map::object(
        fields
            .into_iter()
            .map(|(k, v)| (Key::String(k.into()), v))
            .collect(),
        0,
        Vec::new(),
    )))
}

fn run(rule: &str, this: &Value) -> (Result<Value, EvalError>, u64) {
    let p = Program::compile(rule).expect("plans");
    let e = p.eval(this, None, 1_000_000);
    (e.result, e.cost)
}

#[test]
fn costs_of_the_apiserver_cost_stability_integers_case() {
    // `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/celcoststability_test.go` example 10 (TestCelCostStability "integers").
    let this = object(vec![
        ("val1", Value::Int(i64::MAX)),
        ("val2", Value::Int(i64::MAX)),
    ]);
    let (r, cost) = run(
        "self.val1 == 9223372036854775807 && 9223372036854775807 == self.val1 && self.val1 == self.val2",
        &this,
    );
    assert!(matches!(r, Ok(Value::Bool(true))));
    assert_eq!(cost, 11);
}

#[test]
fn comprehension_over_a_map_costs_per_iteration() {
    let m = Value::Map(Arc::new(Map::new(vec![
        (Key::String("a".into()), Value::Int(1)),
        (Key::String("b".into()), Value::Int(2)),
    ])));
    let this = object(vec![("val", m)]);
    let (r, cost) = run("self.val.all(k, self.val[k] > 0)", &this);
    assert!(matches!(r, Ok(Value::Bool(true))));
    assert_eq!(cost, 17);
}

#[test]
fn errors_are_values_until_a_short_circuit_absorbs_them() {
    let this = object(vec![("a", Value::Int(1))]);
    let (r, _) = run("self.b == 1 || self.a == 1", &this);
    assert!(matches!(r, Ok(Value::Bool(true))));
    let (r, _) = run("self.b == 1", &this);
    assert_eq!(r.unwrap_err().message, "no such key: b");
    let (r, _) = run("[1, 0].exists(x, 1 / x == 0) ", &this);
    assert_eq!(r.unwrap_err().message, "division by zero");
    let (r, _) = run("[0, 1].exists(x, 1 / x == 1)", &this);
    assert!(matches!(r, Ok(Value::Bool(true))));
}

#[test]
fn the_per_call_limit_stops_evaluation() {
    let this = object(vec![]);
    let p = Program::compile("[1, 2, 3].all(x, [1, 2, 3].all(y, true))").unwrap();
    let e = p.eval(&this, None, 10);
    assert_eq!(
        e.result.unwrap_err().message,
        "operation cancelled: actual cost limit exceeded"
    );
}

#[test]
fn macros_optionals_and_literals() {
    let this = object(vec![("a", Value::Int(2)), ("s", Value::string("abc"))]);
    let ok = |rule: &str| match run(rule, &this).0 {
        Ok(Value::Bool(b)) => b,
        other => panic!("{rule}: {other:?}"),
    };
    assert!(ok("[1, 2, 3].map(x, x * 2) == [2, 4, 6]"));
    assert!(ok("[1, 2, 3].filter(x, x > 1).size() == 2"));
    assert!(ok("[1, 2, 3].exists_one(x, x == self.a)"));
    assert!(ok("{'a': 1}['a'] == 1 && 'a' in {'a': 1}"));
    assert!(ok("self.?b.orValue(5) == 5 && self.?a.value() == 2"));
    assert!(ok(
        "optional.of(1).hasValue() && !optional.none().hasValue()"
    ));
    assert!(ok("has(self.a) && !has(self.b)"));
    assert!(ok(
        "self.s.startsWith('a') && self.s.matches('^a.c$') && self.s.contains('b')"
    ));
    assert!(ok("self.a in [1, 2] && !(self.a in [3])"));
    assert!(ok("duration('1h') + duration('30m') == duration('90m')"));
    assert!(ok(
        "timestamp('2024-01-01T00:00:00Z').getFullYear() == 2024"
    ));
    assert!(ok("string(1.5) == '1.5' && int('7') == 7 && uint(3) == 3u"));
    assert!(ok("[1, 2].all(i, v, i < v)"));
    assert!(ok("{'x': 1}.transformMap(k, v, v + 1) == {'x': 2}"));
}

// Calls cel-go 0.26 (Kubernetes 1.34 to 1.36) charges differently from cel-go 0.29 (1.37):
// `startsWith`/`endsWith` by the receiver's size rather than the prefix's, the global
// `matches(s, re)` and `includes` at 1 (their 1.37 formulas: `matches_formula`, the list's
// size). tests/validate/release-costs has the same against the 1.34.2 and 1.37.2 oracles.
#[test]
fn calls_are_charged_as_each_release_charges_them() {
    use crate::check::Node;
    use crate::model::{Schema, Type};
    static STRING: Schema<'static> = Schema::of(Type::String);
    static LIST: Schema<'static> = Schema {
        items: Some(&STRING),
        ..Schema::of(Type::Array)
    };
    let cost = |rule: &str, schema: &Schema<'_>, this: &Value, minor: u8| {
        let p = Program::compile_on(rule, &Node::new(schema)).expect("plans");
        let e = p.eval_for(this, None, 1_000_000, minor);
        assert!(e.result.is_ok(), "{rule}: {:?}", e.result);
        e.cost
    };
    let long = Value::String("w".repeat(1000).into());
    // The receiver's 1000 bytes at 0.1, or the prefix's 1 byte; plus reading `self`.
    assert_eq!(cost("self.startsWith('w')", &STRING, &long, 36), 101);
    assert_eq!(cost("self.startsWith('w')", &STRING, &long, 37), 2);
    assert_eq!(cost("self.endsWith('w')", &STRING, &long, 34), 101);
    // The member form of matches is charged by its formula on every release.
    let member = "self.matches('^w+$')";
    assert_eq!(
        cost(member, &STRING, &long, 36),
        cost(member, &STRING, &long, 37)
    );
    let global = "matches(self, '^w+$')";
    assert_eq!(cost(global, &STRING, &long, 36), 2);
    assert_eq!(
        cost(global, &STRING, &long, 37),
        cost(member, &STRING, &long, 37)
    );
    // Each word of 10 bytes traverses at 1 (the library truncates 10 * 0.1).
    let words = Value::list(
        (0..50)
            .map(|_| Value::String("w".repeat(10).into()))
            .collect(),
    );
    assert_eq!(cost("self.includes('x')", &LIST, &words, 36), 2);
    assert_eq!(cost("self.includes('x')", &LIST, &words, 37), 51);
}
