//! Go's `net/netip` parsing and formatting of addresses and prefixes, the rules the Kubernetes
//! `net.IP` and `net.CIDR` libraries and the URL parser's IP-literal check follow.

use super::quote;

/// An IP address as `netip.Addr` holds it, without zone (the Kubernetes libraries reject zones,
/// and `netip.Prefix` drops them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Addr {
    /// An IPv4 address.
    V4([u8; 4]),
    /// An IPv6 address (possibly IPv4-mapped).
    V6([u8; 16]),
}

impl Addr {
    /// `BitLen()`.
    pub(crate) fn bit_len(self) -> u32 {
        match self {
            Addr::V4(_) => 32,
            Addr::V6(_) => 128,
        }
    }

    /// `Is4In6()`.
    pub(crate) fn is_4in6(self) -> bool {
        matches!(self, Addr::V6(b) if b[..10] == [0; 10] && b[10] == 0xff && b[11] == 0xff)
    }

    /// `Unmap()`.
    fn unmap(self) -> Addr {
        match self {
            Addr::V6(b) if self.is_4in6() => Addr::V4([b[12], b[13], b[14], b[15]]),
            a => a,
        }
    }

    /// The address as a 128-bit number (IPv4 in the low 32 bits).
    fn as_u128(self) -> u128 {
        match self {
            Addr::V4(b) => u32::from_be_bytes(b) as u128,
            Addr::V6(b) => u128::from_be_bytes(b),
        }
    }

    fn with_bits(self, n: u128) -> Addr {
        match self {
            Addr::V4(_) => Addr::V4((n as u32).to_be_bytes()),
            Addr::V6(_) => Addr::V6(n.to_be_bytes()),
        }
    }

    /// The address with all but its first `bits` bits cleared.
    pub(crate) fn masked(self, bits: u32) -> Addr {
        let len = self.bit_len();
        let keep = bits.min(len);
        let mask: u128 = if keep == 0 {
            0
        } else {
            (u128::MAX << (128 - keep)) >> (128 - len)
        };
        self.with_bits(self.as_u128() & mask)
    }

    pub(crate) fn is_loopback(self) -> bool {
        match self.unmap() {
            Addr::V4(b) => b[0] == 127,
            Addr::V6(b) => u128::from_be_bytes(b) == 1,
        }
    }

    fn is_multicast(self) -> bool {
        match self.unmap() {
            Addr::V4(b) => b[0] & 0xf0 == 0xe0,
            Addr::V6(b) => b[0] == 0xff,
        }
    }

    pub(crate) fn is_link_local_unicast(self) -> bool {
        match self.unmap() {
            Addr::V4(b) => b[0] == 169 && b[1] == 254,
            Addr::V6(b) => b[0] == 0xfe && b[1] & 0xc0 == 0x80,
        }
    }

    pub(crate) fn is_link_local_multicast(self) -> bool {
        match self.unmap() {
            Addr::V4(b) => b[0] == 224 && b[1] == 0 && b[2] == 0,
            Addr::V6(b) => b[0] == 0xff && b[1] & 0x0f == 0x02,
        }
    }

    pub(crate) fn is_unspecified(self) -> bool {
        self == Addr::V4([0; 4]) || self == Addr::V6([0; 16])
    }

    pub(crate) fn is_global_unicast(self) -> bool {
        let ip = self.unmap();
        if ip == Addr::V4([0; 4]) || ip == Addr::V4([255; 4]) {
            return false;
        }
        ip != Addr::V6([0; 16])
            && !ip.is_loopback()
            && !ip.is_multicast()
            && !ip.is_link_local_unicast()
    }
}

impl std::fmt::Display for Addr {
    /// `netip.Addr.String()`: dotted decimal, `::ffff:a.b.c.d` for mapped addresses, else RFC
    /// 5952 (lower-case hex, the longest run of two or more zero groups, the first on a tie, as
    /// `::`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Addr::V4(b) => write!(f, "{}.{}.{}.{}", b[0], b[1], b[2], b[3]),
            a if a.is_4in6() => write!(f, "::ffff:{}", a.unmap()),
            Addr::V6(b) => {
                let group = |i: usize| u16::from_be_bytes([b[2 * i], b[2 * i + 1]]);
                let (mut zero_start, mut zero_len) = (usize::MAX, 0);
                let mut i = 0;
                while i < 8 {
                    let mut j = i;
                    while j < 8 && group(j) == 0 {
                        j += 1;
                    }
                    if j - i >= 2 && j - i > zero_len {
                        zero_start = i;
                        zero_len = j - i;
                    }
                    i = j.max(i + 1);
                }
                let mut i = 0;
                while i < 8 {
                    if i == zero_start {
                        f.write_str("::")?;
                        i += zero_len;
                        continue;
                    }
                    if i > 0 && i != zero_start + zero_len {
                        f.write_str(":")?;
                    }
                    write!(f, "{:x}", group(i))?;
                    i += 1;
                }
                Ok(())
            }
        }
    }
}

/// `netip.ParseAddr`'s error text: `ParseAddr("in"): msg` and, when known, ` (at "rest")`.
fn addr_error(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => {
            format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at))
        }
        _ => format!("ParseAddr({}): {msg}", quote(input)),
    }
}

