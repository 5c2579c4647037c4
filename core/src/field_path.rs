//! `fieldPath` of a validation rule: the apiserver's `ValidFieldPath` (CEL-SEMANTICS.md 3.4).
//!
//! The path is resolved against the schema of the node that holds the rule. It is written in
//! `const fn` (byte-wise, no allocation) so that the derive can check a `field_path` against the
//! model constant at `cargo build`; [`normalize_field_path`] gives the path string the apiserver
//! appends to a failing rule's error path at runtime (5.11).
//!
//! The tokenizer is the apiserver's `bufio.Scanner` split function, reproduced exactly: the
//! delimiters `.`, `[` and `]` are tokens of their own, a token that starts with `'` runs to the
//! next `'` not preceded by a backslash (delimiters inside do not split it), and everything else
//! runs to the next delimiter. Then each step is either `.` + any token (a property name, or a
//! map key when the node has no properties but `additionalProperties`) or `[` + a quoted string
//! + `]` (the same lookup with the string unescaped). There is no way into arrays.

use crate::model::Schema;
use crate::msg::Buf;
use core::fmt;

/// Why a `fieldPath` is not valid. At CRD creation every one of these is reported as
/// `must be a valid path`; the texts below are the apiserver's own (`ValidFieldPath`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldPathError<'p> {
    /// `does not refer to a valid field`: the name is not a property, or the node has neither
    /// properties nor `additionalProperties` (a list, a scalar, an object without properties).
    NotAField,
    /// `unexpected end of JSON path`: a `.` or `[` at the end, or `['x'` without `]`.
    UnexpectedEnd,
    /// `expected single quoted string but got <token>`: `[` not followed by a quoted string.
    ExpectedQuotedString(&'p str),
    /// `invalid string literal: invalid escape char <escape>`: a backslash escape other than
    /// `\a \b \f \n \r \t \v \' \\` inside a quoted string (the last such escape is named).
    InvalidEscape(&'p str),
    /// `expected ] but got <token>`.
    ExpectedCloseBracket(&'p str),
    /// `expected [ or . but got: <token>`: a step that starts with neither.
    ExpectedBracketOrDot(&'p str),
    /// `array notation is not allowed` (only when array notation is disabled, as for
    /// `selectableFields` JSON paths).
    ArrayNotation,
}

impl<'p> FieldPathError<'p> {
    /// The fixed part of the apiserver's text (the token, if any, follows it).
    pub const fn message(&self) -> &'static str {
        match self {
            FieldPathError::NotAField => "does not refer to a valid field",
            FieldPathError::UnexpectedEnd => "unexpected end of JSON path",
            FieldPathError::ExpectedQuotedString(_) => "expected single quoted string but got ",
            FieldPathError::InvalidEscape(_) => "invalid string literal: invalid escape char ",
            FieldPathError::ExpectedCloseBracket(_) => "expected ] but got ",
            FieldPathError::ExpectedBracketOrDot(_) => "expected [ or . but got: ",
            FieldPathError::ArrayNotation => "array notation is not allowed",
        }
    }

    /// The token the message names, if any.
    pub const fn token(&self) -> Option<&'p str> {
        match self {
            FieldPathError::ExpectedQuotedString(t)
            | FieldPathError::InvalidEscape(t)
            | FieldPathError::ExpectedCloseBracket(t)
            | FieldPathError::ExpectedBracketOrDot(t) => Some(t),
            FieldPathError::NotAField
            | FieldPathError::UnexpectedEnd
            | FieldPathError::ArrayNotation => None,
        }
    }

    /// Appends the apiserver's full text to a const message buffer.
    pub const fn push_to<const N: usize>(&self, buf: &mut Buf<N>) {
        buf.push(self.message());
        if let Some(t) = self.token() {
            buf.push(t);
        }
    }
}

impl fmt::Display for FieldPathError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())?;
        if let Some(t) = self.token() {
            f.write_str(t)?;
        }
        Ok(())
    }
}

impl std::error::Error for FieldPathError<'_> {}

