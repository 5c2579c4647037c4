//! A block-style YAML writer for JSON values. A string is written plain only when both YAML 1.1
//! (kubectl) and YAML 1.2 read it back as that string; a multi-line string is a literal block
//! when its lines allow one; everything else is double-quoted with escapes.

use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::resolve;

/// The value could not be turned into JSON (a map with non-string keys, a failing `Serialize`).
#[derive(Debug, thiserror::Error)]
#[error("cannot write YAML: {0}")]
pub struct Error(#[from] serde_json::Error);

/// `value` as block-style YAML that kubectl (YAML 1.1) and YAML 1.2 readers read back as the
/// JSON value `value` serializes to. Keys are sorted, as kubectl prints them.
///
/// Use it in place of `serde_yaml::to_string` for manifests meant for `kubectl apply`: strings
/// such as `on`, `no`, `y`, `0777` or `1_000` are quoted.
///
/// ```
/// let crd = serde_json::json!({"enum": ["on", "off", "auto"], "pattern": "^[a-z]+$"});
/// assert_eq!(
///     crd_cel::yaml::to_string(&crd).unwrap(),
///     "enum:\n- \"on\"\n- \"off\"\n- auto\npattern: \"^[a-z]+$\"\n"
/// );
/// ```
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let value = serde_json::to_value(value)?;
    let mut out = String::new();
    match &value {
        Json::Object(map) if !map.is_empty() => write_map(&mut out, map, 0, ""),
        Json::Array(items) if !items.is_empty() => write_seq(&mut out, items, 0, ""),
        _ => {
            out.push_str(inline(&value, 2).trim_start());
            out.push('\n');
        }
    }
    Ok(out)
}

/// Entries at `indent`, keys sorted (as kubectl prints them, whatever order the map keeps); the
/// first line starts with `lead` instead of the indentation (`- ` of the sequence item it is in).
fn write_map(out: &mut String, map: &Map<String, Json>, indent: usize, lead: &str) {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i == 0 && !lead.is_empty() {
            out.push_str(lead);
        } else {
            pad(out, indent);
        }
        out.push_str(&key_text(key));
        out.push(':');
        match value {
            Json::Object(m) if !m.is_empty() => {
                out.push('\n');
                write_map(out, m, indent + 2, "");
            }
            // kubectl's style: a sequence under a key is not indented.
            Json::Array(items) if !items.is_empty() => {
                out.push('\n');
                write_seq(out, items, indent, "");
            }
            _ => {
                out.push_str(&inline(value, indent + 2));
                out.push('\n');
            }
        }
    }
}

fn write_seq(out: &mut String, items: &[Json], indent: usize, lead: &str) {
    for (i, item) in items.iter().enumerate() {
        let mut dash = String::new();
        if i == 0 && !lead.is_empty() {
            dash.push_str(lead);
        } else {
            pad(&mut dash, indent);
        }
        dash.push_str("- ");
        match item {
            Json::Object(m) if !m.is_empty() => write_map(out, m, indent + 2, &dash),
            Json::Array(inner) if !inner.is_empty() => write_seq(out, inner, indent + 2, &dash),
            _ => {
                out.push_str(dash.trim_end());
                out.push_str(&inline(item, indent + 2));
                out.push('\n');
            }
        }
    }
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// A value that fits after `key:` or `-`, with its leading space; a literal block's lines are
/// indented by `indent`.
fn inline(value: &Json, indent: usize) -> String {
    match value {
        Json::Null => " null".to_owned(),
        Json::Bool(b) => format!(" {b}"),
        Json::Number(n) => format!(" {n}"),
        Json::Object(_) => " {}".to_owned(),
        Json::Array(_) => " []".to_owned(),
        Json::String(s) if is_plain(s) => format!(" {s}"),
        Json::String(s) => match literal(s, indent) {
            Some(block) => block,
            None => format!(" {}", double_quoted(s)),
        },
    }
}

fn key_text(key: &str) -> String {
    if is_plain(key) {
        key.to_owned()
    } else {
        double_quoted(key)
    }
}

/// Whether `s` can be written unquoted: it starts with a letter or one of a few characters that
/// are no YAML indicator, holds only printable characters and no tab, nothing that would start
/// a comment (` #`) or a mapping value (`: `, a final `:`), and neither YAML 1.1 nor YAML 1.2
/// reads it as anything but this string. Flow indicators (`,[]{}`) and quotes are ordinary
/// characters after the first in block context.
fn is_plain(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    // `...` at the start of a line ends the document.
    if !(first.is_alphabetic() || matches!(first, '_' | '/' | '$' | '.')) || s.starts_with("...") {
        return false;
    }
    s.chars().all(printable)
        && !s.ends_with([' ', ':'])
        && !s.contains(": ")
        && !s.contains(" #")
        && s.parse::<f64>().is_err()
        && resolve::resolve(s).is_ok_and(|v| v.as_str() == Some(s))
}

/// `s` as a literal block (`|`, `|-` or `|+` after a space, then its lines at `indent`), when
/// it has several lines that a literal block keeps as they are: the first not empty and not
/// starting with a blank (the indentation is not given explicitly), no line of blanks only or
/// starting with a tab, only printable characters and no line break other than `\n`.
fn literal(s: &str, indent: usize) -> Option<String> {
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    if !body.contains('\n') && trailing == 0 {
        return None;
    }
    let lines: Vec<&str> = body.split('\n').collect();
    let first = lines[0];
    if first.is_empty() || first.starts_with([' ', '\t']) {
        return None;
    }
    let bad_line =
        |l: &&str| l.starts_with('\t') || (!l.is_empty() && l.trim_matches([' ', '\t']).is_empty());
    if lines.iter().any(bad_line) || !s.chars().all(|c| c == '\n' || c == '\t' || printable(c)) {
        return None;
    }
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let mut out = format!(" |{chomp}\n");
    let all = lines
        .iter()
        .copied()
        .chain(std::iter::repeat_n("", trailing.saturating_sub(1)));
    for (i, line) in all.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !line.is_empty() {
            pad(&mut out, indent);
            out.push_str(line);
        }
    }
    Some(out)
}

