//! `<string>.format(<list>)`, as ext.Strings version 2 runs it in the apiserver (cel-go's
//! version-1 formatter, `ext/formatting.go`, with the `en_US` locale and no precision limit).
//!
//! Two families of output coexist there, and both are reproduced:
//! * `%f` and `%e` go through `golang.org/x/text/message` for `en_US`: thousands separators,
//!   `∞`, scientific notation as `1.234500×10⁰³`; and cel-go hands `%e`'s precision to it as a
//!   *width*, while `%f`'s precision passes through `uint8`/`int16` fields of the number
//!   formatter (so `%.300f` shows 44 decimals and `%.256f` drops trailing zeros).
//! * `%s` prints values as CEL's `string()` does (Go's `%g` for doubles, RFC 3339 for
//!   timestamps), and inside lists and maps with Go's `fmt` (`%.6f`) and `%q` quoting.

use super::strings::{MAX_RESULT_BYTES, escape_property, too_large};
use crate::eval::error::EvalError;
use crate::eval::time::{Duration, Timestamp};
use crate::eval::value::{Key, List, Map, Value};

/// Precision when a clause gives none (cel-go's `defaultPrecision`).
const DEFAULT_PRECISION: i64 = 6;

/// `format`'s implementation.
pub(super) fn format(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(f), Value::List(l)] = args else {
        return Err(EvalError::no_such_overload());
    };
    format_string(f, &l.items)
        .map(Value::string)
        .map_err(EvalError::new)
}

/// The interpolation loop: `%%` is a percent sign, any other `%` takes the next argument.
fn format_string(f: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::with_capacity(f.len());
    let mut next_arg = 0usize;
    let mut rest = f;
    while let Some(p) = rest.find('%') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        if rest.as_bytes().get(1) == Some(&b'%') {
            out.push('%');
            rest = &rest[2..];
            continue;
        }
        // cel-go fetches the argument before looking at the clause.
        let arg = args
            .get(next_arg)
            .ok_or_else(|| format!("index {next_arg} out of range"))?;
        let clause = &rest.as_bytes()[1..];
        if clause.is_empty() {
            return Err("unexpected end of string".into());
        }
        let (read, text) = format_clause(clause, arg)?;
        out.push_str(&text);
        if out.len() > MAX_RESULT_BYTES {
            return Err(too_large("format").message);
        }
        // A clause ends with an ASCII verb, so this is a character boundary.
        rest = rest.get(1 + read..).unwrap_or_default();
        next_arg += 1;
    }
    out.push_str(rest);
    Ok(out)
}

/// Parses one clause after its `%` (an optional `.precision`, then the verb) and formats `arg`
/// with it: the bytes read and the text.
fn format_clause(clause: &[u8], arg: &Value) -> Result<(usize, String), String> {
    let parse_error = |e: String| format!("could not parse formatting clause: {e}");
    let mut i = 0;
    let mut precision = None;
    if clause.first() == Some(&b'.') {
        i = 1;
        loop {
            match clause.get(i) {
                None => {
                    return Err(parse_error(
                        "error while parsing precision: could not find end of precision specifier"
                            .into(),
                    ));
                }
                Some(c) if c.is_ascii_digit() => i += 1,
                Some(_) => break,
            }
        }
        let digits = std::str::from_utf8(&clause[1..i]).unwrap_or_default();
        precision = Some(go_atoi(digits).map_err(|e| {
            parse_error(format!(
                "error while parsing precision: error while converting precision to integer: {e}"
            ))
        })?);
    }
    let Some(&verb) = clause.get(i) else {
        return Err(parse_error(
            "error while parsing precision: could not find end of precision specifier".into(),
        ));
    };
    let text = match verb {
        b's' => string_clause(arg),
        b'd' => decimal_clause(arg),
        b'f' => fixed_clause(arg, precision.unwrap_or(DEFAULT_PRECISION)),
        b'e' => scientific_clause(arg, precision.unwrap_or(DEFAULT_PRECISION)),
        b'b' => binary_clause(arg),
        b'x' => hex_clause(arg, false),
        b'X' => hex_clause(arg, true),
        b'o' => octal_clause(arg),
        // Go reads the byte as a rune: a UTF-8 lead byte shows as its Latin-1 character.
        other => {
            return Err(parse_error(format!(
                "unrecognized formatting clause \"{}\"",
                char::from(other)
            )));
        }
    };
    let text = text.map_err(|e| format!("error during formatting: {e}"))?;
    Ok((i + 1, text))
}

