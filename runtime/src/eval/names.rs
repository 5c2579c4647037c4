//! CEL's escaping of property names (`k8s.io/apiserver/pkg/cel/escaping.go`): how the apiserver presents a JSON
//! property to CEL (`a.b` as `a__dot__b`, reserved words as `__in__`) and back.

use crd_cel_core::check::RESERVED;

/// The JSON property an escaped CEL field name stands for (`k8s.io/apiserver/pkg/cel/escaping.go`); `None` when the
/// escaping is invalid, which makes the field absent.
pub fn unescape(name: &str) -> Option<String> {
    if let Some(word) = name
        .strip_prefix("__")
        .and_then(|s| s.strip_suffix("__"))
        .filter(|w| RESERVED.contains(w))
    {
        return Some(word.to_owned());
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("__") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail.find("__")?;
        let word = &tail[..end];
        if word.contains('_') {
            return None;
        }
        out.push_str(match word {
            "underscores" => "__",
            "dot" => ".",
            "dash" => "-",
            "slash" => "/",
            _ => return None,
        });
        rest = &tail[end + 2..];
    }
    out.push_str(rest);
    Some(out)
}

/// A property name as the apiserver presents it to CEL (`k8s.io/apiserver/pkg/cel/escaping.go`), `None` when it cannot
/// be escaped. Objects iterate (and `format` prints) their keys this way.
pub(crate) fn escape_property(name: &str) -> Option<String> {
    let first = name.bytes().next()?;
    if first.is_ascii_digit() {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(tail) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = tail;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            _ => return None,
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::escape_property;

    #[test]
    fn property_names_escape_as_the_apiserver_does() {
        let e = |n| escape_property(n);
        assert_eq!(e("a.a").as_deref(), Some("a__dot__a"));
        assert_eq!(e("a-a").as_deref(), Some("a__dash__a"));
        assert_eq!(
            e("a.-/__a").as_deref(),
            Some("a__dot____dash____slash____underscores__a")
        );
        assert_eq!(e("a___a").as_deref(), Some("a__underscores___a"));
        assert_eq!(e("if").as_deref(), Some("__if__"));
        assert_eq!(e("_if").as_deref(), Some("_if"));
        assert_eq!(e("1up"), None);
        assert_eq!(e("👑"), None);
        assert_eq!(e(""), None);
    }
}
