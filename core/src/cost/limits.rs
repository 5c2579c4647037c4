//! The CRD-time arithmetic: the per-expression and per-CRD limits (the apiserver's
//! `PerCallLimit` and `StaticEstimatedCRDCostLimit`), the cardinality a rule runs at, and the
//! factor the apiserver prints in its messages.

use crate::model::Schema;

/// The estimate of one expression of a deriving type, as the derive lists it in the type's
/// `CEL_RULE_COSTS` (so a test can assert that a rule stays cheap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleCost {
    /// The node the rule is on: the type (`WebAppSpec`) or one of its fields (`WebAppSpec.hosts`).
    pub place: &'static str,
    /// The rule's index among the rules declared at that place.
    pub index: usize,
    /// The expression.
    pub expression: &'static str,
    /// Whether the expression is the rule's `messageExpression` (not multiplied by cardinality).
    pub message_expression: bool,
    /// The apiserver's estimated cost of one evaluation (`CompilationResult.MaxCost`); at CRD
    /// creation it is multiplied by how many times the node can occur in an object.
    pub max_cost: u64,
}

// ---------------------------------------------------------------------------------------------
// CRD-time arithmetic (`apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`).

/// `StaticEstimatedCostLimit`: the CRD-time limit of one expression (cost × cardinality).
pub const PER_EXPRESSION_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the CRD-time limit of all expressions of one schema.
pub const PER_CRD_LIMIT: u64 = 100_000_000;
/// Expressions at least this expensive are listed when the per-CRD limit is exceeded (1%).
pub const EXPENSIVE: u64 = PER_CRD_LIMIT / 100;

/// `multiplyWithOverflowGuard`: 0 for a zero cost, saturating otherwise.
pub const fn times_cardinality(cost: u64, cardinality: u64) -> u64 {
    cost.saturating_mul(cardinality)
}

/// How a schema node multiplies the cardinality of its children (`extractMaxElements`):
/// `maxItems` of arrays, `maxProperties` of maps, 1 for objects and scalars; `None` for an
/// unbounded list or map.
pub const fn child_factor(s: &Schema<'_>) -> Option<u64> {
    match s.ty {
        crate::model::Type::Array => s.max_items,
        crate::model::Type::Object if s.additional_properties.is_some() => s.max_properties,
        _ => Some(1),
    }
}

/// The cardinality used for a rule on `node`: the product of the ancestors' factors when all
/// are bounded, else `R / (MinSerializedSize(node) + 1)` (`apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`).
pub const fn cardinality(bounded: Option<u64>, node: &Schema<'_>) -> u64 {
    match bounded {
        Some(c) => c,
        None => match crate::size::unbounded_cardinality(node) {
            Some(c) => c,
            None => 0,
        },
    }
}

/// The apiserver's cost message (`getCostErrorMessage`): `<what> exceeds budget by factor of
/// <F> (try simplifying ...)`.
pub const fn push_cost_message<const N: usize>(
    what: &str,
    cost: u64,
    limit: u64,
    out: &mut crate::msg::Buf<N>,
) {
    out.push(what);
    out.push(" exceeds budget by factor of ");
    push_factor(cost, limit, out);
    out.push(" (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)");
}

/// [`push_cost_message`] as a `String`.
pub fn cost_message(what: &str, cost: u64, limit: u64) -> String {
    let mut out = crate::msg::Buf::<512>::new();
    push_cost_message(what, cost, limit, &mut out);
    out.as_str().to_owned()
}

/// The factor as Go prints it: `more than 100x`, `%fx` below 1.5, `%.1fx` otherwise, from
/// `float64(cost) / float64(limit)`, rounded exactly as Go's `strconv` does.
pub const fn push_factor<const N: usize>(cost: u64, limit: u64, out: &mut crate::msg::Buf<N>) {
    let x = cost as f64 / limit as f64;
    if x > 100.0 {
        out.push("more than 100x");
        return;
    }
    let decimals = if x < 1.5 { 6 } else { 1 };
    push_fixed(x, decimals, out);
    out.push("x");
}

/// `x` (finite, non-negative, below 2^63) with `decimals` digits after the point, rounded half
/// to even on its exact binary value (what Go's `%.Nf` does).
const fn push_fixed<const N: usize>(x: f64, decimals: u32, out: &mut crate::msg::Buf<N>) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    let (mant, e2) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let scale = 10u128.pow(decimals);
    // x * 10^decimals = mant * scale * 2^e2, rounded half to even.
    let q = mant as u128 * scale;
    let scaled: u128 = if e2 >= 0 {
        if e2 > 60 { u128::MAX } else { q << e2 }
    } else if -e2 >= 127 {
        0
    } else {
        let shift = (-e2) as u32;
        let whole = q >> shift;
        let rem = q & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && whole & 1 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    let int_part = scaled / scale;
    let frac_part = scaled % scale;
    out.push_u64(int_part as u64);
    if decimals > 0 {
        out.push(".");
        let mut d = scale / 10;
        while d > 0 {
            let digit = ((frac_part / d) % 10) as u8;
            out.push_bytes(&[b'0' + digit]);
            d /= 10;
        }
    }
}
