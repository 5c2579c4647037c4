//! The OpenAPI schema checks the apiserver runs on a custom resource before CEL
//! (kube-openapi's validator as `apiextensions-apiserver/pkg/apiserver/validation` maps its
//! results to field errors, `k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go`): types, nullability, `enum`, string lengths and
//! `pattern`, number bounds and `multipleOf`, item and property counts, `required`.
//!
//! String formats are checked as the apiserver's format registry does for the formats CRDs may
//! use (ipv4, ipv6, cidr, hostname, uri, email, uuid*, date, date-time, duration, byte, mac,
//! hexcolor, ssn, password, k8s-short-name, k8s-long-name). Not done yet, and failing open (no
//! error): the isbn, creditcard, rgbcolor and bsonobjectid formats, and the embedded-ObjectMeta
//! checks.

use std::sync::Arc;

use serde_json::{Map, Value as Json};

use super::path::Path;
use super::{BadValue, ErrorType, FieldError};
use crate::eval::go::regex::{GoRegex, compiled_regex};

mod composition;
mod number;

use composition::composition;
pub(super) use number::{Bound, NumberRange, fits_type};
use number::{is_json_integer, number};

/// The value constraints of a schema node (enum, format, bounds), shared by [`Check`] and the
/// fast path's [`Bounds`](super::bounds::Bounds).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Limits {
    pub(super) enum_values: Vec<Json>,
    pub(super) format: Option<String>,
    pub(super) max_length: Option<u64>,
    pub(super) min_length: Option<u64>,
    pub(super) maximum: Option<f64>,
    pub(super) exclusive_maximum: bool,
    pub(super) minimum: Option<f64>,
    pub(super) exclusive_minimum: bool,
    pub(super) multiple_of: Option<f64>,
    pub(super) max_items: Option<u64>,
    pub(super) min_items: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) min_properties: Option<u64>,
}

/// The OpenAPI constraints of one schema node, read once from its JSON.
#[derive(Debug, Default)]
pub(crate) struct Check {
    pub(super) ty: Option<String>,
    pub(super) int_or_string: bool,
    pub(super) nullable: bool,
    pub(super) pattern: Option<(String, Option<Arc<GoRegex>>)>,
    pub(super) limits: Limits,
    pub(super) required: Vec<String>,
    pub(super) properties: Vec<(String, Check)>,
    pub(super) additional: Option<Box<Check>>,
    pub(super) items: Option<Box<Check>>,
    /// `x-kubernetes-list-type: map` keys, for correlating old items on update.
    pub(super) map_keys: Option<Vec<String>>,
    /// `allOf`, `anyOf`, `oneOf` and `not` (value validations only, in a structural schema).
    pub(super) all_of: Vec<Check>,
    pub(super) any_of: Vec<Check>,
    pub(super) one_of: Vec<Check>,
    pub(super) not: Option<Box<Check>>,
}

