//! cel-go's ext.Strings, version 2 (`ext/strings.go`, the apiserver's stored-expressions
//! environment): `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`,
//! `split`, `substring`, `trim`, `join`, `strings.quote` and `format` (in `format.rs`).
//!
//! Indices count code points, as cel-go's `[]rune` conversions do. `indexOf` and `lastIndexOf`
//! also carry the Kubernetes Lists overloads on lists. Version 2 registers no cost trackers, so the
//! costs are the Kubernetes `CallCost` (by function name) or cel-go's defaults.

use super::format::format;
use super::limits::{MAX_RESULT_BYTES, too_large};
use super::lists::{first_element_guard, index_of, plain, receiver_traversal_cost};
use crate::eval::error::EvalError;
use crate::eval::function::{Function, STRING_TRAVERSAL_FACTOR};
use crate::eval::value::Value;

pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "charAt",
        call: char_at,
        cost: None,
    },
    Function {
        name: "indexOf",
        call: index_of_fn,
        cost: Some(receiver_traversal_cost),
    },
    Function {
        name: "lastIndexOf",
        call: last_index_of_fn,
        cost: Some(receiver_traversal_cost),
    },
    Function {
        name: "lowerAscii",
        call: lower_ascii,
        cost: Some(receiver_scan_cost),
    },
    Function {
        name: "upperAscii",
        call: upper_ascii,
        cost: Some(receiver_scan_cost),
    },
    Function {
        name: "replace",
        call: replace,
        cost: Some(receiver_double_scan_cost),
    },
    Function {
        name: "split",
        call: split,
        cost: Some(receiver_double_scan_cost),
    },
    Function {
        name: "substring",
        call: substring,
        cost: Some(receiver_scan_cost),
    },
    Function {
        name: "trim",
        call: trim,
        cost: Some(receiver_scan_cost),
    },
    Function {
        name: "join",
        call: join,
        cost: Some(join_cost),
    },
    Function {
        name: "strings.quote",
        call: quote,
        cost: Some(receiver_scan_cost),
    },
    Function {
        name: "format",
        call: format,
        cost: Some(receiver_scan_cost),
    },
];

/// `ceil(size * 0.1)` of the first argument: the Kubernetes cost of `lowerAscii`, `upperAscii`,
/// `substring` and `trim`, and cel-go's of `strings.quote` and `format` (the format string).
fn receiver_scan_cost(args: &[Value], _: &Value) -> u64 {
    let size = args.first().map_or(1, Value::cost_size);
    (size as f64 * STRING_TRAVERSAL_FACTOR).ceil() as u64
}

/// `ceil(size * 2 * 0.1)`: traversing the receiver and building the result (`replace`, `split`).
fn receiver_double_scan_cost(args: &[Value], _: &Value) -> u64 {
    let size = args.first().map_or(1, Value::cost_size);
    (size as f64 * 2.0 * STRING_TRAVERSAL_FACTOR).ceil() as u64
}

/// `join`'s cost counts the result: `ceil(size(result) * 2 * 0.1)`.
fn join_cost(_: &[Value], result: &Value) -> u64 {
    (result.cost_size() as f64 * 2.0 * STRING_TRAVERSAL_FACTOR).ceil() as u64
}

fn index_error(i: i64) -> EvalError {
    EvalError::new(format!("index out of range: {i}"))
}

fn char_at(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s), Value::Int(i)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let runes: Vec<char> = s.chars().collect();
    let idx = usize::try_from(*i).map_err(|_| index_error(*i))?;
    if idx == runes.len() {
        return Ok(Value::string(""));
    }
    runes
        .get(idx)
        .map(|c| Value::string(c.to_string()))
        .ok_or_else(|| index_error(*i))
}

