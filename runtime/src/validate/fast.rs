//! The typed fast path: a Rust value serialized straight into CEL values by its schema (no
//! `serde_json::Value` in between), with the OpenAPI and list-type checks done as the data goes
//! by, then the rules run on the result.
//!
//! It only ever answers "valid": the conversion builds exactly what
//! [`to_value`](crate::eval::convert::to_value) builds from the serialized JSON (entries in the
//! JSON object's key order, null and unknown fields hidden but counted), and the moment anything
//! could be reported (a bound or pattern not met, data the schema does not allow, a rule that is
//! not `true`, the budget) it gives up with [`Defer`], and the caller validates through the JSON
//! path, which produces the apiserver's errors. So the fast path cannot change a verdict or a
//! message; it can only skip work on objects that are valid.

use std::sync::Arc;

use serde::ser::{self, Serialize};

use super::Options;
use super::openapi::Bounds;
use crate::eval::node::{Reads, SchemaNode, StringFormat};
use crate::eval::time::{parse_data_duration, parse_date, parse_date_time};
use crate::eval::value::{Key, List, ListKind, Map, Value, name_eq};
use crate::model::Type;

/// The fast path cannot answer: validate through the JSON path.
#[derive(Debug)]
pub(crate) struct Defer;

impl std::fmt::Display for Defer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("deferred to the JSON path")
    }
}

impl std::error::Error for Defer {}

impl ser::Error for Defer {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Defer
    }
}

/// How much of a node's value is built.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    /// Nothing: no rule sees the node and none is below it (only its checks run).
    Nothing,
    /// Only what rules read ([`SchemaNode::reads`]), what the walk descends through (children
    /// with rules below) and map-list key fields.
    Skeleton,
    /// All of it: a rule reads it whole.
    Full,
}

/// Whether the node or a descendant has rules that need a value: any rule for the object being
/// validated, transition rules for the old object of an update.
fn rules_below(node: &SchemaNode, old: bool) -> bool {
    if old {
        node.transition_below
    } else {
        node.rules_below
    }
}

impl Build {
    /// The mode of a node whose parent is built `self`.
    fn child(self, node: &SchemaNode, old: bool) -> Build {
        if self == Build::Full {
            return Build::Full;
        }
        if old {
            // The old object is built whole where a transition rule reads it.
            return if node.transition {
                Build::Full
            } else if node.transition_below {
                Build::Skeleton
            } else {
                Build::Nothing
            };
        }
        match node.reads {
            Some(Reads::Whole) => Build::Full,
            Some(_) => Build::Skeleton,
            None if node.rules_below => Build::Skeleton,
            None => Build::Nothing,
        }
    }
}

/// What serializing one node gave.
enum Out {
    /// Checked, not built.
    Skip,
    /// `null`.
    Null,
    /// The value.
    Value(Value),
}

/// Serializes `value` as the node `root` (a resource root when `resource`) into the CEL value
/// the walk needs, checking the schema's constraints when `check`. `Ok(None)`: the root needs no
/// value (no rules anywhere).
pub(crate) fn serialize<T: Serialize + ?Sized>(
    value: &T,
    root: &SchemaNode,
    resource: bool,
    check: bool,
) -> Result<Option<Value>, Defer> {
    // The old object (unchecked) is only read by transition rules.
    let old = !check;
    let build = Build::Skeleton.child(root, old);
    if build == Build::Nothing && !check {
        return Ok(None);
    }
    match value.serialize(Node {
        n: root,
        b: bounds(root)?,
        build,
        check,
        resource: resource || root.embedded_resource,
        keys: &[],
    })? {
        Out::Value(v) => Ok(Some(v)),
        Out::Skip => Ok(None),
        Out::Null => Err(Defer),
    }
}

fn bounds(n: &SchemaNode) -> Result<&Bounds, Defer> {
    n.bounds.as_deref().ok_or(Defer)
}

/// The serializer of one schema node.
#[derive(Clone, Copy)]
struct Node<'a> {
    n: &'a SchemaNode,
    b: &'a Bounds,
    build: Build,
    check: bool,
    /// A resource root (implicit `apiVersion`, `kind`, `metadata`).
    resource: bool,
    /// The map-list key fields, when the node is an item of a map list (kept in skeletons).
    keys: &'a [Arc<str>],
}

impl<'a> Node<'a> {
    fn child(&self, n: &'a SchemaNode) -> Result<Node<'a>, Defer> {
        Ok(Node {
            n,
            b: bounds(n)?,
            build: self.build.child(n, !self.check),
            check: self.check,
            resource: n.embedded_resource,
            keys: &[],
        })
    }

    fn built(&self, v: impl FnOnce() -> Value) -> Out {
        if self.build == Build::Nothing {
            Out::Skip
        } else {
            Out::Value(v())
        }
    }

    fn int(self, i: i64) -> Result<Out, Defer> {
        let fits = match self.n.ty {
            _ if self.n.int_or_string => true,
            Type::Integer => true,
            // The JSON path reads an integer under `number` from its JSON text: not taken here.
            _ => false,
        };
        if !fits || (self.check && !self.b.number_ok(Some(i), i as f64)) {
            return Err(Defer);
        }
        Ok(self.built(|| Value::Int(i)))
    }

    fn str_value(self, s: &str) -> Result<Out, Defer> {
        if !(self.n.ty == Type::String || self.n.int_or_string) {
            return Err(Defer);
        }
        if self.check && !self.b.string_ok(s) {
            return Err(Defer);
        }
        if self.build == Build::Nothing {
            return Ok(Out::Skip);
        }
        if self.n.int_or_string {
            return Ok(Out::Value(Value::string(s)));
        }
        let v = match self.n.format {
            StringFormat::Plain => Value::string(s),
            StringFormat::Duration => Value::Duration(parse_data_duration(s).ok_or(Defer)?),
            StringFormat::Date => Value::Timestamp(parse_date(s).ok_or(Defer)?),
            StringFormat::DateTime => Value::Timestamp(parse_date_time(s).ok_or(Defer)?),
            // Decoded by the JSON path; rare enough to leave to it.
            StringFormat::Byte => return Err(Defer),
        };
        Ok(Out::Value(v))
    }

    /// `null` is only taken where the schema allows it (elsewhere the JSON path reports it).
    fn null(self) -> Result<Out, Defer> {
        if self.b.nullable && self.n.nullable {
            Ok(Out::Null)
        } else {
            Err(Defer)
        }
    }

    fn list(self, len: Option<usize>) -> Result<Seq<'a>, Defer> {
        if self.n.ty != Type::Array || self.n.int_or_string || !self.b.no_enum() {
            return Err(Defer);
        }
        let item_node = self.n.items.as_deref().ok_or(Defer)?;
        let mut item = self.child(item_node)?;
        // The list-type checks read set items and map-list keys.
        match (&self.n.list_kind, self.check) {
            (ListKind::Set, true) => item.build = Build::Full,
            (ListKind::Map(keys), check) if check || item.build != Build::Nothing => {
                item.build = item.build.max_skeleton();
                item.keys = keys;
            }
            _ => {}
        }
        let build_items = item.build != Build::Nothing;
        Ok(Seq {
            list: self,
            item,
            items: if build_items {
                Vec::with_capacity(len.unwrap_or(0))
            } else {
                Vec::new()
            },
            count: 0,
        })
    }

