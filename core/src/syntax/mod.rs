//! Parsing CEL source with the `cel` crate's parser, with the apiserver's parser limits, and
//! rendering parse errors the way cel-go does (`ERROR: <input>:L:C: msg`, source line, caret).

mod expand;
mod lower;

use std::fmt;

/// Nesting depth above which the apiserver's parser reports `max recursion depth exceeded`.
pub const MAX_RECURSION_DEPTH: u16 = 250;
/// Error recoveries the apiserver's parser attempts before giving up.
pub const ERROR_RECOVERY_LIMIT: u32 = 30;
/// Largest expression the apiserver parses, in code points.
pub const MAX_EXPRESSION_CODE_POINTS: usize = 100_000;
/// At most this many issues are listed in one error text.
const MAX_LISTED_ISSUES: usize = 100;
/// Source lines longer than this are not quoted under an issue.
const MAX_SNIPPET_LEN: usize = 16_384;

/// Stack for the generated parser when the caller's is short: it recurses deeply (about 180 KiB
/// per bracket level in debug builds, and the apiserver allows 250 levels). Only touched pages
/// are committed.
const PARSER_STACK: usize = 256 << 20;

/// One issue found in a CEL expression, located at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// 1-based line; 0 for an issue without a location (cel-go prints `-1:0`).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The message, without location (`Syntax error: mismatched input ...`).
    pub message: String,
}

/// A CEL expression that did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// The expression.
    pub source: String,
    /// The issues, sorted by position.
    pub issues: Vec<Issue>,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_issues(&self.source, &self.issues))
    }
}

impl std::error::Error for SyntaxError {}

/// Parses `source` as the apiserver does (optional syntax enabled, its depth and size limits).
pub fn parse(source: &str) -> Result<cel::IdedExpr, SyntaxError> {
    parse_with(source, |expr, _| expr)
}

/// Parses `source` like [`parse`] and lowers it to the checker's [`AstBuf`](crate::ast::AstBuf).
pub fn parse_ast(source: &str) -> Result<crate::ast::AstBuf, SyntaxError> {
    parse_with(source, |expr, info| lower::lower(source, &expr, &info))
}

/// Parses with room for the parser's recursion ([`on_parser_stack`]) and hands the tree to
/// `then` there (lowering recurses as deeply as parsing does).
fn parse_with<T>(
    source: &str,
    then: impl FnOnce(cel::IdedExpr, cel::common::ast::SourceInfo) -> T,
) -> Result<T, SyntaxError> {
    let code_points = source.chars().count();
    if code_points > MAX_EXPRESSION_CODE_POINTS {
        return Err(SyntaxError {
            source: source.to_owned(),
            issues: vec![Issue {
                line: 0,
                column: 0,
                message: format!(
                    "expression code point size exceeds limit: size: {code_points}, limit {MAX_EXPRESSION_CODE_POINTS}"
                ),
            }],
        });
    }
    let result = on_parser_stack(source, || {
        cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .max_recursion_depth(MAX_RECURSION_DEPTH)
            .error_recovery_limit(ERROR_RECOVERY_LIMIT)
            .parse_with_source_info(source)
            .map_err(|errors| {
                errors
                    .errors
                    .into_iter()
                    .map(|e| Issue {
                        line: usize::try_from(e.pos.0).unwrap_or(1).max(1),
                        // The parser's column is already cel-go's: 1-based, in code points.
                        column: usize::try_from(e.pos.1).unwrap_or(1).max(1),
                        message: e.msg,
                    })
                    .collect::<Vec<_>>()
            })
            .and_then(|(expr, info)| {
                // cel-go's visitor counts its own recursion (`max recursion depth exceeded`, with
                // no location), which left-associative chains reach without nesting the parse
                // deeply: check before anything recurses over the tree.
                if visitor_depth(&expr) > usize::from(MAX_RECURSION_DEPTH) {
                    return Err(vec![Issue {
                        line: 0,
                        column: 0,
                        message: "max recursion depth exceeded".into(),
                    }]);
                }
                Ok(then(expr, info))
            })
    });
    match result {
        Ok(Ok(expr)) => Ok(expr),
        Ok(Err(mut issues)) => {
            // The `cel` crate reports the parse depth limit as an internal error followed by
            // follow-on noise; cel-go's parse listener stops with one issue and no location.
            if issues
                .iter()
                .any(|i| i.message.contains("Recursion limit of"))
            {
                issues = vec![Issue {
                    line: 0,
                    column: 0,
                    message: format!("expression recursion limit exceeded: {MAX_RECURSION_DEPTH}"),
                }];
            }
            issues.sort_by_key(|i| (i.line, i.column));
            Err(SyntaxError {
                source: source.to_owned(),
                issues,
            })
        }
        // The parser panicked: report it as an issue rather than taking the build down.
        Err(_) => Err(SyntaxError {
            source: source.to_owned(),
            issues: vec![Issue {
                line: 1,
                column: 1,
                message: "internal error: the CEL parser failed on this expression".into(),
            }],
        }),
    }
}

