//! The size model of the apiserver's cost estimator (`k8s.io/apiserver/pkg/cel/common/schemas.go`
//! and `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model/schemas.go`): for every
//! schema node the largest `size()` its value can have (`MaxElements`) and the fewest JSON bytes
//! it can serialize to (`MinSerializedSize`). Both are `const fn`, for the build-time estimator
//! and for the runtime path alike.

use crate::model::{Schema, Type};

/// `MaxRequestSizeBytes`: the largest request the apiserver accepts (3 MiB).
pub const MAX_REQUEST_SIZE_BYTES: u64 = 3 * 1024 * 1024;

/// What an unbounded string, bytes or list can hold: the request minus the enclosing quotes.
const UNBOUNDED: u64 = MAX_REQUEST_SIZE_BYTES - 2;

/// Guard for recursive walks (types nest as deep as the schema does).
const MAX_DEPTH: u32 = 64;

/// The node's format (empty when none), for a `match` on the formats CEL types specially
/// (table 1.1 rows 7 to 10): byte patterns, which const evaluation runs without calls.
const fn format<'a>(s: &Schema<'a>) -> &'a [u8] {
    match s.format {
        Some(f) => f.as_bytes(),
        None => b"",
    }
}

/// `MinSerializedSize` of a node (table 1.1); `None` when the node is not visible to CEL.
pub const fn min_serialized_size(s: &Schema<'_>) -> Option<u64> {
    min_size_at(s, 0)
}

const fn min_size_at(s: &Schema<'_>, depth: u32) -> Option<u64> {
    if depth > MAX_DEPTH {
        return None;
    }
    if s.int_or_string {
        return Some(1);
    }
    match s.ty {
        Type::Any | Type::Unknown => None,
        Type::Boolean => Some(4),
        Type::Integer | Type::Number => Some(1),
        Type::String => Some(match format(s) {
            b"duration" => 3,
            b"date" => 12,
            b"date-time" => 21,
            _ => 2,
        }),
        Type::Array => match s.items {
            Some(items) if min_size_at(items, depth + 1).is_some() => Some(2),
            _ => None,
        },
        Type::Object => match s.additional_properties {
            Some(values) => match min_size_at(values, depth + 1) {
                Some(_) => Some(2),
                None => None,
            },
            None => Some(2 + required_size(s, depth)),
        },
    }
}

/// `Σ (len(name) + minSize + 4)` over the required properties without a default that CEL sees,
/// looking through flatten.
const fn required_size(s: &Schema<'_>, depth: u32) -> u64 {
    let mut total = 0u64;
    let mut i = 0;
    let len_i = s.properties.len();
    while i < len_i {
        let p = &s.properties[i];
        if p.required
            && !p.schema.has_default
            && let Some(min) = min_size_at(p.schema, depth + 1)
        {
            total = total.saturating_add(p.name.len() as u64 + min + 4);
        }
        i += 1;
    }
    let mut f = 0;
    let len_f = s.flatten.len();
    while f < len_f {
        // A flattened `Option`'s properties are not required (`Schema::property_required`).
        if !s.flatten[f].nullable {
            total = total.saturating_add(required_size(s.flatten[f], depth + 1));
        }
        f += 1;
    }
    total
}

/// `MaxElements` of a node (table 1.1): the largest `size()` of its value, 0 for scalars without
/// a size and for objects; `None` when the node is not visible to CEL.
pub const fn max_elements(s: &Schema<'_>) -> Option<u64> {
    if s.int_or_string {
        // Since 1.34 a maxLength bounds int-or-string values too.
        return Some(match s.max_length {
            Some(n) => n.saturating_mul(4),
            None => UNBOUNDED,
        });
    }
    match s.ty {
        Type::Any | Type::Unknown => None,
        Type::Boolean | Type::Integer | Type::Number => Some(0),
        Type::String => Some(match format(s) {
            b"byte" => match s.max_length {
                Some(n) => n,
                None => UNBOUNDED,
            },
            b"duration" => 32,
            b"date" => 12,
            b"date-time" => 32,
            _ => match s.max_length {
                Some(n) => n.saturating_mul(4),
                None => match longest_enum(s) {
                    Some(n) => n,
                    None => UNBOUNDED,
                },
            },
        }),
        Type::Array => match s.items {
            Some(items) => match min_serialized_size(items) {
                Some(min) => Some(match s.max_items {
                    Some(n) => n,
                    None => UNBOUNDED / (min + 1),
                }),
                None => None,
            },
            None => None,
        },
        Type::Object => match s.additional_properties {
            Some(values) => match min_serialized_size(values) {
                Some(min) => Some(match s.max_properties {
                    Some(n) => n,
                    None => UNBOUNDED / (min + 6),
                }),
                None => None,
            },
            None => Some(0),
        },
    }
}