impl Check {
    /// Reads a structural schema.
    pub(crate) fn compile(schema: &Json) -> Check {
        let num = |k: &str| schema.get(k).and_then(Json::as_f64);
        let count = |k: &str| schema.get(k).and_then(Json::as_u64);
        let flag = |k: &str| schema.get(k).and_then(Json::as_bool) == Some(true);
        let text = |k: &str| schema.get(k).and_then(Json::as_str).map(str::to_owned);
        let list = |k: &str| -> Vec<Check> {
            schema
                .get(k)
                .and_then(Json::as_array)
                .map(|a| a.iter().map(Check::compile).collect())
                .unwrap_or_default()
        };
        Check {
            ty: text("type"),
            int_or_string: flag("x-kubernetes-int-or-string"),
            nullable: flag("nullable"),
            // A pattern the regex engine cannot compile was rejected when the CRD was created.
            pattern: text("pattern").map(|p| {
                let re = compiled_regex(&p).ok();
                (p, re)
            }),
            limits: Limits {
                enum_values: schema
                    .get("enum")
                    .and_then(Json::as_array)
                    .cloned()
                    .unwrap_or_default(),
                format: text("format"),
                max_length: count("maxLength"),
                min_length: count("minLength"),
                maximum: num("maximum"),
                exclusive_maximum: flag("exclusiveMaximum"),
                minimum: num("minimum"),
                exclusive_minimum: flag("exclusiveMinimum"),
                multiple_of: num("multipleOf"),
                max_items: count("maxItems"),
                min_items: count("minItems"),
                max_properties: count("maxProperties"),
                min_properties: count("minProperties"),
            },
            required: schema
                .get("required")
                .and_then(Json::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Json::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            properties: schema
                .get("properties")
                .and_then(Json::as_object)
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| (k.clone(), Check::compile(v)))
                        .collect()
                })
                .unwrap_or_default(),
            additional: schema
                .get("additionalProperties")
                .filter(|a| a.is_object())
                .map(|a| Box::new(Check::compile(a))),
            items: schema.get("items").map(|i| Box::new(Check::compile(i))),
            all_of: list("allOf"),
            any_of: list("anyOf"),
            one_of: list("oneOf"),
            not: schema.get("not").map(|n| Box::new(Check::compile(n))),
            map_keys: (schema.get("x-kubernetes-list-type").and_then(Json::as_str) == Some("map"))
                .then(|| {
                    schema
                        .get("x-kubernetes-list-map-keys")
                        .and_then(Json::as_array)
                        .map(|k| {
                            k.iter()
                                .filter_map(Json::as_str)
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default()
                }),
        }
    }

    /// Whether the node checks nothing beyond its type (a resource's `metadata: {type:
    /// object}` as controller-gen declares it).
    pub(super) fn is_unconstrained(&self) -> bool {
        self.required.is_empty() && self.only_required()
    }

    /// The names of a branch of `allOf`/`anyOf`/`oneOf` that checks only `required` (the
    /// structural schema of an externally tagged enum, `oneOf: [{required: [a]}, ..]`): an
    /// object validates it exactly when it has each name.
    pub(super) fn required_only(&self) -> Option<&[String]> {
        (matches!(self.ty.as_deref(), None | Some("object")) && self.only_required())
            .then_some(&self.required[..])
    }

    /// Whether the node checks nothing beyond its type and `required`.
    fn only_required(&self) -> bool {
        !self.nullable
            && !self.int_or_string
            && self.pattern.is_none()
            && self.limits == Limits::default()
            && self.properties.is_empty()
            && self.additional.is_none()
            && self.items.is_none()
            && self.map_keys.is_none()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.one_of.is_empty()
            && self.not.is_none()
    }

    pub(super) fn property(&self, name: &str) -> Option<&Check> {
        self.properties
            .iter()
            .find(|(k, _)| crate::tree::name_eq(k, name))
            .map(|(_, c)| c)
    }
}

/// Where ratcheting looks: the node's new and correlated old data, or the nearest correlatable
/// ancestor's.
type Pair<'a> = Option<(&'a Json, &'a Json, &'a Check)>;

struct Walk<'o> {
    out: &'o mut Vec<FieldError>,
    /// The Kubernetes minor release whose texts to write (`super::release`).
    minor: u8,
}

impl Walk<'_> {
    /// Reports an error unless ratcheting lets it stand (the node, or its nearest correlatable
    /// ancestor, is unchanged on update).
    fn push(&mut self, pair: Pair<'_>, e: FieldError) {
        if !pair.is_some_and(|(new, old, s)| super::correlate::unchanged(s, new, old)) {
            self.out.push(e);
        }
    }
}

/// A plain (non-`Validation`) error of kube-openapi, as the apiserver reports it: at a nil path
/// with an empty value (`kubeOpenAPIResultToFieldErrors`' default case).
/// An error kube-openapi reports as a plain error (not a `*errors.Validation`): the apiserver
/// puts it at the path the validator was given (nil for the object, `status` on a status
/// update) with an empty value (`ValidateCustomResource` in apiextensions' validation).
fn plain_error(at: &Path<'_>, detail: String) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        path: at.root().field(),
        value: BadValue::Value(Json::String(String::new())),
        detail,
    }
}

fn invalid(at: &Path<'_>, value: &Json, detail: String) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        path: at.field(),
        value: BadValue::Value(value.clone()),
        detail,
    }
}

