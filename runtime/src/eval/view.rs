//! Views: what the typed fast path's rules read of a Rust value, borrowed in place.
//!
//! A view is the value's serialized JSON as serde's derive writes it, without writing it: a
//! struct deriving `CelValidate` answers a property name with its field (`ObjView`), a
//! `Vec` its items, a `BTreeMap` its entries, a `String` its text. The rules then run on the
//! views (`ViewProgram`, in `eval/interp/viewed.rs`) with no CEL value built. Anything whose
//! serialization the view does not know (a foreign type, a field with `serialize_with`, a
//! data-carrying enum) is [`ViewRef::Opaque`], and a rule that reads it defers to the
//! value-building path; where the value still has a `Serialize` it is [`ViewRef::Ser`], which
//! the schema checks read through serde (`validate/fast/viewed.rs`).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicU64;

/// One value as a view: what serde would serialize, by kind.
#[derive(Clone, Copy)]
pub enum ViewRef<'a> {
    /// Not serialized (a skipped field, a key that is not there).
    Absent,
    /// `null` (`None`): hidden from the rules as an absent value is, but an entry of its
    /// object (which object equality counts).
    Null,
    /// A JSON `true`/`false`.
    Bool(bool),
    /// A JSON integer that fits an `i64`.
    Int(i64),
    /// A JSON number written from an `f64`.
    Double(f64),
    /// A JSON string.
    Str(&'a str),
    /// A JSON object of declared fields (a struct).
    Obj(&'a dyn ObjView),
    /// A JSON object of arbitrary string keys (a map).
    Map(&'a dyn MapView),
    /// A JSON array.
    List(&'a dyn ListView),
    /// Something the view cannot describe: a rule that reads it defers.
    Opaque,
    /// Something the view cannot describe but serde can write (another crate's type): rules
    /// that read it defer, the schema checks serialize it.
    Ser(&'a dyn SerValue),
}

/// A value that serde can write, read through the typed fast path's serde pass: one without a
/// view ([`ViewRef::Ser`]) for its checks, and any value with rules the views cannot run, for
/// its CEL value. Any `Serialize` (the impl is the fast path's, beside its serde pass).
pub trait SerValue {
    /// Whether the value passes the checks of `node` and below, as the serde pass of the whole
    /// object would check it there; `nodes` is the validator's side table of `node`'s tree
    /// (its bounds), which this module does not name.
    fn cel_check(&self, node: &crate::tree::SchemaNode, nodes: &dyn std::any::Any) -> bool;
    /// The CEL value of the node `node` that its rules read, as the serde pass of the whole
    /// object would build it there (`how`); `None` where that pass would defer.
    fn cel_values(
        &self,
        node: &crate::tree::SchemaNode,
        nodes: &dyn std::any::Any,
        how: ValuesAt,
    ) -> Option<super::value::Value>;
}

/// How [`SerValue::cel_values`] builds a node's value.
#[derive(Clone, Copy, Debug)]
pub struct ValuesAt {
    /// Of the old object of an update (what transition rules read of it).
    pub old: bool,
    /// The node is a resource root (implicit `apiVersion`, `kind`, `metadata`).
    pub resource: bool,
    /// The node's subtree is checked on the way.
    pub check: bool,
}

/// A type whose serialized JSON has a view.
pub trait CelView {
    /// The view of `self`.
    fn cel_view(&self) -> ViewRef<'_>;
}

/// A struct's serialized fields, by JSON name.
pub trait ObjView {
    /// The field serialized under `name` ([`ViewRef::Absent`] if none is).
    fn cel_field(&self, name: &str) -> ViewRef<'_>;
    /// How many entries the serialized object has (`null`s included).
    fn cel_count(&self) -> usize;
    /// The struct as serde writes it, when its type is known to implement `Serialize`.
    fn cel_serde(&self) -> Option<&dyn SerValue>;
    /// The rules the derive wrote as Rust for this struct, on it or on its fields (see
    /// `eval/interp/derived.rs`); one static table per type.
    fn cel_rules(&self) -> &'static [RuleAt] {
        &[]
    }
    /// Rule `i` of [`ObjView::cel_rules`] on `self`: its result where the viewed interpreter
    /// would give one, `None` where it would not answer. `node` is the node the rule is on:
    /// `self`'s for its own rules, the field's for a field's. `sites` are the memos of its
    /// read sites.
    fn cel_rule(&self, i: usize, node: &crate::tree::SchemaNode, sites: &Sites) -> Option<bool> {
        let _ = (i, node, sites);
        None
    }
}

/// Where a struct's rule sits: on the struct itself (`property` `None`) or on one of its
/// fields, by JSON name; and the rule's text. A struct's table of these
/// ([`ObjView::cel_rules`]) is what the walk binds a node's rule to.
#[derive(Debug)]
pub struct RuleAt {
    /// The field the rule is written on, `None` for the struct's own rules.
    pub property: Option<&'static str>,
    /// The rule's text.
    pub rule: &'static str,
}

/// How many read sites of one rule's code remember where their property is.
const SITES: usize = 8;

/// The memos of a rule's read sites (site `k` of the derive's code for the rule), each of
/// where its property was last found (`eval/interp/viewed.rs`' `property_of`). They live with the rule's
/// program, in one validator's tree, whose node ids are distinct.
pub struct Sites([AtomicU64; SITES]);

impl Sites {
    pub(crate) fn new() -> Sites {
        Sites(std::array::from_fn(|_| AtomicU64::new(0)))
    }

    /// Site `k`'s memo, if it has one.
    pub(crate) fn get(&self, k: usize) -> Option<&AtomicU64> {
        self.0.get(k)
    }
}

impl std::fmt::Debug for Sites {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sites")
    }
}

/// A sequence's items.
pub trait ListView {
    /// The number of items.
    fn cel_len(&self) -> usize;
    /// Item `i` (`i < cel_len()`).
    fn cel_item(&self, i: usize) -> ViewRef<'_>;
    /// The sequence as serde writes it.
    fn cel_serde(&self) -> Option<&dyn SerValue>;
}

/// A string-keyed map's entries.
pub trait MapView {
    /// The number of entries.
    fn cel_len(&self) -> usize;
    /// The value under `key`, [`ViewRef::Absent`] if there is none.
    fn cel_get(&self, key: &str) -> ViewRef<'_>;
    /// Appends the keys, in serialization order, to `out`.
    fn cel_keys<'a>(&'a self, out: &mut Vec<&'a str>);
    /// Calls `f` on each entry in serialization order, until it returns `false`; whether it
    /// never did.
    fn cel_entries<'a>(&'a self, f: &mut dyn FnMut(&'a str, ViewRef<'a>) -> bool) -> bool;
    /// The map as serde writes it.
    fn cel_serde(&self) -> Option<&dyn SerValue>;
}

/// `(&&ViewProbe(&x)).cel_probe()`: `x`'s view when its type implements [`CelView`], else
/// [`ViewRef::Ser`] when it implements `Serialize`, else [`ViewRef::Opaque`] (by the autoref
/// rule of method resolution, so generated code compiles whatever the field's type is; in a
/// generic context the bounds are unknown, hence opaque).
pub struct ViewProbe<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> Clone for ViewProbe<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for ViewProbe<'_, T> {}

/// The [`ViewProbe`] of a type with a view.
pub trait ViewKnown<'a> {
    /// The view.
    fn cel_probe(self) -> ViewRef<'a>;
}