/// The byte length of the longest string of a string `enum` (its values are JSON text).
const fn longest_enum(s: &Schema<'_>) -> Option<u64> {
    if s.enum_values.is_empty() {
        return None;
    }
    let mut longest = 0u64;
    let mut i = 0;
    let len_i = s.enum_values.len();
    while i < len_i {
        let v = s.enum_values[i].as_bytes();
        // A JSON string: the bytes between the quotes, each escape counting as the byte it
        // stands for (the escapes enum values use in practice are one byte).
        let mut n = 0u64;
        if v.len() >= 2 && v[0] == b'"' {
            let mut k = 1;
            let len_k = v.len();
            while k + 1 < len_k {
                if v[k] == b'\\' {
                    k += 1;
                }
                n += 1;
                k += 1;
            }
        }
        if n > longest {
            longest = n;
        }
        i += 1;
    }
    Some(longest)
}

/// The cardinality of a node whose ancestors are unbounded: `R / (MinSerializedSize + 1)`.
pub const fn unbounded_cardinality(s: &Schema<'_>) -> Option<u64> {
    match min_serialized_size(s) {
        Some(min) => Some(MAX_REQUEST_SIZE_BYTES / (min + 1)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Property;

    fn list_of(items: &'static Schema<'static>) -> Schema<'static> {
        Schema {
            items: Some(items),
            ..Schema::of(Type::Array)
        }
    }

    fn map_of(values: &'static Schema<'static>) -> Schema<'static> {
        Schema {
            additional_properties: Some(values),
            ..Schema::of(Type::Object)
        }
    }

    static INT: Schema<'static> = Schema::of(Type::Integer);
    static NUMBER: Schema<'static> = Schema::of(Type::Number);
    static STRING: Schema<'static> = Schema::of(Type::String);
    static BOOL: Schema<'static> = Schema::of(Type::Boolean);
    static DURATION: Schema<'static> = Schema::string_format("duration");
    static DATE: Schema<'static> = Schema::string_format("date");
    static DATE_TIME: Schema<'static> = Schema::string_format("date-time");
    static LIST_OF_INT: Schema<'static> = Schema {
        items: Some(&INT),
        ..Schema::of(Type::Array)
    };
    static REQUIRED_STRING: Schema<'static> = Schema {
        properties: &[Property {
            name: "required",
            required: true,
            schema: &STRING,
        }],
        ..Schema::of(Type::Object)
    };

    /// The unbounded sizes written out in `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`.
    #[test]
    fn unbounded_lists_and_maps_as_the_apiserver_sizes_them() {
        for (items, want) in [
            (&INT, 1_572_863),
            (&NUMBER, 1_572_863),
            (&STRING, 1_048_575),
            (&BOOL, 629_145),
            (&DURATION, 786_431),
            (&DATE, 241_978),
            (&DATE_TIME, 142_987),
            (&LIST_OF_INT, 1_048_575),
            (&REQUIRED_STRING, 185_042),
        ] {
            assert_eq!(max_elements(&list_of(items)), Some(want));
        }
        for (values, want) in [
            (&NUMBER, 449_389),
            (&STRING, 393_215),
            (&DATE_TIME, 116_508),
        ] {
            assert_eq!(max_elements(&map_of(values)), Some(want));
        }
        assert_eq!(min_serialized_size(&REQUIRED_STRING), Some(16));
    }

    #[test]
    fn strings_by_format_length_and_enum() {
        assert_eq!(max_elements(&STRING), Some(3_145_726));
        assert_eq!(max_elements(&STRING.with_length(None, Some(10))), Some(40));
        let bytes = Schema::string_format("byte").with_length(None, Some(10));
        assert_eq!(max_elements(&bytes), Some(10));
        assert_eq!(max_elements(&DURATION.with_length(None, Some(5))), Some(32));
        assert_eq!(max_elements(&DATE), Some(12));
        assert_eq!(max_elements(&DATE_TIME), Some(32));
        let e = Schema {
            enum_values: &["\"TCP\"", "\"SCTP\""],
            ..Schema::of(Type::String)
        };
        assert_eq!(max_elements(&e), Some(4));
        let ios = Schema {
            int_or_string: true,
            max_length: Some(3),
            ..Schema::of(Type::Any)
        };
        assert_eq!(max_elements(&ios), Some(12));
    }

    #[test]
    fn bounds_and_invisible_nodes() {
        let bounded = Schema {
            max_items: Some(7),
            ..list_of(&STRING)
        };
        assert_eq!(max_elements(&bounded), Some(7));
        assert_eq!(max_elements(&Schema::of(Type::Any)), None);
        assert_eq!(min_serialized_size(&list_of(&INT)), Some(2));
        assert_eq!(
            unbounded_cardinality(&REQUIRED_STRING),
            Some(3_145_728 / 17)
        );
        // A required field with a default does not count in the minimum size.
        static DEFAULTED: Schema<'static> = Schema {
            properties: &[Property {
                name: "x",
                required: true,
                schema: &Schema {
                    has_default: true,
                    ..Schema::of(Type::String)
                },
            }],
            ..Schema::of(Type::Object)
        };
        assert_eq!(min_serialized_size(&DEFAULTED), Some(2));
    }
}