/// One resolved step of a field path.
#[derive(Debug, Clone, Copy)]
struct Step<'s, 'p> {
    /// The text of the name: raw after `.`, the inside of the quotes (still escaped) in `[..]`.
    text: &'p str,
    /// Whether `text` is a quoted string's inside, to be unescaped.
    quoted: bool,
    /// A property (`true`) or a map key (`false`).
    named: bool,
    /// The schema the step leads to.
    schema: &'s Schema<'s>,
    /// Where the next step starts.
    next: usize,
}

const fn is_delimiter(b: u8) -> bool {
    b == b'.' || b == b'[' || b == b']'
}

/// The byte range of the token starting at `pos`, or `None` at the end (the scanner's split
/// function).
const fn next_token(path: &[u8], pos: usize) -> Option<(usize, usize)> {
    if pos >= path.len() {
        return None;
    }
    if path[pos] == b'\'' {
        let mut i = pos + 1;
        let len_i = path.len();
        while i < len_i {
            if path[i] == b'\'' && path[i - 1] != b'\\' {
                return Some((pos, i + 1));
            }
            i += 1;
        }
        return Some((pos, path.len()));
    }
    if is_delimiter(path[pos]) {
        return Some((pos, pos + 1));
    }
    let mut i = pos + 1;
    let len_i = path.len();
    while i < len_i && !is_delimiter(path[i]) {
        i += 1;
    }
    Some((pos, i))
}

/// `path[start..end]`; both ends are at character boundaries (tokens are split at ASCII bytes).
const fn sub(path: &str, start: usize, end: usize) -> &str {
    let (head, _) = path.split_at(end);
    let (_, tail) = head.split_at(start);
    tail
}

/// The byte length of the UTF-8 character starting with `first`.
const fn utf8_width(first: u8) -> usize {
    if first < 0x80 {
        1
    } else if first >= 0xF0 {
        4
    } else if first >= 0xE0 {
        3
    } else {
        2
    }
}

/// The byte an escape stands for, or `None` for an invalid escape (`\x` is `'x'` here).
const fn unescape_byte(directive: u8) -> Option<u8> {
    match directive {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'f' => Some(0x0C),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0B),
        b'\'' => Some(b'\''),
        b'\\' => Some(b'\\'),
        _ => None,
    }
}

/// Checks the escapes of a quoted string's inside as the apiserver does (a regexp `\\.`
/// replaced left to right: a backslash before a line feed or at the end stays as it is), and
/// returns the last invalid one.
const fn check_escapes(inner: &str) -> Result<(), FieldPathError<'_>> {
    let b = inner.as_bytes();
    let mut bad: Option<(usize, usize)> = None;
    let mut i = 0;
    let len_i = b.len();
    while i < len_i {
        if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] != b'\n' {
            if unescape_byte(b[i + 1]).is_none() {
                bad = Some((i, i + 1 + utf8_width(b[i + 1])));
            }
            i += 1 + utf8_width(b[i + 1]);
        } else {
            i += 1;
        }
    }
    match bad {
        Some((s, e)) => Err(FieldPathError::InvalidEscape(sub(inner, s, e))),
        None => Ok(()),
    }
}

/// Whether the unescaped form of `inner` (escapes already checked) equals `name`.
const fn unescaped_eq(inner: &str, name: &str) -> bool {
    let (a, n) = (inner.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    let len_i = a.len();
    while i < len_i {
        let byte = if a[i] == b'\\' && i + 1 < a.len() && a[i + 1] != b'\n' {
            i += 1;
            match unescape_byte(a[i]) {
                Some(u) => u,
                None => return false,
            }
        } else {
            a[i]
        };
        if j >= n.len() || n[j] != byte {
            return false;
        }
        i += 1;
        j += 1;
    }
    j == n.len()
}

/// Whether the node has properties (its own or flattened ones): `.name` then names a property.
const fn has_properties(s: &Schema<'_>) -> bool {
    !s.properties.is_empty() || !s.flatten.is_empty()
}

/// The property whose name is the unescaped `inner`, looking through flattened nodes like
/// [`Schema::property`].
const fn property_unescaped<'s>(s: &Schema<'s>, inner: &str) -> Option<&'s Schema<'s>> {
    let mut i = 0;
    let len_i = s.properties.len();
    while i < len_i {
        if unescaped_eq(inner, s.properties[i].name) {
            return Some(s.properties[i].schema);
        }
        i += 1;
    }
    let mut j = 0;
    let len_j = s.flatten.len();
    while j < len_j {
        if let Some(p) = property_unescaped(s.flatten[j], inner) {
            return Some(p);
        }
        j += 1;
    }
    None
}