    fn object(self, len: Option<usize>) -> Result<Obj<'a>, Defer> {
        if self.n.ty != Type::Object || self.n.int_or_string || !self.b.no_enum() {
            return Err(Defer);
        }
        let map = self.n.properties.is_empty() && !self.resource;
        let values = match (map, self.n.additional_properties.as_deref()) {
            (true, Some(v)) => Some(self.child(v)?),
            _ => None,
        };
        Ok(Obj {
            ranks: [0; RANKED],
            ranked: values.is_none(),
            seen: Seen::new(self.n.properties.len()),
            entries: if self.build == Build::Nothing {
                Vec::new()
            } else {
                Vec::with_capacity(len.unwrap_or(self.n.properties.len()))
            },
            undeclared: Vec::new(),
            unknown: Vec::new(),
            count: 0,
            key: None,
            values,
            node: self,
        })
    }
}

impl Build {
    fn max_skeleton(self) -> Build {
        if self == Build::Nothing {
            Build::Skeleton
        } else {
            self
        }
    }
}

macro_rules! ints {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, v: $t) -> Result<Out, Defer> {
            self.int(i64::try_from(v).map_err(|_| Defer)?)
        }
    )*};
}

impl<'a> ser::Serializer for Node<'a> {
    type Ok = Out;
    type Error = Defer;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = ser::Impossible<Out, Defer>;
    type SerializeMap = Obj<'a>;
    type SerializeStruct = Obj<'a>;
    type SerializeStructVariant = ser::Impossible<Out, Defer>;

    fn serialize_bool(self, v: bool) -> Result<Out, Defer> {
        if self.n.ty != Type::Boolean || self.n.int_or_string || (self.check && !self.b.bool_ok(v))
        {
            return Err(Defer);
        }
        Ok(self.built(|| Value::Bool(v)))
    }

    ints!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
          serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_f32(self, v: f32) -> Result<Out, Defer> {
        self.serialize_f64(f64::from(v))
    }

    fn serialize_f64(self, v: f64) -> Result<Out, Defer> {
        // serde_json writes non-finite floats as null; integers-as-floats are the JSON path's.
        if self.n.ty != Type::Number || self.n.int_or_string || !v.is_finite() {
            return Err(Defer);
        }
        if self.check && !self.b.number_ok(None, v) {
            return Err(Defer);
        }
        Ok(self.built(|| Value::Double(v)))
    }

