//! YAML merge keys as kubectl reads them: `sigs.k8s.io/yaml` decodes with go-yaml v2
//! (`go.yaml.in/yaml/v2`, `decode.go`: `mapping`, `merge`, `isMerge`), which applies
//! `<<: *base` and `<<: [*a, *b]` while it fills the map, in document order:
//!
//! * a plain `<<` key (untagged, or tagged `!!merge`) merges; a quoted `"<<"`, or one with
//!   another tag (`!!str <<`), is the key `<<`;
//! * its value is a map, an alias of a map, or a sequence of maps and aliases of maps; anything
//!   else (a scalar, null, an alias of a sequence, a sequence holding a scalar or a sequence) is
//!   the error [`MERGE_ERROR`], for the whole document;
//! * the merged map's keys are set in the map as it stands, over what is there: a key written
//!   after the `<<` overrides the merged one, a key written before it is overridden (go-yaml v3
//!   keeps explicit keys wherever they are; v2, which kubectl uses, does not);
//! * the maps of a sequence are merged from the last to the first, so the earlier ones win;
//! * merged maps are read like any map, so their own merge keys apply first (nested merges).
//!
//! A merged key is not a repeated one: only keys the mapping itself gives twice are.
//!
//! Merging adds no work of its own beyond reading the merged maps, which the YAML reader's
//! alias limits already bound (`serde_yaml`'s repetition limit: alias expansions at most 100
//! times the document's events, and its nesting limit of 128).

use serde_json::{Map, Value as Json};

use super::resolve::{offset_in, tag_before};

/// go-yaml's error for a merge key whose value is not a map or a sequence of maps
/// (`failWantMap`; kubectl prints it after `yaml: `).
pub(crate) const MERGE_ERROR: &str = "map merge requires map or sequence of maps as the value";

/// Whether `key`, a plain scalar key borrowed from `source`, is a merge key: `<<` with no tag
/// or the merge tag (go-yaml's `isMerge`: implicit, or tagged `!!merge`).
pub(crate) fn is_merge_key(source: &str, key: &str) -> bool {
    if key != "<<" {
        return false;
    }
    let Some(at) = offset_in(source, key) else {
        return false;
    };
    match tag_before(&source[..at]) {
        None => true,
        Some(tag) => tag == "!!merge" || tag == "!<tag:yaml.org,2002:merge>",
    }
}

/// Whether the value of the merge key `key` (a slice of `source`) is an alias (`<<: *base`):
/// go-yaml refuses an alias of a sequence, where it takes a sequence written in place.
pub(crate) fn value_is_alias(source: &str, key: &str) -> bool {
    let Some(at) = offset_in(source, key) else {
        return false;
    };
    let rest = skip_blanks(&source[at + key.len()..]);
    match rest.strip_prefix(':') {
        Some(value) => skip_blanks(value).starts_with('*'),
        None => false,
    }
}

/// `text` after its leading white space, line breaks and comments.
fn skip_blanks(mut text: &str) -> &str {
    loop {
        text = text.trim_start_matches([' ', '\t', '\r', '\n']);
        match text.strip_prefix('#') {
            Some(comment) => text = comment.find('\n').map_or("", |i| &comment[i..]),
            None => return text,
        }
    }
}

