//! Go's `regexp` (RE2 syntax) on the `regex` crate: the constructs whose meaning differs are
//! rewritten, and compiled patterns are cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::super::error::EvalError;

/// A compiled RE2-syntax regular expression, cached by pattern: the apiserver compiles constant
/// patterns once per program, and rules evaluated over many items should not recompile either.
/// A bad pattern gives Go's `error parsing regexp: ...` text ([`crd_cel_core::go::regexp`]).
pub(crate) fn compiled_regex(pattern: &str) -> Result<Arc<::regex::Regex>, EvalError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<::regex::Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(r);
    }
    // Go's verdict and text first; the `regex` crate's own limits (nesting, compiled size)
    // can still refuse what Go accepts.
    crd_cel_core::go::regexp::check(pattern).map_err(|e| EvalError::new(e.to_string()))?;
    let compiled = Arc::new(
        ::regex::Regex::new(&re2_to_rust(pattern))
            .map_err(|e| EvalError::new(format!("error parsing regexp: {e}")))?,
    );
    if let Ok(mut c) = cache.lock() {
        // Patterns built from data could grow the cache without bound, and one compiled
        // pattern can hold megabytes (its program and lazy DFA): keep few.
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(pattern.to_owned(), compiled.clone());
    }
    Ok(compiled)
}

/// Rewrites the RE2 constructs whose meaning differs in the `regex` crate: Go's Perl classes
/// (`\d \w \s`) and word boundaries are ASCII-only, where `regex` makes them Unicode; `\Q...\E`
/// quotes a literal, which `regex` does not know.
fn re2_to_rust(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut class_depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let inside = class_depth > 0;
                match (e, inside) {
                    ('d', false) => out.push_str("[0-9]"),
                    ('D', _) => out.push_str("[^0-9]"),
                    ('s', false) => out.push_str("[\\t\\n\\f\\r ]"),
                    ('S', _) => out.push_str("[^\\t\\n\\f\\r ]"),
                    ('w', false) => out.push_str("[0-9A-Za-z_]"),
                    ('W', _) => out.push_str("[^0-9A-Za-z_]"),
                    ('d', true) => out.push_str("0-9"),
                    ('s', true) => out.push_str("\\t\\n\\f\\r "),
                    ('w', true) => out.push_str("0-9A-Za-z_"),
                    ('b', false) => out.push_str("(?-u:\\b)"),
                    ('B', false) => out.push_str("(?-u:\\B)"),
                    ('Q', _) => {
                        let mut literal = String::new();
                        while let Some(q) = chars.next() {
                            if q == '\\' && chars.peek() == Some(&'E') {
                                chars.next();
                                break;
                            }
                            literal.push(q);
                        }
                        out.push_str(&::regex::escape(&literal));
                    }
                    (e, _) => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' => {
                // `[:alpha:]` inside a class is a POSIX class, not a nested one.
                if class_depth > 0 && chars.peek() == Some(&':') {
                    out.push('[');
                    for p in chars.by_ref() {
                        out.push(p);
                        if p == ']' {
                            break;
                        }
                    }
                    continue;
                }
                class_depth += 1;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                // A `]` first in a class is a literal.
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            ']' if class_depth > 0 => {
                class_depth -= 1;
                out.push(']');
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn re2_perl_classes_are_ascii_as_in_go() {
        let m = |re: &str, s: &str| super::compiled_regex(re).unwrap().is_match(s);
        assert!(!m(r"^\d$", "٣"), "Go's \\d is ASCII");
        assert!(m(r"^\d+$", "123"));
        assert!(m(r"^[\d.]+$", "1.2"));
        assert!(!m(r"^\w$", "é"));
        assert!(m(r"^[^\W]$", "a"));
        assert!(m(r"^a\sb$", "a b"));
        assert!(m(r"^\Q.*\E$", ".*"));
        assert!(!m(r"^\Q.*\E$", "ab"));
        assert!(m(r"^[[:alpha:]]+$", "abc"));
        assert!(m(r"^[]a]+$", "]a"));
        assert!(m(r"\bcat\b", "a cat!"));
    }
}
