//! Go's `regexp.Compile` verdict on a pattern, with its error text: a port of the checks of
//! `regexp/syntax`'s parser (Perl flags, as `regexp.Compile` uses), without building the
//! regexp. The `regex` crate's parser accepts and refuses other patterns (`\Q...\E`, octal
//! escapes, repeat counts over 1000, loose Unicode names) and words its errors its own way;
//! the apiserver answers with Go's.

use std::fmt;

#[path = "regexp_names.rs"]
mod names;

/// `regexp/syntax.ErrorCode`: what is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// `invalid character class range`
    InvalidCharRange,
    /// `invalid escape sequence`
    InvalidEscape,
    /// `invalid named capture`
    InvalidNamedCapture,
    /// `invalid or unsupported Perl syntax`
    InvalidPerlOp,
    /// `invalid nested repetition operator`
    InvalidRepeatOp,
    /// `invalid repeat count`
    InvalidRepeatSize,
    /// `missing closing ]`
    MissingBracket,
    /// `missing closing )`
    MissingParen,
    /// `missing argument to repetition operator`
    MissingRepeatArgument,
    /// `trailing backslash at end of expression`
    TrailingBackslash,
    /// `unexpected )`
    UnexpectedParen,
    /// `expression nests too deeply`
    NestingDepth,
}

impl ErrorCode {
    /// Go's text for the code.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidCharRange => "invalid character class range",
            ErrorCode::InvalidEscape => "invalid escape sequence",
            ErrorCode::InvalidNamedCapture => "invalid named capture",
            ErrorCode::InvalidPerlOp => "invalid or unsupported Perl syntax",
            ErrorCode::InvalidRepeatOp => "invalid nested repetition operator",
            ErrorCode::InvalidRepeatSize => "invalid repeat count",
            ErrorCode::MissingBracket => "missing closing ]",
            ErrorCode::MissingParen => "missing closing )",
            ErrorCode::MissingRepeatArgument => "missing argument to repetition operator",
            ErrorCode::TrailingBackslash => "trailing backslash at end of expression",
            ErrorCode::UnexpectedParen => "unexpected )",
            ErrorCode::NestingDepth => "expression nests too deeply",
        }
    }
}

/// `regexp/syntax.Error`: `Display` is Go's `error parsing regexp: <code>: `<expr>``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What is wrong.
    pub code: ErrorCode,
    /// The part of the pattern Go names.
    pub expr: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error parsing regexp: {}: `{}`",
            self.code.as_str(),
            self.expr
        )
    }
}

impl std::error::Error for Error {}

/// Go's limit on repeat counts and on their nesting (`{1001}`, `(a{100}){100}`).
const MAX_REPEAT: i64 = 1000;
/// Go's `maxHeight`: how deep groups and repetitions may nest.
const MAX_HEIGHT: usize = 1000;

fn err<T>(code: ErrorCode, expr: &str) -> Result<T, Error> {
    Err(Error {
        code,
        expr: expr.to_owned(),
    })
}

/// The `{n,m}` repetitions inside an expression, outermost first: what Go's `repeatIsValid`
/// walks to bound their product.
#[derive(Debug, Clone, Default)]
struct Repeats(Vec<Repeat>);

#[derive(Debug, Clone)]
struct Repeat {
    min: i64,
    max: i64,
    inner: Repeats,
}

impl Repeats {
    /// Go's `repeatIsValid(re, n)` over every repetition of the forest.
    fn valid(&self, n: i64) -> bool {
        self.0.iter().all(|r| {
            if r.max == 0 {
                return true;
            }
            let m = if r.max < 0 { r.min } else { r.max };
            if m > n {
                return false;
            }
            r.inner.valid(if m > 0 { n / m } else { n })
        })
    }
}

/// One open group: what it holds so far.
#[derive(Default)]
struct Frame {
    /// The repetitions of everything in the group.
    repeats: Repeats,
    /// The last item of the group, if the group's last token pushed one (a repetition
    /// applies to it): its repetitions and its height.
    last: Option<(Repeats, usize)>,
    /// The tallest item in the group.
    height: usize,
}

