//! The typed fast path's copy of the OpenAPI checks: the [`Check`] of each node, without its
//! children, kept in the validator's side table beside the tree node of the same place.

use std::sync::Arc;

use serde_json::Value as Json;

use super::decode::{Keys, default_of, keys};
use super::openapi::{Bound, Check, Limits, NumberRange, fits_type, format_ok};
use crate::eval::go::regex::GoRegex;
use crate::model::Type;
use crate::tree::{ListKind, SchemaNode, is_type_or_object_meta};

/// The kind of JSON value the typed fast path meets at a node (a float, a string, ...).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
    List,
    Object,
}

impl Kind {
    /// Every kind, in order.
    const ALL: [Kind; 7] = [
        Kind::Null,
        Kind::Bool,
        Kind::Int,
        Kind::Float,
        Kind::Str,
        Kind::List,
        Kind::Object,
    ];
}

/// The constraints of one schema node as the typed fast path reads them (a copy of the node's
/// [`Check`] without its children, attached to the [`SchemaNode`] of the same place, in the side table). The fast
/// path only answers "nothing to report": every predicate here is true only where [`validate`]
/// reports nothing, and anything else sends the object down the JSON path for the exact errors.
#[derive(Debug)]
pub(crate) struct Bounds {
    /// `type`, which decides how number bounds compare with integer data.
    ty: Option<String>,
    /// A number bound does not fit the type and format: every number gets an error for it.
    unfit_bound: bool,
    /// No `enum`, `format`, length or `pattern`: every string passes [`Bounds::string_ok`]
    /// (most string fields).
    strings_unbounded: bool,
    /// Only `maxLength` and `minLength`, if any: a string passes [`Bounds::string_ok`] when
    /// its length does.
    lengths_only: bool,
    /// No `enum` or number bound: a number passes [`Bounds::number_ok`] when it fits the
    /// type and format (most number fields).
    numbers_unbounded: bool,
    /// The range the type and format keep numbers in.
    range: NumberRange,
    /// The kinds of value [`Bounds::fits`] takes, one bit each (by [`Kind`]'s order).
    kinds: u8,
    pub(crate) nullable: bool,
    pattern: Option<Arc<GoRegex>>,
    limits: Limits,
    /// `required`, as indices into the node's properties.
    pub(crate) required: Vec<usize>,
    /// Each property's place among the properties in JSON key order (byte-wise).
    pub(crate) rank: Vec<u32>,
    /// What the apiserver's decoding would change here ([`Decoded`]): nothing for a model's
    /// validator, whose objects are not decoded.
    pub(crate) decoded: Decoded,
    /// `allOf`, `anyOf` and `oneOf` of branches that only require properties, if any.
    composed: Option<Box<Composed>>,
}

/// `allOf`, `anyOf` and `oneOf` whose every branch only requires properties (as indices).
#[derive(Debug, Default)]
struct Composed {
    all_of: Vec<Vec<usize>>,
    any_of: Vec<Vec<usize>>,
    one_of: Vec<Vec<usize>>,
}

/// What the apiserver's decoding of an object ([`super::decode`]) changes at one node, for a
/// validator whose objects are decoded (a type's generated schema): the typed fast path defers
/// wherever decoding would change the serialized value, so that it answers for the object the
/// JSON path validates.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    /// Undeclared keys are pruned (a resource's `apiVersion`, `kind` and `metadata` are kept).
    pub(crate) prunes: bool,
    /// The properties with a `default`, applied where they are absent, as indices.
    pub(crate) defaulted: Vec<usize>,
}

impl Decoded {
    /// What decoding changes at `node`, from its JSON schema `schema`; `None` where the fast
    /// path would not see it (a default on a property the tree leaves out, empty `properties`
    /// beside an `additionalProperties` schema, which decoding prunes and the tree reads as a
    /// map), and defers.
    pub(super) fn of(node: &SchemaNode, schema: &Json) -> Option<Decoded> {
        let Keys::Declared { prunes } = keys(schema) else {
            return Some(Decoded::default());
        };
        if schema
            .get("additionalProperties")
            .is_some_and(Json::is_object)
        {
            return None;
        }
        let mut defaulted = Vec::new();
        let properties = schema.get("properties").and_then(Json::as_object);
        for (name, property) in properties.into_iter().flatten() {
            if default_of(property).is_some() {
                defaulted.push(node.properties.iter().position(|(n, _)| **n == **name)?);
            }
        }
        Some(Decoded { prunes, defaulted })
    }
}

