//! The JSON value at one path of a Rust value (`.spec.replicas`), serialized through serde
//! without serializing the rest: the scale subresource's checks read two or three such paths,
//! and serializing the whole object to JSON for them would cost the fast path its speed.

use serde::ser::{self, Impossible, Serialize};
use serde_json::Value as Json;

use super::Defer;

/// The value at `fields` (object keys from the root) as `serde_json::to_value` would give it
/// inside the whole value's JSON: `Ok(None)` where the path is absent (a missing key, a `null`
/// on the way); `Err` for anything the fast path does not answer (a value on the way that is
/// neither an object nor null, a map with non-string keys).
pub(crate) fn pick<T: Serialize + ?Sized>(
    value: &T,
    fields: &[&str],
) -> Result<Option<Json>, Defer> {
    if fields.is_empty() {
        return json(value).map(Some);
    }
    value.serialize(Pick { fields })
}

/// The serializer of a value on the way: `fields` (never empty) is what is left of the path.
/// The value at the end is serialized whole by `serde_json`.
#[derive(Clone, Copy)]
struct Pick<'p> {
    fields: &'p [&'p str],
}

/// A scalar, a list or an enum on the way: `NestedFieldNoCopy` fails there, with an accessor
/// error the JSON path writes.
fn on_the_way<T>() -> Result<T, Defer> {
    Err(Defer)
}

fn json<T: Serialize + ?Sized>(v: &T) -> Result<Json, Defer> {
    serde_json::to_value(v).map_err(|_| Defer)
}

impl<'p> ser::Serializer for Pick<'p> {
    type Ok = Option<Json>;
    type Error = Defer;
    type SerializeSeq = Impossible<Option<Json>, Defer>;
    type SerializeTuple = Impossible<Option<Json>, Defer>;
    type SerializeTupleStruct = Impossible<Option<Json>, Defer>;
    type SerializeTupleVariant = Impossible<Option<Json>, Defer>;
    type SerializeMap = Fields<'p>;
    type SerializeStruct = Fields<'p>;
    type SerializeStructVariant = Impossible<Option<Json>, Defer>;

    fn serialize_bool(self, _: bool) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_i8(self, _: i8) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_i16(self, _: i16) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_i32(self, _: i32) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_i64(self, _: i64) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_u8(self, _: u8) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_u16(self, _: u16) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_u32(self, _: u32) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_u64(self, _: u64) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_f32(self, _: f32) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_f64(self, _: f64) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_char(self, _: char) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_str(self, _: &str) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_none(self) -> Result<Self::Ok, Defer> {
        // `null` on the way: `NestedFieldNoCopy` stops there, the path is absent.
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Self::Ok, Defer> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok, Defer> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, Defer> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Self::Ok, Defer> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Defer> {
        on_the_way()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Defer> {
        on_the_way()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Defer> {
        on_the_way()
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Defer> {
        on_the_way()
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Defer> {
        on_the_way()
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Defer> {
        self.object()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Defer> {
        self.object()
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Defer> {
        on_the_way()
    }
}

impl<'p> Pick<'p> {
    /// An object on the way: its field named by the path's next key.
    fn object(self) -> Result<Fields<'p>, Defer> {
        let (&key, rest) = self.fields.split_first().ok_or(Defer)?;
        Ok(Fields {
            key,
            rest,
            found: None,
            next_is_ours: false,
        })
    }
}

/// The fields of an object on the path: only the one named `key` is serialized.
struct Fields<'p> {
    key: &'p str,
    rest: &'p [&'p str],
    found: Option<Option<Json>>,
    /// The map key just given was `key`.
    next_is_ours: bool,
}

impl Fields<'_> {
    fn value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
        // serde_json keeps the last of a repeated key.
        self.found = Some(pick(v, self.rest)?);
        Ok(())
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = Option<Json>;
    type Error = Defer;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        k: &'static str,
        v: &T,
    ) -> Result<(), Defer> {
        if k == self.key { self.value(v) } else { Ok(()) }
    }

    fn end(self) -> Result<Option<Json>, Defer> {
        Ok(self.found.flatten())
    }
}

impl ser::SerializeMap for Fields<'_> {
    type Ok = Option<Json>;
    type Error = Defer;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Defer> {
        self.next_is_ours = match json(k)? {
            Json::String(s) => s == self.key,
            _ => return Err(Defer),
        };
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
        if self.next_is_ours {
            self.value(v)
        } else {
            Ok(())
        }
    }

    fn end(self) -> Result<Option<Json>, Defer> {
        Ok(self.found.flatten())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Root {
        spec: Spec,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<Status>,
        #[serde(flatten)]
        extra: BTreeMap<String, i64>,
    }

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Spec {
        min_replicas: i32,
        replicas: Option<i64>,
        tags: Vec<String>,
    }

    #[derive(serde::Serialize)]
    struct Status {
        selector: String,
    }

    fn root(replicas: Option<i64>, status: Option<&str>) -> Root {
        Root {
            spec: Spec {
                min_replicas: 1,
                replicas,
                tags: vec!["a".into()],
            },
            status: status.map(|s| Status { selector: s.into() }),
            extra: BTreeMap::from([("count".to_owned(), 7)]),
        }
    }

    #[test]
    fn picks_what_the_whole_json_holds_at_the_path() {
        let r = root(Some(3), Some("app=x"));
        let whole = serde_json::to_value(&r).unwrap();
        for path in [
            &["spec", "replicas"][..],
            &["spec", "minReplicas"],
            &["status", "selector"],
            &["count"],
            &["spec", "missing"],
            &["nothing", "here"],
        ] {
            let pointer = format!("/{}", path.join("/"));
            assert_eq!(
                pick(&r, path).unwrap().as_ref(),
                whole.pointer(&pointer),
                "{path:?}"
            );
        }
    }

    #[test]
    fn absent_and_null_and_what_it_does_not_answer() {
        let r = root(None, None);
        // `replicas: null` is there as null; a missing status is absent.
        assert_eq!(pick(&r, &["spec", "replicas"]).unwrap(), Some(Json::Null));
        assert_eq!(pick(&r, &["status", "selector"]).unwrap(), None);
        // A scalar or a list on the way: the JSON path answers (with its accessor error).
        assert!(pick(&r, &["spec", "minReplicas", "x"]).is_err());
        assert!(pick(&r, &["spec", "tags", "x"]).is_err());
        assert_eq!(
            pick(&json!({"a": {"b": [1]}}), &["a", "b"]).unwrap(),
            Some(json!([1]))
        );
        assert_eq!(pick(&json!({"a": null}), &["a", "b"]).unwrap(), None);
    }
}