/// Go's `strconv.Atoi` on a string of ASCII digits, with its error texts.
fn go_atoi(digits: &str) -> Result<i64, String> {
    if digits.is_empty() {
        return Err("strconv.Atoi: parsing \"\": invalid syntax".into());
    }
    digits
        .parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing \"{digits}\": value out of range"))
}

// ---------------------------------------------------------------------------------------------
// Clauses.

fn string_clause(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::List(l) => format_list(l)?,
        Value::Map(m) => format_map(m)?,
        Value::Null => "null".into(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => go_g(*d),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.to_string(),
        Value::Bytes(b) => bytes_to_string(b)?,
        Value::Duration(d) => duration_string(*d),
        Value::Timestamp(t) => timestamp_string(*t),
        Value::Type(name) => name.to_string(),
        other => {
            return Err(format!(
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
                other.type_name()
            ));
        }
    })
}

/// `string(bytes)`, whose failure `format` reports quoted inside its own message.
fn bytes_to_string(b: &[u8]) -> Result<String, String> {
    String::from_utf8(b.to_vec()).map_err(|_| {
        "could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string"
            .into()
    })
}

fn decimal_clause(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(i) => Ok(i.to_string()),
        Value::Uint(u) => Ok(u.to_string()),
        other => Err(format!(
            "decimal clause can only be used on integers, was given {}",
            other.type_name()
        )),
    }
}

