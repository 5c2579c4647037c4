//! Go's `regexp` (RE2 syntax) on the `regex` crate: the constructs whose meaning differs are
//! rewritten, and compiled patterns are cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::{start, syntax};
use regex_automata::{Anchored, Input};

use super::super::error::EvalError;

/// A compiled RE2-syntax regular expression: the `regex` crate's, and for `matches` and schema
/// `pattern` checks (a yes or no on mostly short strings) a lazy DFA of the same pattern beside
/// it, walked by hand. `regex::Regex::is_match` costs some 350 instructions on a 4-to-25-byte
/// string (its strategy, cache pool and search set-up); the walk about 150 (the typed workload
/// benchmark's DNS names). The lazy DFA is regex-automata's `hybrid`, which `regex` builds on
/// too: a fully built (dense) DFA would need regex-automata's `dfa-build` feature, which Cargo
/// turns on for `regex` as well, making every `Regex::new` in the process build full DFAs
/// (half again as dear), kube-rs's per-call compiles included.
pub(crate) struct GoRegex {
    regex: ::regex::Regex,
    /// `None` when the pattern's automaton is too big to build cheaply (see [`short_match_dfa`]).
    dfa: Option<ShortDfa>,
}

/// A lazy DFA's cache, and its unanchored start state at the beginning of a string with the
/// cache's clear count when it was found (a clear invalidates state ids).
struct Walked {
    cache: Cache,
    start: Option<(usize, LazyStateID)>,
}

/// The longest string the DFA is walked over: beyond, `regex`'s set-up is a small part of its
/// search, whose literal prefilters (memchr) can skip most of a long string.
const SHORT: usize = 256;

/// A lazy DFA for unanchored searches of a pattern, and its cache.
struct ShortDfa {
    dfa: DFA,
    /// The states built so far: one search at a time walks them (a search that finds the
    /// cache taken, on another thread, asks `regex`).
    cache: Mutex<Walked>,
    /// Whether the first match state the walk meets answers: not when an empty match can sit
    /// inside a character, which UTF-8 mode does not report (`regex` and the DFA's own search
    /// skip it). Only an ASCII word boundary (`\b`, `\B` as Go means them) puts one there: the
    /// other assertions hold at a string's ends or beside an ASCII line terminator.
    walk: bool,
}

impl ShortDfa {
    /// Whether the pattern matches anywhere in `s`; `None` when the DFA stops on a quit byte.
    fn is_match(&self, s: &str) -> Option<bool> {
        let dfa = &self.dfa;
        let mut walked = self.cache.try_lock().ok()?;
        let Walked { cache, start } = &mut *walked;
        if !self.walk {
            return dfa
                .try_search_fwd(cache, &Input::new(s).earliest(true))
                .ok()
                .map(|m| m.is_some());
        }
        // The DFA's search (`find_fwd`) less its per-call set-up: matches are seen one byte
        // late, so a match state met at any point, or at the end, is a match.
        let mut sid = match *start {
            Some((clears, sid)) if clears == cache.clear_count() => sid,
            _ => {
                let sid = dfa
                    .start_state(cache, &start::Config::new().anchored(Anchored::No))
                    .ok()?;
                *start = Some((cache.clear_count(), sid));
                sid
            }
        };
        // A pattern that can match nothing starts dead; the walk below takes untagged states.
        if sid.is_tagged() {
            return sid.is_dead().then_some(false);
        }
        for &b in s.as_bytes() {
            // The cached transition, computed when it is not yet (`next_state` may clear the
            // cache, which `start` notices next time).
            let next = dfa.next_state_untagged(cache, sid, b);
            sid = match next.is_unknown() {
                true => dfa.next_state(cache, sid, b).ok()?,
                false => next,
            };
            if sid.is_tagged() {
                // Tagged states (start states not specialized, unknown ones computed by
                // `next_state`): match, dead and quit.
                if sid.is_match() {
                    return Some(true);
                } else if sid.is_dead() {
                    return Some(false);
                } else if sid.is_quit() {
                    return None;
                }
            }
        }
        Some(dfa.next_eoi_state(cache, sid).ok()?.is_match())
    }
}

impl GoRegex {
    /// Compiles a pattern already in the `regex` crate's syntax (see [`re2_to_rust`]).
    fn new(rust_pattern: &str) -> Result<GoRegex, ::regex::Error> {
        let regex = ::regex::Regex::new(rust_pattern)?;
        Ok(GoRegex {
            dfa: short_match_dfa(rust_pattern),
            regex,
        })
    }

