//! What the walk reads an object through: the JSON the apiserver decoded, with CEL values
//! converted where rules see them, or the CEL values the typed fast path built. Both give the
//! walk the same shape (items, fields, the correlated old item); only JSON data is ever reported
//! (the fast path stops at its first failure), so only JSON has a value to show or compare.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map as JsonMap, Value as Json};

use crate::eval::value::{Key, Map, Value};
use crate::validate::fast::{Defer, SCAN_UP_TO, scalar_eq};

/// A node's data.
#[derive(Clone, Copy)]
pub(in crate::validate) enum Data<'a> {
    /// JSON, with its CEL value once the node or an ancestor was converted (a rule sees its
    /// whole subtree, so conversion happens once, at the topmost node with rules).
    Json(&'a Json, Option<&'a Value>),
    /// A CEL value built by the typed fast path (only what rules and the walk need).
    Value(&'a Value),
}

impl<'a> Data<'a> {
    /// Null data is not walked (a null field is not in the object at all).
    pub(super) fn is_null(self) -> bool {
        match self {
            Data::Json(raw, _) => raw.is_null(),
            Data::Value(v) => matches!(v, Value::Null),
        }
    }

    /// The node's CEL value, once converted.
    pub(super) fn value(self) -> Option<&'a Value> {
        match self {
            Data::Json(_, value) => value,
            Data::Value(v) => Some(v),
        }
    }

    /// The JSON (typed data has none: it is never reported).
    pub(super) fn json(self) -> Option<&'a Json> {
        match self {
            Data::Json(raw, _) => Some(raw),
            Data::Value(_) => None,
        }
    }

    /// Data the schema does not allow, which the typed path left for the JSON walk to report.
    pub(super) fn is_schema_error(self) -> bool {
        matches!(self, Data::Value(Value::Error(_)))
    }

    /// Whether a node's data is unchanged from its old data under `schema`, for ratcheting
    /// (only JSON is compared; see `correlate`).
    pub(super) fn same(self, other: Data<'_>, schema: &crate::tree::SchemaNode) -> bool {
        match (self, other) {
            (Data::Json(a, _), Data::Json(b, _)) => {
                super::super::correlate::unchanged(schema, a, b)
            }
            _ => false,
        }
    }

    /// The items of a list (`None`: not a list, or converted to something else).
    pub(super) fn items(self) -> Option<Items<'a>> {
        match self {
            Data::Json(Json::Array(raw), None) => Some(Items::Json(raw, None)),
            Data::Json(Json::Array(raw), Some(Value::List(l))) => {
                Some(Items::Json(raw, Some(&l.items)))
            }
            Data::Value(Value::List(l)) => Some(Items::Value(&l.items)),
            _ => None,
        }
    }

    /// The fields of an object or map (`None`: not one, or converted to something else).
    pub(super) fn fields(self) -> Option<Fields<'a>> {
        match self {
            Data::Json(Json::Object(raw), None) => Some(Fields::Json(raw, None)),
            Data::Json(Json::Object(raw), Some(Value::Map(m))) => Some(Fields::Json(raw, Some(m))),
            Data::Value(Value::Map(m)) => Some(Fields::Value(m)),
            _ => None,
        }
    }
}

/// The items of a list.
#[derive(Clone, Copy)]
pub(super) enum Items<'a> {
    /// The JSON items, with their values once converted.
    Json(&'a [Json], Option<&'a [Value]>),
    /// The typed path's values.
    Value(&'a [Value]),
}

impl<'a> Items<'a> {
    pub(super) fn len(self) -> usize {
        match self {
            Items::Json(raw, _) => raw.len(),
            Items::Value(items) => items.len(),
        }
    }

    /// Item `i` (`None`: the conversion did not keep it, and it is not walked).
    pub(super) fn get(self, i: usize) -> Option<Data<'a>> {
        match self {
            Items::Json(raw, None) => Some(Data::Json(raw.get(i)?, None)),
            Items::Json(raw, Some(values)) => Some(Data::Json(raw.get(i)?, Some(values.get(i)?))),
            Items::Value(items) => items.get(i).map(Data::Value),
        }
    }
}

/// The fields of an object or map.
#[derive(Clone, Copy)]
pub(super) enum Fields<'a> {
    /// The JSON fields, with their values once converted.
    Json(&'a JsonMap<String, Json>, Option<&'a Map>),
    /// The typed path's values.
    Value(&'a Map),
}