/// Checks `pattern` as Go's `regexp.Compile` parses it; `Err` has Go's error.
pub fn check(pattern: &str) -> Result<(), Error> {
    let mut stack: Vec<Frame> = vec![Frame::default()];
    let mut t = pattern;
    let mut last_repeat: &str = "";
    while let Some(c) = t.chars().next() {
        let mut repeat = "";
        match c {
            '(' if t[1..].starts_with('?') => {
                let (rest, opens) = perl_flags(t)?;
                if opens {
                    stack.push(Frame::default());
                }
                t = rest;
            }
            '(' => {
                stack.push(Frame::default());
                t = &t[1..];
            }
            '|' => {
                top(&mut stack).settle();
                t = &t[1..];
            }
            ')' => {
                if stack.len() < 2 {
                    return err(ErrorCode::UnexpectedParen, pattern);
                }
                let mut group = stack.pop().expect("checked above");
                // A group adds a level; the item is the whole group.
                let height = group.height + 1;
                if height > MAX_HEIGHT {
                    return err(ErrorCode::NestingDepth, pattern);
                }
                group.settle();
                push_item(&mut stack, group.repeats, height);
                t = &t[1..];
            }
            '[' => {
                t = class(t)?;
                push_item(&mut stack, Repeats::default(), 1);
            }
            '*' | '+' | '?' => {
                let before = t;
                let after = &t[1..];
                let after = repetition(&mut stack, pattern, before, after, last_repeat, None)?;
                repeat = before;
                t = after;
            }
            '{' => match parse_repeat(t) {
                None => {
                    // Not a repetition: `{` is a literal.
                    push_item(&mut stack, Repeats::default(), 1);
                    t = &t[1..];
                }
                Some((min, max, after)) => {
                    let before = t;
                    if !(0..=MAX_REPEAT).contains(&min)
                        || max > MAX_REPEAT
                        || (max >= 0 && min > max)
                    {
                        return err(
                            ErrorCode::InvalidRepeatSize,
                            &before[..before.len() - after.len()],
                        );
                    }
                    let counts = Some((min, max));
                    let after =
                        repetition(&mut stack, pattern, before, after, last_repeat, counts)?;
                    repeat = before;
                    t = after;
                }
            },
            '\\' => {
                let (rest, pushes) = escape_atom(t)?;
                if pushes {
                    push_item(&mut stack, Repeats::default(), 1);
                }
                t = rest;
            }
            c => {
                push_item(&mut stack, Repeats::default(), 1);
                t = &t[c.len_utf8()..];
            }
        }
        last_repeat = repeat;
    }
    if stack.len() != 1 {
        return err(ErrorCode::MissingParen, pattern);
    }
    Ok(())
}

impl Frame {
    /// The last item becomes one of the group's finished items.
    fn settle(&mut self) {
        if let Some((repeats, _)) = self.last.take() {
            self.repeats.0.extend(repeats.0);
        }
    }
}

fn top(stack: &mut [Frame]) -> &mut Frame {
    stack.last_mut().expect("the stack keeps its base frame")
}

/// An item pushed on the innermost group: what a repetition that follows applies to.
fn push_item(stack: &mut [Frame], repeats: Repeats, height: usize) {
    let frame = top(stack);
    frame.settle();
    frame.height = frame.height.max(height);
    frame.last = Some((repeats, height));
}

/// `parser.repeat`: `*`, `+`, `?` or `{min,max}` (`counts`) applied to the last item. `before`
/// starts at the operator, `after` after it; returns what follows (a `?` that makes it
/// non-greedy included).
fn repetition<'a>(
    stack: &mut [Frame],
    pattern: &str,
    before: &'a str,
    after: &'a str,
    last_repeat: &str,
    counts: Option<(i64, i64)>,
) -> Result<&'a str, Error> {
    let after = after.strip_prefix('?').unwrap_or(after);
    if !last_repeat.is_empty() {
        // `a**`: Perl does not stack repetitions.
        return err(
            ErrorCode::InvalidRepeatOp,
            &last_repeat[..last_repeat.len() - after.len()],
        );
    }
    let op = &before[..before.len() - after.len()];
    let frame = top(stack);
    let Some((inner, height)) = frame.last.take() else {
        return err(ErrorCode::MissingRepeatArgument, op);
    };
    let height = height + 1;
    if height > MAX_HEIGHT {
        return err(ErrorCode::NestingDepth, pattern);
    }
    let repeats = match counts {
        Some((min, max)) => {
            let r = Repeats(vec![Repeat { min, max, inner }]);
            if (min >= 2 || max >= 2) && !r.valid(MAX_REPEAT) {
                return err(ErrorCode::InvalidRepeatSize, op);
            }
            r
        }
        None => inner,
    };
    frame.height = frame.height.max(height);
    frame.last = Some((repeats, height));
    Ok(after)
}

/// `parser.parseRepeat`: `{n}`, `{n,}` or `{n,m}` at the start of `s`, as `(min, max, rest)`
/// (`max` -1 when open, a count over 10^8 -1); `None` when `{` does not start one.
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (mut min, s) = parse_int(s)?;
    if s.is_empty() {
        return None;
    }
    let (max, s) = match s.strip_prefix(',') {
        None => (min, s),
        Some("") => return None,
        Some(s) if s.starts_with('}') => (-1, s),
        Some(s) => {
            let (max, s) = parse_int(s)?;
            if max < 0 {
                min = -1;
            }
            (max, s)
        }
    };
    let rest = s.strip_prefix('}')?;
    Some((min, max, rest))
}

