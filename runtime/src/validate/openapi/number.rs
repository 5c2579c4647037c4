//! Numbers as kube-openapi's number validator checks them (`validate/validator.go`
//! `numberValidator`, `validate/values.go`): each bound compared natively when it fits the
//! node's type and format, the range errors when a value or bound does not, and how bounds and
//! values print.

use serde_json::Value as Json;

use super::super::path::Path;
use super::{Check, Limits, Pair, Walk, invalid, plain_error};
use crate::eval::go::float::go_g;
use crate::validate::FieldError;

/// A number bound as kube-openapi compares it with one value and prints it: an integer when
/// the data is an integer and the bound fits the node's type and format (its `*NativeType`
/// checks), else a float (`%v` of a `float64`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Bound {
    /// Compared with integer data as Go's `int64(bound)` (towards zero).
    Int(i64),
    /// Compared as a float.
    Float(f64),
}

impl Bound {
    /// How kube-openapi takes `bound` for data that is `int` (an integer) or a float, on a node
    /// of type `ty` and `format`: as an integer when the bound fits them ([`fits_type`]).
    pub(crate) fn of(
        bound: f64,
        ty: Option<&str>,
        format: Option<&str>,
        int: Option<i64>,
    ) -> Bound {
        let fits = fits_type(&Json::from(bound), ty, format);
        match int {
            Some(_) if fits => Bound::Int(bound as i64),
            _ => Bound::Float(bound),
        }
    }

    /// `v` (integer data `int`) compared with the bound: less, equal or greater.
    fn cmp(self, int: Option<i64>, v: f64) -> Option<std::cmp::Ordering> {
        match (self, int) {
            (Bound::Int(b), Some(i)) => Some(i.cmp(&b)),
            (Bound::Int(b), None) => v.partial_cmp(&(b as f64)),
            (Bound::Float(b), _) => v.partial_cmp(&b),
        }
    }
}

/// Whether a number fits the node's type and the number format the apiserver keeps for it
/// (`IsValueValidAgainstRange` on the number's text: `int32` for integers, `float` for numbers;
/// the apiserver drops every other number format from the schema before validating, see
/// apiextensions-apiserver's `pkg/apiserver/validation/formats.go`).
pub(crate) fn fits_type(n: &Json, ty: Option<&str>, format: Option<&str>) -> bool {
    NumberRange::of(ty, format).fits(n.as_i64(), n.as_f64())
}

/// The range a node's type and format keep numbers in ([`fits_type`]), read from them once
/// (the typed fast path keeps it beside each node).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberRange {
    /// `type: integer`: an `int64`.
    Integer,
    /// `type: integer`, `format: int32`.
    Int32,
    /// `type: number`, `format: float`.
    Float32,
    /// Any number.
    Any,
}

impl NumberRange {
    /// The range of a node of type `ty` and format `format`.
    pub(crate) fn of(ty: Option<&str>, format: Option<&str>) -> NumberRange {
        match (ty, format) {
            (Some("integer"), Some("int32")) => NumberRange::Int32,
            (Some("integer"), _) => NumberRange::Integer,
            (Some("number"), Some("float")) => NumberRange::Float32,
            _ => NumberRange::Any,
        }
    }

    /// Whether a number given as its `i64` and its `f64` (each when it is one) is in range.
    #[inline]
    pub(crate) fn fits(self, int: Option<i64>, float: Option<f64>) -> bool {
        let int32 = self == NumberRange::Int32;
        match self {
            NumberRange::Integer | NumberRange::Int32 => match int {
                Some(i) => !int32 || i32::try_from(i).is_ok(),
                // A float's text (`strconv.FormatFloat(f, 'f', -1, 64)`) parses as an integer
                // only when it has no fraction and fits.
                None => float.is_some_and(|f| {
                    let integral = f.is_finite() && f.fract() == 0.0;
                    let range = if int32 {
                        f64::from(i32::MIN)..=f64::from(i32::MAX)
                    } else {
                        -9_223_372_036_854_775_808.0..=9_223_372_036_854_775_807.0
                    };
                    integral && range.contains(&f) && f < 9_223_372_036_854_775_808.0
                }),
            },
            NumberRange::Float32 => float.is_some_and(|f| f.abs() <= f64::from(f32::MAX)),
            NumberRange::Any => true,
        }
    }
}

/// The number format the apiserver keeps for a node of type `ty` (see [`fits_type`]).
fn number_format<'a>(ty: Option<&str>, format: Option<&'a str>) -> Option<&'a str> {
    match (ty, format) {
        (Some("integer"), Some(f @ ("int32" | "int64")))
        | (Some("number"), Some(f @ ("float" | "double"))) => Some(f),
        _ => None,
    }
}

/// go-openapi's `IsFloat64AJSONInteger`: what the type check of `type: integer` accepts of a
/// float (within 2^53, and equal to its rounding up to a relative error of 1e-9).
pub(super) fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    let rounded = f.round();
    if f == rounded {
        return true;
    }
    rounded != 0.0 && (f - rounded).abs() < 1e-9 * rounded.abs()
}

