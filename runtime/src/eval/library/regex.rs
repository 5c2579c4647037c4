//! The Kubernetes Regex library (`library/regex.go`): `find` and `findAll`, RE2 syntax through
//! the shared compiled-regex cache.

use crate::eval::error::EvalError;
use crate::eval::function::{Function, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR};
use crate::eval::go::regex::{GoRegex, compiled_regex};
use crate::eval::value::Value;

pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "find",
        call: find,
        cost: Some(regex_cost),
    },
    Function {
        name: "findAll",
        call: find_all,
        cost: Some(regex_cost),
    },
];

/// `ceil((size(s) + 1) * 0.1) * ceil(size(re) * 0.25)`, as for `matches`.
fn regex_cost(args: &[Value], _: &Value) -> u64 {
    let size = |i: usize| args.get(i).map_or(1, Value::cost_size) as f64;
    let text = ((1.0 + size(0)) * STRING_TRAVERSAL_FACTOR).ceil() as u64;
    let pattern = (size(1) * REGEX_LENGTH_FACTOR).ceil() as u64;
    text.saturating_mul(pattern)
}

fn compile(pattern: &str) -> Result<std::sync::Arc<GoRegex>, EvalError> {
    compiled_regex(pattern).map_err(|e| EvalError::new(format!("Illegal regex: {}", e.message)))
}

/// The leftmost-first match, `""` when there is none.
fn find(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s), Value::String(pattern)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let re = compile(pattern)?;
    Ok(Value::string(re.regex().find(s).map_or("", |m| m.as_str())))
}

/// Go's `FindAllString(s, n)`: successive non-overlapping matches, all of them when `n < 0`,
/// none when `n == 0`.
fn find_all(args: &[Value]) -> Result<Value, EvalError> {
    let (s, pattern, n) = match args {
        [Value::String(s), Value::String(p)] => (s, p, -1),
        [Value::String(s), Value::String(p), Value::Int(n)] => (s, p, *n),
        _ => return Err(EvalError::no_such_overload()),
    };
    let re = compile(pattern)?;
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    Ok(Value::list(
        re.regex()
            .find_iter(s)
            .take(limit)
            .map(|m| Value::string(m.as_str()))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::functions::lookup;

    fn s(x: &str) -> Value {
        Value::string(x)
    }

    fn run(name: &str, args: &[Value]) -> Result<String, String> {
        let f = lookup(name).unwrap_or_else(|| panic!("{name}"));
        match (f.call)(args) {
            Ok(Value::String(x)) => Ok(format!("{x:?}")),
            Ok(Value::List(l)) => Ok(format!(
                "[{}]",
                l.items
                    .iter()
                    .map(|v| match v {
                        Value::String(x) => format!("{x:?}"),
                        other => format!("{other:?}"),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Ok(other) => panic!("{name} gave {other:?}"),
            Err(e) => Err(e.message),
        }
    }

    fn cost(name: &str, args: &[Value]) -> u64 {
        lookup(name).expect(name).cost_of(args, &Value::Null)
    }

    #[test]
    fn find_returns_the_first_match_or_nothing() {
        // Results and costs measured with the apiserver's environment.
        assert_eq!(
            run("find", &[s("abc123def456"), s("[0-9]+")]),
            Ok(r#""123""#.into())
        );
        assert_eq!(run("find", &[s("abcdef"), s("[0-9]+")]), Ok(r#""""#.into()));
        assert_eq!(cost("find", &[s("abc123def456"), s("[0-9]+")]), 4);
        assert_eq!(cost("find", &[s("abcdef"), s("[0-9]+")]), 2);
        assert_eq!(
            cost("find", &[s("abcdefghijabcdefghij"), s("abcdefghi")]),
            9
        );
        let e = run("find", &[s("abc"), s("(")]).unwrap_err();
        assert!(
            e.starts_with("Illegal regex: error parsing regexp: "),
            "{e}"
        );
    }

    #[test]
    fn find_all_skips_empty_matches_next_to_a_match() {
        let digits = || [s("abc123def456"), s("[0-9]+")];
        assert_eq!(run("findAll", &digits()), Ok(r#"["123", "456"]"#.into()));
        let [a, b] = digits();
        assert_eq!(
            run("findAll", &[a.clone(), b.clone(), Value::Int(1)]),
            Ok(r#"["123"]"#.into())
        );
        assert_eq!(
            run("findAll", &[a.clone(), b.clone(), Value::Int(0)]),
            Ok("[]".into())
        );
        assert_eq!(
            run("findAll", &[a, b, Value::Int(-3)]),
            Ok(r#"["123", "456"]"#.into())
        );
        assert_eq!(
            run("findAll", &[s("baaac"), s("a*")]),
            Ok(r#"["", "aaa", ""]"#.into())
        );
        assert_eq!(
            run("findAll", &[s("abc"), s("")]),
            Ok(r#"["", "", "", ""]"#.into())
        );
        assert_eq!(
            run("findAll", &[s("aXbX"), s("X*")]),
            Ok(r#"["", "X", "X"]"#.into())
        );
        assert_eq!(
            run("findAll", &[s("héé"), s("")]),
            Ok(r#"["", "", "", ""]"#.into())
        );
        assert_eq!(cost("findAll", &[s("abc"), s("")]), 0);
        assert_eq!(cost("findAll", &[s("baaac"), s("a*")]), 1);
    }
}
