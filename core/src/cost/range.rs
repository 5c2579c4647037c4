//! Cost and size ranges and the float arithmetic cel-go does on them, to the unit.

/// A `{min, max}` range of costs or sizes (cel-go's `CostEstimate` / `SizeEstimate`); all
/// arithmetic saturates at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The lower bound.
    pub min: u64,
    /// The upper bound (what the apiserver compares with its limits).
    pub max: u64,
}

impl Range {
    /// `{0, u64::MAX}`: nothing known.
    pub const UNKNOWN: Range = Range {
        min: 0,
        max: u64::MAX,
    };

    /// Saturating sum.
    pub const fn add(self, o: Range) -> Range {
        // Compared by hand: `saturating_add` is two calls in const evaluation.
        Range {
            min: if self.min > u64::MAX - o.min {
                u64::MAX
            } else {
                self.min + o.min
            },
            max: if self.max > u64::MAX - o.max {
                u64::MAX
            } else {
                self.max + o.max
            },
        }
    }

    /// Saturating product of the bounds.
    pub const fn mul(self, o: Range) -> Range {
        Range {
            min: self.min.saturating_mul(o.min),
            max: self.max.saturating_mul(o.max),
        }
    }

    /// Both bounds times a real factor, rounded up (cel-go's `MultiplyByCostFactor`).
    pub const fn factor(self, f: f64) -> Range {
        Range {
            min: cost_factor(self.min, f),
            max: cost_factor(self.max, f),
        }
    }

    /// The smallest range holding both.
    pub const fn union(self, o: Range) -> Range {
        Range {
            min: if o.min < self.min { o.min } else { self.min },
            max: if o.max > self.max { o.max } else { self.max },
        }
    }
}

/// cel-go's `multiplyByCostFactor`: `ceil(x * f)` in float64, saturating.
const fn cost_factor(x: u64, f: f64) -> u64 {
    let xf = x as f64;
    if xf > 0.0 && f > 0.0 && xf > (u64::MAX as f64) / f {
        return u64::MAX;
    }
    let c = ceil(xf * f);
    if c >= 18_446_744_073_709_551_616.0 {
        u64::MAX
    } else {
        c as u64
    }
}

/// `math.Ceil` of a non-negative float (`f64::ceil` is not const at the crate's MSRV): from
/// 2^52 on every float is an integer; below, truncation through `u64` is exact.
pub(super) const fn ceil(v: f64) -> f64 {
    if v.is_nan() || v >= 4_503_599_627_370_496.0 {
        return v;
    }
    let t = (v as u64) as f64;
    if t < v { t + 1.0 } else { t }
}

/// Go's `uint64(f)` on amd64 for a non-negative float: values from 2^63 up come out as
/// `2^63 | (f - 2^63)`, with 2^63 for anything at or above 2^64.
pub(super) const fn go_f64_to_u64(f: f64) -> u64 {
    const TWO63: f64 = 9_223_372_036_854_775_808.0;
    if f < TWO63 {
        return f as u64;
    }
    let rest = f - TWO63;
    if rest >= TWO63 {
        1 << 63
    } else {
        (rest as u64) | (1 << 63)
    }
}
