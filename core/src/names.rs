//! Property names as CEL spells them: the words the apiserver reserves, the `__dash__`-style
//! escaping of property names (the apiserver's `cel.Escape`), and the lookup of the property an
//! identifier selects, shared by the checker, the cost estimator and the runtime.

/// Whether a resource root declares `kind`, `apiVersion` and `metadata.name`/`generateName`
/// with the shapes that keep it unchanged (`k8s.io/apiserver/pkg/cel/common/schemas.go`).
pub const fn declares_type_and_meta(s: &crate::model::Schema<'_>) -> bool {
    use crate::model::Type;
    let kind = matches!(s.property("kind"), Some(p) if matches!(p.schema.ty, Type::String));
    let api = matches!(s.property("apiVersion"), Some(p) if matches!(p.schema.ty, Type::String));
    let meta = match s.property("metadata") {
        Some(p) => {
            matches!(p.schema.ty, Type::Object)
                && !p.schema.properties.is_empty()
                && matches!(p.schema.property("name"), Some(n) if matches!(n.schema.ty, Type::String))
                && matches!(p.schema.property("generateName"), Some(n) if matches!(n.schema.ty, Type::String))
        }
        None => false,
    };
    kind && api && meta
}

/// The property `.field` selects on an object node when compiled at compatibility version
/// `compat` (reserved words may stand bare from 1.31): the checker's lookup, which the derive
/// also uses to tell which properties a rule reads.
pub const fn selected_property<'a>(
    s: &'a crate::model::Schema<'a>,
    field: &[u8],
    compat: u8,
) -> Option<&'a crate::model::Property<'a>> {
    find_property(s, field, compat >= 31, 0)
}

/// The property whose escaped name (2) is `field`, looking through flatten.
pub(crate) const fn find_property<'a>(
    s: &'a crate::model::Schema<'a>,
    field: &[u8],
    keywords: bool,
    depth: u32,
) -> Option<&'a crate::model::Property<'a>> {
    let mut i = 0;
    let len_i = s.properties.len();
    // Lengths read once and bytes compared in place: in const evaluation each `len()` is two
    // calls, and this runs for every property of every selected object.
    let field_len = field.len();
    // The first byte, by a slice pattern (no call): a name can be the field, bare or escaped,
    // only if the field starts with the name's first byte or with `_` (every escape of a first
    // byte, and of a reserved word, starts with `_`), which rules out most properties with
    // two comparisons.
    let first = match field {
        [c, ..] => *c,
        [] => 0,
    };
    while i < len_i {
        let p = &s.properties[i];
        let name = p.name.as_bytes();
        if let [c, ..] = name
            && *c != first
            && first != b'_'
        {
            i += 1;
            continue;
        }
        let name_len = name.len();
        // Escaping never shortens a name, and lengthens every name it changes: an identifier
        // of the same length can only be the name itself, spelled bare (no `__` to escape;
        // reserved words only where `keywords` lets them stand). Longer may be an escape.
        if name_len == field_len {
            let mut k = 0;
            while k < name_len && name[k] == field[k] {
                k += 1;
            }
            if k == name_len
                && if is_reserved(name) {
                    keywords
                } else {
                    !has_double_underscore(name)
                }
            {
                return Some(p);
            }
        } else if name_len < field_len && escaped_is(name, field) {
            return Some(p);
        }
        i += 1;
    }
    if depth < 16 {
        let mut f = 0;
        let len_f = s.flatten.len();
        while f < len_f {
            if let Some(p) = find_property(s.flatten[f], field, keywords, depth + 1) {
                return Some(p);
            }
            f += 1;
        }
    }
    None
}

/// The 21 words the apiserver escapes as `__<word>__` (`k8s.io/apiserver/pkg/cel/escaping.go`).
pub const RESERVED: [&str; 21] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

const fn has_double_underscore(name: &[u8]) -> bool {
    let mut i = 1;
    let len_i = name.len();
    while i < len_i {
        if name[i] == b'_' && name[i - 1] == b'_' {
            return true;
        }
        i += 1;
    }
    false
}

