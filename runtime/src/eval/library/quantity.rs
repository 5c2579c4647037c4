//! `kubernetes.Quantity`: the apiserver's `library/quantity.go` over apimachinery's
//! `resource.Quantity` (`ParseQuantity`, `Cmp`, `Add`, `Sub`, `AsInt64`,
//! `AsApproximateFloat64`).
//!
//! A quantity is either a small `int64Amount` (value × 10^scale) or an `inf.Dec` (unscaled ×
//! 10^-scale); which one matters, because `isInteger`/`asInteger` only succeed on the first
//! kind with a non-negative scale (`quantity("1.000").isInteger()` is false) and the float
//! conversion works from the representation. Two Go details are reproduced on purpose:
//! `Cmp` converts its receiver to the `inf.Dec` form in place when either side is one (so a
//! quantity bound to a comprehension variable stops being an integer after such a comparison),
//! and `add`/`sub` return a pointer value that `==` only accepts on its left side.
//!
//! The shared names `isLessThan`, `isGreaterThan` and `compareTo` (Quantity and Semver) are
//! implemented here and dispatch on the receiver.

use std::any::Any;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as MemOrdering};

use super::super::error::EvalError;
use super::super::function::Function;
use super::super::value::{Opaque, Value};
use super::decimal::Nat;
use super::k8s_util::{downcast, first_arg_traversal, opaque};
use super::semver::Semver;

const ERR_FORMAT_WRONG: &str = "quantities must match the regular expression \
     '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

/// The most decimal digits crd-cel materializes for one amount. Go would go on (and, for
/// exponents in the millions, run for minutes or out of memory); crd-cel stops with an error.
const MAX_DIGITS: u64 = 100_000;

fn too_large() -> EvalError {
    EvalError::new(format!(
        "quantity too large for crd-cel (more than {MAX_DIGITS} digits)"
    ))
}

/// A signed decimal: `(-1)^neg × mag × 10^-scale` (`inf.Dec`'s convention).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dec {
    neg: bool,
    mag: Nat,
    scale: i64,
}

impl Dec {
    fn sign(&self) -> i64 {
        match (self.mag.is_zero(), self.neg) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    /// `mag × 10^(to - scale)` for `to >= scale`, within [`MAX_DIGITS`].
    fn mag_at_scale(&self, to: i64) -> Result<Nat, EvalError> {
        let shift = u64::try_from(to - self.scale).unwrap_or(0);
        let mut m = self.mag.clone();
        if !m.is_zero() {
            if m.digits().saturating_add(shift) > MAX_DIGITS {
                return Err(too_large());
            }
            m.mul_pow10(shift);
        }
        Ok(m)
    }

    /// `inf.Dec.Add` / `Sub` (with `negate_other`): exact, at the larger scale.
    fn add(&self, other: &Dec, negate_other: bool) -> Result<Dec, EvalError> {
        let scale = self.scale.max(other.scale);
        let a = self.mag_at_scale(scale)?;
        let b = other.mag_at_scale(scale)?;
        let b_neg = other.neg != negate_other;
        let (neg, mag) = if self.neg == b_neg {
            (self.neg, a.add(&b))
        } else if a >= b {
            (self.neg, a.sub(&b))
        } else {
            (b_neg, b.sub(&a))
        };
        Ok(Dec {
            neg: neg && !mag.is_zero(),
            mag,
            scale,
        })
    }
}

/// Exact comparison of two decimals, without materializing large powers of ten unless the
/// magnitudes are within a digit count of each other.
fn cmp_dec(a: &Dec, b: &Dec) -> Ordering {
    let (sa, sb) = (a.sign(), b.sign());
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    // Both non-zero and of the same sign: compare magnitudes by order, then digit by digit.
    let order_a = a.mag.digits() as i64 - a.scale;
    let order_b = b.mag.digits() as i64 - b.scale;
    let mag_order = if order_a != order_b {
        order_a.cmp(&order_b)
    } else {
        // Same order: the scales differ by at most the digit counts, so aligning is cheap.
        let scale = a.scale.max(b.scale);
        let shift = |d: &Dec| {
            let mut m = d.mag.clone();
            m.mul_pow10(u64::try_from(scale - d.scale).unwrap_or(0));
            m
        };
        shift(a).cmp(&shift(b))
    };
    if sa < 0 {
        mag_order.reverse()
    } else {
        mag_order
    }
}

/// A quantity's amount in one of `resource.Quantity`'s two representations.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Amount {
    /// `int64Amount`: `value × 10^scale`.
    Int { value: i64, scale: i32 },
    /// `infDecAmount`.
    Dec(Dec),
}