/// `appendToPath`: looks the name up in `schema`.
const fn lookup<'s>(
    schema: &Schema<'s>,
    text: &str,
    quoted: bool,
) -> Result<(bool, &'s Schema<'s>), FieldPathError<'static>> {
    if has_properties(schema) {
        let found = if quoted && contains_backslash(text) {
            property_unescaped(schema, text)
        } else {
            match schema.property(text) {
                Some(p) => Some(p.schema),
                None => None,
            }
        };
        match found {
            Some(s) => Ok((true, s)),
            None => Err(FieldPathError::NotAField),
        }
    } else {
        match schema.additional_properties {
            Some(s) => Ok((false, s)),
            None => Err(FieldPathError::NotAField),
        }
    }
}

const fn contains_backslash(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let len_i = b.len();
    while i < len_i {
        if b[i] == b'\\' {
            return true;
        }
        i += 1;
    }
    false
}

/// One step of the path starting at `pos`, resolved against `schema`; `None` at the end.
const fn step<'s, 'p>(
    schema: &'s Schema<'s>,
    path: &'p str,
    pos: usize,
    allow_array_notation: bool,
) -> Result<Option<Step<'s, 'p>>, FieldPathError<'p>> {
    let b = path.as_bytes();
    let (start, end) = match next_token(b, pos) {
        Some(t) => t,
        None => return Ok(None),
    };
    let is_single = end == start + 1;
    if is_single && b[start] == b'[' {
        if !allow_array_notation {
            return Err(FieldPathError::ArrayNotation);
        }
        let (qs, qe) = match next_token(b, end) {
            Some(t) => t,
            None => return Err(FieldPathError::UnexpectedEnd),
        };
        if qe - qs < 2 || b[qs] != b'\'' || b[qe - 1] != b'\'' {
            return Err(FieldPathError::ExpectedQuotedString(sub(path, qs, qe)));
        }
        let inner = sub(path, qs + 1, qe - 1);
        if let Err(e) = check_escapes(inner) {
            return Err(e);
        }
        let (named, next_schema) = match lookup(schema, inner, true) {
            Ok(r) => r,
            Err(e) => return Err(e),
        };
        let (cs, ce) = match next_token(b, qe) {
            Some(t) => t,
            None => return Err(FieldPathError::UnexpectedEnd),
        };
        if !(ce == cs + 1 && b[cs] == b']') {
            return Err(FieldPathError::ExpectedCloseBracket(sub(path, cs, ce)));
        }
        Ok(Some(Step {
            text: inner,
            quoted: true,
            named,
            schema: next_schema,
            next: ce,
        }))
    } else if is_single && b[start] == b'.' {
        let (ns, ne) = match next_token(b, end) {
            Some(t) => t,
            None => return Err(FieldPathError::UnexpectedEnd),
        };
        let name = sub(path, ns, ne);
        let (named, next_schema) = match lookup(schema, name, false) {
            Ok(r) => r,
            Err(e) => return Err(e),
        };
        Ok(Some(Step {
            text: name,
            quoted: false,
            named,
            schema: next_schema,
            next: ne,
        }))
    } else {
        Err(FieldPathError::ExpectedBracketOrDot(sub(path, start, end)))
    }
}

/// Resolves `path` against `schema` as the apiserver's `ValidFieldPath` does (array notation
/// `['key']` allowed), returning the schema the path leads to. The empty path resolves to
/// `schema` itself (the apiserver only calls this for a non-empty `fieldPath`).
pub const fn resolve_field_path<'s, 'p>(
    schema: &'s Schema<'s>,
    path: &'p str,
) -> Result<&'s Schema<'s>, FieldPathError<'p>> {
    resolve_field_path_with(schema, path, true)
}

/// [`resolve_field_path`] with the apiserver's `WithFieldPathAllowArrayNotation` option
/// (`false` for `selectableFields` JSON paths).
pub const fn resolve_field_path_with<'s, 'p>(
    schema: &'s Schema<'s>,
    path: &'p str,
    allow_array_notation: bool,
) -> Result<&'s Schema<'s>, FieldPathError<'p>> {
    let mut current = schema;
    let mut pos = 0;
    loop {
        match step(current, path, pos, allow_array_notation) {
            Ok(Some(s)) => {
                current = s.schema;
                pos = s.next;
            }
            Ok(None) => return Ok(current),
            Err(e) => return Err(e),
        }
    }
}