/// The JSON type name kube-openapi reports for data of the wrong type: an integer beyond int64
/// is a float64 to the apiserver's decoder, so a `number`.
fn data_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_i64() => "integer",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// kube-openapi's `typeValidator` on a value that is not null: the expected type (or format) and
/// the value's type (or Go format) as its message names them, when they do not match. It
/// applies to a node with a type or a format (`types` is the node's type list: empty without a
/// type, `integer`, `string` for int-or-string), in kube-openapi's order: with a `format`, a
/// value that is neither a string nor a list is compared with the format first (`must be of
/// type int32: ""` for a boolean, `ipv4: "int64"` for a number, also on a node without a
/// type), and a string or list under a format on a non-numeric type is not type-checked at
/// all; then the type list.
fn type_error(
    types: &[&str],
    format: Option<&str>,
    value: &Json,
) -> Option<(String, &'static str)> {
    let format = format.filter(|f| !f.is_empty());
    let value_type = data_type(value);
    // The format Go infers from the decoded value (int64 and float64 for numbers).
    let value_format = match value_type {
        "integer" => "int64",
        "number" => "float64",
        _ => "",
    };
    let has = |t: &str| types.contains(&t);
    let float_int =
        value_type == "number" && has("integer") && value.as_f64().is_some_and(is_json_integer);
    let int_float = value_type == "integer" && has("number");
    let matches = has(value_type) || float_int || int_float;
    let string_or_list = value.is_string() || value.is_array();
    if let Some(f) = format {
        if !(string_or_list || matches || value_format == f) {
            return Some((f.to_owned(), value_format));
        }
        if !(has("number") || has("integer")) && string_or_list {
            return None;
        }
    }
    // Without a type or a format the validator does not apply.
    (!matches && !types.is_empty()).then(|| (types.join(","), value_type))
}

/// Validates `value` against the compiled schema, appending the apiserver's field errors.
///
/// `old` is the correlated old value on update (object fields by name, map-list items by key);
/// an error at a node that equals its old value (or, where nothing correlates, whose nearest
/// correlatable ancestor does) is dropped, as the apiserver's ratcheting validator does.
/// `at` is where `value` is in the object: the nil root for the object, `status` on a status
/// update (errors are reported at `status.x`, and kube-openapi's messages name `x`).
pub(crate) fn validate(
    check: &Check,
    value: &Json,
    old: Option<&Json>,
    at: &Path<'_>,
    minor: u8,
    out: &mut Vec<FieldError>,
) {
    let mut w = Walk { out, minor };
    node(
        &mut w,
        check,
        value,
        old.map(|o| (value, o, check)),
        old,
        at,
    );
}

