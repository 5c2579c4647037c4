//! A request body as the apiserver's strict decoding reads it: the object, and the paths of
//! the fields given more than once (`sigs.k8s.io/json`'s `DisallowDuplicateFields`, which the
//! JSON serializer turns on for `fieldValidation=Strict` and `Warn`).

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value as Json};

use crate::yaml::merge;
use crate::yaml::resolve as yaml11;

/// At most this many strict-decoding errors are kept, as `sigs.k8s.io/json` keeps them.
const MAX_STRICT_ERRORS: usize = 100;

/// An object decoded from a request body, with the fields that were given more than once.
///
/// It deserializes from any serde format (JSON with `serde_json`, YAML with a YAML crate); a
/// repeated key keeps its last value, as Go's decoders do, and its path is recorded in the
/// apiserver's form (`spec.ports[0].name`): [`Validator::validate_body`] reports it as
/// `duplicate field "spec.ports[0].name"`.
///
/// ```
/// use crd_cel::validate::Body;
///
/// let body: Body = serde_json::from_str(r#"{"spec": {"a": 1, "a": 2}}"#).unwrap();
/// assert_eq!(body.object["spec"]["a"], 2);
/// assert_eq!(body.duplicate_fields, ["spec.a"]);
/// ```
///
/// [`Validator::validate_body`]: crate::validate::Validator::validate_body
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Body {
    /// The object (the last value of a repeated key).
    pub object: Json,
    /// The paths of the repeated keys, in the order found, each once, at most 100 (as the
    /// apiserver keeps them).
    pub duplicate_fields: Vec<String>,
    /// YAML only ([`Body::from_yaml`]): the plain scalars read as booleans that a YAML 1.2
    /// reader takes for strings (`y`, `no`, `On`...), as `PATH: NOTE` (a key's path ends with
    /// the key as read), at most 100: what to tell a user who meant a string.
    pub yaml11_booleans: Vec<String>,
}

impl Body {
    /// The paths of [`Body::duplicate_fields`] under `prefix` (a list's `items[3]`), relative
    /// to it: the duplicates of one item of an expanded `kind: List`.
    pub fn duplicates_under(&self, prefix: &str) -> Vec<String> {
        under(&self.duplicate_fields, prefix)
    }

    /// The [`Body::yaml11_booleans`] under `prefix`, relative to it.
    pub fn yaml11_booleans_under(&self, prefix: &str) -> Vec<String> {
        under(&self.yaml11_booleans, prefix)
    }
}

fn under(paths: &[String], prefix: &str) -> Vec<String> {
    paths
        .iter()
        .filter_map(|p| p.strip_prefix(prefix)?.strip_prefix('.'))
        .map(str::to_owned)
        .collect()
}

/// The apiserver's strict-decoding error for a repeated field (`sigs.k8s.io/json`'s
/// `strictError`): `duplicate field "spec.a"`.
///
/// ```
/// assert_eq!(crd_cel::validate::duplicate_field_error("spec.a"), r#"duplicate field "spec.a""#);
/// ```
pub fn duplicate_field_error(path: &str) -> String {
    format!("duplicate field {}", super::go_quoted(path))
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Body, D::Error> {
        Body::decode(deserializer, None)
    }
}

impl Body {
    /// Decodes a YAML document as kubectl and the apiserver read YAML (`sigs.k8s.io/yaml`:
    /// YAML 1.1 scalars, then JSON): a plain `yes`, `on`, `y` is `true` (also as a key), `017`
    /// is 15, `1_000` is 1000, a number written with a fraction or exponent that is whole
    /// (`1.0`, `1e3`) is an integer; merge keys (`<<: *base`, `<<: [*a, *b]`) merge as
    /// go-yaml v2 merges them (`crate::yaml::merge`). `deserializer` must read `source` itself
    /// (a YAML deserializer that borrows its scalars from it, as
    /// `serde_yaml::Deserializer::from_str` does): a scalar is plain when the text before it is
    /// not a quote.
    ///
    /// ```
    /// use crd_cel::validate::Body;
    ///
    /// let text = "spec: {enabled: yes, quoted: 'yes', mode: 017, ratio: 1.0}";
    /// let body = Body::from_yaml(serde_yaml::Deserializer::from_str(text), text).unwrap();
    /// assert_eq!(
    ///     body.object["spec"],
    ///     serde_json::json!({"enabled": true, "quoted": "yes", "mode": 15, "ratio": 1})
    /// );
    /// ```
    pub fn from_yaml<'de, D: Deserializer<'de>>(
        deserializer: D,
        source: &'de str,
    ) -> Result<Body, D::Error> {
        Body::decode(deserializer, Some(source))
    }

