//! `fieldPath` of a validation rule: the apiserver's `ValidFieldPath` (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`).
//!
//! The path is resolved against the schema of the node that holds the rule. It is written in
//! `const fn` (byte-wise, no allocation) so that the derive can check a `field_path` against the
//! model constant at `cargo build` ([`check_field_path`]); [`normalize_field_path`] gives the path string the apiserver
//! appends to a failing rule's error path at runtime (`apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`).
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

/// Whether `path` is a valid `fieldPath` for a rule on `schema` (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`).
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

/// Const check behind `field_path`: the path must resolve in the schema of the node the rule
/// is on (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`), or the apiserver rejects the CRD with
/// `x-kubernetes-validations[i].fieldPath: Invalid value: "<path>": must be a valid path`.
/// The error is that text, the reason, and a hint, which the derive's const item panics with (a
/// compile error in const evaluation).
///
/// The derive calls it in one `const` item per rule that has a `field_path`, with the model of
/// the type or field the rule is on. An empty path is no `fieldPath` to the apiserver and
/// passes; blank or multi-line paths are reported at expansion (`rule_fields`).
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_field_path(model: &Schema<'_>, path: &str) -> Result<(), Buf<1024>> {
    // A path into a node known only by its generated schema is checked against that schema.
    if path.is_empty() || model.contains_unknown() {
        return Ok(());
    }
    if let Err(e) = valid_field_path(model, path) {
        let mut buf = Buf::<1024>::new();
        buf.push("fieldPath: Invalid value: \"");
        buf.push(path);
        buf.push("\": must be a valid path: ");
        e.push_to(&mut buf);
        buf.push(
            "\n  = help: the path is resolved from the type the rule is on: `.name` or `['name']` \
             for a field, `.key` or `['key']` for a map entry; list items cannot be addressed",
        );
        return Err(buf.finish());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