fn node(
    w: &mut Walk<'_>,
    c: &Check,
    value: &Json,
    inherited: Pair<'_>,
    old: Option<&Json>,
    at: &Path<'_>,
) {
    let pair = match old {
        Some(o) => Some((value, o, c)),
        None => inherited,
    };
    // kube-openapi's type list: `integer`, `string` for int-or-string (whose format is then
    // kept as a typeless node's), else the type if any.
    let one;
    let (types, ty): (&[&str], _) = match c.ty.as_deref() {
        _ if c.int_or_string => (&["integer", "string"], None),
        Some(t) => {
            one = [t];
            (&one, Some(t))
        }
        None => (&[], None),
    };
    if value.is_null() {
        if !c.nullable && !types.is_empty() {
            let name = at.body();
            let ty = types.join(",");
            w.push(
                pair,
                FieldError {
                    kind: ErrorType::TypeInvalid,
                    path: at.field(),
                    value: BadValue::Value(Json::String("null".into())),
                    detail: format!("{name} in body must be of type {ty}: \"null\""),
                },
            );
        }
        return;
    }
    let format = super::release::kept_format(ty, c.limits.format.as_deref(), w.minor);
    let wanted = type_error(types, format, value);
    // kube-openapi's validators in its order (`SchemaValidator`): type, allOf/anyOf/oneOf/not,
    // string, format, number, items, enum, object; the apiserver reports their errors in it.
    if let Some((ty, t)) = &wanted {
        w.push(
            pair,
            FieldError {
                kind: ErrorType::TypeInvalid,
                path: at.field(),
                value: BadValue::Value(Json::String((*t).into())),
                detail: format!("{} in body must be of type {ty}: \"{t}\"", at.body()),
            },
        );
    }
    // Every validator that applies to the value's kind runs after a type error too:
    // allOf/anyOf/oneOf/not and enum apply to any value (an array where an object is wanted
    // passes both branches of a oneOf on properties: "Found 2 valid alternatives"), and the
    // number checks to a number of the wrong kind (a float where an integer is wanted).
    composition(w, c, value, pair, old, at);
    if wanted.is_some() {
        if value.is_number() && !c.int_or_string {
            number(w, c, value, pair, at);
        }
        return enumeration(w, c, value, pair, at);
    }
    match value {
        Json::String(s) => string(w, c, s, value, pair, at),
        Json::Number(_) => number(w, c, value, pair, at),
        Json::Array(items) => {
            if let Some(item_check) = &c.items {
                let olds = old.and_then(Json::as_array);
                for (i, item) in items.iter().enumerate() {
                    let item_old = match (olds, &c.map_keys) {
                        (Some(olds), Some(keys)) if !keys.is_empty() => olds.iter().find(|o| {
                            keys.iter()
                                .all(|k| o.get(k).is_some() && o.get(k) == item.get(k))
                        }),
                        _ => None,
                    };
                    node(w, item_check, item, pair, item_old, &Path::Index(at, i));
                }
            }
            counts(
                w,
                pair,
                at,
                items.len(),
                c.limits.max_items,
                c.limits.min_items,
                "items",
            );
        }
        Json::Object(_) | Json::Bool(_) | Json::Null => {}
    }
    enumeration(w, c, value, pair, at);
    if let Json::Object(obj) = value {
        object(w, c, obj, pair, old, at);
    }
}

