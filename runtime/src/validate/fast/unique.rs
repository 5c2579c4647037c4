//! The list-type checks' comparisons on the fast path: JSON equality and hashes of scalars,
//! duplicate sets and repeated map-list key tuples, on built values or on hashes alone.

use std::sync::Arc;

use super::Defer;
use crate::eval::value::Value;

/// The hash of a map-list item's key tuple from its key fields' hashes (in `keys` order; an
/// absent key field hashes as [`ABSENT_KEY`]).
pub(super) fn key_tuple_hash(hashes: impl Iterator<Item = u64>) -> u64 {
    hashes.fold(0u64, key_tuple_step)
}

/// One key field's hash folded into a key tuple's ([`key_tuple_hash`]).
pub(super) fn key_tuple_step(tuple: u64, key: u64) -> u64 {
    tuple.rotate_left(5) ^ key
}

/// Whether two of `hashes` (of set items or map-list key tuples) are equal, which the fast
/// path takes as a repeated item (a collision only sends the object the JSON way).
pub(super) fn hashes_repeat(hashes: &mut [u64]) -> bool {
    // Up to 32 hashes go into an open-addressed table of 64 slots on the stack (half full
    // at most, so a probe ends); a sort compares more.
    const SLOTS: usize = 64;
    if hashes.len() <= SLOTS / 2 {
        let (mut slots, mut used) = ([0u64; SLOTS], 0u64);
        for &h in hashes.iter() {
            // The top bits of a Fibonacci hash (the item hashes' low bits can be alike).
            let mut i = (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize;
            while used & (1 << i) != 0 {
                if slots[i] == h {
                    return true;
                }
                i = (i + 1) % SLOTS;
            }
            used |= 1 << i;
            slots[i] = h;
        }
        return false;
    }
    hashes.sort_unstable();
    hashes.windows(2).any(|w| w[0] == w[1])
}

/// Up to this many old map-list items a scan for a key beats building an index (both walks
/// find old items this way).
pub(crate) const SCAN_UP_TO: usize = 32;

/// The hash of a key field a map-list item does not have.
pub(super) const ABSENT_KEY: u64 = 7;

/// JSON equality of two scalar values as the fast path builds them (doubles only come from
/// floats, so `1` and `1.0` never meet); `Err` for anything else.
pub(crate) fn scalar_eq(a: &Value, b: &Value) -> Result<bool, Defer> {
    Ok(match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Double(x), Value::Double(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (
            Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_),
            Value::String(_) | Value::Int(_) | Value::Double(_) | Value::Bool(_),
        ) => false,
        _ => return Err(Defer),
    })
}

/// A string's [`scalar_hash`] (FNV-1a).
pub(super) fn str_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// A hash of a scalar consistent with [`scalar_eq`] (`-0.0` and `0.0` are equal).
pub(super) fn scalar_hash(v: &Value) -> Result<u64, Defer> {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    Ok(match v {
        Value::String(s) => str_hash(s),
        Value::Int(i) => (*i as u64).wrapping_mul(K) ^ 1,
        Value::Double(d) => {
            (if *d == 0.0 { 0.0f64 } else { *d })
                .to_bits()
                .wrapping_mul(K)
                ^ 2
        }
        Value::Bool(b) => u64::from(*b) ^ 3,
        _ => return Err(Defer),
    })
}

