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
    fn escapes_like_go() {
        assert_eq!(
            super::to_string("a<b>&c\u{2028}\n\u{8}\u{c}\u{1}\"\\é"),
            r#""a\u003cb\u003e\u0026c\u2028\n\b\f\u0001\"\\é""#
        );
    }
}