/// The error kube-openapi's number validator reports (as a plain error, so the apiserver prints
/// it at a nil path with an empty value) when a number does not fit the node's type and format.
fn range_error(at: &Path<'_>, prefix: &str, ty: &str, format: Option<&str>) -> FieldError {
    let detail = match format {
        Some(f) => format!(
            "{prefix} value must be of type {ty} with format {f} in {}",
            at.body()
        ),
        None => format!(
            "{prefix} value must be of type {ty} (default format) in {}",
            at.body()
        ),
    };
    plain_error(at, detail)
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Int(i) => write!(f, "{i}"),
            Bound::Float(x) => f.write_str(&go_g(*x)),
        }
    }
}

impl Limits {
    /// The `maximum` that `v` (integer data `int`) is over (or at, when exclusive), on a node of
    /// type `ty`.
    pub(crate) fn exceeded_maximum(
        &self,
        ty: Option<&str>,
        int: Option<i64>,
        v: f64,
    ) -> Option<Bound> {
        let max = Bound::of(self.maximum?, ty, self.format.as_deref(), int);
        let over = match max.cmp(int, v)? {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => self.exclusive_maximum,
            std::cmp::Ordering::Less => false,
        };
        over.then_some(max)
    }

    /// The `minimum` that `v` (integer data `int`) is under (or at, when exclusive).
    pub(crate) fn missed_minimum(
        &self,
        ty: Option<&str>,
        int: Option<i64>,
        v: f64,
    ) -> Option<Bound> {
        let min = Bound::of(self.minimum?, ty, self.format.as_deref(), int);
        let under = match min.cmp(int, v)? {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => self.exclusive_minimum,
            std::cmp::Ordering::Greater => false,
        };
        under.then_some(min)
    }
}

pub(super) fn number(w: &mut Walk<'_>, c: &Check, value: &Json, pair: Pair<'_>, at: &Path<'_>) {
    let Some(v) = value.as_f64() else {
        return;
    };
    // Before 1.36 kube-openapi built the number validator without the schema's type and format
    // (no range check of the value or of the bounds against them).
    let (ty, format) = if crate::validate::release::number_validator_typed(w.minor) {
        let ty = c.ty.as_deref();
        let kept = crate::validate::release::kept_format(ty, c.limits.format.as_deref(), w.minor);
        (ty, number_format(ty, kept))
    } else {
        (None, None)
    };
    let int = value.as_i64();
    // kube-openapi's number validator (`numberValidator.Validate`): the value, then each bound,
    // checked against the type and format; a bound that fits is compared natively (integer data
    // with the bound as an integer), else as floats. Results in its order: the value's range,
    // multipleOf, minimum, maximum.
    let type_name = ty.unwrap_or("number");
    if !fits_type(value, ty, format) {
        w.push(pair, range_error(at, "Checked", type_name, format));
    }
    // Integer data compared as a float shows as one.
    let shown = |bound: &Bound| match (bound, int) {
        (Bound::Float(_), Some(i)) => Json::from(i as f64),
        _ => value.clone(),
    };
    if let Some(m) = c.limits.multiple_of
        && m > 0.0
    {
        if !fits_type(&Json::from(m), ty, format) {
            w.push(pair, range_error(at, "MultipleOf", type_name, format));
        }
        match (int, Bound::of(m, ty, format, int)) {
            // Integer data against the factor converted to an integer: a fractional factor
            // below 1 becomes 0 and is reported as not positive.
            (Some(_), Bound::Int(factor)) if factor <= 0 => {
                let e = invalid(
                    at,
                    &Json::from(factor),
                    format!(
                        "factor MultipleOf declared for {} must be positive: {factor}",
                        at.body()
                    ),
                );
                w.push(pair, e);
            }
            (Some(i), Bound::Int(factor)) => {
                if i % factor != 0 {
                    let e = invalid(
                        at,
                        value,
                        format!("{} in body should be a multiple of {factor}", at.body()),
                    );
                    w.push(pair, e);
                }
            }
            (_, bound) => {
                if (v / m).fract() != 0.0 {
                    let e = invalid(
                        at,
                        &shown(&bound),
                        format!("{} in body should be a multiple of {}", at.body(), go_g(m)),
                    );
                    w.push(pair, e);
                }
            }
        }
    }
    if let Some(min) = c.limits.minimum {
        if !fits_type(&Json::from(min), ty, format) {
            w.push(pair, range_error(at, "Minimum boundary", type_name, format));
        }
        if let Some(min) = c.limits.missed_minimum(ty, int, v) {
            let how = if c.limits.exclusive_minimum {
                "greater than"
            } else {
                "greater than or equal to"
            };
            let e = invalid(
                at,
                &shown(&min),
                format!("{} in body should be {how} {min}", at.body()),
            );
            w.push(pair, e);
        }
    }
    if let Some(max) = c.limits.maximum {
        if !fits_type(&Json::from(max), ty, format) {
            w.push(pair, range_error(at, "Maximum boundary", type_name, format));
        }
        if let Some(max) = c.limits.exceeded_maximum(ty, int, v) {
            let how = if c.limits.exclusive_maximum {
                "less than"
            } else {
                "less than or equal to"
            };
            let e = invalid(
                at,
                &shown(&max),
                format!("{} in body should be {how} {max}", at.body()),
            );
            w.push(pair, e);
        }
    }
}