    fn serialize_char(self, v: char) -> Result<Out, Defer> {
        self.str_value(v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<Out, Defer> {
        self.str_value(v)
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<Out, Defer> {
        Err(Defer)
    }

    fn serialize_none(self) -> Result<Out, Defer> {
        self.null()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Out, Defer> {
        v.serialize(self)
    }

    fn serialize_unit(self) -> Result<Out, Defer> {
        self.null()
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<Out, Defer> {
        self.null()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> Result<Out, Defer> {
        self.str_value(v)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Out, Defer> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Out, Defer> {
        Err(Defer)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'a>, Defer> {
        self.list(len)
    }

    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, Defer> {
        self.list(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'a>, Defer> {
        self.list(Some(len))
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

    fn serialize_map(self, len: Option<usize>) -> Result<Obj<'a>, Defer> {
        self.object(len)
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Obj<'a>, Defer> {
        self.object(Some(len))
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

/// A list being serialized.
struct Seq<'a> {
    list: Node<'a>,
    item: Node<'a>,
    items: Vec<Value>,
    count: usize,
}

impl<'a> Seq<'a> {
    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
        self.count += 1;
        match v.serialize(self.item)? {
            Out::Value(v) => self.items.push(v),
            Out::Null if self.item.build != Build::Nothing => self.items.push(Value::Null),
            Out::Null | Out::Skip => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<Out, Defer> {
        if self.list.check {
            if !self.list.b.items_ok(self.count) {
                return Err(Defer);
            }
            match &self.list.n.list_kind {
                ListKind::Set if has_duplicates(&self.items, scalar_hash, scalar_eq)? => {
                    return Err(Defer);
                }
                ListKind::Map(keys) if map_keys_repeat(&self.items, keys)? => return Err(Defer),
                _ => {}
            }
        }
        if self.list.build == Build::Nothing {
            return Ok(Out::Skip);
        }
        Ok(Out::Value(Value::List(Arc::new(List {
            items: self.items,
            kind: self.list.n.list_kind.clone(),
        }))))
    }
}

/// JSON equality of two scalar values as the fast path builds them (doubles only come from
/// floats, so `1` and `1.0` never meet); `Err` for anything else.
fn scalar_eq(a: &Value, b: &Value) -> Result<bool, Defer> {
    Ok(match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (
            Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_),
            Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_),
        ) => false,
        _ => return Err(Defer),
    })
}

/// A hash of a scalar consistent with [`scalar_eq`] (`-0.0` and `0.0` are equal).
fn scalar_hash(v: &Value) -> Result<u64, Defer> {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    Ok(match v {
        Value::String(s) => s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        }),
        Value::Int(i) => (*i as u64).wrapping_mul(K) ^ 1,
        Value::Double(d) => {
            (if *d == 0.0 { 0.0f64 } else { *d })
                .to_bits()
                .wrapping_mul(K)
                ^ 2
        }
        Value::Bool(b) => u64::from(*b) ^ 3,
        _ => return Err(Defer),
    })
}

/// Whether two items are equal: pairwise for short lists, else among items of equal hash.
fn has_duplicates<T>(
    items: &[T],
    hash: impl Fn(&T) -> Result<u64, Defer>,
    eq: impl Fn(&T, &T) -> Result<bool, Defer>,
) -> Result<bool, Defer> {
    if items.len() <= 8 {
        for (i, x) in items.iter().enumerate() {
            for y in items.iter().take(i) {
                if eq(x, y)? {
                    return Ok(true);
                }
            }
        }
        return Ok(false);
    }
    let mut hashed = Vec::with_capacity(items.len());
    for (i, x) in items.iter().enumerate() {
        hashed.push((hash(x)?, i));
    }
    hashed.sort_unstable();
    for (k, &(h, i)) in hashed.iter().enumerate() {
        for &(_, j) in hashed[k + 1..].iter().take_while(|(g, _)| *g == h) {
            if eq(&items[i], &items[j])? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether two map-list items have the same key tuple (a missing key field counts as a value,
/// as in the apiserver's check; a null one is hidden here, so this can only over-report, which
/// defers).
fn map_keys_repeat(items: &[Value], keys: &[Arc<str>]) -> Result<bool, Defer> {
    fn key_of<'v>(v: &'v Value, k: &str) -> Result<Option<&'v Value>, Defer> {
        match v {
            Value::Map(m) => Ok(m.get_str(k)),
            _ => Err(Defer),
        }
    }
    let hash = |v: &Value| -> Result<u64, Defer> {
        let mut h = 0u64;
        for k in keys {
            h = h.rotate_left(5) ^ key_of(v, k)?.map_or(Ok(7), scalar_hash)?;
        }
        Ok(h)
    };
    has_duplicates(items, hash, |a, b| {
        for k in keys {
            match (key_of(a, k)?, key_of(b, k)?) {
                (None, None) => {}
                (Some(x), Some(y)) if scalar_eq(x, y)? => {}
                _ => return Ok(false),
            }
        }
        Ok(true)
    })
}

macro_rules! seq_impl {
    ($($t:ident: $f:ident),*) => {$(
        impl ser::$t for Seq<'_> {
            type Ok = Out;
            type Error = Defer;

            fn $f<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
                self.push(v)
            }

            fn end(self) -> Result<Out, Defer> {
                self.finish()
            }
        }
    )*};
}

seq_impl!(SerializeSeq: serialize_element, SerializeTuple: serialize_element,
          SerializeTupleStruct: serialize_field);

/// Entries ordered by rank (above, by name).
const RANKED: usize = 32;

/// The declared properties written so far: a bit mask (no allocation) up to 64 properties.
enum Seen {
    Mask(u64),
    Many(Vec<bool>),
}

impl Seen {
    fn new(properties: usize) -> Seen {
        if properties <= 64 {
            Seen::Mask(0)
        } else {
            Seen::Many(vec![false; properties])
        }
    }

    /// Marks property `i`; whether it was already written.
    fn insert(&mut self, i: usize) -> bool {
        match self {
            Seen::Mask(m) => {
                let was = *m & (1 << i) != 0;
                *m |= 1 << i;
                was
            }
            Seen::Many(v) => std::mem::replace(&mut v[i], true),
        }
    }

    fn has(&self, i: usize) -> bool {
        match self {
            Seen::Mask(m) => *m & (1 << i) != 0,
            Seen::Many(v) => v[i],
        }
    }
}

/// An object or map being serialized.
struct Obj<'a> {
    node: Node<'a>,
    /// Declared properties already written.
    seen: Seen,
    entries: Vec<(Key, Value)>,
    /// The JSON key order rank of each entry while every entry is a declared property (up to
    /// [`RANKED`] of them), to put them in JSON order without comparing strings.
    ranks: [u8; RANKED],
    ranked: bool,
    /// Undeclared keys written (duplicates would merge in JSON and change the counts).
    undeclared: Vec<String>,
    unknown: Vec<(Arc<str>, Arc<serde_json::Value>)>,
    /// JSON entries written.
    count: usize,
    /// A map key waiting for its value.
    key: Option<String>,
    /// The value node when this is a map (`additionalProperties`, no properties).
    values: Option<Node<'a>>,
}

impl Obj<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, k: &str, v: &T) -> Result<(), Defer> {
        self.count += 1;
        if let Some(values) = self.values {
            let v = match v.serialize(values)? {
                Out::Value(v) => v,
                // A null map value is an entry (null, where the schema allows it).
                Out::Null => Value::Null,
                Out::Skip => return self.note_undeclared(k),
            };
            if self.node.build == Build::Nothing {
                return self.note_undeclared(k);
            }
            self.entries.push((Key::String(k.into()), v));
            return Ok(());
        }
        let n = self.node.n;
        if let Some(i) = n.properties.iter().position(|(p, _)| name_eq(p, k)) {
            if self.seen.insert(i) {
                return Err(Defer);
            }
            let (name, child) = &n.properties[i];
            let mut node = self.node.child(child)?;
            let is_key = self.node.keys.iter().any(|key| **key == *k);
            if self.node.build == Build::Skeleton && is_key {
                node.build = Build::Full;
            }
            // The fields rules here or above read (new object only), built as they read them.
            let read =
                self.node.check && matches!(&n.reads, Some(Reads::Fields(f)) if f.contains(&i));
            let skip_whole = node.build == Build::Nothing && !node.check;
            if skip_whole {
                return Ok(());
            }
            // In a skeleton only what rules read or the walk descends into is kept.
            let keep = match self.node.build {
                Build::Full => true,
                Build::Skeleton => rules_below(child, !self.node.check) || is_key || read,
                Build::Nothing => false,
            };
            match v.serialize(node)? {
                Out::Value(v) if keep => {
                    match self.ranks.get_mut(self.entries.len()) {
                        Some(r) => match self.node.b.rank.get(i).map(|&x| u8::try_from(x)) {
                            Some(Ok(x)) => *r = x,
                            Some(Err(_)) => self.ranked = false,
                            None => return Err(Defer),
                        },
                        None => self.ranked = false,
                    }
                    self.entries.push((Key::String(name.clone()), v));
                }
                _ => {}
            }
            return Ok(());
        }
        if n.additional_properties.is_some() {
            // Undeclared keys of an object that also has `additionalProperties`.
            return Err(Defer);
        }
        if self.node.build != Build::Nothing || self.node.b.counts_properties() {
            self.note_undeclared(k)?;
        }
        if self.node.build != Build::Full {
            return Ok(());
        }
        self.ranked = false;
        match (self.node.resource, k) {
            (true, "apiVersion" | "kind") => match serde_json::to_value(v).map_err(|_| Defer)? {
                serde_json::Value::String(s) => {
                    self.entries.push((Key::String(k.into()), Value::string(s)))
                }
                serde_json::Value::Null => {}
                _ => return Err(Defer),
            },
            (true, "metadata") => {
                let json = serde_json::to_value(v).map_err(|_| Defer)?;
                if !json.is_null() {
                    let m = crate::eval::convert::metadata(&json);
                    self.entries.push((Key::String(k.into()), m));
                }
            }
            _ => {
                let json = serde_json::to_value(v).map_err(|_| Defer)?;
                self.unknown.push((Arc::from(k), Arc::new(json)));
            }
        }
        Ok(())
    }

    /// Remembers an undeclared key (or a map key that is not built): written twice, serde_json
    /// would keep one entry, and the counts would differ.
    fn note_undeclared(&mut self, k: &str) -> Result<(), Defer> {
        if !self.node.b.counts_properties() && self.node.build == Build::Nothing {
            return Ok(());
        }
        if self.undeclared.iter().any(|u| u == k) {
            return Err(Defer);
        }
        self.undeclared.push(k.to_owned());
        Ok(())
    }

    fn finish(mut self) -> Result<Out, Defer> {
        let b = self.node.b;
        if self.node.check
            && (!b.properties_ok(self.count) || b.required.iter().any(|&i| !self.seen.has(i)))
        {
            return Err(Defer);
        }
        if self.node.build == Build::Nothing {
            return Ok(Out::Skip);
        }
        // JSON objects are ordered by key (serde_json's map), and conversion keeps that order.
        let by_key = |a: &(Key, Value), b: &(Key, Value)| match (&a.0, &b.0) {
            (Key::String(x), Key::String(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        };
        if self.ranked {
            // Declared properties only: insertion sort by rank (ranks are distinct).
            let ranks = &mut self.ranks[..self.entries.len()];
            for i in 1..ranks.len() {
                let mut j = i;
                while j > 0 && ranks[j - 1] > ranks[j] {
                    ranks.swap(j - 1, j);
                    self.entries.swap(j - 1, j);
                    j -= 1;
                }
            }
        } else if !self.entries.is_sorted_by(|a, b| by_key(a, b).is_lt()) {
            self.entries.sort_by(by_key);
            if self
                .entries
                .windows(2)
                .any(|w| by_key(&w[0], &w[1]).is_eq())
            {
                return Err(Defer);
            }
        }
        if self.values.is_some() {
            return Ok(Out::Value(Value::Map(Arc::new(Map::new(self.entries)))));
        }
        self.unknown.sort_by(|a, b| a.0.cmp(&b.0));
        let hidden = self.count - self.entries.len();
        Ok(Out::Value(Value::Map(Arc::new(Map::object(
            self.entries,
            hidden,
            self.unknown,
        )))))
    }
}

impl ser::SerializeStruct for Obj<'_> {
    type Ok = Out;
    type Error = Defer;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Defer> {
        self.field(key, v)
    }

    fn end(self) -> Result<Out, Defer> {
        self.finish()
    }
}

impl ser::SerializeMap for Obj<'_> {
    type Ok = Out;
    type Error = Defer;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Defer> {
        self.key = Some(key.serialize(MapKey)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
        let key = self.key.take().ok_or(Defer)?;
        self.field(&key, v)
    }

    fn end(self) -> Result<Out, Defer> {
        self.finish()
    }
}

/// A map key, when it is a string (any other key defers).
struct MapKey;

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
    fn serialize_bool(self, _: bool) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_i8(self, _: i8) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_i16(self, _: i16) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_i32(self, _: i32) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_i64(self, _: i64) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_u8(self, _: u8) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_u16(self, _: u16) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_u32(self, _: u32) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_u64(self, _: u64) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_f32(self, _: f32) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_f64(self, _: f64) -> Result<Self::Ok, Defer> {
        Err(Defer)
    }
    fn serialize_char(self, _: char) -> Result<Self::Ok, Defer> {
        Err(Defer)
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
        _: &'static str,
    ) -> Result<Self::Ok, Defer> {
        Err(Defer)
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

/// Runs the rules of `root` on `value` (and, on update, the correlated `old`) as the JSON walk
/// does, answering `Ok` only when every rule that runs is `true` within the budget.
pub(crate) fn rules(
    root: &SchemaNode,
    value: Option<&Value>,
    old: Option<&Value>,
    opts: &Options,
) -> Result<(), Defer> {
    let mut remaining = opts.budget;
    match value {
        Some(v) => node(root, v, old, opts, &mut remaining),
        None if root.rules_below => Err(Defer),
        None => Ok(()),
    }
}

fn node(
    s: &SchemaNode,
    value: &Value,
    old: Option<&Value>,
    opts: &Options,
    remaining: &mut i64,
) -> Result<(), Defer> {
    // Null data is not walked (a null field is not in the object at all).
    if matches!(value, Value::Null) || !s.rules_below {
        return Ok(());
    }
    if !s.rules.is_empty() {
        if *remaining <= 0 {
            return Err(Defer);
        }
        for rule in &s.rules {
            let program = rule.program.as_ref().map_err(|_| Defer)?;
            let transition = program.uses_old_self();
            let optional_old = rule.optional_old_self.then(|| match old {
                Some(o) => Value::some(o.clone()),
                None => Value::Optional(None),
            });
            let old_self = optional_old.as_ref().or(old);
            if transition && old_self.is_none() {
                continue;
            }
            let ev = program.eval(value, old_self, opts.per_call_limit);
            if ev.cost > (*remaining).max(0) as u64 {
                return Err(Defer);
            }
            *remaining -= ev.cost as i64;
            if !matches!(ev.result, Ok(Value::Bool(true))) {
                return Err(Defer);
            }
        }
    }
    match (s.ty, value) {
        (Type::Array, Value::List(list)) => {
            let Some(item_schema) = s.items.as_deref() else {
                return Ok(());
            };
            if !item_schema.rules_below {
                return Ok(());
            }
            let old_items = match (old, &s.list_kind) {
                (Some(Value::List(l)), ListKind::Map(keys)) => Some((&l.items, keys)),
                _ => None,
            };
            for item in &list.items {
                let item_old = match old_items {
                    Some((olds, keys)) => correlate(item, olds, keys)?,
                    None => None,
                };
                node(item_schema, item, item_old, opts, remaining)?;
            }
        }
        (Type::Object, Value::Map(map)) => {
            let old_map = match old {
                Some(Value::Map(m)) => Some(m),
                _ => None,
            };
            if let Some(values) = s.additional_properties.as_deref()
                && values.rules_below
                && s.properties.is_empty()
            {
                for (k, v) in map.entries() {
                    let child_old = old_map.and_then(|m| m.get(k));
                    node(values, v, child_old, opts, remaining)?;
                }
            }
            for (name, child) in &s.properties {
                if !child.rules_below {
                    continue;
                }
                let Some(v) = map.get_str(name) else {
                    continue;
                };
                let child_old = old_map.and_then(|m| m.get_str(name));
                node(child, v, child_old, opts, remaining)?;
            }
        }
        // Data the schema does not allow is the JSON path's to report.
        (_, Value::Error(_)) => return Err(Defer),
        _ => {}
    }
    Ok(())
}

/// The old item with the same key as `item` (5.7): every key field present and a scalar, the
/// first old item with equal key fields wins.
fn correlate<'o>(
    item: &Value,
    olds: &'o [Value],
    keys: &[Arc<str>],
) -> Result<Option<&'o Value>, Defer> {
    fn key_field<'v>(v: &'v Value, k: &str) -> Result<Option<&'v Value>, Defer> {
        let Value::Map(m) = v else {
            return Ok(None);
        };
        Ok(match m.get_str(k) {
            Some(v @ (Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_))) => {
                Some(v)
            }
            None => None,
            Some(_) => return Err(Defer),
        })
    }
    let mut want = Vec::with_capacity(keys.len());
    for k in keys {
        match key_field(item, k)? {
            Some(v) => want.push(v),
            None => return Ok(None),
        }
    }
    'olds: for old in olds {
        for (k, w) in keys.iter().zip(&want) {
            match key_field(old, k)? {
                Some(v) if scalar_eq(v, w)? => {}
                _ => continue 'olds,
            }
        }
        return Ok(Some(old));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::convert::to_value;
    use crate::model::{ListType, Property, Rule, Rules, Schema};
    use crate::validate::Validator;
    use serde::Serialize;
    use std::collections::{BTreeMap, HashMap};

    const NAME: Schema<'static> = Schema {
        max_length: Some(8),
        pattern: Some("^[a-z-]+$"),
        ..Schema::of(Type::String)
    };
    const PORT: Schema<'static> = Schema {
        minimum: Some(0.0),
        maximum: Some(100.0),
        ..Schema::of(Type::Integer)
    };
    const PLAIN: Schema<'static> = Schema::of(Type::String);
    const NULLABLE: Schema<'static> = Schema {
        nullable: true,
        ..Schema::of(Type::String)
    };
    const WEIGHT: Schema<'static> = Schema::of(Type::Number);
    const FLAG: Schema<'static> = Schema::of(Type::Boolean);
    const TIMEOUT: Schema<'static> = Schema {
        format: Some("duration"),
        ..Schema::of(Type::String)
    };
    const ITEM_PROPS: [Property<'static>; 3] = [
        Property {
            name: "name",
            required: true,
            schema: &NAME,
        },
        Property {
            name: "port",
            required: true,
            schema: &PORT,
        },
        Property {
            name: "note",
            required: false,
            schema: &NULLABLE,
        },
    ];
    const ITEM_RULES: [Rule<'static>; 1] = [Rule::new("self.port >= 0")];
    const ITEM: Schema<'static> = Schema {
        properties: &ITEM_PROPS,
        validations: Rules::new(&ITEM_RULES),
        ..Schema::of(Type::Object)
    };
    const PORTS: Schema<'static> = Schema {
        items: Some(&ITEM),
        list_type: Some(ListType::Map),
        list_map_keys: &["name"],
        max_items: Some(5),
        ..Schema::of(Type::Array)
    };
    const TAGS: Schema<'static> = Schema {
        items: Some(&PORT),
        list_type: Some(ListType::Set),
        ..Schema::of(Type::Array)
    };
    const LABELS: Schema<'static> = Schema {
        additional_properties: Some(&PLAIN),
        max_properties: Some(3),
        ..Schema::of(Type::Object)
    };
    const SPEC_PROPS: [Property<'static>; 8] = [
        Property {
            name: "name",
            required: true,
            schema: &NAME,
        },
        Property {
            name: "ports",
            required: true,
            schema: &PORTS,
        },
        Property {
            name: "tags",
            required: false,
            schema: &TAGS,
        },
        Property {
            name: "labels",
            required: false,
            schema: &LABELS,
        },
        Property {
            name: "weight",
            required: false,
            schema: &WEIGHT,
        },
        Property {
            name: "flag",
            required: false,
            schema: &FLAG,
        },
        Property {
            name: "timeout",
            required: false,
            schema: &TIMEOUT,
        },
        Property {
            name: "note",
            required: false,
            schema: &NULLABLE,
        },
    ];
    const SPEC_RULES: [Rule<'static>; 2] = [
        Rule::new("self.ports.all(p, p.port < 100)"),
        Rule::new("!has(self.weight) || self.weight >= 0.0"),
    ];
    const SPEC: Schema<'static> = Schema {
        properties: &SPEC_PROPS,
        validations: Rules::new(&SPEC_RULES),
        ..Schema::of(Type::Object)
    };
    const ROOT_PROPS: [Property<'static>; 1] = [Property {
        name: "spec",
        required: true,
        schema: &SPEC,
    }];
    const ROOT_RULES: [Rule<'static>; 1] = [Rule::new("self.metadata.name != ''")];
    /// A resource root with a rule of its own, so the whole object is built.
    const ROOT: Schema<'static> = Schema {
        properties: &ROOT_PROPS,
        validations: Rules::new(&ROOT_RULES),
        ..Schema::of(Type::Object)
    };
    /// The same without root rules: only the spec is built.
    const BARE_ROOT: Schema<'static> = Schema {
        properties: &ROOT_PROPS,
        ..Schema::of(Type::Object)
    };

    #[derive(Serialize, Clone)]
    struct Port {
        name: String,
        port: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<Option<String>>,
    }

    #[derive(Serialize, Clone)]
    struct Spec {
        name: String,
        ports: Vec<Port>,
        #[serde(skip_serializing_if = "Option::is_none")]
        tags: Option<Vec<i64>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        labels: Option<HashMap<String, String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        weight: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        flag: Option<bool>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<String>,
        note: Option<String>,
        /// Not in the schema: hidden from CEL, counted in equality.
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<BTreeMap<String, i64>>,
    }

    #[derive(Serialize, Clone)]
    #[serde(rename_all = "camelCase")]
    struct Root {
        api_version: String,
        kind: String,
        metadata: BTreeMap<String, String>,
        spec: Spec,
    }

    fn port(name: &str, port: i64) -> Port {
        Port {
            name: name.into(),
            port,
            note: None,
        }
    }

    fn base() -> Root {
        Root {
            api_version: "x/v1".into(),
            kind: "K".into(),
            metadata: [("name", "a"), ("namespace", "ns"), ("uid", "u")]
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            spec: Spec {
                name: "web".into(),
                ports: vec![port("http", 80), port("dns", 53)],
                tags: Some(vec![3, 1, 2]),
                labels: Some(
                    [("b", "2"), ("a", "1"), ("c", "3")]
                        .into_iter()
                        .map(|(k, v)| (k.into(), v.into()))
                        .collect(),
                ),
                weight: Some(0.5),
                flag: Some(true),
                timeout: Some("1m30s".into()),
                note: None,
                extra: Some([("z".to_owned(), 1)].into_iter().collect()),
            },
        }
    }

    /// Valid objects, varied in every way the conversion distinguishes.
    fn valid_objects() -> Vec<Root> {
        let mut out = vec![base()];
        let mut o = base();
        o.spec.note = Some("n".into());
        o.spec.ports[0].note = Some(None);
        o.spec.ports[1].note = Some(Some("x".into()));
        o.spec.extra = None;
        o.spec.tags = None;
        o.spec.labels = Some(HashMap::new());
        out.push(o);
        let mut o = base();
        o.spec.ports.clear();
        o.spec.weight = Some(-0.0);
        o.spec.flag = Some(false);
        o.spec.timeout = None;
        o.metadata.retain(|k, _| k == "name");
        out.push(o);
        out
    }

    /// Structural equality, entry order and hidden counts included.
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Map(x), Value::Map(y)) => {
                x.object == y.object
                    && x.raw_len() == y.raw_len()
                    && x.unknown() == y.unknown()
                    && x.entries().len() == y.entries().len()
                    && x.entries()
                        .iter()
                        .zip(y.entries())
                        .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
            }
            (Value::List(x), Value::List(y)) => {
                x.kind == y.kind
                    && x.items.len() == y.items.len()
                    && x.items.iter().zip(&y.items).all(|(p, q)| same(p, q))
            }
            _ => format!("{a:?}") == format!("{b:?}"),
        }
    }

    #[test]
    fn serialized_values_equal_the_json_conversion() {
        let v = Validator::from_model(&ROOT, true);
        for o in valid_objects() {
            let json = serde_json::to_value(&o).unwrap();
            let want = to_value(&json, &v.root, true);
            let got = serialize(&o, &v.root, true, true)
                .expect("taken by the fast path")
                .expect("built");
            assert!(same(&got, &want), "{json}\nfast: {got:?}\njson: {want:?}");
            // The old object of an update is only built for transition rules: none here.
            assert!(serialize(&o, &v.root, true, false).unwrap().is_none());
        }
    }

    #[test]
    fn a_root_without_rules_builds_only_what_rules_see() {
        let v = Validator::from_model(&BARE_ROOT, true);
        let o = base();
        let Some(Value::Map(root)) = serialize(&o, &v.root, true, true).unwrap() else {
            panic!("a skeleton root")
        };
        let keys: Vec<String> = root.entries().iter().map(|(k, _)| k.to_string()).collect();
        assert_eq!(
            keys,
            ["spec"],
            "metadata, apiVersion and kind are not built"
        );
        // The spec's rules read `self.ports` and `self.weight` only: just those are built, each
        // as the JSON conversion builds it.
        let Some(Value::Map(spec)) = root.get_str("spec") else {
            panic!("spec")
        };
        let keys: Vec<String> = spec.entries().iter().map(|(k, _)| k.to_string()).collect();
        assert_eq!(keys, ["ports", "weight"]);
        let json = serde_json::to_value(&o).unwrap();
        let Value::Map(want) = to_value(&json["spec"], v.root.property("spec").unwrap(), false)
        else {
            panic!("spec")
        };
        for (k, got) in spec.entries() {
            assert!(same(got, want.get(k).unwrap()), "{k}");
        }
    }

    #[test]
    fn a_rule_that_uses_self_whole_sees_every_field() {
        const WHOLE_RULES: [Rule<'static>; 1] = [Rule::new("self != oldSelf || self.weight > 0.0")];
        const WHOLE: Schema<'static> = Schema {
            properties: &SPEC_PROPS,
            validations: Rules::new(&WHOLE_RULES),
            ..Schema::of(Type::Object)
        };
        use crate::eval::interp::Need::{self, Fields, Items, Whole};
        let f = |fields: Vec<(&str, Need)>| {
            Fields(fields.into_iter().map(|(n, x)| (n.into(), x)).collect())
        };
        for (rule, need) in [
            (
                "self.a == self.b && has(self.c)",
                f(vec![("a", Whole), ("b", Whole), ("c", Whole)]),
            ),
            (
                "self.x.all(i, i > 0)",
                f(vec![("x", Items(Box::new(Whole)))]),
            ),
            // A rule on a list: reading nothing else of it does not widen the items it reads.
            (
                "self.all(i, i.k == 1)",
                Items(Box::new(f(vec![("k", Whole)]))),
            ),
            (
                "self.x.exists(i, i.k == 1 && i.v.w != '') && self.x.size() > 0",
                f(vec![("x", Whole)]),
            ),
            (
                "self.x.all(i, i.k == 1 && i.v.w != '')",
                f(vec![(
                    "x",
                    Items(Box::new(f(vec![
                        ("k", Whole),
                        ("v", f(vec![("w", Whole)])),
                    ]))),
                )]),
            ),
            (
                "self.x.filter(i, i.k == 1).size() == 0",
                f(vec![("x", Items(Box::new(Whole)))]),
            ),
            ("self.x.all(k, v, v > 0)", f(vec![("x", Whole)])),
            ("self == oldSelf", Whole),
            ("self.?a.orValue(1) == 1", Whole),
            ("size(self) > 0", Whole),
            ("[self].size() > 0 && self.a == 1", Whole),
            ("1 == 1", f(vec![])),
        ] {
            let p = crate::eval::interp::Program::compile(rule).unwrap();
            assert_eq!(p.self_need(), &need, "{rule}");
        }
        let props = [Property {
            name: "spec",
            required: true,
            schema: &WHOLE,
        }];
        let root = Schema {
            properties: &props,
            ..Schema::of(Type::Object)
        };
        let v = Validator::from_model(&root, true);
        let o = base();
        let Some(Value::Map(built)) = serialize(&o, &v.root, true, true).unwrap() else {
            panic!("a skeleton root")
        };
        let json = serde_json::to_value(&o).unwrap();
        let want = to_value(&json["spec"], v.root.property("spec").unwrap(), false);
        assert!(same(built.get_str("spec").unwrap(), &want));
    }

    /// Objects the fast path must not call valid: each breaks one check or rule.
    fn invalid_objects() -> Vec<(&'static str, Root)> {
        let mut out = Vec::new();
        let mut add = |what, f: &dyn Fn(&mut Root)| {
            let mut o = base();
            f(&mut o);
            out.push((what, o));
        };
        add("maxLength", &|o| o.spec.name = "abcdefghij".into());
        add("pattern", &|o| o.spec.name = "UPPER".into());
        add("maximum", &|o| o.spec.ports[0].port = 101);
        add("rule false", &|o| o.spec.ports[0].port = 100);
        add("map-list duplicate key", &|o| {
            o.spec.ports[1].name = "http".into()
        });
        add("maxItems", &|o| {
            o.spec.ports = (0..6).map(|i| port(&"p".repeat(i + 1), 1)).collect()
        });
        add("set duplicate", &|o| o.spec.tags = Some(vec![1, 1]));
        add("maxProperties", &|o| {
            o.spec
                .labels
                .as_mut()
                .unwrap()
                .insert("d".into(), "4".into());
        });
        add("bad duration", &|o| o.spec.timeout = Some("soon".into()));
        add("rule on a double", &|o| o.spec.weight = Some(-1.0));
        add("root rule", &|o| {
            o.metadata.insert("name".into(), String::new());
        });
        add("non-finite", &|o| o.spec.weight = Some(f64::NAN));
        out
    }

    #[test]
    fn only_valid_objects_are_answered() {
        let v = Validator::from_model(&ROOT, true);
        for o in valid_objects() {
            let json = serde_json::to_value(&o).unwrap();
            assert!(
                v.validate_request(&json, None, false, false).is_valid(),
                "{json}"
            );
            assert!(v.fast_valid(&o, None), "{json}");
            assert!(v.fast_valid(&o, Some(&base())), "{json}");
        }
        for (what, o) in invalid_objects() {
            let json = serde_json::to_value(&o).unwrap();
            assert!(
                !v.validate_request(&json, None, false, false).is_valid(),
                "{what}: the JSON path reports it"
            );
            assert!(!v.fast_valid(&o, None), "{what}: the fast path must defer");
        }
    }

    const TIER_RULES: [Rule<'static>; 1] = [Rule::new("self == oldSelf")];
    const TIER: Schema<'static> = Schema {
        validations: Rules::new(&TIER_RULES),
        ..Schema::of(Type::String)
    };
    const KEYED_PROPS: [Property<'static>; 2] = [
        Property {
            name: "name",
            required: true,
            schema: &PLAIN,
        },
        Property {
            name: "tier",
            required: false,
            schema: &TIER,
        },
    ];
    const KEYED: Schema<'static> = Schema {
        properties: &KEYED_PROPS,
        ..Schema::of(Type::Object)
    };
    const KEYED_LIST: Schema<'static> = Schema {
        items: Some(&KEYED),
        list_type: Some(ListType::Map),
        list_map_keys: &["name"],
        ..Schema::of(Type::Array)
    };
    const UPDATE_PROPS: [Property<'static>; 1] = [Property {
        name: "items",
        required: true,
        schema: &KEYED_LIST,
    }];
    const UPDATE_ROOT: Schema<'static> = Schema {
        properties: &UPDATE_PROPS,
        ..Schema::of(Type::Object)
    };

    #[derive(Serialize)]
    struct Keyed {
        name: String,
        tier: String,
    }

    #[derive(Serialize)]
    struct Items {
        items: Vec<Keyed>,
    }

    fn items(list: &[(&str, &str)]) -> Items {
        Items {
            items: list
                .iter()
                .map(|(n, t)| Keyed {
                    name: (*n).into(),
                    tier: (*t).into(),
                })
                .collect(),
        }
    }

    /// Every node read whole: what converting the whole object gives.
    fn read_whole(n: &mut SchemaNode) {
        n.reads = Some(Reads::Whole);
        for (_, c) in &mut n.properties {
            read_whole(c);
        }
        if let Some(c) = n.items.as_deref_mut() {
            read_whole(c);
        }
        if let Some(c) = n.additional_properties.as_deref_mut() {
            read_whole(c);
        }
    }

    #[test]
    fn the_json_walk_reading_part_of_a_node_gives_the_whole_conversions_verdicts() {
        for schema in [&ROOT, &BARE_ROOT] {
            let planned = Validator::from_model(schema, true);
            let mut whole = Validator::from_model(schema, true);
            read_whole(&mut whole.root);
            // Under BARE_ROOT (no root rule) the spec is read in part.
            let spec = &planned.root.property("spec").unwrap().reads;
            assert_eq!(spec == &Some(Reads::Whole), std::ptr::eq(schema, &ROOT));
            let objects = valid_objects()
                .into_iter()
                .chain(invalid_objects().into_iter().map(|(_, o)| o));
            for o in objects {
                let json = serde_json::to_value(&o).unwrap();
                for old in [None, Some(serde_json::to_value(base()).unwrap())] {
                    let a = planned.validate_request(&json, old.as_ref(), false, false);
                    let b = whole.validate_request(&json, old.as_ref(), false, false);
                    assert_eq!(a.errors.to_string(), b.errors.to_string(), "{json}");
                }
            }
        }
    }

    #[test]
    fn transition_rules_see_the_item_with_the_same_key() {
        // The items are skeletons (no rule on them), so their key fields must be kept.
        let v = Validator::from_model(&UPDATE_ROOT, false);
        let old = items(&[("a", "1"), ("b", "2")]);
        let old_json = serde_json::to_value(&old).unwrap();
        let Some(Value::Map(built)) = serialize(&old, &v.root, false, false).unwrap() else {
            panic!("the old object is built for its transition rule")
        };
        let Some(Value::List(list)) = built.get_str("items") else {
            panic!("items")
        };
        let want = to_value(&old_json["items"], v.root.property("items").unwrap(), false);
        assert!(same(&Value::List(list.clone()), &want));
        let moved = items(&[("b", "2"), ("a", "1"), ("c", "9")]);
        assert!(v.fast_valid(&moved, Some(&old)));
        let changed = items(&[("b", "3"), ("a", "1")]);
        assert!(!v.fast_valid(&changed, Some(&old)));
        let json = serde_json::to_value(&changed).unwrap();
        assert!(
            !v.validate_request(&json, Some(&old_json), false, false)
                .is_valid()
        );
    }
}

#[cfg(test)]
mod duplicate_tests {
    use super::*;

    #[test]
    fn duplicates_are_found_in_short_and_long_lists() {
        for n in [2usize, 8, 9, 40] {
            let mut items: Vec<Value> = (0..n as i64).map(Value::Int).collect();
            assert!(
                !has_duplicates(&items, scalar_hash, scalar_eq).unwrap(),
                "{n}"
            );
            items.push(Value::Int(n as i64 / 2));
            assert!(
                has_duplicates(&items, scalar_hash, scalar_eq).unwrap(),
                "{n}"
            );
        }
        let zeros = [Value::Double(0.0), Value::Double(-0.0)];
        let long: Vec<Value> = (0..10)
            .map(|i| Value::Double(i as f64 + 1.0))
            .chain(zeros.iter().cloned())
            .collect();
        assert!(
            has_duplicates(&long, scalar_hash, scalar_eq).unwrap(),
            "JSON equality: -0.0 == 0.0"
        );
        let mixed = [Value::Int(1), Value::Double(1.0), Value::string("1")];
        assert!(!has_duplicates(&mixed, scalar_hash, scalar_eq).unwrap());
    }
}