    /// Whether the pattern matches anywhere in `s`: `regex::Regex::is_match`'s verdict, from the
    /// DFA when there is one and it can answer (it gives up on a quit byte).
    pub(crate) fn is_match(&self, s: &str) -> bool {
        if s.len() <= SHORT
            && let Some(dfa) = &self.dfa
            && let Some(m) = dfa.is_match(s)
        {
            return m;
        }
        self.regex.is_match(s)
    }

    /// The `regex` crate's compiled pattern, for what the DFA does not answer (`find`, captures).
    pub(crate) fn regex(&self) -> &::regex::Regex {
        &self.regex
    }
}

/// As `regex::Regex` shows itself (`Regex("pattern")`): the DFA is a cache of it.
impl std::fmt::Debug for GoRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.regex.fmt(f)
    }
}

// The lazy DFA builds its states as searches reach them, from an NFA parsed and compiled as
// `regex::Regex::new` does: the NFA's limits keep a pattern's second copy small, and a
// pattern whose automaton is bigger keeps `regex`'s search alone.

/// The NFA's heap (a DNS subdomain's: 1.3 KiB).
const NFA_SIZE_LIMIT: usize = 32 << 10;
/// NFA states (a DNS subdomain has 23, a quantity 61; a `{0,61}` count adds 60 or so). A DFA
/// state costs in proportion to the NFA states it stands for.
const NFA_MAX_STATES: usize = 100;
/// The lazy DFA's cache of states (cleared when full): CRD patterns (names, paths, header
/// names, quantities, durations) reach 300 bytes to a few KiB of states.
const CACHE_CAPACITY: usize = 64 << 10;