impl Amount {
    /// `AsDec()` of either representation.
    fn to_dec(&self) -> Dec {
        match self {
            Amount::Int { value, scale } => Dec {
                neg: *value < 0,
                mag: Nat::from_u64(value.unsigned_abs()),
                scale: -i64::from(*scale),
            },
            Amount::Dec(d) => d.clone(),
        }
    }
}

/// Go's `positiveScaleInt64`: `base × 10^scale` unless it overflows.
fn positive_scale(base: i64, scale: i64) -> Option<i64> {
    if base == 0 {
        return Some(0);
    }
    let mut v = base;
    for _ in 0..scale {
        v = v.checked_mul(10)?;
    }
    Some(v)
}

/// `int64Amount.Add`: `None` when the sum leaves the int64 representation.
fn int_add(a: (i64, i32), b: (i64, i32)) -> Option<(i64, i32)> {
    let ((av, asc), (bv, bsc)) = (a, b);
    if bv == 0 {
        return Some(a);
    }
    if av == 0 {
        return Some(b);
    }
    match asc.cmp(&bsc) {
        Ordering::Equal => Some((av.checked_add(bv)?, asc)),
        Ordering::Greater => {
            let c = positive_scale(av, i64::from(asc) - i64::from(bsc))?;
            Some((c.checked_add(bv)?, bsc))
        }
        Ordering::Less => {
            let c = positive_scale(bv, i64::from(bsc) - i64::from(asc))?;
            Some((av.checked_add(c)?, asc))
        }
    }
}

/// The `kubernetes.Quantity` value.
#[derive(Debug)]
pub(crate) struct Quantity {
    amount: Amount,
    /// Go's `Cmp` has turned the int64 amount into an `inf.Dec` in place.
    converted: AtomicBool,
    /// Made by `add`/`sub`, which return `*Quantity`: Go's `Equal` rejects it as its argument.
    boxed: bool,
}

impl Quantity {
    fn new(amount: Amount, boxed: bool) -> Quantity {
        Quantity {
            amount,
            converted: AtomicBool::new(false),
            boxed,
        }
    }

    /// The amount as Go currently holds it.
    fn current(&self) -> Amount {
        match &self.amount {
            Amount::Int { .. } if self.converted.load(MemOrdering::Relaxed) => {
                Amount::Dec(self.amount.to_dec())
            }
            a => a.clone(),
        }
    }

    fn is_dec(&self) -> bool {
        matches!(self.current(), Amount::Dec(_))
    }

    /// `Cmp`, with its side effect on the receiver.
    fn cmp_mut(&self, other: &Quantity) -> Ordering {
        if self.is_dec() || other.is_dec() {
            self.converted.store(true, MemOrdering::Relaxed);
        }
        cmp_dec(&self.amount.to_dec(), &other.amount.to_dec())
    }

    /// `AsInt64()`.
    fn as_int64(&self) -> Option<i64> {
        match self.current() {
            Amount::Int { value, scale: 0 } => Some(value),
            Amount::Int { scale, .. } if scale < 0 => None,
            Amount::Int { value, scale } => positive_scale(value, i64::from(scale)),
            Amount::Dec(_) => None,
        }
    }

