//! Arbitrary-size non-negative integers in base 10^9, for the `inf.Dec` amounts of
//! `resource.Quantity` (numbers like `1e400` or forty-digit mantissas). Base 10^9 makes the
//! decimal scaling quantities need (multiplying or dividing by powers of ten) a shift of limbs.

use std::cmp::Ordering;

const BASE: u64 = 1_000_000_000;
const POW10: [u32; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// A non-negative integer: little-endian base-10^9 limbs, without high zero limbs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Nat(Vec<u32>);

impl Nat {
    /// Zero.
    pub(crate) fn zero() -> Nat {
        Nat(Vec::new())
    }

    /// The number written by `digits` (ASCII digits only, leading zeros allowed).
    pub(crate) fn from_digits(digits: &str) -> Nat {
        let b = digits.as_bytes();
        let mut limbs = Vec::with_capacity(b.len() / 9 + 1);
        let mut end = b.len();
        while end > 0 {
            let start = end.saturating_sub(9);
            let limb = b[start..end].iter().fold(0u32, |acc, &c| {
                acc * 10 + u32::from(c.wrapping_sub(b'0') % 10)
            });
            limbs.push(limb);
            end = start;
        }
        let mut n = Nat(limbs);
        n.trim();
        n
    }

    /// `v`.
    pub(crate) fn from_u64(mut v: u64) -> Nat {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % BASE) as u32);
            v /= BASE;
        }
        Nat(limbs)
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// Whether the number is zero.
    pub(crate) fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// The number of decimal digits (0 for zero).
    pub(crate) fn digits(&self) -> u64 {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() as u64 - 1) * 9 + u64::from(top.ilog10()) + 1,
        }
    }

    /// `self * m + add`, for `m <= 10^9`.
    fn mul_small_add(&mut self, m: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        while carry > 0 {
            self.0.push((carry % BASE) as u32);
            carry /= BASE;
        }
        self.trim();
    }

    /// `self + 1`.
    pub(crate) fn increment(&mut self) {
        self.mul_small_add(1, 1);
    }

    /// `self * 2^e`.
    pub(crate) fn mul_pow2(&mut self, mut e: u32) {
        while e > 0 {
            let step = e.min(29);
            self.mul_small_add(1 << step, 0);
            e -= step;
        }
    }

    /// `self * 10^k`.
    pub(crate) fn mul_pow10(&mut self, k: u64) {
        if self.is_zero() {
            return;
        }
        let limbs = (k / 9) as usize;
        self.mul_small_add(POW10[(k % 9) as usize], 0);
        if limbs > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }

    /// `self / 10^k` (truncated) and whether the remainder is non-zero.
    pub(crate) fn div_pow10(&self, k: u64) -> (Nat, bool) {
        if k >= self.digits() {
            return (Nat::zero(), !self.is_zero());
        }
        let limbs = (k / 9) as usize;
        let mut inexact = self.0[..limbs].iter().any(|&l| l != 0);
        let mut rest: Vec<u32> = self.0[limbs..].to_vec();
        let d = POW10[(k % 9) as usize];
        if d > 1 {
            let mut rem = 0u64;
            for limb in rest.iter_mut().rev() {
                let v = rem * BASE + u64::from(*limb);
                *limb = (v / u64::from(d)) as u32;
                rem = v % u64::from(d);
            }
            inexact |= rem != 0;
        }
        let mut q = Nat(rest);
        q.trim();
        (q, inexact)
    }

    /// `self + other`.
    pub(crate) fn add(&self, other: &Nat) -> Nat {
        let (long, short) = if self.0.len() >= other.0.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, &l) in long.0.iter().enumerate() {
            let v = u64::from(l) + u64::from(short.0.get(i).copied().unwrap_or(0)) + carry;
            out.push((v % BASE) as u32);
            carry = v / BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Nat(out)
    }

    /// `self - other`, for `self >= other`.
    pub(crate) fn sub(&self, other: &Nat) -> Nat {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, &l) in self.0.iter().enumerate() {
            let mut v = i64::from(l) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = 0;
            if v < 0 {
                v += BASE as i64;
                borrow = 1;
            }
            out.push(v as u32);
        }
        let mut n = Nat(out);
        n.trim();
        n
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Nat) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Nat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Nat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some((top, rest)) = self.0.split_last() else {
            return f.write_str("0");
        };
        write!(f, "{top}")?;
        for limb in rest.iter().rev() {
            write!(f, "{limb:09}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_round_trips_through_decimal_text() {
        let a = Nat::from_digits("000123456789012345678901234567890");
        assert_eq!(a.to_string(), "123456789012345678901234567890");
        assert_eq!(a.digits(), 30);
        let mut b = a.clone();
        b.mul_pow10(13);
        assert_eq!(b.to_string(), "1234567890123456789012345678900000000000000");
        assert_eq!(b.div_pow10(13), (a.clone(), false));
        assert_eq!(
            a.div_pow10(5),
            (Nat::from_digits("1234567890123456789012345"), true)
        );
        assert_eq!(a.div_pow10(40), (Nat::zero(), true));
        let mut c = Nat::from_u64(3);
        c.mul_pow2(60);
        assert_eq!(c.to_string(), "3458764513820540928");
        let sum = a.add(&Nat::from_digits("999999999999999999999999999999"));
        assert_eq!(sum.to_string(), "1123456789012345678901234567889");
        assert_eq!(sum.sub(&a).to_string(), "999999999999999999999999999999");
        assert!(a < sum && Nat::zero() < Nat::from_u64(1));
    }
}