impl Bounds {
    /// The bounds of `node`, when its JSON schema `check` is read the same way (same type,
    /// every required name a declared property, map-list keys declared); a node left without
    /// bounds makes the fast path defer.
    pub(super) fn of(node: &SchemaNode, check: &Check) -> Option<Bounds> {
        let ty_agrees = match (&check.ty, node.ty) {
            (None, Type::Any) => true,
            (Some(t), ty) => ty.as_openapi() == Some(t.as_str()),
            _ => false,
        };
        let required: Option<Vec<usize>> = check
            .required
            .iter()
            .map(|r| node.properties.iter().position(|(n, _)| **n == **r))
            .collect();
        let keys_declared = match &node.list_kind {
            ListKind::Map(keys) => node
                .items
                .as_ref()
                .is_some_and(|i| keys.iter().all(|k| i.property(k).is_some())),
            _ => true,
        };
        let pattern = match &check.pattern {
            // A pattern that does not compile is not checked by the JSON path either.
            Some((_, re)) => re.clone(),
            None => None,
        };
        // A resource's declared type and object meta are not in the tree (the implicit ones
        // are): they count only when the JSON path has nothing to check in them.
        let declared = |(name, c): &&(String, Check)| {
            !(node.type_meta && is_type_or_object_meta(name) && c.is_unconstrained())
        };
        let same_properties =
            node.properties.len() == check.properties.iter().filter(declared).count();
        // `allOf`/`anyOf`/`oneOf` only of `required` branches; not `not`.
        let branches = |of: &[Check]| -> Option<Vec<Vec<usize>>> {
            of.iter()
                .map(|b| {
                    let names = b.required_only()?;
                    names
                        .iter()
                        .map(|r| node.properties.iter().position(|(n, _)| **n == **r))
                        .collect()
                })
                .collect()
        };
        let composed = Composed {
            all_of: branches(&check.all_of)?,
            any_of: branches(&check.any_of)?,
            one_of: branches(&check.one_of)?,
        };
        let composed = (!(composed.all_of.is_empty()
            && composed.any_of.is_empty()
            && composed.one_of.is_empty()))
        .then(|| Box::new(composed));
        if check.not.is_some() {
            return None;
        }
        let (Some(required), true, true, true, true, true) = (
            required,
            ty_agrees,
            keys_declared,
            same_properties,
            check.int_or_string == node.int_or_string,
            check.nullable == node.nullable,
        ) else {
            return None;
        };
        let mut order: Vec<usize> = (0..node.properties.len()).collect();
        order.sort_by(|&a, &b| node.properties[a].0.cmp(&node.properties[b].0));
        let mut rank = vec![0; order.len()];
        for (r, i) in order.into_iter().enumerate() {
            rank[i] = r as u32;
        }
        let unfit_bound = [
            check.limits.multiple_of,
            check.limits.minimum,
            check.limits.maximum,
        ]
        .into_iter()
        .flatten()
        .any(|b| {
            !fits_type(
                &Json::from(b),
                check.ty.as_deref(),
                check.limits.format.as_deref(),
            )
        });
        let l = &check.limits;
        let strings_unbounded = l.enum_values.is_empty()
            && l.format.is_none()
            && l.max_length.is_none()
            && l.min_length.is_none()
            && pattern.is_none();
        let lengths_only = l.enum_values.is_empty() && l.format.is_none() && pattern.is_none();
        let numbers_unbounded = l.enum_values.is_empty()
            && l.maximum.is_none()
            && l.minimum.is_none()
            && l.multiple_of.is_none()
            && !unfit_bound;
        let mut bounds = Bounds {
            ty: check.ty.clone(),
            unfit_bound,
            strings_unbounded,
            lengths_only,
            numbers_unbounded,
            range: NumberRange::of(check.ty.as_deref(), l.format.as_deref()),
            kinds: 0,
            nullable: check.nullable,
            pattern,
            limits: check.limits.clone(),
            required,
            rank,
            decoded: Decoded::default(),
            composed,
        };
        bounds.kinds = Kind::ALL
            .into_iter()
            .filter(|&k| bounds.takes(node, k))
            .fold(0, |kinds, k| kinds | 1 << k as u8);
        Some(bounds)
    }

