//! The typed fast path's value builder: a Rust value serialized straight into the CEL value
//! the JSON conversion would build, checking the node's OpenAPI bounds and list types as the
//! data goes by.

use std::sync::Arc;

use serde::ser::{self, Serialize};

use super::Defer;
use super::map_key::MapKey;
use super::unique::{
    ABSENT_KEY, has_duplicates, hashes_repeat, key_tuple_hash, map_keys_repeat, scalar_eq,
    scalar_hash, str_hash,
};
use crate::eval::time::{parse_data_duration, parse_date, parse_date_time};
use crate::eval::value::{Key, List, ListKind, Map, Value, name_eq};
use crate::eval::view::ValuesAt;
use crate::tree::{Reads, SchemaNode, StringFormat, is_type_or_object_meta};
use crate::validate::bounds::{Bounds, Kind};
use crate::validate::compile::Nodes;

mod variant;
use variant::Variant;

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
    /// Checked, not built: the hash the node's list-type check compares ([`Hashed`]).
    Hash(u64),
}

/// How a node's list-type check reads it without building values: by hash, a repeated hash
/// being a repeated item as far as the fast path can tell (so a collision of two different
/// items only sends the object the JSON way).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hashed {
    /// Not hashed.
    No,
    /// An item of a set: a scalar's hash.
    SetItem,
    /// An item of a map list: the hash of its key fields ([`key_tuple_hash`]).
    MapItem,
    /// Key field `k` of a map-list item: a scalar's hash.
    Key(usize),
}

/// The most key fields a hashed map-list item has.
pub(super) const MAX_HASHED_KEYS: usize = 4;

/// Serializes `value` as the node `root` (a resource root when `resource`) into the CEL value
/// the walk needs, checking the schema's constraints when `check`. `Ok(None)`: the root needs no
/// value (no rules anywhere). Without `values`, only what the list-type checks compare is built
/// (the rules run on views instead: [`super::viewed`]).
pub(crate) fn serialize<T: Serialize + ?Sized>(
    value: &T,
    root: &SchemaNode,
    nodes: &Nodes,
    resource: bool,
    check: bool,
    values: bool,
) -> Result<Option<Value>, Defer> {
    // The old object (unchecked) is only read by transition rules.
    let old = !check;
    let build = if values {
        Build::Skeleton.child(root, old)
    } else {
        Build::Nothing
    };
    if build == Build::Nothing && !check {
        return Ok(None);
    }
    let top = Node::top(root, nodes, build, check, values, old, resource)?;
    match value.serialize(top)? {
        Out::Value(v) => Ok(Some(v)),
        Out::Skip | Out::Hash(_) => Ok(None),
        Out::Null => Err(Defer),
    }
}

/// The CEL value of `value` as the node `node` (a resource root when `resource`), built as
/// [`serialize`] builds it there (what the node's rules read, the old value's whole for a
/// transition rule when `old`), for the viewed walk to run a rule the views cannot on it;
/// checking the node's subtree on the way when `check` (`Defer` if a check fails).
pub(crate) fn values_at<T: Serialize + ?Sized>(
    value: &T,
    node: &SchemaNode,
    nodes: &Nodes,
    ValuesAt {
        old,
        resource,
        check,
    }: ValuesAt,
) -> Result<Value, Defer> {
    let build = Build::Skeleton.child(node, old);
    match value.serialize(Node::top(node, nodes, build, check, true, old, resource)?)? {
        Out::Value(v) => Ok(v),
        Out::Skip | Out::Hash(_) | Out::Null => Err(Defer),
    }
}

/// Whether `value`, as the node `node` below the root, passes its checks (`null` where the
/// node allows it included).
pub(crate) fn check_only<T: Serialize + ?Sized>(
    value: &T,
    node: &SchemaNode,
    nodes: &Nodes,
) -> bool {
    Node::top(node, nodes, Build::Nothing, true, false, false, false)
        .and_then(|n| value.serialize(n))
        .is_ok()
}

fn bounds<'a>(nodes: &'a Nodes, n: &SchemaNode) -> Result<&'a Bounds, Defer> {
    nodes.bounds(n).ok_or(Defer)
}

