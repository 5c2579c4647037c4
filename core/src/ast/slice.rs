//! Subslicing in const evaluation, where `split_at` and range indexing cost some thirty calls
//! each (most of them debug-assertion checks): by slice patterns, which it runs without calls.

/// The body of [`subslice`] and [`subslice_bytes`]: the elements before the range dropped 32 at
/// a time and then in one step (a match on the count is one switch, where testing 16, 8, 4, 2
/// and 1 in turn was five tests and five patterns), then those after it the same way.
#[rustfmt::skip]
macro_rules! subslice_body {
    ($b:expr, $start:expr, $len:expr) => {{
        let b = $b;
        let start = $start;
        let len = $len;
        let total = b.len();
        assert!(start <= total && len <= total - start, "range out of bounds");
        let mut t = b;
        let mut k = start;
        while k >= 32 {
            if let [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] = t {
                t = rest;
            }
            k -= 32;
        }
        t = match k {
            1 => match t { [_, rest @ ..] => rest, _ => t },
            2 => match t { [_, _, rest @ ..] => rest, _ => t },
            3 => match t { [_, _, _, rest @ ..] => rest, _ => t },
            4 => match t { [_, _, _, _, rest @ ..] => rest, _ => t },
            5 => match t { [_, _, _, _, _, rest @ ..] => rest, _ => t },
            6 => match t { [_, _, _, _, _, _, rest @ ..] => rest, _ => t },
            7 => match t { [_, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            8 => match t { [_, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            9 => match t { [_, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            10 => match t { [_, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            11 => match t { [_, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            12 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            13 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            14 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            15 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            16 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            17 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            18 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            19 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            20 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            21 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            22 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            23 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            24 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            25 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            26 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            27 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            28 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            29 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            30 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            31 => match t { [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] => rest, _ => t },
            _ => t,
        };
        let mut d = total - start - len;
        while d >= 32 {
            if let [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] = t {
                t = rest;
            }
            d -= 32;
        }
        t = match d {
            1 => match t { [rest @ .., _] => rest, _ => t },
            2 => match t { [rest @ .., _, _] => rest, _ => t },
            3 => match t { [rest @ .., _, _, _] => rest, _ => t },
            4 => match t { [rest @ .., _, _, _, _] => rest, _ => t },
            5 => match t { [rest @ .., _, _, _, _, _] => rest, _ => t },
            6 => match t { [rest @ .., _, _, _, _, _, _] => rest, _ => t },
            7 => match t { [rest @ .., _, _, _, _, _, _, _] => rest, _ => t },
            8 => match t { [rest @ .., _, _, _, _, _, _, _, _] => rest, _ => t },
            9 => match t { [rest @ .., _, _, _, _, _, _, _, _, _] => rest, _ => t },
            10 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            11 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            12 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            13 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            14 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            15 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            16 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            17 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            18 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            19 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            20 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            21 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            22 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            23 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            24 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            25 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            26 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            27 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            28 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            29 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            30 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            31 => match t { [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] => rest, _ => t },
            _ => t,
        };
        t
    }};
}

/// `&b[start..start + len]` (panics when out of bounds) by slice patterns, which const
/// evaluation runs without calls: `split_at` and range indexing cost some thirty calls each,
/// most of them debug-assertion checks.
pub const fn subslice<T>(b: &[T], start: usize, len: usize) -> &[T] {
    subslice_body!(b, start, len)
}

/// [`subslice`] of bytes, written out rather than instantiated: const evaluation runs a generic
/// function several times slower than a plain one, and this one slices every name a check reads.
pub const fn subslice_bytes(b: &[u8], start: usize, len: usize) -> &[u8] {
    subslice_body!(b, start, len)
}

#[cfg(test)]
mod tests {
    use super::{subslice, subslice_bytes};

    /// Every range of slices up to 100 long is what range indexing gives.
    #[test]
    fn subslices_are_ranges() {
        let v: Vec<u8> = (0..100).collect();
        for total in 0..=100 {
            let b = &v[..total];
            for start in 0..=total {
                for len in 0..=total - start {
                    assert_eq!(subslice_bytes(b, start, len), &b[start..start + len]);
                    assert_eq!(subslice(b, start, len), &b[start..start + len]);
                }
            }
        }
    }
}