/// `parser.parseInt`: decimal digits without a leading zero; over 10^8 reads as -1.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_digit() || (b.len() >= 2 && b[0] == b'0' && b[1].is_ascii_digit()) {
        return None;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for &d in &b[..digits] {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(d - b'0');
    }
    Some((n, &s[digits..]))
}

/// `parser.parsePerlFlags` at `(?`: a named capture, a non-capturing group or flags. Returns
/// what follows and whether a group opens.
fn perl_flags(s: &str) -> Result<(&str, bool), Error> {
    let b = s.as_bytes();
    if (b.len() > 4 && b[2] == b'P' && b[3] == b'<') || (b.len() > 3 && b[2] == b'<') {
        let begin = if b[2] == b'<' { 3 } else { 4 };
        let Some(end) = s.find('>') else {
            return err(ErrorCode::InvalidNamedCapture, s);
        };
        let name = s.get(begin..end).unwrap_or("");
        if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
            return err(ErrorCode::InvalidNamedCapture, &s[..=end]);
        }
        return Ok((&s[end + 1..], true));
    }
    let mut t = &s[2..];
    let mut negated = false;
    let mut saw_flag = false;
    while let Some(c) = t.chars().next() {
        t = &t[c.len_utf8()..];
        match c {
            'i' | 'm' | 's' | 'U' => saw_flag = true,
            '-' if !negated => {
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => return Ok((t, c == ':')),
            _ => break,
        }
    }
    err(ErrorCode::InvalidPerlOp, &s[..s.len() - t.len()])
}

/// A backslash sequence outside a class (`\A \b \B \z`, `\Q...\E`, `\p{..}`, `\d`, or
/// an escaped character); returns what follows and whether it pushed an item.
fn escape_atom(t: &str) -> Result<(&str, bool), Error> {
    match t.as_bytes().get(1) {
        Some(b'A' | b'b' | b'B' | b'z') => return Ok((&t[2..], true)),
        Some(b'C') => return err(ErrorCode::InvalidEscape, &t[..2]),
        Some(b'Q') => {
            let lit = &t[2..];
            let (lit, rest) = match lit.find("\\E") {
                Some(i) => (&lit[..i], &lit[i + 2..]),
                None => (lit, ""),
            };
            return Ok((rest, !lit.is_empty()));
        }
        _ => {}
    }
    if let Some(rest) = unicode_class(t)? {
        return Ok((rest, true));
    }
    if let Some(rest) = perl_class_escape(t) {
        return Ok((rest, true));
    }
    let (_, rest) = parse_escape(t)?;
    Ok((rest, true))
}

/// `parser.parseEscape`: one escaped character (octal, hex, C escapes, punctuation).
fn parse_escape(s: &str) -> Result<(u32, &str), Error> {
    let Some(c) = s[1..].chars().next() else {
        return err(ErrorCode::TrailingBackslash, "");
    };
    let mut t = &s[1 + c.len_utf8()..];
    let fail = |t: &str| err(ErrorCode::InvalidEscape, &s[..s.len() - t.len()]);
    let octal = |t: &str| {
        t.as_bytes()
            .first()
            .is_some_and(|d| (b'0'..=b'7').contains(d))
    };
    match c {
        // A single non-zero digit would be a backreference: not supported.
        '1'..='7' if !octal(t) => fail(t),
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            for _ in 1..3 {
                if !octal(t) {
                    break;
                }
                r = r * 8 + u32::from(t.as_bytes()[0] - b'0');
                t = &t[1..];
            }
            Ok((r, t))
        }
        'x' => {
            let Some(c1) = t.chars().next() else {
                return fail(t);
            };
            t = &t[c1.len_utf8()..];
            if c1 == '{' {
                let mut digits = 0;
                let mut r: u32 = 0;
                loop {
                    let Some(d) = t.chars().next() else {
                        return fail(t);
                    };
                    t = &t[d.len_utf8()..];
                    if d == '}' {
                        break;
                    }
                    let Some(v) = d.to_digit(16) else {
                        return fail(t);
                    };
                    r = r * 16 + v;
                    if r > 0x10_FFFF {
                        return fail(t);
                    }
                    digits += 1;
                }
                return if digits == 0 { fail(t) } else { Ok((r, t)) };
            }
            let c2 = t.chars().next();
            if let Some(c2) = c2 {
                t = &t[c2.len_utf8()..];
            }
            match (c1.to_digit(16), c2.and_then(|c| c.to_digit(16))) {
                (Some(x), Some(y)) => Ok((x * 16 + y, t)),
                _ => fail(t),
            }
        }
        'a' => Ok((7, t)),
        'f' => Ok((12, t)),
        'n' => Ok((10, t)),
        'r' => Ok((13, t)),
        't' => Ok((9, t)),
        'v' => Ok((11, t)),
        // Escaped ASCII punctuation is itself.
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c as u32, t)),
        _ => fail(t),
    }
}