/// Merges the maps of one merge key into `out`, as go-yaml v2 does: the last map first, each
/// key set over what `out` holds.
pub(crate) fn apply(out: &mut Map<String, Json>, maps: Vec<Map<String, Json>>) {
    for map in maps.into_iter().rev() {
        for (key, value) in map {
            out.insert(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_at(source: &str, nth: usize) -> &str {
        let at = source
            .match_indices("<<")
            .nth(nth)
            .expect("a << in the source")
            .0;
        &source[at..at + 2]
    }

    #[test]
    fn merge_keys_are_plain_and_untagged_or_tagged_merge() {
        for source in [
            "<<: *a",
            "x:\n  <<: *a",
            "{<<: *a}",
            "- <<: *a",
            "? <<\n: *a",
            "!!merge <<: *a",
            "&k !!merge <<: *a",
            "a: 1\n<<: *a",
        ] {
            assert!(is_merge_key(source, key_at(source, 0)), "{source}");
        }
        for source in ["!!str <<: *a", "!custom <<: *a", "&k !!str <<: *a"] {
            assert!(!is_merge_key(source, key_at(source, 0)), "{source}");
        }
        assert!(!is_merge_key("<<<: 1", &"<<<: 1"[..3]));
        assert!(!is_merge_key("<<: 1", "<<"), "not a slice of the source");
    }

    #[test]
    fn alias_values_are_told_from_values_written_in_place() {
        for source in [
            "<<: *a",
            "<<:    *a",
            "<<:\n  *a",
            "<< : *a",
            "<<: # base\n  *a",
            "{<<: *a}",
        ] {
            assert!(value_is_alias(source, key_at(source, 0)), "{source}");
        }
        for source in [
            "<<: [*a]",
            "<<: {a: 1}",
            "<<:\n  a: 1",
            "<<: &s [*a]",
            "<<:",
        ] {
            assert!(!value_is_alias(source, key_at(source, 0)), "{source}");
        }
    }

    fn read(doc: &str) -> Result<crate::validate::Body, String> {
        crate::validate::Body::from_yaml(serde_yaml::Deserializer::from_str(doc), doc)
            .map_err(|e| e.to_string())
    }

    /// Each document as Go's `sigs.k8s.io/yaml` v1.6.0 (`YAMLToJSON`, go-yaml v2.4.4) reads it,
    /// recorded with the oracle (`tests/oracle/oracle yaml-to-json`); `Err` is its
    /// `yaml: map merge requires map or sequence of maps as the value`.
    #[test]
    fn documents_read_as_kubectl_reads_them() {
        #[allow(clippy::type_complexity)]
        let cases: &[(&str, &str, Result<&str, ()>)] = &[
            (
                "merge first, explicit key after overrides",
                "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n",
                Ok(r#"{"base":{"a":1,"b":2},"x":{"a":1,"b":3}}"#),
            ),
            (
                "merge after an explicit key overrides it (go-yaml v2)",
                "base: &b {a: 1, b: 2}\nx:\n  b: 3\n  <<: *b\n",
                Ok(r#"{"base":{"a":1,"b":2},"x":{"a":1,"b":2}}"#),
            ),
            (
                "sequence: earlier maps win",
                "p: &p {a: 1, b: 1}\nq: &q {a: 2, c: 2}\nx:\n  <<: [*p, *q]\n",
                Ok(r#"{"p":{"a":1,"b":1},"q":{"a":2,"c":2},"x":{"a":1,"b":1,"c":2}}"#),
            ),
            (
                "sequence reversed, then an explicit key",
                "p: &p {a: 1, b: 1}\nq: &q {a: 2, c: 2}\nx:\n  <<: [*q, *p]\n  c: 9\n",
                Ok(r#"{"p":{"a":1,"b":1},"q":{"a":2,"c":2},"x":{"a":2,"b":1,"c":9}}"#),
            ),
            (
                "block sequence of aliases",
                "p: &p {a: 1}\nq: &q {b: 2}\nx:\n  <<:\n    - *p\n    - *q\n  c: 3\n",
                Ok(r#"{"p":{"a":1},"q":{"b":2},"x":{"a":1,"b":2,"c":3}}"#),
            ),
            (
                "double-quoted << is a key",
                "x:\n  \"<<\": {a: 1}\n",
                Ok(r#"{"x":{"\u003c\u003c":{"a":1}}}"#),
            ),
            (
                "single-quoted << is a key",
                "x:\n  '<<': {a: 1}\n",
                Ok(r#"{"x":{"\u003c\u003c":{"a":1}}}"#),
            ),
            (
                "!!str << is a key",
                "x:\n  !!str <<: {a: 1}\n",
                Ok(r#"{"x":{"\u003c\u003c":{"a":1}}}"#),
            ),
            (
                "!!merge << merges",
                "x:\n  !!merge <<: {a: 1}\n",
                Ok(r#"{"x":{"a":1}}"#),
            ),
            (
                "nested merges",
                "a: &a {k: 1, m: {z: 1}}\nb: &b {<<: *a, j: 2}\nx:\n  <<: *b\n  l: 3\n",
                Ok(
                    r#"{"a":{"k":1,"m":{"z":1}},"b":{"j":2,"k":1,"m":{"z":1}},"x":{"j":2,"k":1,"l":3,"m":{"z":1}}}"#,
                ),
            ),
            (
                "a map written in place",
                "x:\n  <<: {a: 1, b: 2}\n  a: 0\n",
                Ok(r#"{"x":{"a":0,"b":2}}"#),
            ),
            (
                "two merge keys: the later wins",
                "x:\n  <<: {a: 1}\n  <<: {a: 2, b: 2}\n",
                Ok(r#"{"x":{"a":2,"b":2}}"#),
            ),
            (
                "an empty sequence merges nothing",
                "x:\n  <<: []\n  a: 1\n",
                Ok(r#"{"x":{"a":1}}"#),
            ),
            (
                "an empty map merges nothing",
                "x:\n  <<: {}\n  a: 1\n",
                Ok(r#"{"x":{"a":1}}"#),
            ),
            (
                "a sequence written in place holding a map",
                "x:\n  <<: [{a: 1}, {a: 2, b: 2}]\n",
                Ok(r#"{"x":{"a":1,"b":2}}"#),
            ),
            (
                "an anchored sequence written in place",
                "p: &p {a: 1}\nx:\n  <<: &s [*p]\n",
                Ok(r#"{"p":{"a":1},"x":{"a":1}}"#),
            ),
            (
                "at the root",
                "base: &b {apiVersion: v1, kind: Widget}\n<<: *b\nkind: Gadget\n",
                Ok(
                    r#"{"apiVersion":"v1","base":{"apiVersion":"v1","kind":"Widget"},"kind":"Gadget"}"#,
                ),
            ),
            (
                "in a list item",
                "b: &b {a: 1}\nx:\n  - <<: *b\n    c: 2\n  - <<: *b\n",
                Ok(r#"{"b":{"a":1},"x":[{"a":1,"c":2},{"a":1}]}"#),
            ),
            (
                "merged keys resolve as YAML 1.1",
                "b: &b {yes: 1, n: 017, v: on}\nx:\n  <<: *b\n",
                Ok(r#"{"b":{"false":15,"true":1,"v":true},"x":{"false":15,"true":1,"v":true}}"#),
            ),
            (
                "a flow mapping with a merge",
                "b: &b {a: 1}\nx: {<<: *b, c: 2}\n",
                Ok(r#"{"b":{"a":1},"x":{"a":1,"c":2}}"#),
            ),
            (
                "merge key with a comment before the alias",
                "b: &b {a: 1}\nx:\n  <<: # base\n    *b\n",
                Ok(r#"{"b":{"a":1},"x":{"a":1}}"#),
            ),
            (
                "<< as a value is a string",
                "x: <<\nz: [<<]\n",
                Ok(r#"{"x":"\u003c\u003c","z":["\u003c\u003c"]}"#),
            ),
            (
                "a merged map whose values are aliases",
                "v: &v [1, 2]\nb: &b {l: *v}\nx:\n  <<: *b\n",
                Ok(r#"{"b":{"l":[1,2]},"v":[1,2],"x":{"l":[1,2]}}"#),
            ),
            (
                "an explicit key given twice around a merge",
                "x:\n  a: 1\n  <<: {a: 2}\n  a: 3\n",
                Ok(r#"{"x":{"a":3}}"#),
            ),
            ("error: a scalar", "x:\n  <<: 1\n", Err(())),
            ("error: null", "x:\n  <<:\n", Err(())),
            ("error: ~", "x:\n  <<: ~\n", Err(())),
            ("error: a string", "x:\n  <<: abc\n", Err(())),
            (
                "error: a sequence holding a scalar",
                "p: &p {a: 1}\nx:\n  <<: [*p, 2]\n",
                Err(()),
            ),
            (
                "error: a sequence holding a sequence",
                "x:\n  <<: [[{a: 1}]]\n",
                Err(()),
            ),
            (
                "error: an alias of a scalar",
                "p: &p 5\nx:\n  <<: *p\n",
                Err(()),
            ),
            (
                "error: an alias of a sequence",
                "s: &s [{a: 1}]\nx:\n  <<: *s\n",
                Err(()),
            ),
            (
                "error: a sequence holding an alias of a sequence",
                "s: &s [{a: 1}]\nx:\n  <<: [*s]\n",
                Err(()),
            ),
            (
                "error: a nested merge of a scalar",
                "b: &b {<<: 1}\nx: 1\n",
                Err(()),
            ),
        ];
        for (name, doc, go) in cases {
            match (read(doc), go) {
                (Ok(body), Ok(json)) => {
                    let want: Json = serde_json::from_str(json).expect("Go's JSON");
                    assert_eq!(body.object, want, "{name}");
                }
                (Err(e), Err(())) => assert!(e.contains(MERGE_ERROR), "{name}: {e}"),
                (got, want) => panic!("{name}: read {got:?}, Go: {want:?}"),
            }
        }
    }

    #[test]
    fn merged_keys_are_not_repeated_keys_and_their_notes_have_the_merge_s_path() {
        let body = read("b: &b {a: 1, o: on}\nx:\n  c: 1\n  <<: *b\n  a: 2\n  c: 3\n").unwrap();
        assert_eq!(
            body.object["x"],
            serde_json::json!({"a": 2, "c": 3, "o": true})
        );
        assert_eq!(body.duplicate_fields, ["x.c"]);
        assert_eq!(body.yaml11_booleans.len(), 2, "{:?}", body.yaml11_booleans);
        assert!(body.yaml11_booleans[1].starts_with("x.o: on is read as true"));
    }

    #[test]
    fn the_error_says_where() {
        let e = read("a: 1\nx:\n  <<: [{a: 1}, 2]\n").unwrap_err();
        assert!(e.contains(MERGE_ERROR), "{e}");
        assert!(e.contains("line 3 column"), "{e}");
    }

    /// Merges of merges of aliases (a "billion laughs" through merge keys): each level ten
    /// times the last. The reader's alias limit ends it, at once and with an error.
    #[test]
    fn merge_bombs_end_at_the_reader_s_alias_limit() {
        let mut doc = String::from("l0: &l0 {k: 1}\n");
        for level in 1..=9 {
            let aliases = vec![format!("*l{}", level - 1); 10].join(", ");
            doc.push_str(&format!(
                "l{level}: &l{level} {{<<: [{aliases}], k{level}: 1}}\n"
            ));
        }
        let started = std::time::Instant::now();
        let e = read(&doc).unwrap_err();
        assert!(e.contains("repetition limit exceeded"), "{e}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn earlier_maps_of_a_sequence_win_and_every_merged_key_overrides() {
        let map = |v: Json| v.as_object().cloned().expect("an object");
        let mut out = map(serde_json::json!({"a": 0, "z": 0}));
        apply(
            &mut out,
            vec![
                map(serde_json::json!({"a": 1, "b": 1})),
                map(serde_json::json!({"a": 2, "b": 2, "c": 2})),
            ],
        );
        assert_eq!(
            Json::Object(out),
            serde_json::json!({"a": 1, "b": 1, "c": 2, "z": 0})
        );
    }
}