/// The serializer of one schema node.
#[derive(Clone, Copy)]
struct Node<'a> {
    n: &'a SchemaNode,
    b: &'a Bounds,
    /// The tree's side table (for the children's bounds).
    t: &'a Nodes,
    build: Build,
    check: bool,
    /// Whether the rules' values are built (else the list-type checks compare hashes).
    values: bool,
    /// The old object of an update, whose values only transition rules read.
    old: bool,
    /// How the node's list-type check reads it.
    hashed: Hashed,
    /// A resource root (implicit `apiVersion`, `kind`, `metadata`).
    resource: bool,
    /// The map-list key fields, when the node is an item of a map list (kept in skeletons).
    keys: &'a [Arc<str>],
}

impl<'a> Node<'a> {
    /// The serializer of `n` where a pass starts (a resource root when `resource`).
    #[allow(clippy::too_many_arguments)]
    fn top(
        n: &'a SchemaNode,
        t: &'a Nodes,
        build: Build,
        check: bool,
        values: bool,
        old: bool,
        resource: bool,
    ) -> Result<Node<'a>, Defer> {
        Ok(Node {
            n,
            b: bounds(t, n)?,
            t,
            build,
            check,
            values,
            old,
            hashed: Hashed::No,
            resource: resource || n.embedded_resource,
            keys: &[],
        })
    }

    fn child(&self, n: &'a SchemaNode) -> Result<Node<'a>, Defer> {
        Ok(Node {
            n,
            b: bounds(self.t, n)?,
            t: self.t,
            // Without values, only what a list-type check forced is built whole.
            build: if self.values || self.build == Build::Full {
                self.build.child(n, self.old)
            } else {
                Build::Nothing
            },
            check: self.check,
            values: self.values,
            old: self.old,
            hashed: Hashed::No,
            resource: n.embedded_resource,
            keys: &[],
        })
    }

    /// Whether a value of `kind` is taken here: one the node fits, not built or hashed where
    /// the node has no type (whose CEL value is the JSON itself, which only the JSON
    /// conversion builds).
    fn takes(&self, kind: Kind) -> bool {
        self.b.fits(kind)
            && (!self.b.untyped(self.n)
                || (self.build == Build::Nothing && self.hashed == Hashed::No))
    }

    fn built(&self, v: impl FnOnce() -> Value) -> Out {
        if self.hashed != Hashed::No {
            // Only scalars come here, and every scalar has a hash (one without would collide,
            // and defer).
            return Out::Hash(scalar_hash(&v()).unwrap_or(0));
        }
        if self.build == Build::Nothing {
            Out::Skip
        } else {
            Out::Value(v())
        }
    }

    fn int(self, i: i64) -> Result<Out, Defer> {
        if !self.takes(Kind::Int) || (self.check && !self.b.number_ok(Some(i), i as f64)) {
            return Err(Defer);
        }
        Ok(self.built(|| Value::Int(i)))
    }

    fn str_value(self, s: &str) -> Result<Out, Defer> {
        if !self.takes(Kind::Str) || (self.check && !self.b.string_ok(s)) {
            return Err(Defer);
        }
        if self.hashed != Hashed::No {
            return Ok(Out::Hash(str_hash(s)));
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
        if self.b.fits(Kind::Null) {
            Ok(Out::Null)
        } else {
            Err(Defer)
        }
    }

    fn list(self, len: Option<usize>) -> Result<Seq<'a>, Defer> {
        if !self.takes(Kind::List) || self.hashed != Hashed::No {
            return Err(Defer);
        }
        // The items of any value are any values.
        let item_node = match self.n.items.as_deref() {
            Some(items) => items,
            None if self.b.keeps_any(self.n) => self.n,
            None => return Err(Defer),
        };
        let mut item = self.child(item_node)?;
        // The list-type checks read set items and map-list keys: built, or hashed when no
        // values are.
        match (&self.n.list_kind, self.check) {
            (ListKind::Set, true) if !self.values => item.hashed = Hashed::SetItem,
            (ListKind::Set, true) => item.build = Build::Full,
            (ListKind::Map(keys), true) if !self.values && keys.len() <= MAX_HASHED_KEYS => {
                item.hashed = Hashed::MapItem;
                item.keys = keys;
            }
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
            hashes: Vec::new(),
            count: 0,
        })
    }

    fn object(self, len: Option<usize>) -> Result<Obj<'a>, Defer> {
        if !self.takes(Kind::Object) || !matches!(self.hashed, Hashed::No | Hashed::MapItem) {
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
            key_hashes: [ABSENT_KEY; MAX_HASHED_KEYS],
            next: 0,
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
    type SerializeTupleVariant = Variant<'a, Seq<'a>>;
    type SerializeMap = Obj<'a>;
    type SerializeStruct = Obj<'a>;
    type SerializeStructVariant = Variant<'a, Obj<'a>>;

    fn serialize_bool(self, v: bool) -> Result<Out, Defer> {
        if !self.takes(Kind::Bool) || (self.check && !self.b.bool_ok(v)) {
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
        if !self.b.fits(Kind::Float) || !v.is_finite() {
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

    // serde_json writes an externally tagged variant as `{"variant": value}`.
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Out, Defer> {
        let mut outer = self.object(Some(1))?;
        outer.field(variant, v)?;
        outer.finish()
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
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'a, Seq<'a>>, Defer> {
        Variant::new(self, variant, |node| node.list(Some(len)))
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
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<'a, Obj<'a>>, Defer> {
        Variant::new(self, variant, |node| node.object(Some(len)))
    }
}

/// A list being serialized.
struct Seq<'a> {
    list: Node<'a>,
    item: Node<'a>,
    items: Vec<Value>,
    /// The items' hashes, when they are hashed instead of built.
    hashes: Vec<u64>,
    count: usize,
}

impl<'a> Seq<'a> {
    fn push<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
        self.count += 1;
        match v.serialize(self.item)? {
            Out::Value(v) => self.items.push(v),
            Out::Hash(h) => self.hashes.push(h),
            // A null set item or map-list item is the JSON path's to judge, and so is one
            // the check could not hash.
            Out::Null | Out::Skip if self.item.hashed != Hashed::No => return Err(Defer),
            Out::Null if self.item.build != Build::Nothing => self.items.push(Value::Null),
            Out::Null | Out::Skip => {}
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Out, Defer> {
        if self.list.check {
            if !self.list.b.items_ok(self.count) {
                return Err(Defer);
            }
            if self.item.hashed != Hashed::No && hashes_repeat(&mut self.hashes) {
                return Err(Defer);
            }
            match &self.list.n.list_kind {
                _ if self.item.hashed != Hashed::No => {}
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
    /// A hashed map-list item's key fields' hashes, in `node.keys` order.
    key_hashes: [u64; MAX_HASHED_KEYS],
    /// The declared property after the last one written.
    next: usize,
}

/// Where the value of one key of an object goes ([`Obj::slot`]).
enum Slot<'a> {
    /// Serialized as this node, then handed to [`Obj::accept`].
    Value(Node<'a>, Then),
    /// Neither checked nor built (an old value no rule reads): not serialized.
    Skip(Node<'a>),
    /// An undeclared key ([`Obj::undeclared`]).
    Undeclared,
}

/// What [`Obj::accept`] does with a key's serialized value.
#[derive(Clone, Copy)]
enum Then {
    /// A map's entry.
    MapEntry,
    /// Key field `pos` of a hashed map-list item: its hash kept.
    KeyHash(usize),
    /// Declared property `i`, kept among the entries when `keep`.
    Property { i: usize, keep: bool },
}

impl<'a> Obj<'a> {
    fn field<T: Serialize + ?Sized>(&mut self, k: &str, v: &T) -> Result<(), Defer> {
        match self.slot(k)? {
            Slot::Value(node, then) => {
                let out = v.serialize(node)?;
                self.accept(k, then, out)
            }
            Slot::Skip(_) => Ok(()),
            Slot::Undeclared => self.undeclared(k, v),
        }
    }

    /// Where the value of key `k` goes, as the next entry written.
    #[inline]
    fn slot(&mut self, k: &str) -> Result<Slot<'a>, Defer> {
        self.count += 1;
        if let Some(values) = self.values {
            return Ok(Slot::Value(values, Then::MapEntry));
        }
        let n = self.node.n;
        // serde writes a derived struct's fields in declaration order, the properties' order:
        // the one after the last is tried first.
        let next = n.properties.get(self.next).filter(|(p, _)| name_eq(p, k));
        let found = match next {
            Some(_) => Some(self.next),
            None => n.properties.iter().position(|(p, _)| name_eq(p, k)),
        };
        let Some(i) = found else {
            return Ok(Slot::Undeclared);
        };
        self.next = i + 1;
        if self.seen.insert(i) {
            return Err(Defer);
        }
        let child = &n.properties[i].1;
        let mut node = self.node.child(child)?;
        let key_pos = self.node.keys.iter().position(|key| **key == *k);
        let is_key = key_pos.is_some();
        if self.node.build == Build::Skeleton && is_key {
            node.build = Build::Full;
        }
        if let (Hashed::MapItem, Some(pos)) = (self.node.hashed, key_pos) {
            node.hashed = Hashed::Key(pos);
            return Ok(Slot::Value(node, Then::KeyHash(pos)));
        }
        if node.build == Build::Nothing && !node.check {
            return Ok(Slot::Skip(node));
        }
        // In a skeleton only what rules read (the fields rules here or above read, new
        // object only) or the walk descends into is kept.
        let keep = match self.node.build {
            Build::Full => true,
            Build::Skeleton => {
                rules_below(child, self.node.old)
                    || is_key
                    || (!self.node.old
                        && matches!(&n.reads, Some(Reads::Fields(f)) if f.contains(&i)))
            }
            Build::Nothing => false,
        };
        Ok(Slot::Value(node, Then::Property { i, keep }))
    }

    /// Takes the serialized value `out` of key `k`.
    #[inline]
    fn accept(&mut self, k: &str, then: Then, out: Out) -> Result<(), Defer> {
        match then {
            Then::MapEntry => {
                let v = match out {
                    Out::Value(v) => v,
                    // A null map value is an entry (null, where the schema allows it).
                    Out::Null => Value::Null,
                    Out::Skip => return self.note_undeclared(k),
                    // Map values are never hashed (only set items and map-list keys are).
                    Out::Hash(_) => return Err(Defer),
                };
                if self.node.build == Build::Nothing {
                    return self.note_undeclared(k);
                }
                self.entries.push((Key::String(k.into()), v));
            }
            Then::KeyHash(pos) => match out {
                Out::Hash(h) => self.key_hashes[pos] = h,
                // A key field that is not a scalar, or null.
                _ => return Err(Defer),
            },
            Then::Property { i, keep: true } => {
                if let Out::Value(v) = out {
                    match self.ranks.get_mut(self.entries.len()) {
                        Some(r) => match self.node.b.rank.get(i).map(|&x| u8::try_from(x)) {
                            Some(Ok(x)) => *r = x,
                            Some(Err(_)) => self.ranked = false,
                            None => return Err(Defer),
                        },
                        None => self.ranked = false,
                    }
                    let name = self.node.n.properties[i].0.clone();
                    self.entries.push((Key::String(name), v));
                }
            }
            Then::Property { keep: false, .. } => {}
        }
        Ok(())
    }

    /// An undeclared key `k` and its value.
    fn undeclared<T: Serialize + ?Sized>(&mut self, k: &str, v: &T) -> Result<(), Defer> {
        if !self.undeclared_key(k)? {
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

    /// Takes the undeclared key `k`: whether its value is needed (the object is built whole).
    fn undeclared_key(&mut self, k: &str) -> Result<bool, Defer> {
        // Undeclared keys of an object that also has `additionalProperties`, or that decoding
        // would prune.
        if self.node.n.additional_properties.is_some()
            || (self.node.b.decoded.prunes && !(self.node.resource && is_type_or_object_meta(k)))
        {
            return Err(Defer);
        }
        if self.node.build != Build::Nothing || self.node.b.counts_properties() {
            self.note_undeclared(k)?;
        }
        Ok(self.node.build == Build::Full)
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
            && (!b.properties_ok(self.count)
                || b.required.iter().any(|&i| !self.seen.has(i))
                || !b.composition_ok(|i| self.seen.has(i)))
        {
            return Err(Defer);
        }
        // A property decoding would default, old object or new.
        if b.decoded_or_composed() && b.decoded.defaulted.iter().any(|&i| !self.seen.has(i)) {
            return Err(Defer);
        }
        if self.node.hashed == Hashed::MapItem {
            let n = self.node.keys.len();
            return Ok(Out::Hash(key_tuple_hash(
                self.key_hashes[..n].iter().copied(),
            )));
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
