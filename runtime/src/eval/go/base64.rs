//! Go's `encoding/base64` decoding, as `Encoding.DecodeString` does it for the padded
//! encodings: four characters to three bytes, `=` padding only at the end, the bits past the
//! last byte ignored, and `\r` and `\n` anywhere skipped.

/// Which of Go's padded encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alphabet {
    /// `base64.StdEncoding` (`+`, `/`): YAML's `!!binary`.
    Std,
    /// `base64.URLEncoding` (`-`, `_`): kube-openapi's `strfmt.Base64`, `format: byte`.
    Url,
}

/// The bytes `s` encodes, or `None` where Go returns a `CorruptInputError`.
pub(crate) fn decode(s: &str, alphabet: Alphabet) -> Option<Vec<u8>> {
    let (c62, c63) = match alphabet {
        Alphabet::Std => (b'+', b'/'),
        Alphabet::Url => (b'-', b'_'),
    };
    let b: Vec<u8> = s.bytes().filter(|c| !matches!(c, b'\r' | b'\n')).collect();
    if !b.len().is_multiple_of(4) {
        return None;
    }
    let sextet = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            _ if c == c62 => 62,
            _ if c == c63 => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (i, chunk) in b.chunks(4).enumerate() {
        let last = i == b.len() / 4 - 1;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = (n << 6) | sextet(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_alphabet_with_padding() {
        assert_eq!(decode("aGk=", Alphabet::Url).as_deref(), Some(&b"hi"[..]));
        assert_eq!(
            decode("-_8=", Alphabet::Url).as_deref(),
            Some(&[0xfb, 0xff][..])
        );
        assert_eq!(
            decode("+/8=", Alphabet::Url),
            None,
            "the standard alphabet is rejected (CEL-SEMANTICS 5.3)"
        );
        assert_eq!(decode("aGk", Alphabet::Url), None);
    }

    #[test]
    fn std_alphabet_and_line_breaks() {
        assert_eq!(
            decode("+/8=", Alphabet::Std).as_deref(),
            Some(&[0xfb, 0xff][..])
        );
        assert_eq!(decode("-_8=", Alphabet::Std), None);
        assert_eq!(
            decode("aG\r\nk=\n", Alphabet::Std).as_deref(),
            Some(&b"hi"[..])
        );
        assert_eq!(
            decode("aG=k", Alphabet::Std),
            None,
            "padding only at the end"
        );
        assert_eq!(decode("", Alphabet::Std).as_deref(), Some(&b""[..]));
    }
}
