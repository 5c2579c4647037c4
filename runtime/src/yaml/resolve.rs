//! YAML scalars as kubectl and the apiserver read them: `sigs.k8s.io/yaml` resolves plain
//! scalars with go-yaml v2's YAML 1.1 rules (`go.yaml.in/yaml/v2/resolve.go`), then writes JSON
//! with Go's `encoding/json`, which the apiserver decodes again (a whole float is written
//! without a fraction, so it arrives as an integer). A YAML 1.2 reader already resolves
//! `true`, `null`, decimal, hex and octal `0o` numbers the same way; what differs is resolved
//! here, from the scalar's text.

use serde_json::{Number, Value as Json};

/// The byte offset of `part`, a slice of `source`, in it.
pub(crate) fn offset_in(source: &str, part: &str) -> Option<usize> {
    let start = source.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    (at >= start && at + part.len() <= start + source.len()).then(|| at - start)
}

/// Whether the scalar at byte `offset` of `source` is quoted: a YAML reader borrows a quoted
/// scalar's text from just after its opening quote.
fn quoted_at(source: &str, offset: usize) -> bool {
    offset > 0 && matches!(source.as_bytes()[offset - 1], b'\'' | b'"')
}

/// Whether `scalar`, a slice of `source`, is a plain (unquoted) scalar.
pub(crate) fn is_plain(source: &str, scalar: &str) -> bool {
    offset_in(source, scalar).is_some_and(|at| !quoted_at(source, at))
}

/// The tag among the properties written just before a node on its line (`!!str &a <<`), if
/// any.
pub(crate) fn tag_before(before: &str) -> Option<&str> {
    let mut rest = before;
    // A node has at most a tag and an anchor, in either order.
    for _ in 0..2 {
        rest = rest.trim_end_matches([' ', '\t']);
        // A verbatim tag (`!<tag:yaml.org,2002:str>`) may hold `,`.
        if rest.ends_with('>')
            && let Some(start) = rest.rfind("!<")
        {
            return Some(&rest[start..]);
        }
        // After the separator, which may be a whitespace of several bytes (`\u{85}`).
        let start = rest
            .char_indices()
            .rfind(|&(_, c)| c.is_whitespace() || matches!(c, '{' | '[' | ','))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let token = &rest[start..];
        if token.starts_with('!') {
            return Some(token);
        }
        if !token.starts_with('&') {
            return None;
        }
        rest = &rest[..start];
    }
    None
}

/// The tag written before `scalar` (a slice of `source`; a quoted scalar's tag is before its
/// quote), if any: `!!str` in `a: !!str yes`. Only a tag on the scalar's own line is seen.
pub(crate) fn tag_of<'s>(source: &'s str, scalar: &str) -> Option<&'s str> {
    let at = offset_in(source, scalar)?;
    let node = if quoted_at(source, at) { at - 1 } else { at };
    tag_before(&source[..node])
}

/// The JSON value of a tagged scalar that the YAML reader passes on as text, as go-yaml v2
/// decodes it (`resolve(tag, in)` then `d.scalar`): the tags it resolves with the text's own
/// type (`!!bool`, `!!int`, `!!float`, `!!null`) the reader has already applied; `!!str` and
/// `!!timestamp` keep the text as written (`!!str yes` is the string "yes"); `!!binary` is the
/// text's base64-decoded bytes; any other tag (`!foo`) leaves the text unresolved.
pub(crate) fn resolve_tagged(tag: &str, text: &str) -> Result<Json, String> {
    let long = match tag.strip_prefix("!!") {
        Some(short) => Some(short),
        None => tag
            .strip_prefix("!<tag:yaml.org,2002:")
            .and_then(|t| t.strip_suffix('>')),
    };
    if long == Some("binary") {
        let bytes =
            crate::eval::go::base64::decode(text, crate::eval::go::base64::Alphabet::Std)
                .ok_or_else(|| format!("!!binary value contains invalid base64 data: {text:?}"))?;
        return Ok(Json::String(go_string(&bytes)));
    }
    Ok(Json::String(text.to_owned()))
}

/// Bytes as Go's `encoding/json` writes a Go string holding them: each byte that does not
/// start a valid UTF-8 sequence becomes U+FFFD.
fn go_string(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                bytes = &rest[1..];
            }
        }
    }
}