    fn decode<'de, D: Deserializer<'de>>(
        deserializer: D,
        yaml: Option<&'de str>,
    ) -> Result<Body, D::Error> {
        let mut duplicates = Vec::new();
        let mut booleans = Vec::new();
        let object = Node {
            path: &mut String::new(),
            duplicates: &mut duplicates,
            booleans: &mut booleans,
            yaml,
        }
        .deserialize(deserializer)?;
        Ok(Body {
            object,
            duplicate_fields: duplicates,
            yaml11_booleans: booleans,
        })
    }
}

/// Appends `[i]` without the formatting machinery (this runs for every item of every list).
fn push_index(path: &mut String, i: usize) {
    let mut digits = [0u8; 20];
    let mut n = i;
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    path.push('[');
    path.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
    path.push(']');
}

/// One value being decoded: where it is (the strict field stack, as one string), where
/// duplicates go, and the YAML source when it is YAML.
struct Node<'a, 's> {
    path: &'a mut String,
    duplicates: &'a mut Vec<String>,
    booleans: &'a mut Vec<String>,
    yaml: Option<&'s str>,
}

impl<'s> Node<'_, 's> {
    fn child(&mut self) -> Node<'_, 's> {
        Node {
            path: self.path,
            duplicates: self.duplicates,
            booleans: self.booleans,
            yaml: self.yaml,
        }
    }

    /// Notes a plain scalar that YAML 1.1 reads as a boolean and YAML 1.2 as a string.
    fn boolean(&mut self, key: Option<&str>, text: &str, value: bool) {
        if self.booleans.len() >= MAX_STRICT_ERRORS {
            return;
        }
        let note = match key {
            Some(_) => format!(
                "the key {text} is read as \"{value}\" (YAML 1.1, as kubectl reads it); quote it to keep \"{text}\""
            ),
            None => format!(
                "{text} is read as {value} (YAML 1.1, as kubectl reads it); quote it to keep the string \"{text}\""
            ),
        };
        let mut path = self.path.clone();
        if let Some(key) = key {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
        }
        if path.is_empty() {
            path.push('.');
        }
        self.booleans.push(format!("{path}: {note}"));
    }

    fn duplicate(&mut self, key: &str) {
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        };
        if self.duplicates.len() < MAX_STRICT_ERRORS && !self.duplicates.contains(&path) {
            self.duplicates.push(path);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        if self.yaml.is_some() {
            return yaml11::float(v).map_err(E::custom);
        }
        // JSON has no NaN or infinities.
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_borrowed_str<E: de::Error>(mut self, v: &'de str) -> Result<Json, E> {
        match self.yaml {
            // The reader applies `!!bool`, `!!int`, `!!float` and `!!null` itself and gives
            // custom tags to `visit_enum`; `!!str`, `!!binary` and the like arrive here.
            Some(source) if let Some(tag) = yaml11::tag_of(source, v) => {
                yaml11::resolve_tagged(tag, v).map_err(E::custom)
            }
            Some(source) if yaml11::is_plain(source, v) => {
                let value = yaml11::resolve(v).map_err(E::custom)?;
                if let Json::Bool(b) = value {
                    self.boolean(None, v, b);
                }
                Ok(value)
            }
            _ => Ok(Json::String(v.to_owned())),
        }
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        let len = self.path.len();
        loop {
            self.path.truncate(len);
            push_index(self.path, out.len());
            match seq.next_element_seed(self.child())? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        self.path.truncate(len);
        Ok(Json::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Json, A::Error> {
        self.map(map).map(Json::Object)
    }

    /// A node with a custom tag (`!foo bar`), which the YAML reader gives as an enum: go-yaml
    /// ignores the tag of a mapping or sequence and keeps a scalar's text unresolved.
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Json, A::Error> {
        let (_tag, content): (de::IgnoredAny, _) = data.variant()?;
        de::VariantAccess::newtype_variant_seed(content, CustomTagged(self))
    }
}

/// The content of a custom-tagged node: a scalar stays text (the reader has resolved plain
/// scalars by YAML 1.2 already, so `!foo 3` arrives as the number 3 and is written back as
/// "3"; only the spelling of a number or null the reader normalised, `!foo 0x10`, differs from
/// go-yaml's text), anything else is read as untagged.
struct CustomTagged<'a, 's>(Node<'a, 's>);

impl<'de> DeserializeSeed<'de> for CustomTagged<'_, '_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CustomTagged<'_, '_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::String(String::new()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Json, A::Error> {
        self.0.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Json, A::Error> {
        self.0.visit_map(map)
    }
}

impl<'de> Node<'_, '_> {
    fn map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Map<String, Json>, A::Error> {
        let mut out = Map::new();
        // The keys this mapping gives, once a merge key has merged others in: only these can
        // be repeated.
        let mut given: Option<HashSet<String>> = None;
        let len = self.path.len();
        while let Some(key) = map.next_key_seed(KeySeed(self.yaml))? {
            if let Some(alias) = key.2 {
                let maps = map.next_value_seed(MergeSeed {
                    node: self.child(),
                    alias,
                })?;
                given.get_or_insert_with(|| out.keys().cloned().collect());
                merge::apply(&mut out, maps);
                continue;
            }
            if let Some((text, value)) = key.1 {
                self.boolean(Some(&key.0), text, value);
            }
            let repeated = match &mut given {
                Some(given) => !given.insert(key.0.clone()),
                None => out.contains_key(&key.0),
            };
            if repeated {
                self.duplicate(&key.0);
            }
            if len > 0 {
                self.path.push('.');
            }
            self.path.push_str(&key.0);
            let value = map.next_value_seed(self.child());
            self.path.truncate(len);
            out.insert(key.0, value?);
        }
        Ok(out)
    }
}

/// The value of a merge key: the maps to merge, in the order written (a map, an alias of one,
/// or a sequence of them, read at the mapping's own path); anything else is go-yaml's error.
struct MergeSeed<'a, 's> {
    node: Node<'a, 's>,
    /// The value is an alias (go-yaml refuses an alias of a sequence).
    alias: bool,
}

/// One item of a merge key's sequence: a map.
struct MergeItem<'a, 's>(Node<'a, 's>);

/// The [`merge::MERGE_ERROR`] visits of a merge value that is not a map.
macro_rules! not_a_map {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_i128<E: de::Error>(self, _: i128) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_u128<E: de::Error>(self, _: u128) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(E::custom(merge::MERGE_ERROR))
        }
        fn visit_some<D: Deserializer<'de>>(self, _: D) -> Result<Self::Value, D::Error> {
            Err(de::Error::custom(merge::MERGE_ERROR))
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, _: D) -> Result<Self::Value, D::Error> {
            Err(de::Error::custom(merge::MERGE_ERROR))
        }
        fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
            Err(de::Error::custom(merge::MERGE_ERROR))
        }
    };
}