/// `\d \D \s \S \w \W`.
fn perl_class_escape(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    (b.len() >= 2 && b[0] == b'\\' && b"dDsSwW".contains(&b[1])).then(|| &s[2..])
}

/// `parser.parseUnicodeClass`: `\pN`, `\p{Name}`, `\P{^Name}` at the start of `s`.
fn unicode_class(s: &str) -> Result<Option<&str>, Error> {
    if !(s.starts_with("\\p") || s.starts_with("\\P")) {
        return Ok(None);
    }
    let (seq, name, rest) = match s[2..].chars().next() {
        Some('{') => {
            let Some(end) = s.find('}') else {
                return err(ErrorCode::InvalidCharRange, s);
            };
            (&s[..=end], &s[3..end], &s[end + 1..])
        }
        Some(c) => {
            let seq = &s[..2 + c.len_utf8()];
            (seq, &seq[2..], &s[seq.len()..])
        }
        None => (s, "", ""),
    };
    let name = name.strip_prefix('^').unwrap_or(name);
    if names::NAMES
        .binary_search(&canonical_name(name).as_str())
        .is_err()
    {
        return err(ErrorCode::InvalidCharRange, seq);
    }
    Ok(Some(rest))
}

/// `regexp/syntax.canonicalName`: `_`, `-` and spaces dropped, the first letter upper case,
/// the others lower case (ASCII).
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')) {
        if out.is_empty() {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The POSIX classes Go knows inside brackets.
const POSIX: [&str; 14] = [
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// `parser.parseNamedClass`: `[:alpha:]` or `[:^alpha:]` at the start of `s`.
fn named_class(s: &str) -> Result<Option<&str>, Error> {
    let Some(i) = s.get(2..).and_then(|r| r.find(":]")) else {
        return Ok(None);
    };
    let name = &s[..i + 4];
    let bare = &name[2..name.len() - 2];
    if POSIX.contains(&bare.strip_prefix('^').unwrap_or(bare)) {
        Ok(Some(&s[i + 4..]))
    } else {
        err(ErrorCode::InvalidCharRange, name)
    }
}

/// `parser.parseClass`: a bracketed class at the start of `s`; returns what follows it.
fn class(s: &str) -> Result<&str, Error> {
    let mut t = &s[1..];
    if t.starts_with('^') {
        t = &t[1..];
    }
    let mut first = true;
    while !t.starts_with(']') || first {
        first = false;
        if t.len() > 2
            && t.starts_with("[:")
            && let Some(rest) = named_class(t)?
        {
            t = rest;
            continue;
        }
        if let Some(rest) = unicode_class(t)? {
            t = rest;
            continue;
        }
        if let Some(rest) = perl_class_escape(t) {
            t = rest;
            continue;
        }
        let range = t;
        let (lo, rest) = class_char(t, s)?;
        t = rest;
        // `[a-]` is `a` or `-`.
        if t.len() >= 2 && t.starts_with('-') && t.as_bytes()[1] != b']' {
            let (hi, rest) = class_char(&t[1..], s)?;
            t = rest;
            if hi < lo {
                return err(ErrorCode::InvalidCharRange, &range[..range.len() - t.len()]);
            }
        }
    }
    Ok(&t[1..])
}

/// `parser.parseClassChar`: one character of a class, escaped or not.
fn class_char<'a>(s: &'a str, whole_class: &str) -> Result<(u32, &'a str), Error> {
    let Some(c) = s.chars().next() else {
        return err(ErrorCode::MissingBracket, whole_class);
    };
    if c == '\\' {
        return parse_escape(s);
    }
    Ok((c as u32, &s[c.len_utf8()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go 1.26's `regexp.Compile` on each pattern (`OK` or its error text), as printed by a Go
    /// program; `tests/oracle` compares the same through the apiserver.
    const GO: &str = include_str!("regexp_cases.txt");

    #[test]
    fn go_verdicts_and_texts() {
        let mut failures = Vec::new();
        for line in GO.lines().filter(|l| !l.is_empty()) {
            let (pattern, want) = line.split_once('\t').expect("pattern TAB verdict");
            let got = match check(pattern) {
                Ok(()) => "OK".to_owned(),
                Err(e) => e.to_string(),
            };
            if got != want {
                failures.push(format!("{pattern}: got {got}, Go says {want}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