/// Whether `s` is valid for the string format `format` (names normalized as go-openapi does:
/// `-` removed); `None` for formats the apiserver strips or crd-cel does not check.
pub(super) fn format_ok(format: &str, s: &str) -> Option<bool> {
    let f = format.replace('-', "");
    let re = |p: &str| compiled_regex(p).map(|r| r.is_match(s)).ok();
    Some(match f.as_str() {
        "ipv4" => sloppy_ipv4(s) || (s.contains('.') && s.parse::<std::net::Ipv6Addr>().is_ok()),
        "ipv6" => s.contains(':') && (s.parse::<std::net::Ipv6Addr>().is_ok()),
        "cidr" => s.split_once('/').is_some_and(|(ip, bits)| {
            let max = if ip.contains(':') { 128 } else { 32 };
            (sloppy_ipv4(ip) || ip.parse::<std::net::Ipv6Addr>().is_ok())
                && !bits.is_empty()
                && bits.len() <= 3
                && bits.bytes().all(|b| b.is_ascii_digit())
                && bits.parse::<u32>().is_ok_and(|b| b <= max)
        }),
        "hostname" => {
            re(
                r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
            )? && s.len() <= 255
                && s.split('.').all(|p| p.len() <= 63)
        }
        "uri" => {
            // The CEL library's `isURL`: Go's `url.ParseRequestURI`.
            crate::eval::go::url::GoUrl::parse_request_uri(s).is_ok()
        }
        "email" => {
            // net/mail.ParseAddress, for the plain `local@domain` form.
            s.split_once('@').is_some_and(|(l, d)| {
                !l.is_empty()
                    && !d.is_empty()
                    && !d.contains('@')
                    && !s.contains(char::is_whitespace)
            })
        }
        "uuid" => re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")?,
        "uuid3" => re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")?,
        "uuid4" => {
            re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")?
        }
        "uuid5" => {
            re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")?
        }
        "date" => crate::eval::time::parse_date(s).is_some(),
        "datetime" => crate::eval::time::parse_date_time(s).is_some(),
        "duration" => crate::eval::time::parse_data_duration(s).is_some(),
        "byte" => {
            re(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$")?
        }
        "mac" => {
            re(r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$|^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$")?
        }
        "hexcolor" => re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")?,
        "ssn" => re(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$")?,
        "password" => true,
        "k8sshortname" => re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")? && s.len() <= 63,
        "k8slongname" => {
            re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")?
                && s.len() <= 253
        }
        _ => return None,
    })
}

/// `netutils.ParseIPSloppy` for dotted IPv4: four decimal parts up to 255, leading zeros allowed.
fn sloppy_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// `enum`: kube-openapi's common validator.
fn enumeration(w: &mut Walk<'_>, c: &Check, value: &Json, pair: Pair<'_>, at: &Path<'_>) {
    if c.limits.enum_values.is_empty() || c.limits.enum_values.iter().any(|e| json_equal(e, value))
    {
        return;
    }
    let supported: Vec<String> = c
        .limits
        .enum_values
        .iter()
        .map(|v| match v {
            Json::String(s) => super::go_quoted(s),
            other => super::go_quoted(&other.to_string()),
        })
        .collect();
    w.push(
        pair,
        FieldError {
            kind: ErrorType::NotSupported,
            path: at.field(),
            value: BadValue::Value(value.clone()),
            detail: format!("supported values: {}", supported.join(", ")),
        },
    );
}

/// kube-openapi's string validator (lengths, pattern: the first failure only), then its
/// format validator.
fn string(w: &mut Walk<'_>, c: &Check, s: &str, value: &Json, pair: Pair<'_>, at: &Path<'_>) {
    string_bounds(w, c, s, value, pair, at);
    if let Some(format) = &c.limits.format
        && format_ok(format, s) == Some(false)
    {
        w.push(
            pair,
            FieldError {
                kind: ErrorType::TypeInvalid,
                path: at.field(),
                value: BadValue::Value(value.clone()),
                detail: format!(
                    "{} in body must be of type {format}: {}",
                    at.body(),
                    super::go_quoted(s)
                ),
            },
        );
    }
}

fn string_bounds(
    w: &mut Walk<'_>,
    c: &Check,
    s: &str,
    value: &Json,
    pair: Pair<'_>,
    at: &Path<'_>,
) {
    if c.limits.max_length.is_none() && c.limits.min_length.is_none() && c.pattern.is_none() {
        return;
    }
    let runes = s.chars().count() as u64;
    if let Some(max) = c.limits.max_length
        && runes > max
    {
        return w.push(
            pair,
            FieldError {
                kind: ErrorType::TooLong,
                path: at.field(),
                value: BadValue::Value(Json::String("<value omitted>".into())),
                detail: super::release::too_long_max_length(max, w.minor),
            },
        );
    }
    if let Some(min) = c.limits.min_length
        && runes < min
    {
        let e = invalid(
            at,
            value,
            format!("{} in body should be at least {min} chars long", at.body()),
        );
        return w.push(pair, e);
    }
    if let Some((p, Some(re))) = &c.pattern
        && !re.is_match(s)
    {
        let e = invalid(
            at,
            value,
            format!("{} in body should match '{p}'", at.body()),
        );
        w.push(pair, e);
    }
}

/// `maxItems`/`minItems` or `maxProperties`/`minProperties` (`noun`): too many is the
/// apiserver's TooMany, too few kube-openapi's message as an Invalid error with the count.
fn counts(
    w: &mut Walk<'_>,
    pair: Pair<'_>,
    at: &Path<'_>,
    len: usize,
    max: Option<u64>,
    min: Option<u64>,
    noun: &str,
) {
    if let Some(max) = max
        && len as u64 > max
    {
        w.push(
            pair,
            FieldError {
                kind: ErrorType::TooMany,
                path: at.field(),
                value: BadValue::Value(Json::from(len)),
                detail: format!(
                    "must have at most {max} {}",
                    if max == 1 { "item" } else { "items" }
                ),
            },
        );
    }
    if let Some(min) = min
        && (len as u64) < min
    {
        let e = invalid(
            at,
            &Json::from(len),
            format!("{} in body should have at least {min} {noun}", at.body()),
        );
        w.push(pair, e);
    }
}

fn object(
    w: &mut Walk<'_>,
    c: &Check,
    obj: &Map<String, Json>,
    pair: Pair<'_>,
    old: Option<&Json>,
    at: &Path<'_>,
) {
    counts(
        w,
        pair,
        at,
        obj.len(),
        c.limits.max_properties,
        c.limits.min_properties,
        "properties",
    );
    // The properties' own errors, then `required` (kube-openapi's object validator).
    for (k, v) in obj {
        let child_old = old.and_then(|o| o.get(k));
        let child = Path::Child(at, k);
        if let Some(p) = c.property(k) {
            node(w, p, v, pair, child_old, &child);
        } else if let Some(values) = &c.additional {
            node(w, values, v, pair, child_old, &child);
        }
    }
    for r in &c.required {
        if !obj.contains_key(r) {
            w.push(
                pair,
                FieldError {
                    kind: ErrorType::Required,
                    path: Path::Child(at, r).field(),
                    value: BadValue::Value(Json::String(String::new())),
                    detail: String::new(),
                },
            );
        }
    }
}

/// JSON equality with numbers compared by value (`1` equals `1.0`, as decoded Go values do
/// after the apiserver's number normalization).
fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Error types that make the apiserver skip CEL (`k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go`).
pub(crate) fn is_blocking(kind: ErrorType) -> bool {
    matches!(
        kind,
        ErrorType::Required
            | ErrorType::NotSupported
            | ErrorType::TooLong
            | ErrorType::TooMany
            | ErrorType::TypeInvalid
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Json, value: Json) -> Vec<String> {
        let mut out = Vec::new();
        validate(
            &Check::compile(&schema),
            &value,
            None,
            &Path::ROOT,
            37,
            &mut out,
        );
        out.iter().map(ToString::to_string).collect()
    }

    // Texts as the apiserver prints them (the oracle's `validate` output on the same schemas).
    #[test]
    fn messages_are_the_apiservers() {
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "replicas": {"type": "integer", "maximum": 10, "minimum": 1},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "name": {"type": "string", "maxLength": 8, "pattern": "^[a-z]+$"},
                "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
                "ip": {"type": "string", "format": "ipv4"}
            }
        });
        assert_eq!(
            errors(
                schema.clone(),
                json!({"replicas": 11, "mode": "c", "tags": ["x", "y", "z"], "ip": "1.2.3.4:80"})
            ),
            // The properties' errors (in the object's order here; Go map order in the
            // apiserver), then `required`, as kube-openapi's object validator reports them.
            [
                "ip: Invalid value: \"1.2.3.4:80\": ip in body must be of type ipv4: \"1.2.3.4:80\"",
                "mode: Unsupported value: \"c\": supported values: \"a\", \"b\"",
                "replicas: Invalid value: 11: replicas in body should be less than or equal to 10",
                "tags: Too many: 3: must have at most 2 items",
                "name: Required value",
            ]
        );
        assert_eq!(
            errors(
                schema.clone(),
                json!({"name": "ABCDEFGHIJ", "replicas": "x"})
            ),
            [
                "name: Too long: may not be more than 8 bytes",
                "replicas: Invalid value: \"string\": replicas in body must be of type integer: \"string\"",
            ]
        );
        assert!(errors(schema, json!({"name": "ok", "replicas": 3.0})).is_empty());
    }

    // One node's errors in kube-openapi's validator order, as the apiserver reports them
    // (a real kube-apiserver 1.37.2: `should be at least 36 chars long` before `must be of type
    // uuid`; an item's errors before the list's count, the count before `enum`).
    #[test]
    fn a_nodes_errors_are_in_kube_openapis_validator_order() {
        let schema = json!({"type": "object", "properties": {
            "id": {"type": "string", "format": "uuid", "minLength": 36, "enum": ["x"]},
            "list": {"type": "array", "maxItems": 1, "enum": [["a"]],
                     "items": {"type": "string", "maxLength": 1}}
        }});
        assert_eq!(
            errors(schema, json!({"id": "abc", "list": ["bb", "c"]})),
            [
                "id: Invalid value: \"abc\": id in body should be at least 36 chars long",
                "id: Invalid value: \"abc\": id in body must be of type uuid: \"abc\"",
                "id: Unsupported value: \"abc\": supported values: \"x\"",
                "list[0]: Too long: may not be more than 1 byte",
                "list: Too many: 2: must have at most 1 item",
                "list: Unsupported value: [\"bb\",\"c\"]: supported values: \"[\\\"a\\\"]\"",
            ]
        );
    }

    // The oracle's texts (tests/validate/composition).
    #[test]
    fn composition_keywords_are_evaluated() {
        let schema = json!({"type": "object", "properties": {
            "all": {"type": "string", "allOf": [{"maxLength": 5}, {"pattern": "^a"}]},
            "one": {"type": "integer", "oneOf": [{"minimum": 10}, {"maximum": 20}]},
            "nott": {"type": "string", "not": {"pattern": "^bad"}}
        }});
        // Sorted by field, as the oracle prints them.
        let sorted = |v: Json| {
            let mut e = errors(schema.clone(), v);
            e.sort();
            e
        };
        assert_eq!(
            sorted(json!({"all": "abcdefg"})),
            [
                "<nil>: Invalid value: \"\": \"all\" must validate all the schemas (allOf)",
                "all: Too long: may not be more than 5 bytes"
            ]
        );
        assert_eq!(
            sorted(json!({"one": 15, "nott": "badx"})),
            [
                "<nil>: Invalid value: \"\": \"nott\" must not validate the schema (not)",
                "<nil>: Invalid value: \"\": \"one\" must validate one and only one schema (oneOf). Found 2 valid alternatives"
            ]
        );
        assert!(errors(schema, json!({"all": "ab", "one": 5, "nott": "ok"})).is_empty());
    }

    // A real kube-apiserver 1.37.2 (tests/e2e/objects-cases/format-*): kube-openapi's type
    // validator applies to a node with a format and no type too, and checks an
    // int-or-string's format before its type list; composition branches see it.
    #[test]
    fn a_format_is_type_checked_without_a_type() {
        let spec = |value: Json| json!({"type": "object", "properties": {"value": value}});
        // Stable-sorted by field, as the apiserver's canonical text is.
        let sorted = |schema: Json, v: Json| {
            let mut e = errors(spec(schema), json!({"value": v}));
            e.sort_by(|a, b| a.split(':').next().cmp(&b.split(':').next()));
            e
        };
        let any_of =
            "<nil>: Invalid value: \"\": \"value\" must validate at least one schema (anyOf)";
        let ipv4 = |t: &str| {
            format!("value: Invalid value: \"{t}\": value in body must be of type ipv4: \"{t}\"")
        };
        let string =
            "value: Invalid value: \"integer\": value in body must be of type string: \"integer\"";
        assert_eq!(
            sorted(
                json!({"type": "integer", "anyOf": [{"format": "ipv4"}]}),
                json!(1)
            ),
            [any_of.to_owned(), ipv4("int64")]
        );
        assert_eq!(
            sorted(
                json!({"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}),
                json!(1)
            ),
            [any_of.to_owned(), string.to_owned(), ipv4("int64")]
        );
        assert_eq!(
            sorted(
                json!({"type": "string", "oneOf": [{"format": "ipv4"}, {"format": "date"}]}),
                json!(1)
            ),
            [
                "<nil>: Invalid value: \"\": \"value\" must validate one and only one schema (oneOf). Found none valid".to_owned(),
                string.to_owned(),
                ipv4("int64"),
            ]
        );
        assert_eq!(
            sorted(
                json!({"type": "string", "not": {"format": "ipv4"}}),
                json!(1)
            ),
            [string]
        );
        let preserved = json!({"x-kubernetes-preserve-unknown-fields": true, "format": "ipv4"});
        assert_eq!(sorted(preserved.clone(), json!(1)), [ipv4("int64")]);
        assert_eq!(sorted(preserved.clone(), json!({"a": 1})), [ipv4("")]);
        assert!(sorted(preserved, json!([1])).is_empty());
        let int_or_string = json!({"x-kubernetes-int-or-string": true, "format": "ipv4"});
        assert_eq!(sorted(int_or_string.clone(), json!(1.5)), [ipv4("float64")]);
        assert!(sorted(int_or_string, json!(5)).is_empty());
        // Only string formats are kept on a node without a type (from 1.36).
        assert!(
            sorted(
                json!({"type": "integer", "anyOf": [{"format": "int32"}]}),
                json!(5)
            )
            .is_empty()
        );
    }

    // What the oracle answers: an integer beyond int64 is a float64 to the apiserver; a null
    // item under int-or-string fails its type list.
    #[test]
    fn big_integers_are_numbers_and_null_int_or_strings_fail() {
        let schema = json!({"type": "object", "properties": {
            "s": {"type": "string"},
            "l": {"type": "array", "items": {"x-kubernetes-int-or-string": true}},
        }});
        let big: Json = serde_json::from_str("18446744073709551615").unwrap();
        assert_eq!(
            errors(schema, json!({"s": big, "l": [null, 1, "a"]})),
            [
                "l[0]: Invalid value: \"null\": l[0] in body must be of type integer,string: \"null\"",
                "s: Invalid value: \"number\": s in body must be of type string: \"number\"",
            ]
        );
    }

    #[test]
    fn unchanged_values_are_not_rechecked_on_update() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer", "maximum": 1}}});
        let check = Check::compile(&schema);
        let mut out = Vec::new();
        validate(
            &check,
            &json!({"n": 5}),
            Some(&json!({"n": 5})),
            &Path::ROOT,
            37,
            &mut out,
        );
        assert!(out.is_empty());
        validate(
            &check,
            &json!({"n": 6}),
            Some(&json!({"n": 5})),
            &Path::ROOT,
            37,
            &mut out,
        );
        assert_eq!(out.len(), 1);
    }
}

/// What ratcheting compares on this tree (`correlate`).
impl super::correlate::Correlated for Check {
    fn declared(&self, key: &str) -> Option<&Check> {
        self.property(key).or(self.additional.as_deref())
    }

    fn item_schema(&self) -> Option<&Check> {
        self.items.as_deref()
    }

    fn list_map_keys(&self) -> Option<Vec<&str>> {
        self.map_keys
            .as_ref()
            .filter(|k| !k.is_empty())
            .map(|k| k.iter().map(String::as_str).collect())
    }
}

#[cfg(test)]
mod correlation_tests {
    use super::Check;
    use crate::validate::correlate::unchanged;
    use serde_json::{Value as Json, json};

    fn check(schema: Json) -> Check {
        Check::compile(&schema)
    }

    // What the real kube-apiserver 1.37 answered (tests/e2e/ratchet): an unchanged object with
    // keys its schema does not declare is changed; a map list reordered is not.
    #[test]
    fn undeclared_keys_are_changes_and_map_lists_correlate_by_key() {
        let spec = check(json!({
            "type": "object",
            "properties": {
                "x": {"type": "string"},
                "items": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}},
                },
                "tags": {"type": "array", "items": {"type": "string"}},
            },
        }));
        let v = json!({"x": "a", "items": [{"name": "a", "v": 1}, {"name": "b", "v": 2}], "tags": ["p", "q"]});
        assert!(unchanged(&spec, &v, &v));
        let swapped = json!({"x": "a", "items": [{"name": "b", "v": 2}, {"name": "a", "v": 1}], "tags": ["p", "q"]});
        assert!(unchanged(&spec, &swapped, &v));
        let tags_swapped = json!({"x": "a", "items": [{"name": "a", "v": 1}, {"name": "b", "v": 2}], "tags": ["q", "p"]});
        assert!(!unchanged(&spec, &tags_swapped, &v));
        let undeclared = json!({"x": "a", "y": 1});
        assert!(!unchanged(&spec, &undeclared, &undeclared));
        let preserved = check(
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"x": {"type": "string"}}}),
        );
        assert!(!unchanged(&preserved, &undeclared, &undeclared));
        let map = check(json!({"type": "object", "additionalProperties": {"type": "integer"}}));
        assert!(unchanged(&map, &json!({"a": 1}), &json!({"a": 1})));
        assert!(!unchanged(&map, &json!({"a": 1}), &json!({"a": 2})));
        assert!(!unchanged(&map, &json!({"a": 1}), &json!({"b": 1})));
        assert!(unchanged(&spec, &json!(null), &json!(null)));
        assert!(!unchanged(&spec, &json!({}), &json!(null)));
    }
}