/// Whether `path` is a valid `fieldPath` for a rule on `schema` (CEL-SEMANTICS.md 3.4).
pub const fn valid_field_path<'p>(
    schema: &Schema<'_>,
    path: &'p str,
) -> Result<(), FieldPathError<'p>> {
    match resolve_field_path(schema, path) {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The normalized form of a valid `fieldPath`: the apimachinery path string the apiserver
/// appends to the rule's error path (`.a['bbb.c']` gives `a.bbb.c`, `.foo['k']` on a map
/// gives `foo[k]`; names and keys unescaped and unquoted).
pub fn normalize_field_path<'p>(
    schema: &Schema<'_>,
    path: &'p str,
) -> Result<String, FieldPathError<'p>> {
    let mut out = String::new();
    let mut current = schema;
    let mut pos = 0;
    while let Some(s) = step(current, path, pos, true)? {
        let name = if s.quoted {
            unescape(s.text)
        } else {
            s.text.to_owned()
        };
        if s.named {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&name);
        } else {
            out.push('[');
            out.push_str(&name);
            out.push(']');
        }
        current = s.schema;
        pos = s.next;
    }
    Ok(out)
}

/// Unescapes a quoted string's inside whose escapes are valid.
fn unescape(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&d) = chars.peek()
            && d != '\n'
        {
            chars.next();
            let u = u8::try_from(d)
                .ok()
                .and_then(unescape_byte)
                .expect("BUG: escapes are checked before unescaping");
            out.push(char::from(u));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Property, Type};

    const STR: Schema<'static> = Schema::of(Type::String);
    const INNER_C: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "c",
                required: false,
                schema: &STR,
            },
            Property {
                name: "c\u{7}",
                required: false,
                schema: &STR,
            },
        ],
        ..Schema::of(Type::Object)
    };
    const MAP: Schema<'static> = Schema {
        additional_properties: Some(&STR),
        ..Schema::of(Type::Object)
    };
    const MAP_OF_OBJ: Schema<'static> = Schema {
        additional_properties: Some(&INNER_C),
        ..Schema::of(Type::Object)
    };
    const LIST: Schema<'static> = Schema {
        items: Some(&INNER_C),
        ..Schema::of(Type::Array)
    };
    const FLAT: Schema<'static> = Schema {
        properties: &[Property {
            name: "flat",
            required: false,
            schema: &STR,
        }],
        ..Schema::of(Type::Object)
    };
    const ROOT: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "a",
                required: false,
                schema: &INNER_C,
            },
            Property {
                name: "bbb.c",
                required: false,
                schema: &STR,
            },
            Property {
                name: "foo",
                required: false,
                schema: &MAP,
            },
            Property {
                name: "objs",
                required: false,
                schema: &MAP_OF_OBJ,
            },
            Property {
                name: "list",
                required: false,
                schema: &LIST,
            },
            Property {
                name: "white space",
                required: false,
                schema: &STR,
            },
            Property {
                name: "quote'd",
                required: false,
                schema: &STR,
            },
            Property {
                name: "back\\slash",
                required: false,
                schema: &STR,
            },
            Property {
                name: "",
                required: false,
                schema: &STR,
            },
        ],
        flatten: &[&FLAT],
        ..Schema::of(Type::Object)
    };

    fn err(path: &str) -> String {
        match valid_field_path(&ROOT, path) {
            Ok(()) => panic!("{path:?} should be invalid"),
            Err(e) => e.to_string(),
        }
    }

    fn norm(path: &str) -> String {
        normalize_field_path(&ROOT, path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
    }

    #[test]
    fn valid_paths_and_their_normal_form() {
        for (path, want) in [
            (".a", "a"),
            (".a.c", "a.c"),
            ("['a']", "a"),
            ("['a'].c", "a.c"),
            (".a['c']", "a.c"),
            ("['bbb.c']", "bbb.c"),
            (".foo['k']", "foo[k]"),
            (".foo.k", "foo[k]"),
            (".foo['k.x']", "foo[k.x]"),
            (".foo['[k]']", "foo[[k]]"),
            (".objs['k'].c", "objs[k].c"),
            (".objs.k.c", "objs[k].c"),
            (".white space", "white space"),
            (".quote'd", "quote'd"),
            ("['quote\\'d']", "quote'd"),
            ("['back\\\\slash']", "back\\slash"),
            (".a['c\\a']", "a.c\u{7}"),
            ("['']", ""),
            (".flat", "flat"),
            ("['flat']", "flat"),
            (".foo..", "foo[.]"),
            ("", ""),
        ] {
            assert_eq!(norm(path), want, "{path:?}");
        }
    }

    #[test]
    fn invalid_paths_give_the_apiserver_texts() {
        for (path, want) in [
            (".nope", "does not refer to a valid field"),
            (".a.nope", "does not refer to a valid field"),
            (".a.c.d", "does not refer to a valid field"),
            (".list.a", "does not refer to a valid field"),
            (".list['a']", "does not refer to a valid field"),
            ("..", "does not refer to a valid field"),
            (".a..c", "does not refer to a valid field"),
            (". a", "does not refer to a valid field"),
            (".list[0]", "expected single quoted string but got 0"),
            (".foo[k]", "expected single quoted string but got k"),
            (".foo[\"k\"]", "expected single quoted string but got \"k\""),
            ("['a", "expected single quoted string but got 'a"),
            ("[']", "expected single quoted string but got ']"),
            ("[]", "expected single quoted string but got ]"),
            (".", "unexpected end of JSON path"),
            ("[", "unexpected end of JSON path"),
            (".a.", "unexpected end of JSON path"),
            (".foo.", "unexpected end of JSON path"),
            ("['a'", "unexpected end of JSON path"),
            ("['a'.c", "expected ] but got ."),
            ("['a']]", "expected [ or . but got: ]"),
            ("a", "expected [ or . but got: a"),
            ("   ", "expected [ or . but got:    "),
            (".a c", "does not refer to a valid field"),
            (
                "['a\\x']",
                "invalid string literal: invalid escape char \\x",
            ),
            (
                "['\\q\\é']",
                "invalid string literal: invalid escape char \\é",
            ),
        ] {
            assert_eq!(err(path), want, "{path:?}");
        }
    }

    #[test]
    fn escape_check_comes_before_the_lookup_and_lookup_before_the_bracket() {
        // An invalid escape in a name that does not exist: the escape is reported.
        assert_eq!(
            err("['nope\\z'"),
            "invalid string literal: invalid escape char \\z"
        );
        // A name that does not exist with a missing `]`: the lookup fails first.
        assert_eq!(err("['nope'x"), "does not refer to a valid field");
    }

    #[test]
    fn array_notation_can_be_disabled() {
        assert_eq!(
            resolve_field_path_with(&ROOT, "['a']", false).map(|_| ()),
            Err(FieldPathError::ArrayNotation)
        );
        assert!(resolve_field_path_with(&ROOT, ".a.c", false).is_ok());
    }

    #[test]
    fn resolves_to_the_schema_the_path_names() {
        let s = resolve_field_path(&ROOT, ".objs['k']").expect("valid");
        assert!(core::ptr::eq(s, &INNER_C));
        let s = resolve_field_path(&ROOT, "").expect("valid");
        assert!(core::ptr::eq(s, &ROOT));
    }

    #[test]
    fn works_in_const_evaluation() {
        const OK: bool = valid_field_path(&ROOT, ".a['c']").is_ok();
        const BAD: bool = valid_field_path(&ROOT, ".list[0]").is_err();
        const _: () = assert!(OK && BAD);
        const MSG_LEN: usize = {
            let mut buf = Buf::<128>::new();
            match valid_field_path(&ROOT, ".list[0]") {
                Err(e) => e.push_to(&mut buf),
                Ok(()) => panic!("valid"),
            }
            buf.as_str().len()
        };
        assert_eq!(MSG_LEN, "expected single quoted string but got 0".len());
    }

    #[test]
    fn message_is_the_fixed_part() {
        let e = FieldPathError::ExpectedCloseBracket("x");
        assert_eq!(e.message(), "expected ] but got ");
        assert_eq!(e.token(), Some("x"));
    }
}