impl<'a> Fields<'a> {
    /// The fields in the data's order, each resolved to its data only when the walk needs it
    /// ([`Field::data`]).
    pub(super) fn entries(self) -> Entries<'a> {
        match self {
            Fields::Json(raw, map) => Entries::Json(raw.iter(), map),
            Fields::Value(m) => Entries::Value(m.entries().iter()),
        }
    }

    /// Field `name`, when it is there and not null.
    pub(super) fn get(self, name: &str) -> Option<Data<'a>> {
        let d = match self {
            Fields::Json(raw, None) => Data::Json(raw.get(name)?, None),
            Fields::Json(raw, Some(m)) => Data::Json(raw.get(name)?, Some(m.get_str(name)?)),
            Fields::Value(m) => Data::Value(m.get_str(name)?),
        };
        (!d.is_null()).then_some(d)
    }
}

/// The fields of an object, in order.
pub(super) enum Entries<'a> {
    Json(serde_json::map::Iter<'a>, Option<&'a Map>),
    Value(std::slice::Iter<'a, (Key, Value)>),
}

impl<'a> Iterator for Entries<'a> {
    type Item = (&'a str, Field<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Entries::Json(it, map) => it.next().map(|(k, v)| (k.as_str(), Field::Json(v, *map))),
            Entries::Value(it) => loop {
                // An object's CEL map has only string keys.
                if let (Key::String(k), v) = it.next()? {
                    return Some((&**k, Field::Value(v)));
                }
            },
        }
    }
}

/// One field, not yet resolved to its data (looking up its converted value costs a search).
#[derive(Clone, Copy)]
pub(super) enum Field<'a> {
    Json(&'a Json, Option<&'a Map>),
    Value(&'a Value),
}

impl<'a> Field<'a> {
    /// The field's data (`None`: the conversion hid it, null or unknown, and it is not walked).
    pub(super) fn data(self, name: &str) -> Option<Data<'a>> {
        match self {
            Field::Json(raw, None) => Some(Data::Json(raw, None)),
            Field::Json(raw, Some(m)) => Some(Data::Json(raw, Some(m.get_str(name)?))),
            Field::Value(v) => Some(Data::Value(v)),
        }
    }
}

/// A key field of a map-list item: a bool, number or string (`k8s.io/apiserver/pkg/cel/common/maplist.go`).
#[derive(Clone, Copy)]
enum KeyField<'a> {
    Json(&'a Json),
    Value(&'a Value),
}

impl KeyField<'_> {
    fn eq(self, other: KeyField<'_>) -> Result<bool, Defer> {
        match (self, other) {
            (KeyField::Json(a), KeyField::Json(b)) => Ok(a == b),
            (KeyField::Value(a), KeyField::Value(b)) => scalar_eq(a, b),
            _ => Ok(false),
        }
    }
}

/// Key field `k` of `item` (`Ok(None)`: missing or not a scalar, and the item correlates with
/// nothing). A typed value the conversion changed (a date, a quantity) cannot be compared as
/// the JSON would be: undecided.
fn key_field<'a>(item: Data<'a>, k: &str) -> Result<Option<KeyField<'a>>, Defer> {
    match item {
        Data::Json(Json::Object(o), _) => Ok(o
            .get(k)
            .filter(|v| matches!(v, Json::Bool(_) | Json::Number(_) | Json::String(_)))
            .map(KeyField::Json)),
        Data::Json(..) => Ok(None),
        Data::Value(Value::Map(m)) => match m.get_str(k) {
            Some(v @ (Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_))) => {
                Ok(Some(KeyField::Value(v)))
            }
            None => Ok(None),
            Some(_) => Err(Defer),
        },
        Data::Value(_) => Ok(None),
    }
}