    /// Whether objects here are changed by decoding in some cases, or checked by
    /// `allOf`/`anyOf`/`oneOf` (what the common case can skip).
    pub(crate) fn decoded_or_composed(&self) -> bool {
        self.decoded.prunes || !self.decoded.defaulted.is_empty() || self.composed.is_some()
    }

    /// Whether an object with the properties `has` passes `allOf`, `anyOf` and `oneOf` (each
    /// branch validated exactly when the object has every property it requires).
    pub(crate) fn composition_ok(&self, has: impl Fn(usize) -> bool) -> bool {
        let Some(c) = &self.composed else {
            return true;
        };
        let validates = |b: &Vec<usize>| b.iter().all(|&i| has(i));
        c.all_of.iter().all(validates)
            && (c.any_of.is_empty() || c.any_of.iter().any(validates))
            && (c.one_of.is_empty() || c.one_of.iter().filter(|b| validates(b)).count() == 1)
    }

    /// Whether a value of `kind` is one the fast path takes at this node without reading
    /// more than its kind ([`Bounds::takes`], read once).
    #[inline(always)]
    pub(crate) fn fits(&self, kind: Kind) -> bool {
        self.kinds & 1 << kind as u8 != 0
    }

    /// Whether a value of `kind` is one the fast path takes at `node` without reading more
    /// than its kind: `null` where the node is nullable, the node's type (an integer under
    /// `number` is read from its JSON text by the JSON path, so not taken), no compound value
    /// under an `enum`; a string, an integer or a `bool` where the node has no type, and an
    /// object or a list too where it keeps any value (an adjacently tagged enum's content of
    /// several types). The serde pass and the checks on views ask the same.
    fn takes(&self, node: &SchemaNode, kind: Kind) -> bool {
        let ios = node.int_or_string;
        match kind {
            Kind::Null => self.nullable && node.nullable,
            Kind::Bool => (node.ty == Type::Boolean && !ios) || self.untyped(node),
            Kind::Int => ios || node.ty == Type::Integer || self.untyped(node),
            Kind::Float => node.ty == Type::Number && !ios,
            Kind::Str => ios || node.ty == Type::String || self.untyped(node),
            Kind::List => {
                (node.ty == Type::Array && !ios || self.keeps_any(node)) && self.no_enum()
            }
            Kind::Object => {
                (node.ty == Type::Object && !ios || self.keeps_any(node)) && self.no_enum()
            }
        }
    }

    /// The node has no type (nor is it int-or-string).
    pub(crate) fn untyped(&self, node: &SchemaNode) -> bool {
        node.ty == Type::Any && self.ty.is_none() && !node.int_or_string
    }

    /// The node keeps any value whole (`x-kubernetes-preserve-unknown-fields` without a type).
    pub(crate) fn keeps_any(&self, node: &SchemaNode) -> bool {
        self.untyped(node) && node.preserve_unknown_fields
    }

    /// Whether a string passes `enum`, `format`, lengths and `pattern`: inline where there are
    /// none or only lengths (most strings), out of line otherwise.
    #[inline(always)]
    pub(crate) fn string_ok(&self, s: &str) -> bool {
        match (self.strings_unbounded, self.lengths_only) {
            (true, _) => true,
            (false, true) => self.length_ok(s),
            (false, false) => self.string_constraints_ok(s),
        }
    }