    /// `AsApproximateFloat64()`: the mantissa as a float times `math.Pow10(exponent)`.
    fn as_approximate_float(&self) -> f64 {
        let (base, exponent) = match &self.amount {
            Amount::Int { value, scale } => (*value as f64, i64::from(*scale)),
            Amount::Dec(d) => {
                // big.Float's Float64 rounds to nearest even, as Rust's decimal parsing does.
                let digits = format!("{}{}", if d.neg { "-" } else { "" }, d.mag);
                (digits.parse::<f64>().unwrap_or(f64::NAN), -d.scale)
            }
        };
        if exponent == 0 {
            base
        } else {
            base * go_pow10(exponent)
        }
    }

    /// `Add` (`negate` false) and `Sub` (`negate` true) on a copy of `self`.
    fn plus(&self, y: &Amount, y_is_dec: bool, negate: bool) -> Result<Quantity, EvalError> {
        let q = self.current();
        if let (
            Amount::Int { value, scale },
            Amount::Int {
                value: yv,
                scale: ys,
            },
            false,
        ) = (&q, y, y_is_dec)
        {
            // `int64Amount.Sub` adds the negated value, wrapping for math.MinInt64 as Go does.
            let yv = if negate { yv.wrapping_neg() } else { *yv };
            if let Some((v, s)) = int_add((*value, *scale), (yv, *ys)) {
                return Ok(Quantity::new(Amount::Int { value: v, scale: s }, true));
            }
        }
        let sum = q.to_dec().add(&y.to_dec(), negate)?;
        Ok(Quantity::new(Amount::Dec(sum), true))
    }
}

impl Opaque for Quantity {
    fn type_name(&self) -> &'static str {
        "kubernetes.Quantity"
    }
    fn equals(&self, other: &dyn Opaque) -> Result<bool, EvalError> {
        match other.as_any().downcast_ref::<Quantity>() {
            Some(o) if !o.boxed => {
                Ok(cmp_dec(&self.amount.to_dec(), &o.amount.to_dec()) == Ordering::Equal)
            }
            _ => Err(EvalError::no_such_overload()),
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Go's `math.Pow10`, from the same power tables (so products round identically).
fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14,
        1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
        1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let n = n as usize;
        return POS32[n / 32] * TAB[n % 32];
    }
    if (-323..=0).contains(&n) {
        let m = (-n) as usize;
        return NEG32[m / 32] / TAB[m % 32];
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

/// The pieces `parseQuantityString` cuts a quantity into.
struct Parts<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// Where the run of digits from `pos` ends (the scanning loops of `parseQuantityString`).
fn digits_end(b: &[u8], pos: usize) -> usize {
    pos + b[pos..].iter().take_while(|c| c.is_ascii_digit()).count()
}

/// apimachinery's `parseQuantityString`, step for step (it accepts more than its documented
/// regular expression: `"."`, `"-"` and `"+"` are zero).
fn parse_quantity_string(s: &str) -> Result<Parts<'_>, EvalError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut parts = Parts {
        positive: true,
        value: "",
        num: "",
        denom: "",
        suffix: "",
    };
    let mut pos = 0;
    match b.first() {
        Some(b'-') => {
            parts.positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    loop {
        if pos >= end {
            parts.num = "0";
            parts.value = "0";
            return Ok(parts);
        }
        if b[pos] != b'0' {
            break;
        }
        pos += 1;
    }
    let i = digits_end(b, pos);
    parts.num = &s[pos..i];
    if i == end {
        parts.value = s;
        return Ok(parts);
    }
    pos = i;
    if parts.num.is_empty() {
        parts.num = "0";
    }
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let i = digits_end(b, pos);
        parts.denom = &s[pos..i];
        if i == end {
            parts.value = s;
            return Ok(parts);
        }
        pos = i;
    }
    parts.value = &s[..pos];
    let suffix_start = pos;
    let mut i = pos;
    loop {
        if i >= end {
            parts.suffix = &s[suffix_start..end];
            return Ok(parts);
        }
        if !b"eEinumkKMGTP".contains(&b[i]) {
            pos = i;
            break;
        }
        i += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    for &c in &b[pos..] {
        if !c.is_ascii_digit() {
            return Err(EvalError::new(ERR_FORMAT_WRONG));
        }
    }
    parts.suffix = &s[suffix_start..end];
    Ok(parts)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

/// The suffixer's `interpret`: (base, exponent, format).
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    let bin = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let rest = suffix
                .strip_prefix('e')
                .or_else(|| suffix.strip_prefix('E'))?;
            // strconv.ParseInt(rest, 10, 64), then Go's int32 conversion (which wraps).
            let e = rest.parse::<i64>().ok()?;
            Some((10, e as i32, Format::DecimalExponent))
        }
    }
}