/// A lazy DFA for unanchored yes-or-no searches of `rust_pattern`, parsed as `regex::Regex::new`
/// parses it (regex-syntax's defaults: Unicode and UTF-8 on) and compiled to the same NFA
/// semantics (UTF-8 mode, so an empty match splitting a character is not reported). `None` when
/// its NFA is large. A Unicode word boundary makes the DFA quit on non-ASCII bytes: its search
/// then errs and the caller asks `regex`.
fn short_match_dfa(rust_pattern: &str) -> Option<ShortDfa> {
    let nfa = thompson::Compiler::new()
        .syntax(syntax::Config::new().utf8(true))
        .configure(
            thompson::Config::new()
                .utf8(true)
                .which_captures(thompson::WhichCaptures::None)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .build(rust_pattern)
        .ok()?;
    if nfa.states().len() > NFA_MAX_STATES {
        return None;
    }
    let walk = !(nfa.has_empty() && nfa.look_set_any().contains_word());
    let dfa = regex_automata::hybrid::dfa::Builder::new()
        .configure(
            DFA::config()
                // [`ShortDfa::is_match`] counts on start states not being tagged.
                .specialize_start_states(false)
                .unicode_word_boundary(true)
                .cache_capacity(CACHE_CAPACITY),
        )
        .build_from_nfa(nfa)
        .ok()?;
    Some(ShortDfa {
        cache: Mutex::new(Walked {
            cache: dfa.create_cache(),
            start: None,
        }),
        walk,
        dfa,
    })
}

/// A compiled RE2-syntax regular expression, cached by pattern: the apiserver compiles constant
/// patterns once per program, and rules evaluated over many items should not recompile either.
/// A bad pattern gives Go's `error parsing regexp: ...` text ([`crd_cel_core::go::regexp`]).
pub(crate) fn compiled_regex(pattern: &str) -> Result<Arc<GoRegex>, EvalError> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<GoRegex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(pattern).cloned()) {
        return Ok(r);
    }
    // Go's verdict and text first; the `regex` crate's own limits (nesting, compiled size)
    // can still refuse what Go accepts.
    crd_cel_core::go::regexp::check(pattern).map_err(|e| EvalError::new(e.to_string()))?;
    let compiled = Arc::new(
        GoRegex::new(&re2_to_rust(pattern))
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
    use std::sync::Arc;

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

    /// Patterns in Go's syntax (through [`super::compiled_regex`]) whose DFA must be built.
    const SIMPLE: &[&str] = &[
        // DNS-1123 label and subdomain, DNS-1035 label, qualified name, label value.
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
        r"^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
        r"^[a-z]([-a-z0-9]*[a-z0-9])?$",
        r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$",
        r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$",
        // Gateway API's path, header name and hostname; a quantity; durations.
        r"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$",
        r"^[A-Za-z0-9!#$%&'*+\-.^_\x60|~]+$",
        r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
        r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
        r"^([0-9]{1,5}(h|m|s|ms)){1,4}$",
        r"^[!-~]+([\t ]?[!-~]+)*$",
        // The named formats' patterns.
        r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$",
        r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$",
        // The repository's tests'.
        r"^[a-z]+$",
        r"^[a-z]+(-[a-z]+)*$",
        r"^[a-z-]+$",
        r"^[0-9]+$",
        r"^[AB]$",
        r"^v[0-9]+$",
        r"^a",
        r"^bad",
        r"^a.c$",
        r"^w+$",
        "0",
        "/",
        " ",
        "\n",
        ".",
        "VALUE:",
        "v1.",
        // Unanchored, half anchored, empty.
        "",
        "abc",
        "^abc",
        "abc$",
        "a|b|^c$",
        "x*",
        // Unicode classes and literals, case folding.
        r"^\p{Greek}+$",
        r"^[^a-z]+$",
        r"^.$",
        r"(?s)^.+$",
        "é",
        "(?i)straße",
        "(?i)^[a-z]+$",
        "(?i)k",
        // Go's ASCII \d \w \s \b.
        r"^\d+$",
        r"^\w+$",
        r"\bcat\b",
        r"\B",
        r"^a\sb$",
        // ^ and $ in the middle; multi-line.
        "a^b",
        "a$b",
        "a$|^b",
        "$^",
        "x*$^",
        "(?m)^a$",
        "(?m)b$",
        "(^$|^[a-f0-9]{4}$)",
    ];

    /// Strings for every pattern: ASCII, Unicode, empty, long, with newlines.
    fn strings() -> Vec<String> {
        let mut v: Vec<String> = [
            "",
            " ",
            "a",
            "z",
            "A",
            "0",
            "-",
            ".",
            "/",
            "\n",
            "\r\n",
            "\t",
            "abc",
            "ABC",
            "aBc",
            "cat",
            "a cat!",
            "concat",
            "cat\n",
            "\ncat",
            "a-b",
            "-a",
            "a-",
            "a.b",
            "a..b",
            "a.b.",
            "my-name",
            "my-name.example.com",
            "Example.COM",
            "x*.example.com",
            "*.example.com",
            "1",
            "123",
            "12a",
            "1.5",
            "1.5Gi",
            "-1e3",
            "+.5",
            "500m",
            "1h30m",
            "10s",
            "1ms2s",
            "v1",
            "v1.",
            "v12",
            "VALUE:",
            "x VALUE: y",
            "abc\n",
            "\nabc",
            "a\nb",
            "a\n",
            "\na",
            "ab\nc",
            "b\n",
            "ab",
            "ac",
            "a^b",
            "a$b",
            "bad",
            "badge",
            "AB",
            "A",
            "B",
            "abc$",
            "/a/b%20c",
            "/%zz",
            "x-header_1",
            "Bad Header",
            "é",
            "ée",
            "aé",
            "aéa",
            "éa",
            "straße",
            "STRASSE",
            "strasse",
            "STRAẞE",
            "K",
            "k",
            "\u{212a}",
            "Ω",
            "αβγ",
            "日本",
            "日本語のテキスト",
            "😀",
            "a😀b",
            "\u{85}",
            "\u{2028}",
            "١٢٣",
            "abc\u{301}",
            "0123abcd",
            "0123ABCD-aaaa-bbbb-cccc-0123456789ab",
            "12:30:45z",
            "12:30:45.5+01:00",
            "QUJD",
            "QUJDRA==",
            "QUJDREU=",
            "QUJ",
            "annually",
            "@annually",
            "a b",
            "a  b",
            "x y z",
            "deadbeef",
            "dead",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push("a".repeat(1000));
        v.push(format!("{}.{}", "a".repeat(63), "b".repeat(200)));
        v.push(format!("{}-", "a".repeat(500)));
        v.push("é".repeat(300));
        v.push(format!("{}\n{}", "x".repeat(100), "y".repeat(100)));
        v.push("cat ".repeat(100));
        v
    }

    /// `GoRegex::is_match` against `regex::Regex::is_match`, and the DFA's own answers where it
    /// gives them, the walk's and its library search's (so that a fallback cannot hide a wrong
    /// DFA).
    fn agree(re: &super::GoRegex, s: &str, what: &str) {
        let want = re.regex().is_match(s);
        assert_eq!(re.is_match(s), want, "{what} on {s:?}");
        if let Some(short) = &re.dfa {
            if let Some(m) = short.is_match(s) {
                assert_eq!(m, want, "{what}'s DFA on {s:?}");
            }
            let mut cache = short.dfa.create_cache();
            let search = short
                .dfa
                .try_search_fwd(&mut cache, &super::Input::new(s).earliest(true));
            if let Ok(m) = search {
                assert_eq!(m.is_some(), want, "{what}'s DFA search on {s:?}");
            }
        }
    }

    /// A pattern of [`SIMPLE`], with its DFA, which its walk answers (but for `\B`, whose
    /// empty matches may sit inside a character).
    fn walked(p: &str) -> Arc<super::GoRegex> {
        let re = super::compiled_regex(p).unwrap();
        let walk = re.dfa.as_ref().map(|d| d.walk);
        assert_eq!(walk, Some(p != r"\B"), "the DFA of {p:?}");
        re
    }

    #[test]
    fn dfa_verdicts_are_regex_verdicts() {
        let strings = strings();
        for p in SIMPLE {
            let re = walked(p);
            for s in &strings {
                agree(&re, s, p);
            }
        }
        // In the `regex` crate's syntax: a Unicode word boundary (Go has none) makes the DFA
        // quit on non-ASCII bytes, an ASCII one may sit inside a character, where UTF-8 mode
        // reports no empty match ("aéa" has only that one).
        for p in [
            r"\bcat\b",
            r"\b",
            r"(?-u:\B)",
            r"(?-u:\b)x",
            r"a\b",
            r"\b[a-z]+\b",
        ] {
            let re = super::GoRegex::new(p).unwrap();
            assert!(re.dfa.is_some(), "no DFA for {p:?}");
            for s in &strings {
                agree(&re, s, p);
            }
        }
        let quits = super::GoRegex::new(r"\bcat\b").unwrap();
        let short = quits.dfa.as_ref().unwrap();
        assert_eq!(short.is_match("é cat"), None);
        assert!(quits.is_match("é cat") && !quits.is_match("écat"));
        // An empty match inside "é" is no match: those patterns take the DFA's search.
        let split = super::GoRegex::new(r"(?-u:\B)").unwrap();
        assert!(!split.dfa.as_ref().unwrap().walk);
        assert!(!split.is_match("aéa") && split.is_match("aé"));
        // A cron pattern of the corpus, whose full DFA is large: the lazy one builds only the
        // states the strings reach.
        let cron = r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$";
        let re = super::compiled_regex(cron).unwrap();
        assert!(re.dfa.is_some(), "no DFA for the cron pattern");
        for s in &strings {
            agree(&re, s, cron);
        }
        // NFAs too big for a second copy (Unicode classes, counted repetitions): `regex` answers
        // alone, the same.
        for p in [r"\pL+", r"^\PL*$", r"\pL{30}", "[a-z]{300}"] {
            let re = super::compiled_regex(p).unwrap();
            assert!(re.dfa.is_none(), "a DFA for {p:?}");
            for s in &strings {
                agree(&re, s, p);
            }
        }
    }

    /// Random strings over the patterns' alphabet (and some Unicode), from a fixed seed.
    #[test]
    fn dfa_verdicts_on_random_strings() {
        const ALPHABET: &[char] = &[
            'a', 'b', 'c', 'e', 'k', 'z', 'A', 'B', 'K', 'Z', '0', '1', '9', '-', '-', '.', '.',
            '/', '_', ':', '%', '*', '+', '=', '@', ' ', '\t', '\n', '\r', 'é', 'ß', 'Ω', '日',
            '😀', '\u{212a}', '\u{2028}', '$', '^',
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            // splitmix64
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut strings = Vec::new();
        for _ in 0..3000 {
            let len = (next() % 24) as usize;
            // Mostly a DNS-like alphabet, so that the anchored patterns match often.
            let narrow = next() % 2 == 0;
            let s: String = (0..len)
                .map(|_| {
                    let n = if narrow { 8 } else { ALPHABET.len() };
                    let c = ALPHABET[(next() % n as u64) as usize];
                    if narrow && next() % 5 == 0 { '-' } else { c }
                })
                .collect();
            strings.push(s);
        }
        let (mut yes, mut no) = (0, 0);
        for p in SIMPLE {
            let re = walked(p);
            for s in &strings {
                agree(&re, s, p);
                if re.is_match(s) { yes += 1 } else { no += 1 }
            }
        }
        assert!(yes > 10_000 && no > 10_000, "{yes} matches, {no} not");
    }
}
