//! Map keys as serde_json writes them, for the typed fast path's serializer.

use serde::ser::{self, Serialize};

use super::Defer;

/// A map key, as serde_json writes it: a string, an integer, a `bool`, a `char` or a unit
/// variant (its name); any other key defers.
pub(super) struct MapKey;

macro_rules! integer_keys {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, v: $t) -> Result<String, Defer> {
            Ok(v.to_string())
        }
    )*};
}

impl ser::Serializer for MapKey {
    type Ok = String;
    type Error = Defer;
    type SerializeSeq = ser::Impossible<String, Defer>;
    type SerializeTuple = ser::Impossible<String, Defer>;
    type SerializeTupleStruct = ser::Impossible<String, Defer>;
    type SerializeTupleVariant = ser::Impossible<String, Defer>;
    type SerializeMap = ser::Impossible<String, Defer>;
    type SerializeStruct = ser::Impossible<String, Defer>;
    type SerializeStructVariant = ser::Impossible<String, Defer>;

    fn serialize_str(self, v: &str) -> Result<String, Defer> {
        Ok(v.to_owned())
    }
    fn serialize_none(self) -> Result<String, Defer> {
        Err(Defer)
    }
    fn serialize_unit(self) -> Result<String, Defer> {
        Err(Defer)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String, Defer> {
        Err(Defer)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<String, Defer> {
        v.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result<Self::Ok, Defer> {
        Ok(v.to_string())
    }
    // Integers as their decimal text, as serde_json writes them.
    integer_keys!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
                  serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);
    fn serialize_f32(self, _: f32) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_f64(self, _: f64) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok, Defer> {
        Ok(v.to_string())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Defer> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Defer> {
        Err(Defer)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Defer> {
        Err(Defer)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Defer> {
        Err(Defer)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Defer> {
        Err(Defer)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Defer> {
        Err(Defer)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Defer> {
        Err(Defer)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Defer> {
        Err(Defer)
    }
}