/// `resource.ParseQuantity`.
fn parse_quantity(s: &str) -> Result<Amount, EvalError> {
    if s.is_empty() {
        return Err(EvalError::new(ERR_FORMAT_WRONG));
    }
    if s == "0" {
        return Ok(Amount::Int { value: 0, scale: 0 });
    }
    let p = parse_quantity_string(s)?;
    let (base, exponent, format) = interpret(p.suffix).ok_or_else(|| EvalError::new(ERR_SUFFIX))?;
    let digits = (p.num.len() + p.denom.len()) as i32;
    let mut mantissa: i64 = 1;
    let (precision, mut scale) = match format {
        // Go's int32 arithmetic, which wraps.
        Format::DecimalExponent | Format::DecimalSI => (18i32.wrapping_sub(digits), exponent),
        Format::BinarySI if exponent >= 0 && p.denom.is_empty() => {
            mantissa <<= exponent;
            let len = p.num.len() as i32;
            (14i32.wrapping_sub(len).wrapping_sub(exponent * 3 / 10), 0)
        }
        Format::BinarySI => (-1, 0),
    };
    if precision >= 0 {
        scale = scale.wrapping_sub(p.denom.len() as i32);
        if scale >= -9 {
            let shifted = format!("{}{}", p.num, p.denom);
            let value: i64 = shifted.parse().map_err(|_| EvalError::new(ERR_NUMERIC))?;
            if let Some(result) = value.checked_mul(mantissa) {
                let value = if p.positive { result } else { -result };
                return Ok(Amount::Int { value, scale });
            }
        }
    }
    // The inf.Dec path: the number as written, scaled by the suffix, rounded up (away from
    // zero) to nanos.
    let (neg, unsigned) = match p.value.as_bytes().first() {
        Some(b'-') => (true, &p.value[1..]),
        Some(b'+') => (false, &p.value[1..]),
        _ => (false, p.value),
    };
    let (int_part, frac_part) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(EvalError::new(ERR_NUMERIC));
    }
    let mut mag = Nat::from_digits(&format!("{int_part}{frac_part}"));
    let mut dec_scale = frac_part.len() as i32;
    if base == 10 {
        dec_scale = dec_scale.wrapping_add(exponent.wrapping_neg());
    } else {
        mag.mul_pow2(exponent.unsigned_abs());
    }
    let mut dec = Dec {
        neg: false,
        mag,
        scale: i64::from(dec_scale),
    };
    if !dec.mag.is_zero() {
        if dec.scale > 9 {
            let (mut q, inexact) = dec.mag.div_pow10((dec.scale - 9) as u64);
            if inexact {
                q.increment();
            }
            dec.mag = q;
        } else {
            dec.mag = dec.mag_at_scale(9)?;
        }
        dec.scale = 9;
    }
    if format == Format::BinarySI {
        let max = Dec {
            neg: false,
            mag: Nat::from_u64(i64::MAX as u64),
            scale: 0,
        };
        if cmp_dec(&dec, &max) == Ordering::Greater {
            dec = max;
        }
    }
    dec.neg = neg && !dec.mag.is_zero();
    Ok(Amount::Dec(dec))
}