/// Runs `f` (parsing `source`) on this thread's stack when it has room for the parser's
/// recursion, on a fresh [`PARSER_STACK`] segment when not; returns its result or its panic.
///
/// On this thread rather than a thread of its own: in the derive, where the parser runs
/// unoptimised, a thread per parse (or a hand-off to one) cost more than the parse, and the
/// generated parser's prediction caches are per thread and stay warm here.
fn on_parser_stack<T>(source: &str, f: impl FnOnce() -> T) -> std::thread::Result<T> {
    let needed = stack_needed(source);
    stacker::maybe_grow(needed, needed.max(PARSER_STACK), || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
    })
}

/// A generous bound on the stack that parsing `source` uses in a debug build (the parse tree
/// is also walked and dropped there): measured at about 256 KiB at the base, 180 KiB per level
/// of brackets (each nests a dozen grammar rules) and 10 KiB per conditional; every operator
/// and selection may deepen the tree the parser builds by one level (a chain `a + b + c ...` is
/// a left-deep tree the parser's visitor recurses through), bounded here at 8 KiB a level.
/// Brackets and operators inside string literals count too, which only makes the bound larger.
fn stack_needed(source: &str) -> usize {
    let (mut depth, mut deepest, mut conditionals, mut operators) = (0usize, 0, 0, 0);
    for b in source.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'?' => conditionals += 1,
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!' | b'.' | b'&' | b'|' => {
                operators += 1;
            }
            _ => {}
        }
    }
    (1 << 20) + deepest * (384 << 10) + conditionals * (32 << 10) + operators * (8 << 10)
}

/// Renders issues as cel-go's `Errors.ToDisplayString` does.
pub fn render_issues(source: &str, issues: &[Issue]) -> String {
    let mut out = String::new();
    for (n, issue) in issues.iter().take(MAX_LISTED_ISSUES).enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&render_issue(source, issue));
    }
    if issues.len() > MAX_LISTED_ISSUES {
        out.push_str(&format!(
            "\n{} more errors were truncated",
            issues.len() - MAX_LISTED_ISSUES
        ));
    }
    out
}

/// The depth cel-go's parser visitor reaches on `expr`: ternaries, relations, arithmetic,
/// field selections, member calls (macros included) and indexing each count one level (its
/// `checkAndIncrementRecursionDepth`); `&&`, `||`, negation, global calls and literals do not.
/// Iterative, so that a tree too deep for the limit cannot overflow the stack here.
fn visitor_depth(expr: &cel::IdedExpr) -> usize {
    use cel::common::ast::{EntryExpr, Expr};
    let mut deepest = 0;
    let mut stack = vec![(expr, 0usize)];
    while let Some((e, above)) = stack.pop() {
        let counted = match &e.expr {
            Expr::Call(call) => {
                call.target.is_some()
                    || matches!(
                        call.func_name.as_str(),
                        "_?_:_"
                            | "_<_"
                            | "_<=_"
                            | "_>_"
                            | "_>=_"
                            | "_==_"
                            | "_!=_"
                            | "@in"
                            | "_+_"
                            | "_-_"
                            | "_*_"
                            | "_/_"
                            | "_%_"
                            | "_[_]"
                            | "_[?_]"
                            | "_?._"
                    )
            }
            Expr::Select(_) | Expr::Comprehension(_) => true,
            _ => false,
        };
        let depth = above + usize::from(counted);
        deepest = deepest.max(depth);
        match &e.expr {
            Expr::Call(call) => {
                stack.extend(call.target.iter().map(|t| (&**t, depth)));
                stack.extend(call.args.iter().map(|a| (a, depth)));
            }
            Expr::Select(select) => stack.push((&select.operand, depth)),
            Expr::List(list) => stack.extend(list.elements.iter().map(|x| (x, depth))),
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        stack.push((&m.key, depth));
                        stack.push((&m.value, depth));
                    }
                }
            }
            Expr::Struct(st) => {
                for entry in &st.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        stack.push((&f.value, depth));
                    }
                }
            }
            Expr::Comprehension(c) => {
                stack.push((&c.iter_range, depth));
                stack.push((&c.loop_step, depth));
                stack.push((&c.result, depth));
            }
            _ => {}
        }
    }
    deepest
}

