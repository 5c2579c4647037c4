//! Enum variants with data as serde_json writes them: `{"variant": {..}}` and
//! `{"variant": [..]}`, an object of one key whose value is written field by field.

use serde::ser::{self, Serialize};

use super::{Node, Obj, Out, Seq, Slot, Then};
use crate::validate::fast::Defer;

/// A struct or tuple variant being serialized: serde_json writes `{"variant": {..}}` and
/// `{"variant": [..]}`, an object of one key whose value (`inner`) is written field by field.
pub(super) struct Variant<'a, C> {
    outer: Obj<'a>,
    variant: &'static str,
    /// What the outer object does with the value (`None`: nothing, it is not read).
    then: Option<Then>,
    inner: C,
}

impl<'a, C> Variant<'a, C> {
    pub(super) fn new(
        node: Node<'a>,
        variant: &'static str,
        inner: impl FnOnce(Node<'a>) -> Result<C, Defer>,
    ) -> Result<Self, Defer> {
        let mut outer = node.object(Some(1))?;
        let (node, then) = match outer.slot(variant)? {
            Slot::Value(node, then) => (node, Some(then)),
            Slot::Skip(node) => (node, None),
            // A variant under a node that keeps any value (its own bounds, checked again on
            // the content, can only defer); elsewhere the JSON path reports or prunes it.
            Slot::Undeclared
                if outer.node.b.keeps_any(outer.node.n) && !outer.undeclared_key(variant)? =>
            {
                (outer.node, None)
            }
            Slot::Undeclared => return Err(Defer),
        };
        Ok(Variant {
            outer,
            variant,
            then,
            inner: inner(node)?,
        })
    }

    fn end(self, finish: impl FnOnce(C) -> Result<Out, Defer>) -> Result<Out, Defer> {
        let Variant {
            mut outer,
            variant,
            then,
            inner,
        } = self;
        let inner = finish(inner)?;
        if let Some(then) = then {
            outer.accept(variant, then, inner)?;
        }
        outer.finish()
    }
}

impl ser::SerializeStructVariant for Variant<'_, Obj<'_>> {
    type Ok = Out;
    type Error = Defer;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Defer> {
        self.inner.field(key, v)
    }

    fn end(self) -> Result<Out, Defer> {
        Variant::end(self, Obj::finish)
    }
}

impl ser::SerializeTupleVariant for Variant<'_, Seq<'_>> {
    type Ok = Out;
    type Error = Defer;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Defer> {
        self.inner.push(v)
    }

    fn end(self) -> Result<Out, Defer> {
        Variant::end(self, Seq::finish)
    }
}
