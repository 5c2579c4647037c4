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

use super::limits::{MAX_RESULT_BYTES, too_large};
use crate::eval::error::EvalError;
use crate::eval::go::float::{go_g, go_special};
use crate::eval::names::escape_property;
use crate::eval::time::{Duration, Timestamp};
use crate::eval::value::{Key, List, Map, Value};
use crd_cel_core::go::quote as go_quote;

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
    float_clause(v, "fixed-point", precision, localized_fixed)
}

fn scientific_clause(v: &Value, precision: i64) -> Result<String, String> {
    float_clause(v, "scientific", precision, localized_scientific)
}

/// A clause that formats doubles only (`%f`, `%e`).
fn float_clause(
    v: &Value,
    clause: &str,
    precision: i64,
    render: fn(f64, i64) -> String,
) -> Result<String, String> {
    let x = float_arg(v).ok_or_else(|| {
        format!(
            "{clause} clause can only be used on doubles, was given {}",
            v.type_name()
        )
    })?;
    Ok(render(x, precision))
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

/// Go's `fmt.Sprintf("%.6f", x)`.
fn go_fixed6(x: f64) -> String {
    if let Some(special) = go_special(x) {
        return special.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    format!("{sign}{:.6}", x.abs())
}

/// CEL's `string(duration)`.
pub(super) fn duration_string(d: Duration) -> String {
    d.to_cel_string()
}

/// CEL's `string(timestamp)`: RFC 3339 in the timestamp's zone, the fraction's trailing zeros
/// dropped.
pub(super) fn timestamp_string(t: Timestamp) -> String {
    t.to_rfc3339()
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
mod tests;