fn index_of_fn(args: &[Value]) -> Result<Value, EvalError> {
    match args {
        [Value::String(s), Value::String(sub)] => index_of_str(s, sub, 0).map(Value::Int),
        [Value::String(s), Value::String(sub), Value::Int(off)] => {
            index_of_str(s, sub, *off).map(Value::Int)
        }
        [Value::List(l), item] => Ok(index_of(l, item, false)),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn last_index_of_fn(args: &[Value]) -> Result<Value, EvalError> {
    match args {
        [Value::String(s), Value::String(sub)] => Ok(Value::Int(last_index_of_str(s, sub))),
        [Value::String(s), Value::String(sub), Value::Int(off)] => {
            last_index_of_from(s, sub, *off).map(Value::Int)
        }
        [Value::List(l), item] => Ok(index_of(l, item, true)),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// Whether `sub` occurs in `runes` at code point `at`.
fn occurs_at(runes: &[char], sub: &[char], at: usize) -> bool {
    runes.get(at..at.saturating_add(sub.len())) == Some(sub)
}

/// The first code point index at or after `off` where `sub` occurs, `-1` when none (also when
/// `off` is past the end); the empty string occurs at `off`, clamped to the length.
fn index_of_str(s: &str, sub: &str, off: i64) -> Result<i64, EvalError> {
    let start = usize::try_from(off).map_err(|_| index_error(off))?;
    let runes: Vec<char> = s.chars().collect();
    if sub.is_empty() {
        return Ok(off.min(runes.len() as i64));
    }
    let sub: Vec<char> = sub.chars().collect();
    if start >= runes.len() || sub.len() > runes.len() {
        return Ok(-1);
    }
    Ok((start..=runes.len() - sub.len())
        .find(|&i| occurs_at(&runes, &sub, i))
        .map_or(-1, |i| i as i64))
}

/// `lastIndexOf` without an offset. cel-go compares the *byte* lengths to rule out a longer
/// substring before searching from the last code point.
fn last_index_of_str(s: &str, sub: &str) -> i64 {
    let len = s.chars().count() as i64;
    if sub.is_empty() {
        return len;
    }
    if s.len() < sub.len() {
        return -1;
    }
    // `len - 1` is not negative: a non-empty `sub` fits only in a non-empty `s`.
    last_index_of_from(s, sub, len - 1).unwrap_or(-1)
}

/// The last code point index at or before `off` where `sub` occurs.
fn last_index_of_from(s: &str, sub: &str, off: i64) -> Result<i64, EvalError> {
    if off < 0 {
        return Err(index_error(off));
    }
    let runes: Vec<char> = s.chars().collect();
    let len = runes.len() as i64;
    if sub.is_empty() {
        return Ok(off.min(len));
    }
    let sub: Vec<char> = sub.chars().collect();
    if off >= len {
        return Ok(-1);
    }
    let last_start = len - sub.len() as i64;
    let from = off.min(last_start);
    if from < 0 {
        return Ok(-1);
    }
    Ok((0..=from as usize)
        .rev()
        .find(|&i| occurs_at(&runes, &sub, i))
        .map_or(-1, |i| i as i64))
}

fn lower_ascii(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::string(s.to_ascii_lowercase()))
}

fn upper_ascii(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::string(s.to_ascii_uppercase()))
}

/// Go's `strings.Replace`: at most `n` replacements (all when `n < 0`); an empty `old` matches
/// before every code point and at the end.
fn replace(args: &[Value]) -> Result<Value, EvalError> {
    let (s, old, new, n) = match args {
        [Value::String(s), Value::String(o), Value::String(w)] => (s, o, w, -1),
        [
            Value::String(s),
            Value::String(o),
            Value::String(w),
            Value::Int(n),
        ] => (s, o, w, *n),
        _ => return Err(EvalError::no_such_overload()),
    };
    if n == 0 || (!old.is_empty() && new.len() <= old.len()) {
        // The result is no longer than the input.
        return Ok(Value::string(match usize::try_from(n) {
            Ok(n) => s.replacen(&**old, new, n),
            Err(_) => s.replace(&**old, new),
        }));
    }
    let occurrences = if old.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(&**old).count()
    };
    let count = usize::try_from(n).map_or(occurrences, |n| n.min(occurrences));
    let grown = count
        .checked_mul(new.len() - if old.is_empty() { 0 } else { old.len() })
        .and_then(|g| g.checked_add(s.len()));
    if grown.is_none_or(|len| len > MAX_RESULT_BYTES) {
        return Err(too_large("replace"));
    }
    Ok(Value::string(s.replacen(&**old, new, count)))
}

/// Go's `strings.SplitN` (`strings.Split` when `n < 0`): `n == 0` gives no pieces, an empty
/// separator splits into code points (the last piece keeping the rest when `n` runs out).
fn split(args: &[Value]) -> Result<Value, EvalError> {
    let (s, sep, n) = match args {
        [Value::String(s), Value::String(sep)] => (s, sep, -1),
        [Value::String(s), Value::String(sep), Value::Int(n)] => (s, sep, *n),
        _ => return Err(EvalError::no_such_overload()),
    };
    let pieces: Vec<&str> = match (usize::try_from(n), sep.is_empty()) {
        (Ok(0), _) => Vec::new(),
        (limit, true) => {
            let count = s.chars().count();
            let n = limit.map_or(count, |n| n.min(count));
            let mut out = Vec::with_capacity(n);
            let mut rest: &str = s;
            for _ in 1..n {
                let Some(c) = rest.chars().next() else { break };
                let (head, tail) = rest.split_at(c.len_utf8());
                out.push(head);
                rest = tail;
            }
            if n > 0 {
                out.push(rest);
            }
            out
        }
        (Ok(n), false) => s.splitn(n, &**sep).collect(),
        (Err(_), false) => s.split(&**sep).collect(),
    };
    Ok(plain(pieces.into_iter().map(Value::string).collect()))
}

fn substring(args: &[Value]) -> Result<Value, EvalError> {
    let (s, start, end) = match args {
        [Value::String(s), Value::Int(start)] => (s, *start, None),
        [Value::String(s), Value::Int(start), Value::Int(end)] => (s, *start, Some(*end)),
        _ => return Err(EvalError::no_such_overload()),
    };
    let runes: Vec<char> = s.chars().collect();
    let in_range = |i: i64| usize::try_from(i).ok().filter(|&i| i <= runes.len());
    if let Some(end) = end
        && start > end
    {
        return Err(EvalError::new(format!(
            "invalid substring range. start: {start}, end: {end}"
        )));
    }
    let from = in_range(start).ok_or_else(|| index_error(start))?;
    let to = match end {
        Some(end) => in_range(end).ok_or_else(|| index_error(end))?,
        None => runes.len(),
    };
    Ok(Value::string(
        runes
            .get(from..to)
            .unwrap_or_default()
            .iter()
            .collect::<String>(),
    ))
}

/// Go's `strings.TrimSpace`: Unicode `White_Space` at both ends, as Rust's `trim`.
fn trim(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::string(s.trim()))
}

