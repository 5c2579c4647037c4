//! The functions rules can call at runtime, by the name the CRD environment declares them under
//! (`crd_cel_core::env::FUNCTIONS`), with the apiserver's runtime cost for each call.
//!
//! The interpreter resolves every call of a program to one [`Function`] when the program is
//! built, so evaluation never looks a name up. One entry serves every overload of a name: the
//! implementation dispatches on the argument values, the receiver of a member call first
//! (`"abc".indexOf("b")` is called with `["abc", "b"]`), as cel-go flattens them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::error::EvalError;
use super::value::Value;

/// An implementation: receives the receiver (member calls) and the arguments, none of them an
/// error value (the interpreter propagates errors before calling). Returns the result, or the
/// error in cel-go's words (`no such overload` when no overload accepts the values).
pub type Impl = fn(&[Value]) -> Result<Value, EvalError>;

/// The runtime cost of one call given its arguments and result (cel-go's `CallCost` and the
/// Kubernetes library's `CallCost`, CEL-SEMANTICS 4.4).
pub type CostFn = fn(&[Value], &Value) -> u64;

/// One function name and its implementation.
#[derive(Debug)]
pub struct Function {
    /// The declared name (`indexOf`, `sets.contains`, `format.named`, `_+_`).
    pub name: &'static str,
    /// The implementation.
    pub call: Impl,
    /// The cost of a call; `None` is cel-go's default of 1.
    pub cost: Option<CostFn>,
}

impl Function {
    /// The cost of one call.
    pub fn cost_of(&self, args: &[Value], result: &Value) -> u64 {
        match self.cost {
            Some(f) => f(args, result),
            None => 1,
        }
    }
}

/// The function declared under `name`, if crd-cel implements it at runtime. A declared function
/// that is missing here makes the program fail to build with "not supported by crd-cel yet".
pub fn lookup(name: &str) -> Option<&'static Function> {
    static TABLE: OnceLock<HashMap<&'static str, &'static Function>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut m = HashMap::new();
            for table in super::library::TABLES {
                for f in table.iter() {
                    let previous = m.insert(f.name, f);
                    debug_assert!(previous.is_none(), "{} is implemented twice", f.name);
                }
            }
            m
        })
        .get(name)
        .copied()
}

/// `ceil(x * factor)` on a size, as cel-go's cost functions round.
pub fn traversal_cost(size: u64, factor: f64) -> u64 {
    (size as f64 * factor).ceil() as u64
}

/// cel-go's `StringTraversalCostFactor` (0.1).
pub const STRING_TRAVERSAL_FACTOR: f64 = 0.1;

/// cel-go's `RegexStringLengthCostFactor` (0.25).
pub const REGEX_LENGTH_FACTOR: f64 = 0.25;

/// A compiled RE2-syntax regular expression, cached by pattern: the apiserver compiles constant
/// patterns once per program, and rules evaluated over many items should not recompile either.
/// A bad pattern gives Go's `error parsing regexp: ...` text.
pub fn compiled_regex(pattern: &str) -> Result<Arc<::regex::Regex>, EvalError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<::regex::Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(r);
    }
    let compiled = Arc::new(
        ::regex::Regex::new(&re2_to_rust(pattern))
            .map_err(|e| EvalError::new(format!("error parsing regexp: {e}")))?,
    );
    if let Ok(mut c) = cache.lock() {
        // Patterns built from data could grow the cache without bound.
        if c.len() >= 1024 {
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

    /// Operators the interpreter evaluates itself (short-circuits, equality, selection).
    const BUILT_INTO_THE_INTERPRETER: &[&str] = &[
        "_&&_",
        "_||_",
        "_?_:_",
        "_==_",
        "_!=_",
        "@not_strictly_false",
        "_[_]",
        "_[?_]",
        "_?._",
    ];

    #[test]
    fn every_declared_function_runs_except_the_authorizer_library() {
        let mut missing = Vec::new();
        for f in crd_cel_core::env::FUNCTIONS {
            if BUILT_INTO_THE_INTERPRETER.contains(&f.name) || super::lookup(f.name).is_some() {
                continue;
            }
            missing.push(f.name);
        }
        // The Authz library is declared (rules that call it get cel-go's errors at check time)
        // but CRD rules have no `authorizer` variable, so nothing can reach it at runtime.
        let authz = [
            "path",
            "group",
            "serviceAccount",
            "resource",
            "subresource",
            "namespace",
            "name",
            "check",
            "allowed",
            "reason",
            "errored",
            "error",
            "fieldSelector",
            "labelSelector",
        ];
        missing.retain(|m| !authz.contains(m));
        assert!(
            missing.is_empty(),
            "declared but not implemented: {missing:?}"
        );
    }
}