/// The JSON value of a plain scalar, or the error kubectl's conversion gives (`.inf`, `.nan`).
pub(crate) fn resolve(text: &str) -> Result<Json, String> {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Ok(Json::Bool(true));
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Ok(Json::Bool(false));
        }
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Json::Null),
        ".nan" | ".NaN" | ".NAN" => return float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return float(f64::NEG_INFINITY),
        _ => {}
    }
    let string = || Ok(Json::String(text.to_owned()));
    match text.as_bytes()[0] {
        // `strconv.ParseFloat` there: digits after the dot, an optional exponent, and
        // underscores between digits (Go's literal syntax: `.1_000` is 0.1).
        b'.' => {
            if !go_underscores_ok(text) {
                return string();
            }
            let plain: String = text.chars().filter(|&c| c != '_').collect();
            match plain.parse::<f64>() {
                Ok(f) if yaml_style_float(&plain) && f.is_finite() => float(f),
                _ => string(),
            }
        }
        // go-yaml tries a timestamp first, which it gives back as the text: no text of the
        // form `YYYY-...` is a number either, so the order does not matter here.
        b'0'..=b'9' | b'+' | b'-' => {
            let plain: String = text.chars().filter(|&c| c != '_').collect();
            if let Some(i) = go_parse_int(&plain) {
                return Ok(i);
            }
            if yaml_style_float(&plain)
                && let Ok(f) = plain.parse::<f64>()
                && f.is_finite()
            {
                return float(f);
            }
            string()
        }
        _ => string(),
    }
}

/// A float as the apiserver receives it after Go's `encoding/json` wrote it: a whole value
/// under 1e21 is written without fraction or exponent, and decodes as an integer when it fits
/// an int64; NaN and infinities cannot be written.
pub(crate) fn float(f: f64) -> Result<Json, String> {
    if f.is_nan() {
        return Err("json: unsupported value: NaN".to_owned());
    }
    if f.is_infinite() {
        let sign = if f > 0.0 { "+" } else { "-" };
        return Err(format!("json: unsupported value: {sign}Inf"));
    }
    if f.fract() == 0.0 && f.abs() < 1e21 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
        return Ok(Json::Number((f as i64).into()));
    }
    Ok(Number::from_f64(f).map_or(Json::Null, Json::Number))
}

/// `strconv.ParseInt(s, 0, 64)`, then `ParseUint`: an optional sign, then `0x`, `0o`, `0b` or
/// a leading `0` (octal) or decimal digits.
fn go_parse_int(s: &str) -> Option<Json> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = if let Some(b) = lower.strip_prefix("0x") {
        (16, b)
    } else if let Some(b) = lower.strip_prefix("0o") {
        (8, b)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (2, b)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(body, radix).ok()?;
    if negative {
        let v = i64::try_from(magnitude)
            .ok()
            .map(i64::wrapping_neg)
            .or((magnitude == 1u64 << 63).then_some(i64::MIN))?;
        Some(Json::Number(v.into()))
    } else {
        Some(Json::Number(magnitude.into()))
    }
}