    /// [`Bounds::string_ok`] beyond lengths.
    #[inline(never)]
    fn string_constraints_ok(&self, s: &str) -> bool {
        if !self.limits.enum_values.is_empty()
            && !self
                .limits
                .enum_values
                .iter()
                .any(|e| matches!(e, Json::String(x) if x == s))
        {
            return false;
        }
        if let Some(format) = &self.limits.format
            && format_ok(format, s) == Some(false)
        {
            return false;
        }
        self.length_ok(s) && self.pattern.as_ref().is_none_or(|re| re.is_match(s))
    }

    /// Whether a string passes `maxLength` and `minLength` (in code points).
    #[inline(always)]
    fn length_ok(&self, s: &str) -> bool {
        // A string has between len/4 and len code points: most lengths are settled without
        // counting them.
        let bytes = s.len() as u64;
        let settled = self.limits.max_length.is_none_or(|m| bytes <= m)
            && self
                .limits
                .min_length
                .is_none_or(|m| bytes.div_ceil(4) >= m);
        settled || self.runes_ok(s)
    }

    /// [`Bounds::length_ok`] where the bytes leave it open: the code points counted.
    #[inline(never)]
    fn runes_ok(&self, s: &str) -> bool {
        let runes = s.chars().count() as u64;
        self.limits.max_length.is_none_or(|m| runes <= m)
            && self.limits.min_length.is_none_or(|m| runes >= m)
    }

    /// Whether an integer (`int`) or a float (`float`, with `int: None`) passes `enum` and the
    /// number bounds: inline where there are none (most numbers), out of line otherwise.
    #[inline(always)]
    pub(crate) fn number_ok(&self, int: Option<i64>, v: f64) -> bool {
        // A value that does not fit the type and format is an error of its own.
        match self.numbers_unbounded {
            true => self.range.fits(int, Some(v)),
            false => self.number_constraints_ok(int, v),
        }
    }

    /// [`Bounds::number_ok`] with an `enum` or bounds.
    #[inline(never)]
    fn number_constraints_ok(&self, int: Option<i64>, v: f64) -> bool {
        if !self.limits.enum_values.is_empty()
            && !self
                .limits
                .enum_values
                .iter()
                .any(|e| matches!(e, Json::Number(n) if n.as_f64() == Some(v)))
        {
            return false;
        }
        // A value or bound that does not fit the type and format is an error of its own.
        if self.unfit_bound || !self.range.fits(int, Some(v)) {
            return false;
        }
        let ty = self.ty.as_deref();
        if let Some(m) = self.limits.multiple_of
            && m > 0.0
        {
            let ok = match (int, Bound::of(m, ty, self.limits.format.as_deref(), int)) {
                (Some(i), Bound::Int(factor)) => factor > 0 && i % factor == 0,
                _ => (v / m).fract() == 0.0,
            };
            if !ok {
                return false;
            }
        }
        self.limits.exceeded_maximum(ty, int, v).is_none()
            && self.limits.missed_minimum(ty, int, v).is_none()
    }

    /// Whether a boolean passes `enum`.
    pub(crate) fn bool_ok(&self, b: bool) -> bool {
        self.limits.enum_values.is_empty()
            || self
                .limits
                .enum_values
                .iter()
                .any(|e| matches!(e, Json::Bool(x) if *x == b))
    }

    /// Whether a list or object has no `enum` (the fast path does not compare compound values).
    pub(crate) fn no_enum(&self) -> bool {
        self.limits.enum_values.is_empty()
    }

    /// Whether a list of `n` items passes `maxItems`/`minItems`.
    pub(crate) fn items_ok(&self, n: usize) -> bool {
        let n = n as u64;
        self.limits.max_items.is_none_or(|m| n <= m) && self.limits.min_items.is_none_or(|m| n >= m)
    }

    /// Whether an object or map of `n` entries passes `maxProperties`/`minProperties`.
    pub(crate) fn properties_ok(&self, n: usize) -> bool {
        let n = n as u64;
        self.limits.max_properties.is_none_or(|m| n <= m)
            && self.limits.min_properties.is_none_or(|m| n >= m)
    }

    /// Whether the entry count is checked (then duplicate keys must be ruled out exactly).
    pub(crate) fn counts_properties(&self) -> bool {
        self.limits.max_properties.is_some() || self.limits.min_properties.is_some()
    }
}