/// YAML's printable characters, less the ones YAML 1.1 takes for line breaks (NEL, U+2028,
/// U+2029) and the byte-order mark.
fn printable(c: char) -> bool {
    matches!(c,
        '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// A double-quoted scalar: `"` and `\` escaped, `\n`, `\t`, `\r`, and every other
/// non-printable character as `\uXXXX` or `\UXXXXXXXX`.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if printable(c) => out.push(c),
            c if u32::from(c) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push_str(&format!("\\U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_yaml_1_1_reads_as_other_types_are_quoted() {
        for word in [
            "on", "Off", "y", "N", "yes", "NO", "true", "null", "~", "", "0777", "1_000", "0x1F",
            "1e400", ".inf", ".5", "1.0", "-1", "+1", "1:30", "<<", "=", "nan", "inf", "...",
            "... a",
        ] {
            let text = to_string(&json!({ "v": word })).unwrap();
            assert_ne!(text, format!("v: {word}\n"), "{word:?} was written plain");
        }
    }

    #[test]
    fn ordinary_strings_stay_plain() {
        let value = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "image": "nginx:1.27", "path": "/var/run", "x-kubernetes-list-type": "map",
            "note": "a (b), 'c' [d] {e} f#g"});
        assert_eq!(
            to_string(&value).unwrap(),
            "apiVersion: apiextensions.k8s.io/v1\nimage: nginx:1.27\nkind: CustomResourceDefinition\n\
             note: a (b), 'c' [d] {e} f#g\npath: /var/run\nx-kubernetes-list-type: map\n"
        );
    }

    #[test]
    fn layout_is_kubectl_block_style() {
        let value = json!({"spec": {"ports": [{"name": "a", "port": 80}, {"name": "b"}],
            "empty": {}, "none": [], "nested": [[1, 2], []], "n": null, "f": 1.5}});
        assert_eq!(
            to_string(&value).unwrap(),
            "spec:\n  empty: {}\n  f: 1.5\n  \"n\": null\n  nested:\n  - - 1\n    - 2\n  - []\n  \
             none: []\n  ports:\n  - name: a\n    port: 80\n  - name: b\n"
        );
    }

    #[test]
    fn multi_line_strings_are_literal_blocks_when_they_can_be() {
        let value = json!({"a": "one\ntwo", "b": "one\n  two\n", "c": "one\n\n", "d": " lead\nx",
            "e": "x\n  \ny"});
        assert_eq!(
            to_string(&value).unwrap(),
            "a: |-\n  one\n  two\nb: |\n  one\n    two\nc: |+\n  one\n\n\
             d: \" lead\\nx\"\ne: \"x\\n  \\ny\"\n"
        );
    }

    #[test]
    fn control_characters_and_yaml_1_1_line_breaks_are_escaped() {
        let text = to_string(&json!(["\u{0}a\u{85}\u{2028}\u{FEFF}\"\\\r", "é ✓"])).unwrap();
        assert_eq!(
            text,
            "- \"\\u0000a\\u0085\\u2028\\uFEFF\\\"\\\\\\r\"\n- é ✓\n"
        );
    }
}
