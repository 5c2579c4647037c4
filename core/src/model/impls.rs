//! [`CelSchema`] for the std types a CRD is made of. Each constant describes the schema that
//! schemars 1.x generates for the type under kube's CRD settings; `tests/tests/model.rs` checks
//! every one against the generated schema.

use super::{CelSchema, Costs, Schema, Type};
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
    u128 => int("uint128", Some(0.0), None);
    i128 => int("int128", None, None);
    // Unsigned non-zero integers are `minimum: 1` (signed ones have `not: {enum: [0]}`, which the
    // model cannot say: they are read from the generated schema).
    std::num::NonZeroU8 => int("uint8", Some(1.0), Some(u8::MAX as f64));
    std::num::NonZeroU16 => int("uint16", Some(1.0), Some(u16::MAX as f64));
    std::num::NonZeroU32 => int("uint32", Some(1.0), None);
    std::num::NonZeroU64 => int("uint64", Some(1.0), None);
    std::num::NonZeroUsize => int("uint", Some(1.0), None);
    char => Schema {
        min_length: Some(1),
        max_length: Some(1),
        ..Schema::of(Type::String)
    };
    std::path::PathBuf => Schema::of(Type::String);
    std::path::Path => Schema::of(Type::String);
    std::net::SocketAddr => Schema::of(Type::String);
    std::net::SocketAddrV4 => Schema::of(Type::String);
    std::net::SocketAddrV6 => Schema::of(Type::String);
    std::net::IpAddr => Schema::string_format("ip");
    std::net::Ipv4Addr => Schema::string_format("ipv4");
    std::net::Ipv6Addr => Schema::string_format("ipv6");
    // schemars renders `serde_json::Value` as the empty schema: any value, invisible to CEL
    // unless the user adds `x-kubernetes-preserve-unknown-fields` and a type.
    serde_json::Value => Schema::of(Type::Any);
}

/// `std::time::Duration` as serde writes it: `{secs, nanos}`.
const STD_DURATION: Schema<'static> = Schema {
    properties: &[
        super::Property {
            name: "nanos",
            required: true,
            schema: &int("uint32", Some(0.0), None),
        },
        super::Property {
            name: "secs",
            required: true,
            schema: &int("uint64", Some(0.0), None),
        },
    ],
    ..Schema::of(Type::Object)
};

impl CelSchema for std::time::Duration {
    const MODEL: Schema<'static> = STD_DURATION;
}

// `()` (and `PhantomData`, which schemars writes as `()`): the default of a type parameter
// that a generic struct flattens (`Options<T = ()>` with `#[serde(flatten)] extra: T`), where
// it adds no property. On its own schemars writes `type: null`, which no structural schema
// has: its schema is left to the generated one. Implemented here because a user cannot (orphan
// rule), and a generic type's impls require a model of each type argument.
impl CelSchema for () {
    const MODEL: Schema<'static> = Schema::UNKNOWN;
}

impl<T: ?Sized> CelSchema for std::marker::PhantomData<T> {
    const MODEL: Schema<'static> = Schema::UNKNOWN;
}

impl<T: CelSchema> CelSchema for Option<T> {
    const MODEL: Schema<'static> = T::MODEL.optional();
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

// schemars emits `uniqueItems: true` for sets, which the apiserver rejects; kube's schema
// transform drops it and says nothing instead (a set of objects cannot be a `set` list), and
// the derive does the same: a set is a plain list unless `list_type = "set"` says otherwise.
impl<T: CelSchema> CelSchema for BTreeSet<T> {
    const MODEL: Schema<'static> = Schema {
        items: Some(&T::MODEL),
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
// Integer keys serialize as strings; the derive writes such a map as a map of its values.
impl MapKey for i8 {}
impl MapKey for i16 {}
impl MapKey for i32 {}
impl MapKey for i64 {}
impl MapKey for u8 {}
impl MapKey for u16 {}
impl MapKey for u32 {}
impl MapKey for u64 {}

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

// A free-form object (`serde_json::Map`), as schemars writes it: `additionalProperties: true`,
// the schema of `serde_json::Value`, as a `BTreeMap<String, Value>` is.
impl CelSchema for serde_json::Map<String, serde_json::Value> {
    const MODEL: Schema<'static> = Schema {
        additional_properties: Some(&<serde_json::Value as CelSchema>::MODEL),
        ..Schema::of(Type::Object)
    };
}

/// Models of other crates' types, as schemars renders them (its `chrono04`, `uuid1`, `url2` and
/// `semver1` features), each behind crd-cel's feature of the crate's name.
mod third_party {
    #[allow(unused_imports)]
    use super::super::{CelSchema, Schema, Type};

    #[cfg(feature = "chrono")]
    mod chrono_impls {
        use super::*;
        use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Weekday};

        impl<Tz: TimeZone> CelSchema for DateTime<Tz> {
            const MODEL: Schema<'static> = Schema::string_format("date-time");
        }
        scalar! {
            NaiveDate => Schema::string_format("date");
            NaiveDateTime => Schema::string_format("partial-date-time");
            NaiveTime => Schema::string_format("partial-time");
            Weekday => Schema {
                enum_values: &["\"Mon\"", "\"Tue\"", "\"Wed\"", "\"Thu\"", "\"Fri\"", "\"Sat\"", "\"Sun\""],
                ..Schema::of(Type::String)
            };
        }
    }

    #[cfg(feature = "uuid")]
    scalar! {
        uuid::Uuid => Schema::string_format("uuid");
    }

    #[cfg(feature = "url")]
    scalar! {
        url::Url => Schema::string_format("uri");
    }

    #[cfg(feature = "semver")]
    scalar! {
        semver::Version => Schema {
            pattern: Some(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"),
            ..Schema::of(Type::String)
        };
    }
}