/// `join`, version 2: the elements are read one by one, and one that is not a string fails the
/// call with `join: invalid input: <element>`.
fn join(args: &[Value]) -> Result<Value, EvalError> {
    let (l, sep) = match args {
        [Value::List(l)] => (l, ""),
        [Value::List(l), Value::String(sep)] => (l, &**sep),
        _ => return Err(EvalError::no_such_overload()),
    };
    // The overload's runtime signature check looks at the first element only.
    first_element_guard("join", args, |v| matches!(v, Value::String(_)))?;
    let mut out = String::new();
    for (i, item) in l.items.iter().enumerate() {
        if i != 0 {
            out.push_str(sep);
        }
        let Value::String(s) = item else {
            return Err(EvalError::new(format!(
                "join: invalid input: {}",
                go_value(item)
            )));
        };
        out.push_str(s);
        if out.len() > MAX_RESULT_BYTES {
            return Err(too_large("join"));
        }
    }
    Ok(Value::string(out))
}

/// How Go's `%v` prints a CEL value, for the few error messages that show one.
fn go_value(v: &Value) -> String {
    match v {
        Value::Error(e) => e.message.clone(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => crate::eval::go::float::go_g(*d),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.to_string(),
        Value::Null => "NULL_VALUE".into(),
        other => other.type_name().to_owned(),
    }
}

/// `strings.quote`: double quotes around the text, with CEL's escapes for `\a \b \f \n \r \t \v`,
/// backslash and double quote; everything else, control characters included, is kept.
fn quote(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(Value::string(out))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{cost, err, literal, ok, s};
    use super::*;
    use std::sync::Arc;

    const I: fn(i64) -> Value = Value::Int;

    #[test]
    fn char_at_counts_code_points_and_allows_the_end() {
        assert_eq!(ok("charAt", &[s("héllo"), I(1)]), r#""é""#);
        assert_eq!(ok("charAt", &[s("hello"), I(5)]), r#""""#);
        assert_eq!(err("charAt", &[s("hello"), I(6)]), "index out of range: 6");
        assert_eq!(
            err("charAt", &[s("hello"), I(-1)]),
            "index out of range: -1"
        );
        assert_eq!(cost("charAt", &[s("hello world, long"), I(1)]), 1);
    }

    #[test]
    fn index_of_on_strings_matches_the_apiserver() {
        // Results measured with the apiserver's environment.
        let hw = || s("héllo wörld");
        assert_eq!(ok("indexOf", &[hw(), s("ö")]), "7");
        assert_eq!(ok("indexOf", &[hw(), s(""), I(20)]), "11");
        assert_eq!(ok("indexOf", &[hw(), s("o"), I(20)]), "-1");
        assert_eq!(ok("indexOf", &[hw(), s("o"), I(5)]), "-1");
        assert_eq!(ok("indexOf", &[hw(), s("l"), I(4)]), "9");
        assert_eq!(ok("indexOf", &[s("ab"), s("abc")]), "-1");
        assert_eq!(
            err("indexOf", &[hw(), s("o"), I(-1)]),
            "index out of range: -1"
        );
        assert_eq!(ok("lastIndexOf", &[hw(), s("o")]), "4");
        assert_eq!(ok("lastIndexOf", &[hw(), s("l"), I(8)]), "3");
        assert_eq!(ok("lastIndexOf", &[hw(), s("")]), "11");
        assert_eq!(ok("lastIndexOf", &[hw(), s("o"), I(4)]), "4");
        assert_eq!(ok("lastIndexOf", &[hw(), s(""), I(30)]), "11");
        assert_eq!(ok("lastIndexOf", &[hw(), s("o"), I(30)]), "-1");
        assert_eq!(ok("lastIndexOf", &[s("abcabc"), s("bc"), I(5)]), "4");
        assert_eq!(ok("lastIndexOf", &[s("é"), s("ab")]), "-1");
        assert_eq!(ok("lastIndexOf", &[s(""), s("a")]), "-1");
        assert_eq!(
            err("lastIndexOf", &[hw(), s("o"), I(-1)]),
            "index out of range: -1"
        );
        // The Kubernetes cost: floor(bytes * 0.1) of the receiver.
        assert_eq!(cost("indexOf", &[hw(), s("ö")]), 1);
        assert_eq!(cost("indexOf", &[s(&"a".repeat(76)), s("b")]), 7);
        assert_eq!(cost("lastIndexOf", &[s(&"é".repeat(11)), s("b")]), 2);
        assert_eq!(cost("lastIndexOf", &[s("é"), s("ab")]), 0);
    }

    #[test]
    fn index_of_on_lists_uses_cel_equality() {
        let l = plain(vec![I(1), I(2), I(1)]);
        assert_eq!(ok("indexOf", &[l.clone(), Value::Uint(1)]), "0");
        assert_eq!(ok("lastIndexOf", &[l.clone(), I(1)]), "2");
        assert_eq!(ok("indexOf", &[l.clone(), s("1")]), "-1");
        assert_eq!(cost("indexOf", &[l, I(2)]), 3);
        assert_eq!(err("indexOf", &[I(1), I(1)]), "no such overload");
    }

    #[test]
    fn ascii_case_changes_leave_other_letters() {
        assert_eq!(ok("lowerAscii", &[s("ÀbC")]), r#""Àbc""#);
        assert_eq!(ok("upperAscii", &[s("abcdéfghijk")]), r#""ABCDéFGHIJK""#);
        assert_eq!(cost("upperAscii", &[s("abcdefghijk")]), 2);
        assert_eq!(cost("lowerAscii", &[s("ÀbC")]), 1);
    }

    #[test]
    fn replace_follows_go_strings_replace() {
        assert_eq!(ok("replace", &[s("abc"), s(""), s("-")]), r#""-a-b-c-""#);
        assert_eq!(
            ok("replace", &[s("abc"), s(""), s("-"), I(2)]),
            r#""-a-bc""#
        );
        assert_eq!(
            ok("replace", &[s("abcabc"), s("b"), s("X"), I(0)]),
            r#""abcabc""#
        );
        assert_eq!(
            ok("replace", &[s("abcabc"), s("b"), s("X"), I(-5)]),
            r#""aXcaXc""#
        );
        assert_eq!(ok("replace", &[s("abcabc"), s("bc"), s("")]), r#""aa""#);
        assert_eq!(
            ok("replace", &[s("abcabcabcab"), s("b"), s("XY")]),
            r#""aXYcaXYcaXYcaXY""#
        );
        assert_eq!(
            ok("replace", &[s("ééé"), s("é"), s("ab"), I(2)]),
            r#""ababé""#
        );
        // ceil(size * 2 * 0.1): 11 code points give 3, 3 give 1, 6 give 2.
        assert_eq!(cost("replace", &[s("abcabcabcab"), s("b"), s("XY")]), 3);
        assert_eq!(cost("replace", &[s("abc"), s(""), s("-")]), 1);
        assert_eq!(cost("replace", &[s("abcabc"), s("b"), s("X"), I(0)]), 2);
        let big = s(&"a".repeat(10_000));
        assert!(
            err("replace", &[big.clone(), s(""), big]).starts_with("replace: result larger than")
        );
    }

    #[test]
    fn split_follows_go_strings_split_n() {
        assert_eq!(
            ok("split", &[s("a,b,,c"), s(",")]),
            r#"["a", "b", "", "c"]"#
        );
        assert_eq!(ok("split", &[s(""), s(",")]), r#"[""]"#);
        assert_eq!(ok("split", &[s(""), s("")]), "[]");
        assert_eq!(
            ok("split", &[s("héllo"), s("")]),
            r#"["h", "é", "l", "l", "o"]"#
        );
        assert_eq!(
            ok("split", &[s("héllo"), s(""), I(3)]),
            r#"["h", "é", "llo"]"#
        );
        assert_eq!(ok("split", &[s("ab"), s(""), I(9)]), r#"["a", "b"]"#);
        assert_eq!(ok("split", &[s("a,b,c"), s(","), I(0)]), "[]");
        assert_eq!(
            ok("split", &[s("a,b,c"), s(","), I(-1)]),
            r#"["a", "b", "c"]"#
        );
        assert_eq!(ok("split", &[s("a,b,c"), s(","), I(2)]), r#"["a", "b,c"]"#);
        assert_eq!(cost("split", &[s("a,b,,c"), s(",")]), 2);
        assert_eq!(cost("split", &[s(""), s("")]), 0);
    }

    #[test]
    fn substring_checks_its_range_in_cel_go_order() {
        assert_eq!(ok("substring", &[s("hello"), I(5)]), r#""""#);
        assert_eq!(ok("substring", &[s("héllo"), I(1)]), r#""éllo""#);
        assert_eq!(ok("substring", &[s("hello world"), I(1), I(3)]), r#""el""#);
        assert_eq!(
            err("substring", &[s("hello"), I(6)]),
            "index out of range: 6"
        );
        assert_eq!(
            err("substring", &[s("hello"), I(-1)]),
            "index out of range: -1"
        );
        assert_eq!(
            err("substring", &[s("hello"), I(3), I(2)]),
            "invalid substring range. start: 3, end: 2"
        );
        assert_eq!(
            err("substring", &[s("hello"), I(-1), I(2)]),
            "index out of range: -1"
        );
        assert_eq!(
            err("substring", &[s("hello"), I(1), I(9)]),
            "index out of range: 9"
        );
        assert_eq!(cost("substring", &[s("hello world"), I(1), I(3)]), 2);
    }

    #[test]
    fn trim_removes_unicode_white_space_only() {
        assert_eq!(
            ok("trim", &[s(" \t\n\u{a0}\u{2003}abc\u{85}\u{200b} ")]),
            "\"abc\\u{85}\\u{200b}\""
        );
        assert_eq!(
            cost("trim", &[s(" \t\n\u{a0}\u{2003}abc\u{85}\u{200b} ")]),
            2
        );
    }

    #[test]
    fn join_concatenates_strings_and_rejects_others() {
        let abc = plain(vec![s("a"), s("b"), s("c")]);
        assert_eq!(ok("join", std::slice::from_ref(&abc)), r#""abc""#);
        assert_eq!(ok("join", &[abc.clone(), s(", ")]), r#""a, b, c""#);
        assert_eq!(ok("join", &[plain(vec![]), s("-")]), r#""""#);
        assert_eq!(
            err("join", &[plain(vec![s("a"), I(5)])]),
            "join: invalid input: 5"
        );
        assert_eq!(
            err("join", &[plain(vec![s("a"), Value::Double(1.5e300)])]),
            "join: invalid input: 1.5e+300"
        );
        let bad = Value::Error(Arc::new(EvalError::new("bad data")));
        assert_eq!(
            err("join", &[plain(vec![s("a"), bad.clone()])]),
            "join: invalid input: bad data"
        );
        // Measured: `[dyn(1), dyn('a')].join()`.
        assert_eq!(
            err("join", &[plain(vec![I(1), s("a")])]),
            "no such overload: join(list)"
        );
        assert_eq!(
            err("join", &[plain(vec![bad, s("a")]), s("-")]),
            "no such overload: join(list, string)"
        );
        // ceil(size(result) * 0.2): "abc" 1, "a, b, c" 2, "" 0.
        assert_eq!(cost("join", std::slice::from_ref(&abc)), 1);
        assert_eq!(cost("join", &[abc, s(", ")]), 2);
        assert_eq!(cost("join", &[plain(vec![]), s("-")]), 0);
    }

    #[test]
    fn quote_escapes_what_cel_go_escapes() {
        assert_eq!(
            ok(
                "strings.quote",
                &[s("a\"b\\c\n\t\u{0}é\u{200b}\u{7}\u{8}\u{c}\u{b}\r")]
            ),
            literal(&s("\"a\\\"b\\\\c\\n\\t\u{0}é\u{200b}\\a\\b\\f\\v\\r\""))
        );
        assert_eq!(cost("strings.quote", &[s("abcdefghijklmnopqrstuvwxyz")]), 3);
    }
}