const fn is_reserved(name: &[u8]) -> bool {
    // A match compiles to a decision on length and bytes: in const evaluation, where every
    // step counts, far cheaper than comparing with each of the 21 words in turn.
    matches!(
        name,
        b"true"
            | b"false"
            | b"null"
            | b"in"
            | b"as"
            | b"break"
            | b"const"
            | b"continue"
            | b"else"
            | b"for"
            | b"function"
            | b"if"
            | b"import"
            | b"let"
            | b"loop"
            | b"package"
            | b"namespace"
            | b"return"
            | b"var"
            | b"void"
            | b"while"
    )
}

/// Writes the CEL spelling of the property name `name` (`k8s.io/apiserver/pkg/cel/escaping.go`): `__dash__` and
/// friends, reserved words as `__word__` unless `keywords` (compatibility 1.31+) lets them stand
/// bare. `false` (nothing written) for a name no rule can reach.
pub(crate) const fn push_escaped<const N: usize>(
    out: &mut crate::msg::Buf<N>,
    name: &[u8],
    keywords: bool,
) -> bool {
    if name.is_empty() || name[0].is_ascii_digit() {
        return false;
    }
    let mut i = 0;
    let len_i = name.len();
    while i < len_i {
        let c = name[i];
        if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'/' || c == b'-') {
            return false;
        }
        i += 1;
    }
    if is_reserved(name) {
        if keywords {
            out.push_bytes(name);
        } else {
            out.push("__");
            out.push_bytes(name);
            out.push("__");
        }
        return true;
    }
    let mut i = 0;
    let len_i = name.len();
    while i < len_i {
        let c = name[i];
        if c == b'_' && i + 1 < name.len() && name[i + 1] == b'_' {
            out.push("__underscores__");
            i += 2;
            continue;
        }
        match c {
            b'.' => out.push("__dot__"),
            b'-' => out.push("__dash__"),
            b'/' => out.push("__slash__"),
            _ => out.push_bytes(&[c]),
        }
        i += 1;
    }
    true
}

/// Whether escaping the property name `name` (`k8s.io/apiserver/pkg/cel/escaping.go`) gives exactly `ident`.
pub const fn escaped_is(name: &[u8], ident: &[u8]) -> bool {
    // Lengths read once: in const evaluation each `len()` is two calls.
    let nlen = name.len();
    let ilen = ident.len();
    if nlen == 0 || name[0].is_ascii_digit() {
        return false;
    }
    if is_reserved(name) {
        // `__<word>__`
        if ilen != nlen + 4 {
            return false;
        }
        if ident[0] != b'_' || ident[1] != b'_' {
            return false;
        }
        let n = ilen;
        if ident[n - 1] != b'_' || ident[n - 2] != b'_' {
            return false;
        }
        let mut i = 0;
        let len_i = nlen;
        while i < len_i {
            if ident[i + 2] != name[i] {
                return false;
            }
            i += 1;
        }
        return true;
    }
    let mut i = 0; // in name
    let mut j = 0; // in ident
    let len_i = nlen;
    while i < len_i {
        let c = name[i];
        let rep: &[u8] = if c == b'_' && i + 1 < nlen && name[i + 1] == b'_' {
            i += 1;
            b"__underscores__"
        } else if c == b'.' {
            b"__dot__"
        } else if c == b'-' {
            b"__dash__"
        } else if c == b'/' {
            b"__slash__"
        } else if matches!(c, b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_') {
            // a single byte, compared below
            b""
        } else {
            return false;
        };
        let len_k = rep.len();
        if len_k == 0 {
            if j >= ilen || ident[j] != c {
                return false;
            }
            j += 1;
        } else {
            let mut k = 0;
            while k < len_k {
                if j >= ilen || ident[j] != rep[k] {
                    return false;
                }
                j += 1;
                k += 1;
            }
        }
        i += 1;
    }
    j == ilen
}
