//! Fingerprints of schema nodes: a 64-bit hash of everything the checker and the cost
//! estimator can read of a node, computed the same way natively and in const evaluation.
//!
//! The derive type-checks a rule natively when it can predict the model of the rule's node
//! from the source (std field types, types derived earlier in the same crate); the rule's const
//! item then only compares the fingerprint of the real `MODEL` with the prediction's and runs
//! the const checker when they differ. A fingerprint covers the node itself (type, bounds,
//! flags, each property's name and required-ness) and, whole, the properties the rule reads
//! ([`of_node`]'s `deep` mask) or every subtree ([`of_tree`]). Rules (`validations`) are left
//! out: neither the checker nor the estimator reads them.

use crate::model::{ListType, MapType, Property, Schema, Type};

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0000_0100_0000_01b3;

/// One FNV-1a step over a whole word, written out where it is used: in const evaluation a
/// call costs as much as several statements, and a fingerprint is mostly these steps.
macro_rules! mix {
    // `wrapping_mul` as the low half of a 128-bit product: an operator, not a call.
    ($h:ident, $x:expr) => {
        $h = ((($h ^ ($x)) as u128) * (PRIME as u128)) as u64
    };
}

/// The length, then eight bytes to a word (little-endian) and the last few one by one, read by
/// slice patterns: in const evaluation a byte read by index is a bounds check and an overflow
/// check, and the names of a large schema (the k8s-openapi types' thousands of properties) are
/// most of what a fingerprint reads.
macro_rules! mix_bytes {
    ($h:ident, $b:expr) => {{
        let mut t: &[u8] = $b;
        mix!($h, t.len() as u64);
        while let [a, b, c, d, e, f, g, i, rest @ ..] = t {
            mix!(
                $h,
                *a as u64
                    | (*b as u64) << 8
                    | (*c as u64) << 16
                    | (*d as u64) << 24
                    | (*e as u64) << 32
                    | (*f as u64) << 40
                    | (*g as u64) << 48
                    | (*i as u64) << 56
            );
            t = rest;
        }
        while let [a, rest @ ..] = t {
            mix!($h, *a as u64);
            t = rest;
        }
    }};
}

/// Mixes an optional slot's value when present (which slots are present is mixed once, as one
/// word, by [`shallow`]).
macro_rules! mix_option {
    ($h:ident, $v:expr, $some:ident => $word:expr) => {
        if let Some($some) = $v {
            mix!($h, $word);
        }
    };
}

const fn ty_code(t: Type) -> u64 {
    match t {
        Type::Any => 1,
        Type::Boolean => 2,
        Type::Integer => 3,
        Type::Number => 4,
        Type::String => 5,
        Type::Array => 6,
        Type::Object => 7,
        Type::Unknown => 8,
    }
}

/// The fingerprint of `s` and all of its subtrees.
pub const fn of_tree(s: &Schema<'_>) -> u64 {
    of_node(s, u64::MAX)
}

/// The fingerprint of `s` with the subtrees of the properties whose bit is set in `deep`
/// (bit `k`: `properties[k]`; properties from 64 on count as set), and of `items`,
/// `additionalProperties` and flattened nodes, whole. Other properties contribute their name
/// and required-ness only.
pub const fn of_node(s: &Schema<'_>, deep: u64) -> u64 {
    with_properties(shallow(s), s, deep)
}