impl<'a, T: CelView + ?Sized> ViewKnown<'a> for &&ViewProbe<'a, T> {
    #[inline]
    fn cel_probe(self) -> ViewRef<'a> {
        self.0.cel_view()
    }
}

/// The [`ViewProbe`] of a type without a view that serde can write.
pub trait ViewSer<'a> {
    /// [`ViewRef::Ser`].
    fn cel_probe(self) -> ViewRef<'a>;
}

impl<'a, T: SerValue> ViewSer<'a> for &ViewProbe<'a, T> {
    #[inline]
    fn cel_probe(self) -> ViewRef<'a> {
        ViewRef::Ser(self.0)
    }
}

/// The [`ViewProbe`] of any other type.
pub trait ViewUnknown<'a> {
    /// [`ViewRef::Opaque`].
    fn cel_probe(self) -> ViewRef<'a>;
}

impl<'a, T: ?Sized> ViewUnknown<'a> for ViewProbe<'a, T> {
    #[inline]
    fn cel_probe(self) -> ViewRef<'a> {
        ViewRef::Opaque
    }
}

impl CelView for String {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        ViewRef::Str(self)
    }
}

impl CelView for str {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        ViewRef::Str(self)
    }
}

impl CelView for bool {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        ViewRef::Bool(*self)
    }
}

