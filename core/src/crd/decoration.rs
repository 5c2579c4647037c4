//! The list and map attributes of a field against the field's schema, as the apiserver checks
//! the structural schema at CRD creation: `list_type`/`map_type` and the item and property
//! bounds only on lists and maps, `list_type = "set"` only over scalars, and the keys of
//! `list_type = "map"` required (or defaulted) scalar properties of the items. Each check
//! returns the apiserver's words and a hint, which the derive's const item panics with (a
//! compile error in const evaluation, at the attribute).

use crate::model::{Decoration, ListType, Schema, Type};
use crate::msg::Buf;

/// Const check behind `list_map_keys`: every key must be a property of the list's items.
/// The error is the apiserver's words and a hint.
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_list_map_keys(
    field: &'static str,
    list: &Schema<'static>,
    keys: &[&'static str],
) -> Result<(), Buf<512>> {
    // Checked against the generated schema instead.
    if matches!(list.ty, Type::Unknown) {
        return Ok(());
    }
    let items = match list.items {
        Some(items) if matches!(items.ty, Type::Unknown) => return Ok(()),
        Some(items) => items,
        None => {
            return Err(field_error(
                field,
                " has `list_type = \"map\"` but its type is not a list",
            ));
        }
    };
    let mut i = 0;
    while i < keys.len() {
        match items.property_required(keys[i]) {
            Some((p, required)) => {
                if !required && !p.schema.has_default {
                    return Err(key_error(
                        field,
                        keys[i],
                        "` must be required or have a default: make the field non-optional, or add #[serde(default)]",
                    ));
                }
                if !matches!(
                    p.schema.ty,
                    Type::String | Type::Integer | Type::Boolean | Type::Number
                ) {
                    return Err(key_error(
                        field,
                        keys[i],
                        "` must be a scalar (string, integer, number or boolean)",
                    ));
                }
            }
            None if items.has_open_flatten() => {}
            None => {
                return Err(key_error(
                    field,
                    keys[i],
                    "` is not a field of the list's items",
                ));
            }
        }
        i += 1;
    }
    Ok(())
}

/// Const check behind list/map attributes on fields: the field's schema must be of that kind.
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_decoration(
    field: &'static str,
    node: &Schema<'static>,
    d: &Decoration<'static>,
) -> Result<(), Buf<512>> {
    // Checked against the generated schema instead.
    if matches!(node.ty, Type::Unknown) {
        return Ok(());
    }
    let is_list = matches!(node.ty, Type::Array);
    let is_object = matches!(node.ty, Type::Object);
    if (d.list_type.is_some() || d.max_items.is_some() || d.min_items.is_some()) && !is_list {
        return Err(field_error(
            field,
            " is not a list: `list_type`, `max_items` and `min_items` only apply to Vec/set fields",
        ));
    }
    if (d.map_type.is_some() || d.max_properties.is_some() || d.min_properties.is_some())
        && !is_object
    {
        return Err(field_error(
            field,
            " is not a map or object: `map_type`, `max_properties` and `min_properties` only apply to maps and structs",
        ));
    }
    if let Some(ListType::Set) = d.list_type
        && let Some(items) = node.items
        && !matches!(
            items.ty,
            Type::String | Type::Integer | Type::Boolean | Type::Number | Type::Unknown
        )
    {
        return Err(field_error(
            field,
            " has `list_type = \"set\"`, which needs scalar items (the apiserver requires it)",
        ));
    }
    Ok(())
}

const fn field_error(field: &'static str, what: &'static str) -> Buf<512> {
    let mut buf = Buf::<512>::new();
    buf.push("field `");
    buf.push(field);
    buf.push("`");
    buf.push(what);
    buf.finish()
}

const fn key_error(field: &'static str, key: &'static str, what: &'static str) -> Buf<512> {
    let mut buf = Buf::<512>::new();
    buf.push("list map key `");
    buf.push(key);
    buf.push("` of field `");
    buf.push(field);
    buf.push(what);
    buf.finish()
}