/// `netip.ParseAddr`: the address and whether it had a zone (`fe80::1%eth0`).
pub(crate) fn parse_addr(s: &str) -> Result<(Addr, bool), String> {
    for &c in s.as_bytes() {
        match c {
            b'.' => return parse_ipv4_fields(s, 0, s.len()).map(|b| (Addr::V4(b), false)),
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", None))
}

/// Go's `parseIPv4Fields(in, off, end)`: the dotted quad in `input[off..end]`, errors naming the
/// whole input.
fn parse_ipv4_fields(input: &str, off: usize, end: usize) -> Result<[u8; 4], String> {
    let s = input.get(off..end).unwrap_or_default();
    let b = s.as_bytes();
    let mut fields = [0u8; 4];
    let (mut val, mut pos, mut dig_len) = (0u32, 0usize, 0);
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            dig_len += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == b.len() - 1 || b[i - 1] == b'.' {
                return Err(addr_error(
                    input,
                    "IPv4 field must have at least one digit",
                    s.get(i..),
                ));
            }
            if pos == 3 {
                return Err(addr_error(input, "IPv4 address too long", None));
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(addr_error(input, "unexpected character", s.get(i..)));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(fields)
}

/// Go's `parseIPv6`, step for step (the error for each malformation is part of the output).
fn parse_ipv6(input: &str) -> Result<(Addr, bool), String> {
    let err = |msg: &str, at: &str| Err(addr_error(input, msg, Some(at)));
    let (mut s, zone) = match input.find('%') {
        Some(i) => {
            let zone = &input[i + 1..];
            if zone.is_empty() {
                return Err(addr_error(input, "zone must be a non-empty string", None));
            }
            (&input[..i], Some(zone))
        }
        None => (input, None),
    };
    let has_zone = zone.is_some();
    let zone_len = zone.map_or(0, |z| z.len() + 1);
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.starts_with("::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok((Addr::V6(ip), has_zone));
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0usize;
        let mut acc = 0u32;
        while off < b.len() {
            let c = b[off];
            let digit = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(digit);
            if off > 3 {
                return err("each group must have 4 or less digits", s);
            }
            if acc > 0xffff {
                return err("IPv6 field has value >=2^16", s);
            }
            off += 1;
        }
        if off == 0 {
            return err("each colon-separated field must have at least one digit", s);
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return err(
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                );
            }
            if i + 4 > 16 {
                return err(
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                );
            }
            let end = input.len() - zone_len;
            let v4 = parse_ipv4_fields(input, end - s.len(), end)?;
            ip[i..i + 4].copy_from_slice(&v4);
            s = "";
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return err("unexpected character, want colon", s);
        } else if s.len() == 1 {
            return err("colon must be followed by more characters", s);
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return err("multiple :: in address", s);
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return err("trailing garbage after address", s);
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_error(input, "address string too short", None));
        };
        let n = 16 - i;
        ip.copy_within(e..i, e + n);
        ip[e..e + n].fill(0);
    } else if ellipsis.is_some() {
        return Err(addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
    }
    Ok((Addr::V6(ip), has_zone))
}

/// A `netip.Prefix`: the address as written (not masked) and the prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Prefix {
    pub(crate) addr: Addr,
    pub(crate) bits: u32,
}

impl Prefix {
    /// `Contains(ip)`.
    pub(crate) fn contains(&self, ip: Addr) -> bool {
        ip.bit_len() == self.addr.bit_len() && ip.masked(self.bits) == self.addr.masked(self.bits)
    }

    /// `Overlaps(o)`.
    pub(crate) fn overlaps(&self, o: &Prefix) -> bool {
        if self == o {
            return true;
        }
        if self.addr.bit_len() != o.addr.bit_len() {
            return false;
        }
        let min = self.bits.min(o.bits);
        min == 0 || self.addr.masked(min) == o.addr.masked(min)
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

/// `netip.ParsePrefix`.
pub(crate) fn parse_prefix(s: &str) -> Result<Prefix, String> {
    let err = |msg: &str| Err(format!("netip.ParsePrefix({}): {msg}", quote(s)));
    let Some(i) = s.rfind('/') else {
        return err("no '/'");
    };
    let (addr, zone) = match parse_addr(&s[..i]) {
        Ok(a) => a,
        Err(e) => return err(&e),
    };
    if zone {
        return err("IPv6 zones cannot be present in a prefix");
    }
    let bits_str = &s[i + 1..];
    let bad_bits = || format!("bad bits after slash: {}", quote(bits_str));
    let first = bits_str.as_bytes().first().copied().unwrap_or(b'x');
    if bits_str.len() > 1 && !(b'1'..=b'9').contains(&first) {
        return err(&bad_bits());
    }
    // strconv.Atoi: an optional sign, then decimal digits that fit an int64.
    let digits = bits_str.strip_prefix(['+', '-']).unwrap_or(bits_str);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return err(&bad_bits());
    }
    let Ok(bits) = bits_str.parse::<i64>() else {
        return err(&bad_bits());
    };
    if bits < 0 || bits > i64::from(addr.bit_len()) {
        return err("prefix length out of range");
    }
    Ok(Prefix {
        addr,
        bits: bits as u32,
    })
}