/// [`of_node`] with no property subtree.
// `matches!` rather than `is_some()`: a call costs several statements in const evaluation.
#[allow(clippy::redundant_pattern_matching)]
pub const fn shallow(s: &Schema<'_>) -> u64 {
    // Every slot named, so that a slot added to `Schema` cannot be forgotten here.
    let Schema {
        ty,
        format,
        nullable,
        has_default,
        enum_values,
        max_length,
        min_length,
        max_items,
        min_items,
        max_properties,
        min_properties,
        minimum,
        maximum,
        pattern,
        properties,
        // A cache of what `with_properties` computes from `properties`, not a slot of its own.
        properties_fingerprint: _,
        flatten,
        items,
        additional_properties,
        list_type,
        list_map_keys,
        map_type,
        int_or_string,
        preserve_unknown_fields,
        embedded_resource,
        validations: _,
    } = *s;
    let mut h = OFFSET;
    mix!(h, ty_code(ty));
    mix!(
        h,
        matches!(format, Some(_)) as u64
            | (matches!(max_length, Some(_)) as u64) << 1
            | (matches!(min_length, Some(_)) as u64) << 2
            | (matches!(max_items, Some(_)) as u64) << 3
            | (matches!(min_items, Some(_)) as u64) << 4
            | (matches!(max_properties, Some(_)) as u64) << 5
            | (matches!(min_properties, Some(_)) as u64) << 6
            | (matches!(minimum, Some(_)) as u64) << 7
            | (matches!(maximum, Some(_)) as u64) << 8
            | (matches!(pattern, Some(_)) as u64) << 9
            | (matches!(items, Some(_)) as u64) << 10
            | (matches!(additional_properties, Some(_)) as u64) << 11
    );
    mix_option!(h, format, f => {
        mix_bytes!(h, f.as_bytes());
        0
    });
    mix!(
        h,
        nullable as u64
            | (has_default as u64) << 1
            | (int_or_string as u64) << 2
            | (preserve_unknown_fields as u64) << 3
            | (embedded_resource as u64) << 4
            | (match list_type {
                None => 0,
                Some(ListType::Atomic) => 1,
                Some(ListType::Set) => 2,
                Some(ListType::Map) => 3,
            }) << 5
            | (match map_type {
                None => 0,
                Some(MapType::Atomic) => 1,
                Some(MapType::Granular) => 2,
            }) << 7
    );
    // Lengths read once: in const evaluation each `len()` is two calls.
    let len_i = enum_values.len();
    mix!(h, len_i as u64);
    let mut i = 0;
    while i < len_i {
        mix_bytes!(h, enum_values[i].as_bytes());
        i += 1;
    }
    mix_option!(h, max_length, v => v);
    mix_option!(h, min_length, v => v);
    mix_option!(h, max_items, v => v);
    mix_option!(h, min_items, v => v);
    mix_option!(h, max_properties, v => v);
    mix_option!(h, min_properties, v => v);
    mix_option!(h, minimum, v => v.to_bits());
    mix_option!(h, maximum, v => v.to_bits());
    mix_option!(h, pattern, p => {
        mix_bytes!(h, p.as_bytes());
        0
    });
    // Lengths read once: in const evaluation each `len()` is two calls.
    let len_i = list_map_keys.len();
    mix!(h, len_i as u64);
    let mut i = 0;
    while i < len_i {
        mix_bytes!(h, list_map_keys[i].as_bytes());
        i += 1;
    }
    // Lengths read once: in const evaluation each `len()` is two calls.
    let len_i = properties.len();
    mix!(h, len_i as u64);
    let mut i = 0;
    while i < len_i {
        mix_bytes!(h, properties[i].name.as_bytes());
        mix!(h, properties[i].required as u64);
        i += 1;
    }
    // Lengths read once: in const evaluation each `len()` is two calls.
    let len_i = flatten.len();
    mix!(h, len_i as u64);
    let mut i = 0;
    while i < len_i {
        mix!(h, of_tree(flatten[i]));
        i += 1;
    }
    mix_option!(h, items, items => of_tree(items));
    mix_option!(h, additional_properties, values => of_tree(values));
    h
}