/// The key fields of `item`, all of them or none.
fn key_fields<'a>(item: Data<'a>, keys: &[Arc<str>]) -> Result<Option<Vec<KeyField<'a>>>, Defer> {
    let mut out = Vec::with_capacity(keys.len());
    for k in keys {
        match key_field(item, k)? {
            Some(f) => out.push(f),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// A hashable rendering of JSON key fields, for long lists (`1` and `1.0` stay distinct).
fn key_text(fields: &[KeyField<'_>]) -> Option<String> {
    let mut out = String::new();
    for f in fields {
        let KeyField::Json(f) = f else {
            return None;
        };
        out.push_str(&f.to_string());
        out.push('\0');
    }
    Some(out)
}

/// Finds the old item with the same key as a new one (`k8s.io/apiserver/pkg/cel/common/maplist.go`): every key field present and a
/// scalar, the first old item with equal key fields wins. Short lists are scanned; long JSON
/// lists are indexed on first use.
#[derive(Default)]
pub(super) struct OldIndex {
    built: Option<HashMap<String, usize>>,
}

impl OldIndex {
    pub(super) fn find(
        &mut self,
        item: Data<'_>,
        old: Items<'_>,
        keys: &[Arc<str>],
    ) -> Result<Option<usize>, Defer> {
        let Some(want) = key_fields(item, keys)? else {
            return Ok(None);
        };
        if old.len() > SCAN_UP_TO
            && let Some(text) = key_text(&want)
        {
            let index = self.built.get_or_insert_with(|| {
                let mut m = HashMap::new();
                for j in 0..old.len() {
                    if let Some(Ok(Some(k))) = old.get(j).map(|o| key_fields(o, keys))
                        && let Some(t) = key_text(&k)
                    {
                        m.entry(t).or_insert(j);
                    }
                }
                m
            });
            return Ok(index.get(&text).copied());
        }
        'olds: for j in 0..old.len() {
            let Some(o) = old.get(j) else { continue };
            for (k, w) in keys.iter().zip(&want) {
                match key_field(o, k)? {
                    Some(v) if v.eq(*w)? => {}
                    _ => continue 'olds,
                }
            }
            return Ok(Some(j));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::{Data, Items, OldIndex};
    use crate::eval::value::{Key, Map, Value};
    use serde_json::{Value as Json, json};
    use std::sync::Arc;

    fn keys() -> Vec<Arc<str>> {
        vec![Arc::from("name"), Arc::from("port")]
    }

    fn typed(name: &str, port: i64) -> Value {
        Value::Map(Arc::new(Map::new(vec![
            (Key::String(Arc::from("name")), Value::string(name)),
            (Key::String(Arc::from("port")), Value::Int(port)),
        ])))
    }

    /// Old items as JSON and as typed values, `n` of them, the same keys in both.
    fn olds(n: i64) -> (Vec<Json>, Vec<Value>) {
        let json = (0..n)
            .map(|i| json!({"name": format!("p{i}"), "port": i}))
            .collect();
        let typed = (0..n).map(|i| typed(&format!("p{i}"), i)).collect();
        (json, typed)
    }

    #[test]
    fn json_and_typed_items_correlate_alike_in_short_and_long_lists() {
        // 5 items are scanned, 40 indexed (JSON) or scanned (typed): the same answers.
        for n in [5, 40] {
            let (json, values) = olds(n);
            for (name, port, want) in [("p3", 3, Some(3)), ("p3", 4, None), ("zz", 3, None)] {
                let item = json!({"name": name, "port": port});
                let got = OldIndex::default()
                    .find(Data::Json(&item, None), Items::Json(&json, None), &keys())
                    .ok()
                    .flatten();
                assert_eq!(got, want, "JSON, {n} items, {name}/{port}");
                let item = typed(name, port);
                let got = OldIndex::default()
                    .find(Data::Value(&item), Items::Value(&values), &keys())
                    .ok()
                    .flatten();
                assert_eq!(got, want, "typed, {n} items, {name}/{port}");
            }
        }
    }

    #[test]
    fn an_item_without_every_key_field_correlates_with_nothing() {
        let (json, _) = olds(3);
        let item = json!({"name": "p1"});
        let got =
            OldIndex::default().find(Data::Json(&item, None), Items::Json(&json, None), &keys());
        assert!(matches!(got, Ok(None)));
        // A key field that is not a scalar does not correlate either.
        let item = json!({"name": "p1", "port": [1]});
        let got =
            OldIndex::default().find(Data::Json(&item, None), Items::Json(&json, None), &keys());
        assert!(matches!(got, Ok(None)));
    }

    #[test]
    fn json_key_fields_compare_as_json_does() {
        // `1` and `1.0` are different JSON, in a scan and in an index alike.
        for n in [3usize, 40] {
            let mut json: Vec<Json> = (0..n)
                .map(|i| json!({"name": format!("q{i}"), "port": 0}))
                .collect();
            json[1] = json!({"name": "p", "port": 1.0});
            let item = json!({"name": "p", "port": 1});
            let got = OldIndex::default().find(
                Data::Json(&item, None),
                Items::Json(&json, None),
                &keys(),
            );
            assert!(matches!(got, Ok(None)), "{n} items");
        }
    }
}
