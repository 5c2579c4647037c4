//! [`CelSchema`] for the std types a CRD is made of. Each constant describes the schema that
//! schemars 1.x generates for the type under kube's CRD settings; `tests/tests/model.rs` checks
//! every one against the generated schema.

use super::{CelSchema, Costs, ListType, Schema, Type};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

macro_rules! scalar {
    ($($ty:ty => $schema:expr;)*) => {$(
        impl CelSchema for $ty {
            const MODEL: Schema<'static> = $schema;
        }
    )*};
}

const fn int(format: &'static str, min: Option<f64>, max: Option<f64>) -> Schema<'static> {
    Schema {
        format: Some(format),
        minimum: min,
        maximum: max,
        ..Schema::of(Type::Integer)
    }
}

const fn number(format: &'static str) -> Schema<'static> {
    Schema {
        format: Some(format),
        ..Schema::of(Type::Number)
    }
}

scalar! {
    bool => Schema::of(Type::Boolean);
    String => Schema::of(Type::String);
    str => Schema::of(Type::String);
    f32 => number("float");
    f64 => number("double");
    i8 => int("int8", Some(i8::MIN as f64), Some(i8::MAX as f64));
    i16 => int("int16", Some(i16::MIN as f64), Some(i16::MAX as f64));
    i32 => int("int32", None, None);
    i64 => int("int64", None, None);
    isize => int("int", None, None);
    u8 => int("uint8", Some(0.0), Some(u8::MAX as f64));
    u16 => int("uint16", Some(0.0), Some(u16::MAX as f64));
    u32 => int("uint32", Some(0.0), None);
    u64 => int("uint64", Some(0.0), None);
    usize => int("uint", Some(0.0), None);
    std::net::IpAddr => Schema::string_format("ip");
    std::net::Ipv4Addr => Schema::string_format("ipv4");
    std::net::Ipv6Addr => Schema::string_format("ipv6");
    // schemars renders `serde_json::Value` as the empty schema: any value, invisible to CEL
    // unless the user adds `x-kubernetes-preserve-unknown-fields` and a type.
    serde_json::Value => Schema::of(Type::Any);
}

impl<T: CelSchema> CelSchema for Option<T> {
    const MODEL: Schema<'static> = Schema {
        nullable: true,
        ..T::MODEL
    };
    const OPTIONAL: bool = true;
    const COSTS: Costs<'static> = T::COSTS;
}

macro_rules! forward {
    ($($ty:ident),*) => {$(
        impl<T: CelSchema + ?Sized> CelSchema for $ty<T> {
            const MODEL: Schema<'static> = T::MODEL;
            const OPTIONAL: bool = T::OPTIONAL;
            const COSTS: Costs<'static> = T::COSTS;
        }
    )*};
}
use std::rc::Rc;
use std::sync::Arc;
forward!(Box, Rc, Arc);

impl<T: CelSchema + ?Sized> CelSchema for &T {
    const MODEL: Schema<'static> = T::MODEL;
    const OPTIONAL: bool = T::OPTIONAL;
    const COSTS: Costs<'static> = T::COSTS;
}

macro_rules! list {
    ($($ty:ident),*) => {$(
        impl<T: CelSchema> CelSchema for $ty<T> {
            const MODEL: Schema<'static> = Schema {
                items: Some(&T::MODEL),
                ..Schema::of(Type::Array)
            };
            const COSTS: Costs<'static> = Costs {
                items: Some(&T::COSTS),
                ..Costs::NONE
            };
        }
    )*};
}
list!(Vec, VecDeque);

impl<T: CelSchema> CelSchema for [T] {
    const MODEL: Schema<'static> = Schema {
        items: Some(&T::MODEL),
        ..Schema::of(Type::Array)
    };
    const COSTS: Costs<'static> = Costs {
        items: Some(&T::COSTS),
        ..Costs::NONE
    };
}

// schemars emits `uniqueItems: true` for sets, which the apiserver rejects; the derive rewrites
// it to `x-kubernetes-list-type: set`, which is also what CEL needs for set semantics.
impl<T: CelSchema> CelSchema for BTreeSet<T> {
    const MODEL: Schema<'static> = Schema {
        items: Some(&T::MODEL),
        list_type: Some(ListType::Set),
        ..Schema::of(Type::Array)
    };
    const COSTS: Costs<'static> = Costs {
        items: Some(&T::COSTS),
        ..Costs::NONE
    };
}

impl<T: CelSchema, S> CelSchema for HashSet<T, S> {
    const MODEL: Schema<'static> = Schema {
        items: Some(&T::MODEL),
        list_type: Some(ListType::Set),
        ..Schema::of(Type::Array)
    };
    const COSTS: Costs<'static> = Costs {
        items: Some(&T::COSTS),
        ..Costs::NONE
    };
}

/// Map keys that serialize as JSON object keys. CRD maps always have string keys.
pub trait MapKey {}
impl MapKey for String {}
impl MapKey for &str {}

impl<K: MapKey, V: CelSchema> CelSchema for BTreeMap<K, V> {
    const MODEL: Schema<'static> = Schema {
        additional_properties: Some(&V::MODEL),
        ..Schema::of(Type::Object)
    };
    const COSTS: Costs<'static> = Costs {
        additional_properties: Some(&V::COSTS),
        ..Costs::NONE
    };
}

impl<K: MapKey, V: CelSchema, S> CelSchema for HashMap<K, V, S> {
    const MODEL: Schema<'static> = Schema {
        additional_properties: Some(&V::MODEL),
        ..Schema::of(Type::Object)
    };
    const COSTS: Costs<'static> = Costs {
        additional_properties: Some(&V::COSTS),
        ..Costs::NONE
    };
}
