//! apimachinery's string checks of ObjectMeta, with their exact messages: DNS names
//! (`k8s.io/apimachinery/pkg/util/validation/validation.go`, whose length message says
//! "characters"), label keys and values (`pkg/api/validate/content/kube.go`, whose length
//! message says "bytes", as does its DNS subdomain check of a key's prefix), path segments
//! (`content/path.go`) and the name functions (`pkg/api/validation/generic.go`).
//!
//! Go's regular expressions here are all of the form "alphanumeric at both ends, some set of
//! characters in between", so they are matched by hand; lengths are byte lengths, as Go's `len`.

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// Which `MaxLenError` a check uses: util/validation's or content's.
#[derive(Clone, Copy)]
enum Unit {
    Characters,
    Bytes,
}

fn max_len_error(length: usize, unit: Unit) -> String {
    match unit {
        Unit::Characters => format!("must be no more than {length} characters"),
        Unit::Bytes => format!("must be no more than {length} bytes"),
    }
}

/// `RegexError(msg, re, examples...)`.
fn regex_error(msg: &str, re: &str, examples: &[&str]) -> String {
    let mut out = msg.to_owned();
    if examples.is_empty() {
        out.push_str(" (regex used for validation is '");
    } else {
        out.push_str(" (e.g. ");
        for (i, e) in examples.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push('\'');
            out.push_str(e);
            out.push_str("', ");
        }
        out.push_str("regex used for validation is '");
    }
    out.push_str(re);
    out.push_str("')");
    out
}

/// Non-empty, every byte in `inner`, first and last byte in `edge`.
fn edged(s: &str, edge: fn(u8) -> bool, inner: fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => edge(f) && edge(l) && b.iter().all(|&c| inner(c)),
        _ => false,
    }
}

fn lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn dns_label_matches(s: &str) -> bool {
    edged(s, lower_alnum, |c| lower_alnum(c) || c == b'-')
}

fn dns_subdomain_matches(s: &str) -> bool {
    s.split('.').all(dns_label_matches)
}

fn label_key_matches(s: &str) -> bool {
    edged(
        s,
        |c| c.is_ascii_alphanumeric(),
        |c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'),
    )
}

fn subdomain(value: &str, unit: Unit) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len_error(253, unit));
    }
    if !dns_subdomain_matches(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `validation.IsDNS1123Subdomain`.
pub(crate) fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    subdomain(value, Unit::Characters)
}

/// `validation.IsDNS1123Label`.
pub(crate) fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63, Unit::Characters));
    }
    if !dns_label_matches(value) {
        if dns_subdomain_matches(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `validation.IsDNS1035Label`: a DNS label that starts with a letter.
pub(crate) fn is_dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63, Unit::Characters));
    }
    let b = value.as_bytes();
    let matches = b.first().is_some_and(u8::is_ascii_lowercase)
        && b.last().is_some_and(|&c| lower_alnum(c))
        && b.iter().all(|&c| lower_alnum(c) || c == b'-');
    if !matches {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            "[a-z]([-a-z0-9]*[a-z0-9])?",
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `content.IsLabelKey` (= `validation.IsQualifiedName`): an optional DNS subdomain prefix and
/// `/`, then a name part of at most 63 bytes.
pub(crate) fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_owned());
            } else {
                errs.extend(
                    subdomain(prefix, Unit::Bytes)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63, Unit::Bytes)));
    }
    if !label_key_matches(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `content.IsLabelValue`.
pub(crate) fn is_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63, Unit::Bytes));
    }
    if !value.is_empty() && !label_key_matches(value) {
        errs.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `content.IsPathSegmentPrefix`.
fn is_path_segment_prefix(name: &str) -> Vec<String> {
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(**c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// `content.IsPathSegmentName`.
fn is_path_segment_name(name: &str) -> Vec<String> {
    for illegal in [".", ".."] {
        if name == illegal {
            return vec![format!("may not be '{illegal}'")];
        }
    }
    is_path_segment_prefix(name)
}

/// `maskTrailingDash`: a prefix may end in `-`. Go drops the last *two* bytes and appends `a`.
fn mask_trailing_dash(name: &str) -> std::borrow::Cow<'_, str> {
    let b = name.as_bytes();
    if b.len() > 1 && name.ends_with('-') {
        let mut out = String::from_utf8_lossy(&b[..b.len() - 2]).into_owned();
        out.push('a');
        out.into()
    } else {
        name.into()
    }
}

/// A `ValidateNameFunc`: how a name (or, with `prefix`, a generateName) is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameFn {
    /// `NameIsDNSSubdomain`: the strategy's check of a custom resource's name.
    DnsSubdomain,
    /// rest's `validatePathSegment`: the generic registry's check.
    PathSegment,
}

impl NameFn {
    pub(crate) fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match (self, prefix) {
            (NameFn::DnsSubdomain, true) => is_dns1123_subdomain(&mask_trailing_dash(name)),
            (NameFn::DnsSubdomain, false) => is_dns1123_subdomain(name),
            (NameFn::PathSegment, true) => is_path_segment_prefix(name),
            (NameFn::PathSegment, false) => is_path_segment_name(name),
        }
    }
}

/// `names.SimpleNameGenerator.GenerateName` with the oracle's fixed suffix: `base` cut to 58
/// bytes, then five characters. The real generator's alphabet has no `0`, so `00000` marks a
/// name as generated (`tests/oracle/request.go`, `GeneratedNameSuffix`).
pub(crate) fn generate_name(base: &str) -> String {
    const MAX_GENERATED_NAME_LENGTH: usize = 63 - 5;
    let b = base.as_bytes();
    let mut out = if b.len() > MAX_GENERATED_NAME_LENGTH {
        String::from_utf8_lossy(&b[..MAX_GENERATED_NAME_LENGTH]).into_owned()
    } else {
        base.to_owned()
    };
    out.push_str(GENERATED_NAME_SUFFIX);
    out
}

/// What stands for the five random characters of a generated name.
pub const GENERATED_NAME_SUFFIX: &str = "00000";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_names() {
        assert!(is_dns1123_subdomain("a.b-c.d").is_empty());
        assert_eq!(is_dns1123_subdomain("a..b").len(), 1);
        assert_eq!(is_dns1123_subdomain("").len(), 1);
        assert_eq!(is_dns1123_subdomain(&"a".repeat(254)).len(), 1);
        assert_eq!(is_dns1123_label("a.b"), ["must not contain dots"]);
        assert!(is_dns1123_label("default").is_empty());
    }

    #[test]
    fn label_keys_and_values() {
        assert!(is_qualified_name("example.com/a_b.c").is_empty());
        assert_eq!(is_qualified_name("/a"), ["prefix part must be non-empty"]);
        assert_eq!(
            is_qualified_name("a/"),
            [
                "name part must be non-empty",
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert!(is_label_value("").is_empty());
        assert_eq!(is_label_value("-a").len(), 1);
    }

    #[test]
    fn prefixes_and_generated_names() {
        assert!(NameFn::DnsSubdomain.check("w-", true).is_empty());
        assert_eq!(NameFn::DnsSubdomain.check("W_", true).len(), 1);
        assert_eq!(NameFn::PathSegment.check("..", false), ["may not be '..'"]);
        assert_eq!(generate_name("w-"), "w-00000");
        assert_eq!(generate_name(&"x".repeat(70)).len(), 63);
        // Cutting inside a character does not panic.
        assert!(generate_name(&"é".repeat(40)).ends_with("00000"));
        assert_eq!(mask_trailing_dash("é-"), "\u{fffd}a");
    }
}
