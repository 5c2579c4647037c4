//! `kubernetes.Semver`: the apiserver's `library/semverlib.go` (version 1, with the
//! `normalize` argument) over `github.com/blang/semver/v4`'s `Parse` and `Compare`, with their
//! error texts. The comparisons (`isLessThan`, `isGreaterThan`, `compareTo`) share their entries
//! with Quantity, in `quantity.rs`.

use std::any::Any;
use std::cmp::Ordering;

use super::super::error::EvalError;
use super::super::function::Function;
use super::super::value::{Opaque, Value};
use super::k8s_util::{downcast, first_arg_traversal, opaque, quote, same_type};

/// A pre-release identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Alpha(String),
}

impl Pre {
    /// `PRVersion.Compare`: numbers before identifiers, numbers by value, identifiers bytewise.
    fn compare(&self, other: &Pre) -> Ordering {
        match (self, other) {
            (Pre::Num(a), Pre::Num(b)) => a.cmp(b),
            (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
            (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
            (Pre::Alpha(a), Pre::Alpha(b)) => a.cmp(b),
        }
    }
}

/// The `kubernetes.Semver` value (`semver.Version`; its build metadata is validated but takes
/// no part in comparisons, so it is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<Pre>,
}

impl Semver {
    /// `Version.Compare`: build metadata is ignored; a version without pre-release is greater.
    pub(crate) fn compare(&self, other: &Semver) -> Ordering {
        let core =
            (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&other.pre) {
            let c = a.compare(b);
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }
}

impl Opaque for Semver {
    fn type_name(&self) -> &'static str {
        "kubernetes.Semver"
    }
    fn equals(&self, other: &dyn Opaque) -> Result<bool, EvalError> {
        Ok(self.compare(same_type::<Semver>(other)?) == Ordering::Equal)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn numeric(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_digit())
}

fn alphanumeric(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)` for an all-digit `s`, with its error text.
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        )
    })
}

/// The major, minor or patch number.
fn number(s: &str, which: &str, capitalized: &str) -> Result<u64, String> {
    if !numeric(s) {
        return Err(format!(
            "Invalid character(s) found in {which} number {}",
            quote(s)
        ));
    }
    if leading_zero(s) {
        return Err(format!(
            "{capitalized} number must not contain leading zeroes {}",
            quote(s)
        ));
    }
    parse_uint(s)
}

/// blang/semver's `Parse`.
fn parse(s: &str) -> Result<Semver, String> {
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts[..] else {
        return Err("No Major.Minor.Patch elements found".into());
    };
    let major = number(major, "major", "Major")?;
    let minor = number(minor, "minor", "Minor")?;
    let mut patch = rest;
    let mut build: Vec<&str> = Vec::new();
    let mut pre: Vec<&str> = Vec::new();
    if let Some((p, b)) = patch.split_once('+') {
        build = b.split('.').collect();
        patch = p;
    }
    if let Some((p, r)) = patch.split_once('-') {
        pre = r.split('.').collect();
        patch = p;
    }
    let patch = number(patch, "patch", "Patch")?;
    let mut v = Semver {
        major,
        minor,
        patch,
        pre: Vec::new(),
    };
    for p in pre {
        if p.is_empty() {
            return Err("Prerelease is empty".into());
        }
        if numeric(p) {
            if leading_zero(p) {
                return Err(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    quote(p)
                ));
            }
            v.pre.push(Pre::Num(parse_uint(p)?));
        } else if alphanumeric(p) {
            v.pre.push(Pre::Alpha(p.to_owned()));
        } else {
            return Err(format!(
                "Invalid character(s) found in prerelease {}",
                quote(p)
            ));
        }
    }
    for b in build {
        if b.is_empty() {
            return Err("Build meta data is empty".into());
        }
        if !alphanumeric(b) {
            return Err(format!(
                "Invalid character(s) found in build meta data {}",
                quote(b)
            ));
        }
    }
    Ok(v)
}

/// semverlib.go's `normalizeAndParse`: an optional `v`, leading zeros dropped, missing minor
/// and patch numbers filled with `0`.
fn normalize_and_parse(s: &str) -> Result<Semver, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() <= 1 {
                return p.to_owned();
            }
            let trimmed = p.trim_start_matches('0');
            if trimmed.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                trimmed.to_owned()
            } else {
                format!("0{trimmed}")
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".into());
        }
        parts.resize(3, "0".into());
    }
    parse(&parts.join("."))
}

/// The string and the `normalize` flag of `semver(s[, normalize])` / `isSemver(...)`.
fn semver_args(args: &[Value]) -> Result<Result<Semver, String>, EvalError> {
    match args {
        [Value::String(s)] | [Value::String(s), Value::Bool(false)] => Ok(parse(s)),
        [Value::String(s), Value::Bool(true)] => Ok(normalize_and_parse(s)),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn semver(args: &[Value]) -> Result<Value, EvalError> {
    Ok(opaque(semver_args(args)?.map_err(EvalError::new)?))
}

fn is_semver(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(semver_args(args)?.is_ok()))
}

fn version_arg(args: &[Value]) -> Result<&Semver, EvalError> {
    match args {
        [v] => downcast::<Semver>(v).ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

// `types.Int(v.Major)` converts Go's uint64 to int64, wrapping above math.MaxInt64.
fn major(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Int(version_arg(args)?.major as i64))
}

fn minor(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Int(version_arg(args)?.minor as i64))
}

fn patch(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Int(version_arg(args)?.patch as i64))
}

/// The Semver functions (the comparisons are in `quantity.rs`).
pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "semver",
        call: semver,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "isSemver",
        call: is_semver,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "major",
        call: major,
        cost: None,
    },
    Function {
        name: "minor",
        call: minor,
        cost: None,
    },
    Function {
        name: "patch",
        call: patch,
        cost: None,
    },
];

#[cfg(test)]
mod tests {
    use super::super::testing::{call, cost, s, show};
    use super::*;

    /// `major.minor.patch` of `semver(s, false)` and `semver(s, true)`, or the error, recorded
    /// from the apiserver v1.37.2 through tests/oracle.
    const CASES: &[(&str, &str, &str)] = &[
        ("1.2.3", "VALUE:1.2.3", "VALUE:1.2.3"),
        ("1.2.3-alpha.1+build.5", "VALUE:1.2.3", "VALUE:1.2.3"),
        (
            "01.2.3",
            "ERR:Major number must not contain leading zeroes \"01\"",
            "VALUE:1.2.3",
        ),
        (
            "1.02.3",
            "ERR:Minor number must not contain leading zeroes \"02\"",
            "VALUE:1.2.3",
        ),
        (
            "1.2.03",
            "ERR:Patch number must not contain leading zeroes \"03\"",
            "VALUE:1.2.3",
        ),
        (
            "1.2",
            "ERR:No Major.Minor.Patch elements found",
            "VALUE:1.2.0",
        ),
        (
            "1",
            "ERR:No Major.Minor.Patch elements found",
            "VALUE:1.0.0",
        ),
        (
            "v1.2.3",
            "ERR:Invalid character(s) found in major number \"v1\"",
            "VALUE:1.2.3",
        ),
        (
            "1.2.3-",
            "ERR:Prerelease is empty",
            "ERR:Prerelease is empty",
        ),
        (
            "1.2.3-01",
            "ERR:Numeric PreRelease version must not contain leading zeroes \"01\"",
            "ERR:Numeric PreRelease version must not contain leading zeroes \"01\"",
        ),
        (
            "1.2.3-alpha..1",
            "ERR:Prerelease is empty",
            "ERR:Prerelease is empty",
        ),
        (
            "1.2.3-al_pha",
            "ERR:Invalid character(s) found in prerelease \"al_pha\"",
            "ERR:Invalid character(s) found in prerelease \"al_pha\"",
        ),
        (
            "1.2.3+",
            "ERR:Build meta data is empty",
            "ERR:Build meta data is empty",
        ),
        (
            "1.2.3+a..b",
            "ERR:Build meta data is empty",
            "ERR:Build meta data is empty",
        ),
        (
            "1.2.3+a_b",
            "ERR:Invalid character(s) found in build meta data \"a_b\"",
            "ERR:Invalid character(s) found in build meta data \"a_b\"",
        ),
        (
            "1.2.3-a+b+c",
            "ERR:Invalid character(s) found in build meta data \"b+c\"",
            "ERR:Invalid character(s) found in build meta data \"b+c\"",
        ),
        (
            "a.2.3",
            "ERR:Invalid character(s) found in major number \"a\"",
            "ERR:Invalid character(s) found in major number \"a\"",
        ),
        (
            "1.b.3",
            "ERR:Invalid character(s) found in minor number \"b\"",
            "ERR:Invalid character(s) found in minor number \"b\"",
        ),
        (
            "1.2.c",
            "ERR:Invalid character(s) found in patch number \"c\"",
            "ERR:Invalid character(s) found in patch number \"c\"",
        ),
        (
            "1..3",
            "ERR:strconv.ParseUint: parsing \"\": invalid syntax",
            "ERR:strconv.ParseUint: parsing \"\": invalid syntax",
        ),
        (
            "18446744073709551616.0.0",
            "ERR:strconv.ParseUint: parsing \"18446744073709551616\": value out of range",
            "ERR:strconv.ParseUint: parsing \"18446744073709551616\": value out of range",
        ),
        ("18446744073709551615.0.0", "VALUE:-1.0.0", "VALUE:-1.0.0"),
        (
            "9223372036854775808.1.2",
            "VALUE:-9223372036854775808.1.2",
            "VALUE:-9223372036854775808.1.2",
        ),
        (
            "1.2.3-99999999999999999999",
            "ERR:strconv.ParseUint: parsing \"99999999999999999999\": value out of range",
            "ERR:strconv.ParseUint: parsing \"99999999999999999999\": value out of range",
        ),
        (
            "1.2.3-é",
            "ERR:Invalid character(s) found in prerelease \"é\"",
            "ERR:Invalid character(s) found in prerelease \"é\"",
        ),
        (
            "-1.2.3",
            "ERR:Invalid character(s) found in major number \"-1\"",
            "ERR:Invalid character(s) found in major number \"0-1\"",
        ),
        (
            "",
            "ERR:Version string empty",
            "ERR:strconv.ParseUint: parsing \"\": invalid syntax",
        ),
    ];

    fn triple(input: &str, normalize: bool) -> String {
        let v = match call("semver", &[s(input), Value::Bool(normalize)]) {
            Err(e) => return show(Err(e)),
            Ok(v) => v,
        };
        let parts: Vec<String> = ["major", "minor", "patch"]
            .iter()
            .map(|f| {
                show(call(f, std::slice::from_ref(&v)))
                    .trim_start_matches("VALUE:")
                    .to_owned()
            })
            .collect();
        format!("VALUE:{}", parts.join("."))
    }

    #[test]
    fn parsing_matches_the_apiserver() {
        for &(input, plain, normalized) in CASES {
            assert_eq!(triple(input, false), plain, "semver({input:?})");
            assert_eq!(triple(input, true), normalized, "semver({input:?}, true)");
            assert_eq!(
                show(call("isSemver", &[s(input)])),
                format!("VALUE:{}", plain.starts_with("VALUE")),
                "isSemver({input:?})"
            );
            assert_eq!(
                show(call("semver", &[s(input)])).starts_with("ERR"),
                plain.starts_with("ERR")
            );
        }
        assert_eq!(
            show(call("semver", &[s("1.2")])),
            "ERR:No Major.Minor.Patch elements found"
        );
    }

    fn v(input: &str) -> Value {
        call("semver", &[s(input)]).expect("valid version")
    }

    fn eq(a: &Value, b: &Value) -> Result<bool, EvalError> {
        match (a, b) {
            (Value::Opaque(x), Value::Opaque(y)) => x.equals(&**y),
            _ => panic!("not library values"),
        }
    }

    #[test]
    fn ordering_follows_semver_precedence() {
        // library/semver_test.go.
        let normalized = call("semver", &[s("v01.01"), Value::Bool(true)]).unwrap();
        assert_eq!(eq(&normalized, &v("1.1.0")), Ok(true));
        assert_eq!(eq(&v("1.2.3"), &v("1.0.0")), Ok(false));
        assert_eq!(eq(&v("1.2.3+a"), &v("1.2.3+b")), Ok(true));
        assert_eq!(
            show(call("isLessThan", &[v("1.0.0"), v("1.2.3")])),
            "VALUE:true"
        );
        assert_eq!(
            show(call("isLessThan", &[v("1.0.0"), v("1.0.0")])),
            "VALUE:false"
        );
        assert_eq!(
            show(call("isGreaterThan", &[v("1.2.3"), v("1.0.0")])),
            "VALUE:true"
        );
        assert_eq!(
            show(call("compareTo", &[v("1.0.0"), v("1.2.3")])),
            "VALUE:-1"
        );
        // Pre-releases: numeric < alphanumeric, shorter < longer, any < none.
        let order = [
            "1.0.0-1",
            "1.0.0-2",
            "1.0.0-10",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0",
        ];
        for w in order.windows(2) {
            assert_eq!(
                show(call("compareTo", &[v(w[0]), v(w[1])])),
                "VALUE:-1",
                "{} < {}",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn costs_match_the_upstream_cost_tests() {
        assert_eq!(cost("semver", &[s("1.0.0")]), 1);
        assert_eq!(cost("semver", &[s("1234.56789012345.67890123456789")]), 4);
        assert_eq!(cost("isSemver", &[s("1234.56789012345.67890123456789")]), 4);
        assert_eq!(cost("major", &[v("1.2.3")]), 1);
        assert_eq!(cost("compareTo", &[v("1.2.3"), v("1.0.0")]), 1);
    }
}