/// One issue: location line, then the source line and a caret under the column. An issue
/// without a location (line 0) is cel-go's `NoLocation`: `<input>:-1:0`, and no source line.
pub fn render_issue(source: &str, issue: &Issue) -> String {
    if issue.line == 0 {
        return format!("ERROR: <input>:-1:0: {}", issue.message);
    }
    let mut out = format!(
        "ERROR: <input>:{}:{}: {}",
        issue.line, issue.column, issue.message
    );
    if let Some(line) = source.split('\n').nth(issue.line - 1) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.chars().count() <= MAX_SNIPPET_LEN {
            out.push_str("\n | ");
            out.push_str(&line.replace('\t', " "));
            out.push_str("\n | ");
            let mut caret_wide = false;
            for (i, c) in line.chars().enumerate() {
                if i + 1 >= issue.column {
                    caret_wide = c.len_utf8() > 1;
                    break;
                }
                // cel-go draws wide characters with a full-width dot so the caret stays aligned.
                out.push(if c.len_utf8() > 1 { '．' } else { '.' });
            }
            out.push(if caret_wide { '＾' } else { '^' });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_rules_parse() {
        for rule in [
            "self.minReplicas <= self.maxReplicas",
            "self.all(x, x.startsWith('a'))",
            "self.?foo.orValue(1) == 1",
            "has(self.x) ? self.x > 0 : true",
        ] {
            assert!(parse(rule).is_ok(), "{rule}");
        }
    }

    #[test]
    fn syntax_error_has_caret_line() {
        let err = parse("self.x == ").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("ERROR: <input>:1:"), "{text}");
        assert!(text.contains("Syntax error"), "{text}");
        assert!(text.contains("\n | self.x == \n | "), "{text}");
        assert!(text.ends_with('^'), "{text}");
    }

    #[test]
    fn too_deep_is_reported_not_crashing() {
        // Nested brackets: cel-go's parse listener, without a location.
        let rule = format!("{}1{}", "(".repeat(300), ")".repeat(300));
        let err = parse(&rule).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ERROR: <input>:-1:0: expression recursion limit exceeded: 250"
        );
    }

    #[test]
    fn long_left_associative_chains_hit_the_visitor_limit_without_overflowing() {
        // 250 additions are as deep as cel-go's visitor goes; one more is refused. 20,000 (the
        // tree the parser builds is that deep) must be refused before anything recurses on it.
        let chain = |n: usize| format!("self{} > 0", " + 1".repeat(n));
        assert!(parse_ast(&chain(249)).is_ok());
        for n in [250, 20_000] {
            let Err(err) = parse_ast(&chain(n)) else {
                panic!("a chain of {n} additions is refused");
            };
            assert_eq!(
                err.to_string(),
                "ERROR: <input>:-1:0: max recursion depth exceeded"
            );
        }
        // `&&` and `||` chains are not counted.
        assert!(parse(&vec!["true"; 600].join(" && ")).is_ok());
    }

    /// The stack bound of `stack_needed` holds: expressions as deep as the apiserver allows
    /// parse on a test thread's small stack (a low bound would overflow it and abort).
    #[test]
    fn deep_expressions_parse_on_a_small_stack() {
        let deep = [
            format!("{}1{}", "(".repeat(249), ")".repeat(249)),
            format!("{}1{}", "[".repeat(200), "]".repeat(200)),
            format!("{}x{}", "f(".repeat(240), ")".repeat(240)),
            format!("{}true{}", "[1].all(x, ".repeat(100), ")".repeat(100)),
            format!("{}x", "a ? b : ".repeat(240)),
        ];
        for rule in deep {
            let small = std::thread::Builder::new().stack_size(2 << 20);
            let parsed = small
                .spawn(move || parse_ast(&rule).map(|a| a.nodes.len()))
                .expect("a thread")
                .join()
                .expect("no panic");
            assert!(parsed.as_ref().is_ok_and(|n| *n > 0), "{parsed:?}");
        }
    }

    #[test]
    fn caret_counts_characters_not_bytes() {
        let issue = Issue {
            line: 1,
            column: 4,
            message: "m".into(),
        };
        assert_eq!(
            render_issue("'é' x", &issue),
            "ERROR: <input>:1:4: m\n | 'é' x\n | .．.^"
        );
    }
}