impl<'de> DeserializeSeed<'de> for MergeSeed<'_, '_> {
    type Value = Vec<Map<String, Json>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MergeSeed<'_, '_> {
    type Value = Vec<Map<String, Json>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map or a sequence of maps")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(vec![self.node.map(map)?])
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Self::Value, A::Error> {
        if self.alias {
            return Err(de::Error::custom(merge::MERGE_ERROR));
        }
        let mut maps = Vec::new();
        while let Some(map) = seq.next_element_seed(MergeItem(self.node.child()))? {
            maps.push(map);
        }
        Ok(maps)
    }

    not_a_map!();
}

impl<'de> DeserializeSeed<'de> for MergeItem<'_, '_> {
    type Value = Map<String, Json>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MergeItem<'_, '_> {
    type Value = Map<String, Json>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.map(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(de::Error::custom(merge::MERGE_ERROR))
    }

    not_a_map!();
}

/// A map key: a string, or a YAML scalar key (`1`, `true`) in its text form, as the YAML to
/// JSON conversion writes it; for a plain YAML key read as a boolean that YAML 1.2 reads as a
/// string (`y`), its text and value; for a merge key (`<<`), whether its value is an alias.
struct Key<'de>(String, Option<(&'de str, bool)>, Option<bool>);

/// Reads a [`Key`]; with the YAML source, a plain key is resolved as YAML 1.1 does (`n:` is
/// the key `"false"`).
struct KeySeed<'s>(Option<&'s str>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        struct KeyVisitor<'s>(Option<&'s str>);
        impl<'de> Visitor<'de> for KeyVisitor<'_> {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned(), None, None))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                match self.0 {
                    Some(source) if yaml11::is_plain(source, v) => {
                        if merge::is_merge_key(source, v) {
                            let alias = merge::value_is_alias(source, v);
                            return Ok(Key(v.to_owned(), None, Some(alias)));
                        }
                        Ok(match yaml11::resolve(v).map_err(E::custom)? {
                            Json::String(s) => Key(s, None, None),
                            Json::Bool(b) => Key(b.to_string(), Some((v, b)), None),
                            // Floats print as Go's %v of a float32 there: left as written.
                            Json::Number(n) if n.is_f64() => Key(v.to_owned(), None, None),
                            other => Key(other.to_string(), None, None),
                        })
                    }
                    _ => Ok(Key(v.to_owned(), None, None)),
                }
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(v, None, None))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string(), None, None))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string(), None, None))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string(), None, None))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string(), None, None))
            }
            fn visit_unit<E>(self) -> Result<Key<'de>, E> {
                Ok(Key("null".to_owned(), None, None))
            }
            fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Key<'de>, A::Error> {
                Err(de::Error::custom("a map cannot be a key"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Key<'de>, A::Error> {
                Err(de::Error::custom("a list cannot be a key"))
            }
        }
        d.deserialize_any(KeyVisitor(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(json: &str) -> Body {
        serde_json::from_str(json).expect("valid JSON")
    }

    #[test]
    fn list_indexes_are_written_as_go_prints_them() {
        for i in [0, 7, 10, 99, 100, 12345, usize::MAX] {
            let mut path = String::from("spec.ports");
            push_index(&mut path, i);
            assert_eq!(path, format!("spec.ports[{i}]"));
        }
        let items: String = (0..12)
            .map(|i| format!(r#"{{"a": {i}, "a": 0}},"#))
            .collect();
        let b = body(&format!(r#"{{"l": [{}]}}"#, items.trim_end_matches(',')));
        assert_eq!(b.duplicate_fields.len(), 12);
        assert_eq!(b.duplicate_fields[11], "l[11].a");
    }

    #[test]
    fn the_last_value_of_a_repeated_key_wins_and_its_path_is_recorded() {
        let b =
            body(r#"{"a": 1, "spec": {"x": [{"n": 1, "n": 2}], "y": 1, "y": {"z": 3}}, "a": 2}"#);
        assert_eq!(b.object["a"], 2);
        assert_eq!(b.object["spec"]["y"]["z"], 3);
        assert_eq!(b.object["spec"]["x"][0]["n"], 2);
        assert_eq!(b.duplicate_fields, ["spec.x[0].n", "spec.y", "a"]);
    }

    #[test]
    fn each_path_is_reported_once_and_at_most_a_hundred() {
        assert_eq!(body(r#"{"a": 1, "a": 2, "a": 3}"#).duplicate_fields, ["a"]);
        let many: Vec<String> = (0..150)
            .map(|i| format!(r#""k{i}": 1, "k{i}": 2"#))
            .collect();
        let b = body(&format!("{{{}}}", many.join(", ")));
        assert_eq!(b.duplicate_fields.len(), MAX_STRICT_ERRORS);
        assert_eq!(b.duplicate_fields[0], "k0");
    }

    #[test]
    fn paths_of_list_items_are_relative_to_the_item() {
        let b = body(r#"{"kind": "List", "items": [{"a": 1}, {"spec": {"b": 1, "b": 2}}]}"#);
        assert_eq!(b.duplicates_under("items[1]"), ["spec.b"]);
        assert!(b.duplicates_under("items[0]").is_empty());
    }

    #[test]
    fn numbers_and_nulls_decode_as_serde_json_does() {
        let text = r#"{"i": -3, "u": 18446744073709551615, "f": 1.5, "n": null, "e": []}"#;
        assert_eq!(
            body(text).object,
            serde_json::from_str::<Json>(text).unwrap()
        );
    }
}
