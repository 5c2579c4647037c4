//! JSON as Go's `encoding/json` writes it, which is how the apiserver prints the rule struct
//! in `Invalid value: {...}` and how the oracle prints its results: `<`, `>`, `&`, U+2028 and
//! U+2029 are escaped as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`; the rest is what
//! serde_json writes (`\b \f \n \r \t`, other control characters as `\u00xx`, as Go >= 1.22).

use serde::Serialize;
use std::io;

struct GoFormatter;

impl serde_json::ser::Formatter for GoFormatter {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            let escaped = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&bytes[start..i])?;
            writer.write_all(escaped.as_bytes())?;
            start = i + c.len_utf8();
        }
        writer.write_all(&bytes[start..])
    }

    /// Go's `encoding/json` float: the shortest text that reads back, fixed-point between 1e-6
    /// and 1e21 (`4294967296`, not `4294967296.0`), else `1e+21` / `1e-7`.
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(go_float(value).as_bytes())
    }
}

/// [`GoFormatter::write_f64`]'s text (a finite `f`; JSON has no NaN or infinities).
fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return format!("{f}");
    }
    // Rust writes `1e21` and `1e-7`; Go `1e+21` and (after its clean-up of `e-07`) `1e-7`.
    let text = format!("{f:e}");
    match text.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => text,
    }
}

/// Compact JSON with Go's escaping.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, GoFormatter);
    value
        .serialize(&mut ser)
        .expect("BUG: report values serialize to JSON");
    String::from_utf8(out).expect("BUG: serde_json writes UTF-8")
}

#[cfg(test)]
mod tests {
    #[test]
    fn floats_like_go() {
        for (f, go) in [
            (4294967296.0, "4294967296"),
            (0.5, "0.5"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (2.5e-7, "2.5e-7"),
            (1e-6, "0.000001"),
            (-3.0, "-3"),
            (0.0, "0"),
        ] {
            assert_eq!(super::to_string(&f), go, "{f}");
        }
    }

    #[test]
    fn escapes_like_go() {
        assert_eq!(
            super::to_string("a<b>&c\u{2028}\n\u{8}\u{c}\u{1}\"\\é"),
            r#""a\u003cb\u003e\u0026c\u2028\n\b\f\u0001\"\\é""#
        );
    }
}