fn quantity_arg(v: &Value) -> Result<&Quantity, EvalError> {
    downcast::<Quantity>(v).ok_or_else(EvalError::no_such_overload)
}

fn quantity(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(opaque(Quantity::new(parse_quantity(s)?, false)))
}

fn is_quantity(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    // Amounts crd-cel refuses to materialize are still quantities.
    Ok(Value::Bool(match parse_quantity(s) {
        Ok(_) => true,
        Err(e) => e.message.starts_with("quantity too large"),
    }))
}

fn sign(args: &[Value]) -> Result<Value, EvalError> {
    let [q] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::Int(quantity_arg(q)?.amount.to_dec().sign()))
}

/// The ordering behind `isGreaterThan`, `isLessThan` and `compareTo`, for quantities and
/// semantic versions.
fn ordering(args: &[Value]) -> Result<Ordering, EvalError> {
    let [a, b] = args else {
        return Err(EvalError::no_such_overload());
    };
    if let (Some(x), Some(y)) = (downcast::<Quantity>(a), downcast::<Quantity>(b)) {
        return Ok(x.cmp_mut(y));
    }
    if let (Some(x), Some(y)) = (downcast::<Semver>(a), downcast::<Semver>(b)) {
        return Ok(x.compare(y));
    }
    Err(EvalError::no_such_overload())
}

fn is_greater_than(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ordering(args)? == Ordering::Greater))
}

fn is_less_than(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ordering(args)? == Ordering::Less))
}

fn compare_to(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Int(ordering(args)? as i64))
}

fn as_approximate_float(args: &[Value]) -> Result<Value, EvalError> {
    let [q] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::Double(quantity_arg(q)?.as_approximate_float()))
}

fn as_integer(args: &[Value]) -> Result<Value, EvalError> {
    let [q] = args else {
        return Err(EvalError::no_such_overload());
    };
    quantity_arg(q)?
        .as_int64()
        .map(Value::Int)
        .ok_or_else(|| EvalError::new("cannot convert value to integer"))
}

fn is_integer(args: &[Value]) -> Result<Value, EvalError> {
    let [q] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::Bool(quantity_arg(q)?.as_int64().is_some()))
}

fn add_or_sub(args: &[Value], negate: bool) -> Result<Value, EvalError> {
    let [q, y] = args else {
        return Err(EvalError::no_such_overload());
    };
    let q = quantity_arg(q)?;
    let result = match y {
        // `resource.NewQuantity(n, DecimalExponent)`.
        Value::Int(n) => q.plus(
            &Amount::Int {
                value: *n,
                scale: 0,
            },
            false,
            negate,
        )?,
        y => {
            let y = quantity_arg(y)?;
            q.plus(&y.current(), y.is_dec(), negate)?
        }
    };
    Ok(opaque(result))
}

fn add(args: &[Value]) -> Result<Value, EvalError> {
    add_or_sub(args, false)
}

fn sub(args: &[Value]) -> Result<Value, EvalError> {
    add_or_sub(args, true)
}

/// The Quantity functions, and the comparisons shared with Semver.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "quantity",
        call: quantity,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "isQuantity",
        call: is_quantity,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "sign",
        call: sign,
        cost: None,
    },
    Function {
        name: "isGreaterThan",
        call: is_greater_than,
        cost: None,
    },
    Function {
        name: "isLessThan",
        call: is_less_than,
        cost: None,
    },
    Function {
        name: "compareTo",
        call: compare_to,
        cost: None,
    },
    Function {
        name: "asApproximateFloat",
        call: as_approximate_float,
        cost: None,
    },
    Function {
        name: "asInteger",
        call: as_integer,
        cost: None,
    },
    Function {
        name: "isInteger",
        call: is_integer,
        cost: None,
    },
    Function {
        name: "add",
        call: add,
        cost: None,
    },
    Function {
        name: "sub",
        call: sub,
        cost: None,
    },
];

#[cfg(test)]
mod tests;