/// `strconv`'s `underscoreOK` for a decimal number: every underscore sits between two digits.
fn go_underscores_ok(s: &str) -> bool {
    let digits = s.as_bytes();
    digits.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && digits[i - 1].is_ascii_digit()
                && digits.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    } else {
        if !digits(&mut i) {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {

    // A fuzzer's input: a whitespace of two bytes (U+0085) before an anchor panicked on a
    // slice inside the character.
    #[test]
    fn a_multi_byte_whitespace_before_a_tag_or_anchor() {
        assert_eq!(tag_before("a\u{85}!!str "), Some("!!str"));
        assert_eq!(tag_before("rules\u{3000}&&&& "), None);
        assert_eq!(tag_before("x\u{85}&a !t"), Some("!t"));
    }

    use super::*;
    use serde_json::json;

    /// The values `sigs.k8s.io/yaml` v1.6.0's `YAMLToJSON` gives for `v: SCALAR` (recorded
    /// with Go, then decoded as the apiserver decodes JSON).
    #[test]
    fn plain_scalars_resolve_as_kubectl_resolves_them() {
        let cases = [
            ("y", json!(true)),
            ("yes", json!(true)),
            ("On", json!(true)),
            ("N", json!(false)),
            ("OFF", json!(false)),
            ("yEs", json!("yEs")),
            ("017", json!(15)),
            ("0o17", json!(15)),
            ("0x1F", json!(31)),
            ("0X1F", json!(31)),
            ("0b101", json!(5)),
            ("-0b101", json!(-5)),
            ("1_000", json!(1000)),
            ("1_000.5", json!(1000.5)),
            ("1__0", json!(10)),
            ("1_", json!(1)),
            ("0x_1F", json!(31)),
            ("-0x1F", json!(-31)),
            ("_1", json!("_1")),
            ("0o", json!("0o")),
            ("0b", json!("0b")),
            ("00x1", json!("00x1")),
            ("1:30", json!("1:30")),
            ("2001-12-14", json!("2001-12-14")),
            ("2001-12-14T21:59:43.10Z", json!("2001-12-14T21:59:43.10Z")),
            ("08", json!(8)),
            ("00", json!(0)),
            ("1.", json!(1)),
            (".5", json!(0.5)),
            ("-.5", json!(-0.5)),
            (".1_000", json!(0.1)),
            (".1_0e1_0", json!(1_000_000_000)),
            ("._1", json!("._1")),
            (".1_", json!(".1_")),
            (".1__0", json!(".1__0")),
            ("1_0e1_0", json!(100_000_000_000_i64)),
            ("1e400", json!("1e400")),
            ("9223372036854775807", json!(9_223_372_036_854_775_807_i64)),
        ];
        for (text, want) in cases {
            assert_eq!(resolve(text), Ok(want), "{text}");
        }
        assert_eq!(
            resolve(".inf"),
            Err("json: unsupported value: +Inf".to_owned())
        );
        assert_eq!(
            resolve(".nan"),
            Err("json: unsupported value: NaN".to_owned())
        );
    }

    #[test]
    fn whole_floats_arrive_as_integers() {
        assert_eq!(float(1000.0), Ok(json!(1000)));
        assert_eq!(float(-0.0), Ok(json!(0)));
        assert_eq!(float(0.001), Ok(json!(0.001)));
        assert_eq!(float(1e21), Ok(json!(1e21)));
    }

    #[test]
    fn quoted_scalars_are_not_plain() {
        let source = "a: 'yes'\nb: yes\nc: \"on\"";
        let quoted = &source[4..7];
        let plain = &source[12..15];
        let double = &source[20..22];
        assert_eq!((quoted, plain, double), ("yes", "yes", "on"));
        assert!(!is_plain(source, quoted));
        assert!(is_plain(source, plain));
        assert!(!is_plain(source, double));
        assert!(!is_plain(source, "elsewhere"));
    }

    #[test]
    fn tagged_scalars_as_go_yaml_reads_them() {
        // Each against `oracle yaml-to-json` (sigs.k8s.io/yaml v1.6.0).
        let source = "a: !!str yes\nb: !<tag:yaml.org,2002:str> on\nc: !!binary aGk=\nd: &x !!str 3\ne: yes\nf: !!str \"no\"\n";
        let at =
            |s: &str, n: usize| &source[source.match_indices(s).nth(n).unwrap().0..][..s.len()];
        assert_eq!(tag_of(source, at("yes", 0)), Some("!!str"));
        assert_eq!(
            tag_of(source, at("on", 0)),
            Some("!<tag:yaml.org,2002:str>")
        );
        assert_eq!(tag_of(source, at("3", 0)), Some("!!str"));
        assert_eq!(tag_of(source, at("yes", 1)), None);
        assert_eq!(tag_of(source, at("no", 0)), Some("!!str"));
        assert_eq!(
            resolve_tagged("!!str", "yes"),
            Ok(Json::String("yes".into()))
        );
        assert_eq!(
            resolve_tagged("!<tag:yaml.org,2002:str>", "on"),
            Ok(Json::String("on".into()))
        );
        assert_eq!(
            resolve_tagged("!!binary", "aGk="),
            Ok(Json::String("hi".into()))
        );
        assert_eq!(
            resolve_tagged("!!binary", "/w=="),
            Ok(Json::String("\u{fffd}".into()))
        );
        assert!(resolve_tagged("!!binary", "a").is_err());
        assert_eq!(
            resolve_tagged("!!timestamp", "2001-12-14"),
            Ok(Json::String("2001-12-14".into()))
        );
        assert_eq!(
            resolve_tagged("!foo", "0x10"),
            Ok(Json::String("0x10".into()))
        );
    }
}