/// Whether two items are equal: pairwise for short lists, else among items of equal hash.
pub(super) fn has_duplicates<T>(
    items: &[T],
    hash: impl Fn(&T) -> Result<u64, Defer>,
    eq: impl Fn(&T, &T) -> Result<bool, Defer>,
) -> Result<bool, Defer> {
    if items.len() <= 8 {
        for (i, x) in items.iter().enumerate() {
            for y in items.iter().take(i) {
                if eq(x, y)? {
                    return Ok(true);
                }
            }
        }
        return Ok(false);
    }
    let mut hashed = Vec::with_capacity(items.len());
    for (i, x) in items.iter().enumerate() {
        hashed.push((hash(x)?, i));
    }
    hashed.sort_unstable();
    for (k, &(h, i)) in hashed.iter().enumerate() {
        for &(_, j) in hashed[k + 1..].iter().take_while(|(g, _)| *g == h) {
            if eq(&items[i], &items[j])? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether two map-list items have the same key tuple (a missing key field counts as a value,
/// as in the apiserver's check; a null one is hidden here, so this can only over-report, which
/// defers).
pub(super) fn map_keys_repeat(items: &[Value], keys: &[Arc<str>]) -> Result<bool, Defer> {
    fn key_of<'v>(v: &'v Value, k: &str) -> Result<Option<&'v Value>, Defer> {
        match v {
            Value::Map(m) => Ok(m.get_str(k)),
            _ => Err(Defer),
        }
    }
    let hash = |v: &Value| -> Result<u64, Defer> {
        keys.iter().try_fold(0u64, |h, k| {
            let key = key_of(v, k)?.map_or(Ok(ABSENT_KEY), scalar_hash)?;
            Ok(key_tuple_step(h, key))
        })
    };
    has_duplicates(items, hash, |a, b| {
        for k in keys {
            match (key_of(a, k)?, key_of(b, k)?) {
                (None, None) => {}
                (Some(x), Some(y)) if scalar_eq(x, y)? => {}
                _ => return Ok(false),
            }
        }
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_in_short_and_long_lists() {
        for n in [2usize, 8, 9, 40] {
            let mut items: Vec<Value> = (0..n as i64).map(Value::Int).collect();
            assert!(
                !has_duplicates(&items, scalar_hash, scalar_eq).unwrap(),
                "{n}"
            );
            items.push(Value::Int(n as i64 / 2));
            assert!(
                has_duplicates(&items, scalar_hash, scalar_eq).unwrap(),
                "{n}"
            );
        }
        let zeros = [Value::Double(0.0), Value::Double(-0.0)];
        let long: Vec<Value> = (0..10)
            .map(|i| Value::Double(i as f64 + 1.0))
            .chain(zeros.iter().cloned())
            .collect();
        assert!(
            has_duplicates(&long, scalar_hash, scalar_eq).unwrap(),
            "JSON equality: -0.0 == 0.0"
        );
        let mixed = [Value::Int(1), Value::Double(1.0), Value::string("1")];
        assert!(!has_duplicates(&mixed, scalar_hash, scalar_eq).unwrap());
    }

    /// Both ways of finding a repeat (the table up to 32 hashes, the sort beyond) find every
    /// repeat and no other, among hashes that fall into the same slots too.
    #[test]
    fn hashes_repeat_finds_exactly_the_repeated_hashes() {
        // Hashes whose Fibonacci hash is `i` all want slot 0, so the probes run along the
        // table: `i` times the multiplier's inverse (modulo 2^64, by Newton's iteration).
        const M: u64 = 0x9e37_79b9_7f4a_7c15;
        let inverse = (0..6).fold(M, |x, _| {
            x.wrapping_mul(2u64.wrapping_sub(M.wrapping_mul(x)))
        });
        assert_eq!(M.wrapping_mul(inverse), 1);
        let same_slot = move |i: u64| i.wrapping_mul(inverse);
        let spread = |i: u64| i.wrapping_mul(0x2545_f491_4f6c_dd1d);
        for hash in [&same_slot as &dyn Fn(u64) -> u64, &spread] {
            for n in 0..=40u64 {
                let distinct: Vec<u64> = (0..n).map(hash).collect();
                assert!(!hashes_repeat(&mut distinct.clone()), "{n} distinct");
                for (i, j) in [(0, n), (n / 2, n), (n.saturating_sub(1), n)] {
                    if n == 0 {
                        continue;
                    }
                    let mut repeated = distinct.clone();
                    repeated.insert(j as usize, distinct[i as usize]);
                    assert!(hashes_repeat(&mut repeated), "{n} with item {i} again");
                }
            }
        }
    }
}