/// `shape` (the [`shallow`] fingerprint of `s`) with the subtrees of the properties `deep`
/// selects, as [`of_node`] has them. With every property selected (`u64::MAX`), the subtrees
/// count as one word, [`of_properties`], which a large model carries precomputed
/// ([`Schema::properties_fingerprint`]).
pub const fn with_properties(shape: u64, s: &Schema<'_>, deep: u64) -> u64 {
    let mut h = shape;
    if deep == u64::MAX {
        mix!(
            h,
            match s.properties_fingerprint {
                Some(fp) => *fp,
                None => of_properties(s.properties),
            }
        );
        return h;
    }
    let mut i = 0;
    let len = s.properties.len();
    while i < len {
        if i >= 64 || deep & (1 << i) != 0 {
            mix!(h, i as u64);
            mix!(h, of_tree(s.properties[i].schema));
        }
        i += 1;
    }
    h
}

/// The fingerprint of the subtrees of `properties`, in order (their names and required-ness
/// are in the node's [`shallow`] fingerprint). A generated k8s-openapi model keeps it in a
/// `static` ([`Schema::properties_fingerprint`]): the `PodTemplateSpec` a rule reads into is
/// thousands of nodes, hashed then once when crd-cel-core is compiled rather than in the const
/// evaluation of every crate whose rules read it.
pub const fn of_properties(properties: &[Property<'_>]) -> u64 {
    let mut h = OFFSET;
    // Lengths read once: in const evaluation each `len()` is two calls.
    let len = properties.len();
    mix!(h, len as u64);
    let mut i = 0;
    while i < len {
        mix!(h, of_tree(properties[i].schema));
        i += 1;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CelSchema;

    const ITEM: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "key",
                required: true,
                schema: &Schema {
                    max_length: Some(64),
                    ..Schema::of(Type::String)
                },
            },
            Property {
                name: "weight",
                required: true,
                schema: &<i64 as CelSchema>::MODEL,
            },
        ],
        ..Schema::of(Type::Object)
    };

    #[test]
    fn the_same_in_const_evaluation_and_at_runtime() {
        const AT_BUILD: u64 = of_tree(&ITEM);
        assert_eq!(AT_BUILD, of_tree(&ITEM));
    }

    #[test]
    fn every_slot_the_checker_reads_changes_it() {
        let base = of_tree(&ITEM);
        let key = Schema {
            max_length: Some(63),
            ..Schema::of(Type::String)
        };
        let props = [
            Property {
                name: "key",
                required: true,
                schema: &key,
            },
            ITEM.properties[1],
        ];
        let changed = Schema {
            properties: &props,
            ..ITEM
        };
        assert_ne!(base, of_tree(&changed), "a bound deep in a property");
        // ... but not when that property is outside the deep mask.
        assert_eq!(of_node(&ITEM, 0b10), of_node(&changed, 0b10));
        assert_ne!(of_node(&ITEM, 0b01), of_node(&changed, 0b01));
        let renamed = [
            Property {
                name: "kee",
                ..ITEM.properties[0]
            },
            ITEM.properties[1],
        ];
        let renamed = Schema {
            properties: &renamed,
            ..ITEM
        };
        assert_ne!(
            of_node(&ITEM, 0),
            of_node(&renamed, 0),
            "names always count"
        );
        for s in [
            Schema {
                nullable: true,
                ..ITEM
            },
            Schema {
                max_properties: Some(3),
                ..ITEM
            },
            Schema {
                preserve_unknown_fields: true,
                ..ITEM
            },
            Schema {
                embedded_resource: true,
                ..ITEM
            },
            Schema {
                has_default: true,
                ..ITEM
            },
            Schema {
                format: Some("x"),
                ..ITEM
            },
        ] {
            assert_ne!(of_node(&ITEM, 0), of_node(&s, 0), "{s:?}");
        }
        let list = <Vec<String> as CelSchema>::MODEL;
        let set = Schema {
            list_type: Some(ListType::Set),
            ..list
        };
        assert_ne!(of_tree(&list), of_tree(&set));
        let bounded = Schema {
            max_items: Some(3),
            ..list
        };
        assert_ne!(of_tree(&list), of_tree(&bounded));
    }
}