macro_rules! int_views {
    ($($t:ty),*) => {$(
        impl CelView for $t {
            #[inline]
            fn cel_view(&self) -> ViewRef<'_> {
                // A `u64` past `i64::MAX` is a JSON integer CEL's int cannot hold.
                i64::try_from(*self).map_or(ViewRef::Opaque, ViewRef::Int)
            }
        }
    )*};
}

int_views!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl CelView for f64 {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        // serde_json writes a non-finite float as `null`.
        if self.is_finite() {
            ViewRef::Double(*self)
        } else {
            ViewRef::Null
        }
    }
}

impl<T: CelView + ?Sized> CelView for &T {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        (**self).cel_view()
    }
}

impl<T: CelView + ?Sized> CelView for Box<T> {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        (**self).cel_view()
    }
}

impl<T: CelView + ?Sized> CelView for std::sync::Arc<T> {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        (**self).cel_view()
    }
}

impl<T: CelView> CelView for Option<T> {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        match self {
            Some(v) => v.cel_view(),
            None => ViewRef::Null,
        }
    }
}

// Collections have views where their items are `Serialize` too, so that the rules the views
// cannot run get the collection's value through serde.
impl<T: CelView + serde::Serialize> CelView for Vec<T> {
    #[inline]
    fn cel_view(&self) -> ViewRef<'_> {
        ViewRef::List(self)
    }
}

impl<T: CelView + serde::Serialize> ListView for Vec<T> {
    fn cel_len(&self) -> usize {
        self.len()
    }

    fn cel_item(&self, i: usize) -> ViewRef<'_> {
        self[i].cel_view()
    }

    fn cel_serde(&self) -> Option<&dyn SerValue> {
        Some(self)
    }
}

/// A map entry's view: a `null` value is left to built values (the JSON conversion keeps the
/// entry), and so is a value with no entry of its own.
fn entry_view<T: CelView>(v: &T) -> ViewRef<'_> {
    match v.cel_view() {
        ViewRef::Absent | ViewRef::Null => ViewRef::Opaque,
        v => v,
    }
}

/// The view of a map type with string keys.
macro_rules! map_views {
    ($($map:ident $(<$h:ident: $bound:path>)?),*) => {$(
        impl<T: CelView + serde::Serialize $(, $h: $bound)?> CelView for $map<String, T $(, $h)?> {
            #[inline]
            fn cel_view(&self) -> ViewRef<'_> {
                ViewRef::Map(self)
            }
        }

        impl<T: CelView + serde::Serialize $(, $h: $bound)?> MapView for $map<String, T $(, $h)?> {
            fn cel_len(&self) -> usize {
                self.len()
            }

            fn cel_get(&self, key: &str) -> ViewRef<'_> {
                self.get(key).map_or(ViewRef::Absent, entry_view)
            }

            fn cel_keys<'a>(&'a self, out: &mut Vec<&'a str>) {
                out.extend(self.keys().map(String::as_str));
            }

            fn cel_entries<'a>(
                &'a self,
                f: &mut dyn FnMut(&'a str, ViewRef<'a>) -> bool,
            ) -> bool {
                self.iter().all(|(k, v)| f(k, entry_view(v)))
            }

            fn cel_serde(&self) -> Option<&dyn SerValue> {
                Some(self)
            }
        }
    )*};
}

map_views!(BTreeMap, HashMap<S: std::hash::BuildHasher>);