/// The double `%f` and `%e` accept: a double, or one of the three strings naming a special value.
fn float_arg(v: &Value) -> Option<f64> {
    match v {
        Value::Double(d) => Some(*d),
        Value::String(s) => match &**s {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

fn fixed_clause(v: &Value, precision: i64) -> Result<String, String> {
    let x = float_arg(v).ok_or_else(|| {
        format!(
            "fixed-point clause can only be used on doubles, was given {}",
            v.type_name()
        )
    })?;
    Ok(localized_fixed(x, precision))
}

fn scientific_clause(v: &Value, precision: i64) -> Result<String, String> {
    let x = float_arg(v).ok_or_else(|| {
        format!(
            "scientific clause can only be used on doubles, was given {}",
            v.type_name()
        )
    })?;
    Ok(localized_scientific(x, precision))
}

fn binary_clause(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(i) => Ok(signed_radix(*i, |u| format!("{u:b}"))),
        Value::Uint(u) => Ok(format!("{u:b}")),
        Value::Bool(b) => Ok(if *b { "1" } else { "0" }.into()),
        other => Err(format!(
            "only integers and bools can be formatted as binary, was given {}",
            other.type_name()
        )),
    }
}

fn hex_clause(v: &Value, upper: bool) -> Result<String, String> {
    let hex = |u: u64| {
        if upper {
            format!("{u:X}")
        } else {
            format!("{u:x}")
        }
    };
    let bytes_hex = |b: &[u8]| {
        b.iter()
            .map(|x| {
                if upper {
                    format!("{x:02X}")
                } else {
                    format!("{x:02x}")
                }
            })
            .collect::<String>()
    };
    match v {
        Value::String(s) => Ok(bytes_hex(s.as_bytes())),
        Value::Bytes(b) => Ok(bytes_hex(b)),
        Value::Int(i) => Ok(signed_radix(*i, hex)),
        Value::Uint(u) => Ok(hex(*u)),
        other => Err(format!(
            "only integers, byte buffers, and strings can be formatted as hex, was given {}",
            other.type_name()
        )),
    }
}

fn octal_clause(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(i) => Ok(signed_radix(*i, |u| format!("{u:o}"))),
        Value::Uint(u) => Ok(format!("{u:o}")),
        other => Err(format!(
            "octal clause can only be used on integers, was given {}",
            other.type_name()
        )),
    }
}

/// Go prints negative numbers in any base as a sign and the magnitude.
fn signed_radix(i: i64, digits: impl Fn(u64) -> String) -> String {
    let magnitude = digits(i.unsigned_abs());
    if i < 0 {
        format!("-{magnitude}")
    } else {
        magnitude
    }
}

// ---------------------------------------------------------------------------------------------
// Lists and maps under `%s`.

fn format_list(l: &List) -> Result<String, String> {
    let mut parts = Vec::with_capacity(l.items.len());
    for item in &l.items {
        parts.push(quote_for_cel(item, element_clause(item)?));
    }
    Ok(format!("[{}]", parts.join(", ")))
}

/// Map entries print as `key:value`, ordered by the printed key. An object's keys are its
/// property names as CEL sees them (escaped).
fn format_map(m: &Map) -> Result<String, String> {
    let mut pairs = Vec::with_capacity(m.len());
    for (k, v) in m.entries() {
        let key = match k {
            Key::String(s) if m.object => {
                go_quote(&escape_property(s).unwrap_or_else(|| s.to_string()))
            }
            Key::String(s) => go_quote(s),
            Key::Int(i) => i.to_string(),
            Key::Uint(u) => u.to_string(),
            Key::Bool(b) => b.to_string(),
        };
        let value = quote_for_cel(v, element_clause(v)?);
        pairs.push((key, value));
    }
    pairs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let body: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", body.join(", ")))
}

/// How an element of a list or map is printed before quoting (cel-go's `clauseForType`).
fn element_clause(v: &Value) -> Result<String, String> {
    match v {
        Value::Int(_) | Value::Uint(_) => decimal_clause(v),
        Value::String(_) | Value::Bytes(_) | Value::Bool(_) | Value::Null | Value::Type(_) => {
            string_clause(v)
        }
        Value::Timestamp(t) => Ok(format!("timestamp({})", go_quote(&timestamp_string(*t)))),
        Value::Duration(d) => Ok(format!("duration({})", go_quote(&duration_string(*d)))),
        Value::List(l) => format_list(l),
        Value::Map(m) => format_map(m),
        Value::Double(d) => Ok(go_fixed6(*d)),
        other => Err(format!("no formatting function for {}", other.type_name())),
    }
}

/// Strings and bytes are quoted, and so are the doubles Go prints as words.
fn quote_for_cel(v: &Value, text: String) -> String {
    match v {
        Value::String(_) => go_quote(&text),
        Value::Bytes(_) => format!("b{}", go_quote(&text)),
        Value::Double(d) if !d.is_finite() => go_quote(&text),
        _ => text,
    }
}

// ---------------------------------------------------------------------------------------------
// Go's renderings.

/// Go's `%g` (shortest representation; an exponent below -4 or from 6 on switches to `e`
/// notation with at least two exponent digits): CEL's `string(double)`.
pub(super) fn go_g(x: f64) -> String {
    if let Some(special) = go_special(x) {
        return special.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exp) = shortest_digits(x.abs());
    let nd = digits.len() as i64;
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{esign}{:02}", exp.unsigned_abs());
    }
    // Decimal point after `exp + 1` digits.
    let point = exp + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point >= nd {
        format!("{digits}{}", "0".repeat((point - nd) as usize))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

/// `+Inf`, `-Inf` and `NaN`, as Go's `fmt` prints them.
fn go_special(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("NaN")
    } else if x == f64::INFINITY {
        Some("+Inf")
    } else if x == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// The shortest round-tripping decimal digits of a finite non-negative double and the exponent
/// of the first one (`1234.5` gives `("12345", 3)`).
fn shortest_digits(x: f64) -> (String, i64) {
    let e = format!("{x:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// Go's `fmt.Sprintf("%.6f", x)`.
fn go_fixed6(x: f64) -> String {
    if let Some(special) = go_special(x) {
        return special.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    format!("{sign}{:.6}", x.abs())
}

/// CEL's `string(duration)`: the seconds as Go's shortest `%f`-style float, then `s`.
pub(super) fn duration_string(d: Duration) -> String {
    const NANOS: i64 = 1_000_000_000;
    let secs = (d.nanos / NANOS) as f64 + (d.nanos % NANOS) as f64 / 1e9;
    format!("{secs}s")
}

/// CEL's `string(timestamp)`: RFC 3339 in UTC with the fraction's trailing zeros dropped.
pub(super) fn timestamp_string(t: Timestamp) -> String {
    let days = t.secs.div_euclid(86_400);
    let sod = t.secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let mut out = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    if t.nanos > 0 {
        let frac = format!("{:09}", t.nanos);
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// The proleptic Gregorian date of a day count from 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Go's `strconv.Quote`: printable characters (Unicode letters, marks, numbers, punctuation,
/// symbols and the ASCII space) stay, the rest become `\a`-style, `\x`, `\u` or `\U` escapes.
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if is_print(c) => out.push(c),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsPrint`, through the regex crate's Unicode tables.
fn is_print(c: char) -> bool {
    use std::sync::OnceLock;
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    static PRINTABLE: OnceLock<Option<regex::Regex>> = OnceLock::new();
    let re = PRINTABLE.get_or_init(|| regex::Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").ok());
    let mut buf = [0u8; 4];
    re.as_ref()
        .is_none_or(|re| re.is_match(c.encode_utf8(&mut buf)))
}

// ---------------------------------------------------------------------------------------------
// x/text's en_US number formatting.

/// What x/text prints when its format parser rejects a number over a million-ish (cel-go
/// builds `%.<precision>f` and `%<precision>e` from the user's precision).
const NO_VERB: &str = "%!(NOVERB)";

/// Whether x/text's `parsenum` gives up on `n`: it refuses to read another digit once the
/// number so far exceeds 1e6.
fn format_number_too_large(n: i64) -> bool {
    n / 10 > 1_000_000
}

/// `%.<precision>f` for `en_US`: grouped integer digits, `.`, and between `uint8(precision)`
/// and `int16(precision)` decimals (a negative maximum means the shortest representation).
fn localized_fixed(x: f64, precision: i64) -> String {
    if format_number_too_large(precision) {
        return NO_VERB.into();
    }
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-∞" } else { "∞" }.into();
    }
    let min_frac = usize::from(precision as u8);
    let max_frac = precision as i16;
    let abs = x.abs();
    let text = match usize::try_from(max_frac) {
        Ok(max) => format!("{abs:.max$}"),
        Err(_) => format!("{abs}"),
    };
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let zero = int.is_empty() && frac.is_empty();
    let mut out = String::new();
    // The sign goes by the value, also when it rounds to zero (`-0.00`); -0.0 has none.
    if x < 0.0 {
        out.push('-');
    }
    if int.is_empty() {
        out.push('0');
    } else {
        group_thousands(int, &mut out);
    }
    let frac_digits = if zero {
        min_frac
    } else {
        frac.len().max(min_frac)
    };
    if frac_digits > 0 {
        out.push('.');
        if !zero {
            out.push_str(frac);
        }
        let shown = if zero { 0 } else { frac.len() };
        out.extend(std::iter::repeat_n('0', frac_digits - shown));
    }
    out
}

fn group_thousands(int: &str, out: &mut String) {
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
}

/// `%<width>e` for `en_US`: seven significant digits as `d.dddddd×10ⁿⁿ` (superscript exponent
/// of at least two digits), right-aligned to `width` code points.
fn localized_scientific(x: f64, width: i64) -> String {
    const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    if format_number_too_large(width) {
        return NO_VERB.into();
    }
    let text = if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x < 0.0 { "-∞" } else { "∞" }.to_owned()
    } else {
        let e = format!("{:.6e}", x.abs());
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i64 = exp.parse().unwrap_or(0);
        let mut out = String::new();
        if x < 0.0 {
            out.push('-');
        }
        out.push_str(mantissa);
        out.push_str("×10");
        if exp < 0 {
            out.push('⁻');
        }
        let digits = format!("{:02}", exp.unsigned_abs());
        out.extend(
            digits
                .bytes()
                .map(|d| SUPERSCRIPT[usize::from(d.wrapping_sub(b'0')) % 10]),
        );
        out
    };
    let count = text.chars().count();
    let pad = usize::try_from(width).unwrap_or(0).saturating_sub(count);
    format!("{}{text}", " ".repeat(pad))
}

// The upstream test cases use 2.71828 and 3.14 as plain numbers.
#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
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
        Value::Timestamp(Timestamp { secs, nanos })
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
}
