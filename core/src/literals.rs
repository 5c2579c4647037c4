//! Checks of constant arguments, which need no types: cel-go's literal validators (from
//! compatibility version 1.29: `duration`, `timestamp` and `matches` arguments) and the errors
//! the apiserver's program planning raises for constants (cel-go's planner folds type
//! conversions of constants, `interpreter/decorators.go`, and fails on their errors) (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`).

use crate::ast::{Ast, Expr};
use crate::convert::Scalar;
pub use crate::go::time::{TIMESTAMP_SECONDS, parse_go_duration};

/// One issue found in a constant argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiteralIssue {
    /// A compile issue (`invalid duration argument`) at a code-point offset.
    Compile {
        /// Offset of the literal, in code points.
        offset: u32,
        /// cel-go's message.
        message: String,
    },
    /// A `program instantiation failed: ...` error (the text after that prefix).
    Program(String),
}

/// The literal checks of the apiserver at compatibility version `1.compat`, in source order.
pub fn check(ast: &Ast<'_>, compat: u8) -> Vec<LiteralIssue> {
    let mut out = Vec::new();
    let mut program = None;
    // Constant values, as cel-go's planner folds them: literals and conversions of constants.
    let mut consts: Vec<Option<Scalar>> = vec![None; ast.len()];
    for i in 0..ast.len() as u32 {
        let node = ast.node(i);
        let Expr::Call {
            function,
            target,
            args,
        } = node.expr
        else {
            consts[i as usize] = scalar(ast, node.expr);
            continue;
        };
        let function = ast.text_str(function);
        if target.is_none()
            && args.len == 1
            && let Some(arg) = &consts[ast.r(args, 0) as usize]
        {
            match crate::convert::fold(function, arg) {
                Some(Ok(v)) => consts[i as usize] = Some(v),
                Some(Err(e)) => {
                    program.get_or_insert(e);
                }
                // Not a constant folding goes on with (`type(c)`).
                None => {}
            }
        }
        let arg = |i: u32| -> Option<(u32, &str)> {
            if i >= args.len {
                return None;
            }
            let n = ast.r(args, i);
            match ast.node(n).expr {
                Expr::String(s) => Some((ast.offset(n), ast.text_str(s))),
                _ => None,
            }
        };
        match (function, target.is_some(), args.len) {
            ("duration", false, 1) => {
                if let Some((offset, s)) = arg(0)
                    && parse_go_duration(s).is_none()
                {
                    if compat >= 29 {
                        out.push(compile(offset, "invalid duration argument"));
                    } else {
                        program.get_or_insert_with(|| {
                            "type conversion error from 'string' to 'google.protobuf.Duration'"
                                .to_owned()
                        });
                    }
                }
            }
            ("timestamp", false, 1) => {
                // cel-go's validator evaluates the call on any literal: an int out of range
                // is refused too.
                let n = ast.r(args, 0);
                if compat >= 29
                    && let Expr::Int(secs) = ast.node(n).expr
                    && !TIMESTAMP_SECONDS.contains(&secs)
                {
                    out.push(compile(ast.offset(n), "invalid timestamp argument"));
                }
                if let Some((offset, s)) = arg(0)
                    && !is_rfc3339(s)
                {
                    if compat >= 29 {
                        out.push(compile(offset, "invalid timestamp argument"));
                    } else {
                        program.get_or_insert_with(|| {
                            "type conversion error from 'string' to 'google.protobuf.Timestamp'"
                                .to_owned()
                        });
                    }
                }
            }
            ("matches", true, 1) => {
                if let Some((offset, re)) = arg(0)
                    && let Err(e) = check_re2(re)
                {
                    if compat >= 29 {
                        out.push(compile(offset, "invalid matches argument"));
                    } else {
                        program.get_or_insert(e);
                    }
                }
            }
            ("find", true, 1) | ("findAll", true, 1 | 2) => {
                if let Some((_, re)) = arg(0)
                    && let Err(e) = check_re2(re)
                {
                    program.get_or_insert(e);
                }
            }
            _ => {}
        }
    }
    // Compile issues stop the apiserver before program planning.
    if out.is_empty()
        && let Some(p) = program
    {
        out.push(LiteralIssue::Program(p));
    }
    out
}

/// A literal's value.
fn scalar(ast: &Ast<'_>, expr: Expr) -> Option<Scalar> {
    Some(match expr {
        Expr::Bool(b) => Scalar::Bool(b),
        Expr::Int(i) => Scalar::Int(i),
        Expr::Uint(u) => Scalar::Uint(u),
        Expr::Double(d) => Scalar::Double(d),
        Expr::String(s) => Scalar::String(ast.text_str(s).to_owned()),
        Expr::Bytes(s) => {
            Scalar::Bytes(ast.text[s.start as usize..(s.start + s.len) as usize].to_vec())
        }
        _ => return None,
    })
}

fn compile(offset: u32, message: &str) -> LiteralIssue {
    LiteralIssue::Compile {
        offset,
        message: message.to_owned(),
    }
}

/// Whether cel-go's `timestamp(s)` accepts `s`: Go's `time.Parse(time.RFC3339, s)` reads it and
/// the instant is in CEL's range ([`TIMESTAMP_SECONDS`], after the offset is applied).
pub fn is_rfc3339(s: &str) -> bool {
    crate::go::time::parse_rfc3339(s).is_ok_and(|t| TIMESTAMP_SECONDS.contains(&t.unix_seconds()))
}

/// Whether Go's `regexp.Compile` accepts the pattern (RE2 syntax, [`crate::go::regexp`]);
/// the error is Go's text (``error parsing regexp: <code>: `<expr>` ``).
pub fn check_re2(re: &str) -> Result<(), String> {
    crate::go::regexp::check(re).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("1s"), Some(1_000_000_000));
        assert_eq!(parse_go_duration("1h30m"), Some(5_400_000_000_000));
        assert_eq!(parse_go_duration("-1.5s"), Some(-1_500_000_000));
        assert_eq!(parse_go_duration("0"), Some(0));
        assert_eq!(parse_go_duration(".5ms"), Some(500_000));
        for bad in ["1d", "", "1", "s", "1.s.", "--1s", "1 s"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_timestamps() {
        for ok in [
            "2020-01-01T00:00:00Z",
            "2020-02-29T23:59:59.123456789+01:00",
            "0001-01-01T00:00:00-00:00",
            // Go's parser: a one-digit hour, a comma, a 24-hour offset; year 0 moved into
            // year 1 by its offset (the oracle accepts each as a constant argument).
            "2024-01-01T1:00:00Z",
            "2024-01-01T00:00:00,5Z",
            "2024-01-01T00:00:00+24:00",
            "0000-12-31T23:00:00-01:00",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
        for bad in [
            "nope",
            "2021-02-29T00:00:00Z",
            "2020-01-01 00:00:00Z",
            "2020-01-01T00:00:00",
            "2020-13-01T00:00:00Z",
            // Out of CEL's range once the offset is applied.
            "0001-01-01T00:00:00+01:00",
            "9999-12-31T23:59:59-00:01",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn regexes() {
        assert!(check_re2("^[a-z]+$").is_ok());
        assert_eq!(
            check_re2("[").unwrap_err(),
            "error parsing regexp: missing closing ]: `[`"
        );
        assert!(check_re2("(a").is_err());
    }
}
