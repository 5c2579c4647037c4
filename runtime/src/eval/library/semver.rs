//! `kubernetes.Semver`: the apiserver's `library/semverlib.go` (version 1, with the
//! `normalize` argument) over `github.com/blang/semver/v4`'s `Parse` and `Compare`, with their
//! error texts. The comparisons (`isLessThan`, `isGreaterThan`, `compareTo`) share their entries
//! with Quantity, in `quantity.rs`.

use std::any::Any;
use std::cmp::Ordering;

use super::super::error::EvalError;
use super::super::functions::Function;
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

/// The major or minor number.
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
    if !numeric(patch) {
        return Err(format!(
            "Invalid character(s) found in patch number {}",
            quote(patch)
        ));
    }
    if leading_zero(patch) {
        return Err(format!(
            "Patch number must not contain leading zeroes {}",
            quote(patch)
        ));
    }
    let patch = parse_uint(patch)?;
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
