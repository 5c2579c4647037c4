//! `net.IP` and `net.CIDR`: the apiserver's `library/ip.go` and `library/cidr.go`, over the
//! parsing and formatting rules of Go's `net/netip` (which they use), with the Kubernetes
//! restrictions: no zones, no IPv4-mapped IPv6 addresses.

use std::any::Any;
use std::fmt::Write as _;

use super::super::error::EvalError;
use super::super::functions::{Function, STRING_TRAVERSAL_FACTOR, traversal_cost};
use super::super::value::{Opaque, Value};
use super::k8s_util::{downcast, first_arg_traversal, opaque, quote, same_type};

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
    fn bit_len(self) -> u32 {
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
    fn masked(self, bits: u32) -> Addr {
        let len = self.bit_len();
        let keep = bits.min(len);
        let mask: u128 = if keep == 0 {
            0
        } else {
            (u128::MAX << (128 - keep)) >> (128 - len)
        };
        self.with_bits(self.as_u128() & mask)
    }

    fn is_loopback(self) -> bool {
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

    fn is_link_local_unicast(self) -> bool {
        match self.unmap() {
            Addr::V4(b) => b[0] == 169 && b[1] == 254,
            Addr::V6(b) => b[0] == 0xfe && b[1] & 0xc0 == 0x80,
        }
    }

    fn is_link_local_multicast(self) -> bool {
        match self.unmap() {
            Addr::V4(b) => b[0] == 224 && b[1] == 0 && b[2] == 0,
            Addr::V6(b) => b[0] == 0xff && b[1] & 0x0f == 0x02,
        }
    }

    fn is_unspecified(self) -> bool {
        self == Addr::V4([0; 4]) || self == Addr::V6([0; 16])
    }

    fn is_global_unicast(self) -> bool {
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
    addr: Addr,
    bits: u32,
}

impl Prefix {
    /// `Contains(ip)`.
    fn contains(&self, ip: Addr) -> bool {
        ip.bit_len() == self.addr.bit_len() && ip.masked(self.bits) == self.addr.masked(self.bits)
    }

    /// `Overlaps(o)`.
    fn overlaps(&self, o: &Prefix) -> bool {
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
fn parse_prefix(s: &str) -> Result<Prefix, String> {
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

/// The `net.IP` value.
#[derive(Debug)]
pub(crate) struct Ip(pub(crate) Addr);

impl Opaque for Ip {
    fn type_name(&self) -> &'static str {
        "net.IP"
    }
    fn equals(&self, other: &dyn Opaque) -> Result<bool, EvalError> {
        Ok(self.0 == same_type::<Ip>(other)?.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_cel_string(&self) -> Option<String> {
        Some(self.0.to_string())
    }
    fn cost_size(&self) -> Option<u64> {
        Some(u64::from(self.0.bit_len() / 8))
    }
}

/// The `net.CIDR` value.
#[derive(Debug)]
pub(crate) struct Cidr(pub(crate) Prefix);

impl Opaque for Cidr {
    fn type_name(&self) -> &'static str {
        "net.CIDR"
    }
    fn equals(&self, other: &dyn Opaque) -> Result<bool, EvalError> {
        Ok(self.0 == same_type::<Cidr>(other)?.0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_cel_string(&self) -> Option<String> {
        Some(self.0.to_string())
    }
    fn cost_size(&self) -> Option<u64> {
        Some(u64::from(self.0.bits.div_ceil(8)))
    }
}

/// ip.go's `parseIPAddr`: netip's parse plus the Kubernetes restrictions.
fn parse_ip(raw: &str) -> Result<Addr, EvalError> {
    let (addr, zone) = parse_addr(raw).map_err(|e| {
        EvalError::new(format!(
            "IP Address {} parse error during conversion from string: {e}",
            quote(raw)
        ))
    })?;
    if zone {
        return Err(EvalError::new(format!(
            "IP address {} with zone value is not allowed",
            quote(raw)
        )));
    }
    if addr.is_4in6() {
        return Err(EvalError::new(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        )));
    }
    Ok(addr)
}

/// cidr.go's `stringToCIDR` (whose `parseCIDR` already prefixes the message once).
fn parse_cidr(raw: &str) -> Result<Prefix, EvalError> {
    const PREFIX: &str = "network address parse error during conversion from string: ";
    let inner = match parse_prefix(raw) {
        Ok(p) if p.addr.is_4in6() => {
            format!("IPv4-mapped IPv6 address {} is not allowed", quote(raw))
        }
        Ok(p) => return Ok(p),
        Err(e) => format!("{PREFIX}{e}"),
    };
    Err(EvalError::new(format!("{PREFIX}{inner}")))
}

fn str_arg(args: &[Value]) -> Result<&str, EvalError> {
    match args {
        [Value::String(s)] => Ok(s),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn ip_arg(args: &[Value]) -> Result<Addr, EvalError> {
    match args {
        [v] => downcast::<Ip>(v)
            .map(|ip| ip.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn cidr_arg(v: &Value) -> Result<Prefix, EvalError> {
    downcast::<Cidr>(v)
        .map(|c| c.0)
        .ok_or_else(EvalError::no_such_overload)
}

/// `ip(string)` and `<CIDR>.ip()`.
fn ip(args: &[Value]) -> Result<Value, EvalError> {
    if let [v] = args
        && let Some(c) = downcast::<Cidr>(v)
    {
        return Ok(opaque(Ip(c.0.addr)));
    }
    Ok(opaque(Ip(parse_ip(str_arg(args)?)?)))
}

fn ip_cost(args: &[Value], result: &Value) -> u64 {
    match args {
        // The IP of a CIDR is a field access.
        [v] if downcast::<Cidr>(v).is_some() => 1,
        _ => first_arg_traversal(args, result),
    }
}

fn is_ip(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(parse_ip(str_arg(args)?).is_ok()))
}

fn ip_is_canonical(args: &[Value]) -> Result<Value, EvalError> {
    let s = str_arg(args)?;
    let addr = parse_ip(s)?;
    let mut canonical = String::new();
    let _ = write!(canonical, "{addr}");
    Ok(Value::Bool(canonical == s))
}

fn ip_is_canonical_cost(args: &[Value], _: &Value) -> u64 {
    // Parsing, then comparing with the original: twice the traversal.
    args.first().map_or(1, |a| {
        traversal_cost(a.cost_size() * 2, STRING_TRAVERSAL_FACTOR)
    })
}

fn family(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Int(match ip_arg(args)? {
        Addr::V4(_) => 4,
        Addr::V6(_) => 6,
    }))
}

fn is_unspecified(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ip_arg(args)?.is_unspecified()))
}

fn is_loopback(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ip_arg(args)?.is_loopback()))
}

fn is_link_local_multicast(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ip_arg(args)?.is_link_local_multicast()))
}

fn is_link_local_unicast(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ip_arg(args)?.is_link_local_unicast()))
}

fn is_global_unicast(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(ip_arg(args)?.is_global_unicast()))
}

fn cidr(args: &[Value]) -> Result<Value, EvalError> {
    Ok(opaque(Cidr(parse_cidr(str_arg(args)?)?)))
}

fn is_cidr(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::Bool(parse_cidr(str_arg(args)?).is_ok()))
}

fn contains_ip(args: &[Value]) -> Result<Value, EvalError> {
    let [c, other] = args else {
        return Err(EvalError::no_such_overload());
    };
    let prefix = cidr_arg(c)?;
    let ip = match other {
        // cidr.go passes the parse error on as the argument, and `cidrContainsIP` then answers
        // `no such overload` about the (valid) receiver rather than the parse error.
        Value::String(s) => parse_ip(s).map_err(|_| EvalError::no_such_overload())?,
        v => downcast::<Ip>(v)
            .map(|ip| ip.0)
            .ok_or_else(EvalError::no_such_overload)?,
    };
    Ok(Value::Bool(prefix.contains(ip)))
}

fn contains_ip_cost(args: &[Value], _: &Value) -> u64 {
    let [c, other] = args else { return 1 };
    let cidr_size = c.cost_size();
    let mut cost = traversal_cost(cidr_size * 2, STRING_TRAVERSAL_FACTOR);
    if matches!(other, Value::String(_)) {
        cost += traversal_cost(other.cost_size(), STRING_TRAVERSAL_FACTOR);
    }
    cost
}

fn contains_cidr(args: &[Value]) -> Result<Value, EvalError> {
    let [c, other] = args else {
        return Err(EvalError::no_such_overload());
    };
    let prefix = cidr_arg(c)?;
    let other = match other {
        Value::String(s) => parse_cidr(s)?,
        v => cidr_arg(v)?,
    };
    Ok(Value::Bool(
        prefix.overlaps(&other) && prefix.bits <= other.bits,
    ))
}

fn contains_cidr_cost(args: &[Value], _: &Value) -> u64 {
    let [c, other] = args else { return 1 };
    let cidr_size = c.cost_size();
    let mut cost = traversal_cost(cidr_size * 2, STRING_TRAVERSAL_FACTOR)
        + traversal_cost(cidr_size, STRING_TRAVERSAL_FACTOR)
        + 1;
    if matches!(other, Value::String(_)) {
        cost += traversal_cost(other.cost_size(), STRING_TRAVERSAL_FACTOR);
    }
    cost
}

fn prefix_length(args: &[Value]) -> Result<Value, EvalError> {
    match args {
        [c] => Ok(Value::Int(i64::from(cidr_arg(c)?.bits))),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn masked(args: &[Value]) -> Result<Value, EvalError> {
    match args {
        [c] => {
            let p = cidr_arg(c)?;
            Ok(opaque(Cidr(Prefix {
                addr: p.addr.masked(p.bits),
                bits: p.bits,
            })))
        }
        _ => Err(EvalError::no_such_overload()),
    }
}

/// The IP and CIDR functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "ip",
        call: ip,
        cost: Some(ip_cost),
    },
    Function {
        name: "isIP",
        call: is_ip,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "ip.isCanonical",
        call: ip_is_canonical,
        cost: Some(ip_is_canonical_cost),
    },
    Function {
        name: "family",
        call: family,
        cost: None,
    },
    Function {
        name: "isUnspecified",
        call: is_unspecified,
        cost: None,
    },
    Function {
        name: "isLoopback",
        call: is_loopback,
        cost: None,
    },
    Function {
        name: "isLinkLocalMulticast",
        call: is_link_local_multicast,
        cost: None,
    },
    Function {
        name: "isLinkLocalUnicast",
        call: is_link_local_unicast,
        cost: None,
    },
    Function {
        name: "isGlobalUnicast",
        call: is_global_unicast,
        cost: None,
    },
    Function {
        name: "cidr",
        call: cidr,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "isCIDR",
        call: is_cidr,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "containsIP",
        call: contains_ip,
        cost: Some(contains_ip_cost),
    },
    Function {
        name: "containsCIDR",
        call: contains_cidr,
        cost: Some(contains_cidr_cost),
    },
    Function {
        name: "prefixLength",
        call: prefix_length,
        cost: None,
    },
    Function {
        name: "masked",
        call: masked,
        cost: None,
    },
];

#[cfg(test)]
mod tests {
    use super::super::k8s_util::testing::{call, cost, s, show};
    use super::*;

    /// Parsing and printing as the apiserver does (outcomes recorded from the apiserver
    /// v1.37.2 through tests/oracle: `string(ip(s))` or the evaluation error).
    const PARSE_CASES: &[(&str, &str, &str)] = &[
        ("ip", "192.168.0.1", "VALUE:192.168.0.1"),
        (
            "ip",
            "192.168.0.01",
            "ERR:IP Address \"192.168.0.01\" parse error during conversion from string: ParseAddr(\"192.168.0.01\"): IPv4 field has octet with leading zero",
        ),
        (
            "ip",
            "1.2.3",
            "ERR:IP Address \"1.2.3\" parse error during conversion from string: ParseAddr(\"1.2.3\"): IPv4 address too short",
        ),
        (
            "ip",
            "1.2.3.4.5",
            "ERR:IP Address \"1.2.3.4.5\" parse error during conversion from string: ParseAddr(\"1.2.3.4.5\"): IPv4 address too long",
        ),
        (
            "ip",
            "1.2.3.256",
            "ERR:IP Address \"1.2.3.256\" parse error during conversion from string: ParseAddr(\"1.2.3.256\"): IPv4 field has value >255",
        ),
        (
            "ip",
            "1..2.3",
            "ERR:IP Address \"1..2.3\" parse error during conversion from string: ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")",
        ),
        (
            "ip",
            ".1.2.3",
            "ERR:IP Address \".1.2.3\" parse error during conversion from string: ParseAddr(\".1.2.3\"): IPv4 field must have at least one digit (at \".1.2.3\")",
        ),
        (
            "ip",
            "1.2.3.",
            "ERR:IP Address \"1.2.3.\" parse error during conversion from string: ParseAddr(\"1.2.3.\"): IPv4 field must have at least one digit (at \".\")",
        ),
        (
            "ip",
            "1.2.3.4%eth0",
            "ERR:IP Address \"1.2.3.4%eth0\" parse error during conversion from string: ParseAddr(\"1.2.3.4%eth0\"): unexpected character (at \"%eth0\")",
        ),
        (
            "ip",
            "1.2.a.4",
            "ERR:IP Address \"1.2.a.4\" parse error during conversion from string: ParseAddr(\"1.2.a.4\"): unexpected character (at \"a.4\")",
        ),
        (
            "ip",
            "",
            "ERR:IP Address \"\" parse error during conversion from string: ParseAddr(\"\"): unable to parse IP",
        ),
        (
            "ip",
            "abc",
            "ERR:IP Address \"abc\" parse error during conversion from string: ParseAddr(\"abc\"): unable to parse IP",
        ),
        (
            "ip",
            "%eth0",
            "ERR:IP Address \"%eth0\" parse error during conversion from string: ParseAddr(\"%eth0\"): missing IPv6 address",
        ),
        ("ip", "::1", "VALUE:::1"),
        ("ip", "::", "VALUE:::"),
        ("ip", "2001:DB8::1", "VALUE:2001:db8::1"),
        ("ip", "2001:db8:0:0:1:0:0:1", "VALUE:2001:db8::1:0:0:1"),
        ("ip", "2001:0:0:1:0:0:0:1", "VALUE:2001:0:0:1::1"),
        (
            "ip",
            "fe80::1%eth0",
            "ERR:IP address \"fe80::1%eth0\" with zone value is not allowed",
        ),
        (
            "ip",
            "fe80::1%",
            "ERR:IP Address \"fe80::1%\" parse error during conversion from string: ParseAddr(\"fe80::1%\"): zone must be a non-empty string",
        ),
        (
            "ip",
            "::ffff:1.2.3.4",
            "ERR:IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed",
        ),
        ("ip", "::1.2.3.4", "VALUE:::102:304"),
        ("ip", "1:2:3:4:5:6:1.2.3.4", "VALUE:1:2:3:4:5:6:102:304"),
        (
            "ip",
            "1:2:3:4:5:1.2.3.4",
            "ERR:IP Address \"1:2:3:4:5:1.2.3.4\" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")",
        ),
        (
            "ip",
            "1:2:3:4:5:6:7:1.2.3.4",
            "ERR:IP Address \"1:2:3:4:5:6:7:1.2.3.4\" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:6:7:1.2.3.4\"): embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")",
        ),
        (
            "ip",
            "12345::1",
            "ERR:IP Address \"12345::1\" parse error during conversion from string: ParseAddr(\"12345::1\"): each group must have 4 or less digits (at \"12345::1\")",
        ),
        (
            "ip",
            "1:2:3:4:5:6:7",
            "ERR:IP Address \"1:2:3:4:5:6:7\" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:6:7\"): address string too short",
        ),
        (
            "ip",
            "1:2:3:4:5:6:7:8:9",
            "ERR:IP Address \"1:2:3:4:5:6:7:8:9\" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:6:7:8:9\"): trailing garbage after address (at \"9\")",
        ),
        (
            "ip",
            "1::2::3",
            "ERR:IP Address \"1::2::3\" parse error during conversion from string: ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")",
        ),
        (
            "ip",
            "1:2:3:4:5:6:7:8::",
            "ERR:IP Address \"1:2:3:4:5:6:7:8::\" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:6:7:8::\"): the :: must expand to at least one field of zeros",
        ),
        (
            "ip",
            "::1:",
            "ERR:IP Address \"::1:\" parse error during conversion from string: ParseAddr(\"::1:\"): colon must be followed by more characters (at \":\")",
        ),
        (
            "ip",
            ":1",
            "ERR:IP Address \":1\" parse error during conversion from string: ParseAddr(\":1\"): each colon-separated field must have at least one digit (at \":1\")",
        ),
        (
            "ip",
            "1:2:3:4:5:6:7:g",
            "ERR:IP Address \"1:2:3:4:5:6:7:g\" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:6:7:g\"): each colon-separated field must have at least one digit (at \"g\")",
        ),
        (
            "ip",
            "1:2:3:4:5:6:7:8 ",
            "ERR:IP Address \"1:2:3:4:5:6:7:8 \" parse error during conversion from string: ParseAddr(\"1:2:3:4:5:6:7:8 \"): unexpected character, want colon (at \" \")",
        ),
        ("ip", "0:0:0:0:0:0:0:0", "VALUE:::"),
        ("ip", "1:0:0:2:0:0:0:3", "VALUE:1:0:0:2::3"),
        ("ip", "1:0:0:2:0:0:3:0", "VALUE:1::2:0:0:3:0"),
        (
            "ip",
            "::1.2.3",
            "ERR:IP Address \"::1.2.3\" parse error during conversion from string: ParseAddr(\"::1.2.3\"): IPv4 address too short",
        ),
        (
            "ip",
            "::1.2.3.04",
            "ERR:IP Address \"::1.2.3.04\" parse error during conversion from string: ParseAddr(\"::1.2.3.04\"): IPv4 field has octet with leading zero",
        ),
        ("ip.isCanonical", "2001:db8::1", "VALUE:true"),
        ("ip.isCanonical", "2001:DB8::1", "VALUE:false"),
        ("ip.isCanonical", "127.0.0.1", "VALUE:true"),
        (
            "ip.isCanonical",
            "bad",
            "ERR:IP Address \"bad\" parse error during conversion from string: ParseAddr(\"bad\"): unable to parse IP",
        ),
        ("isIP", "1.2.3.4", "VALUE:true"),
        ("isIP", "::ffff:1.2.3.4", "VALUE:false"),
        ("cidr", "192.168.0.0/16", "VALUE:192.168.0.0/16"),
        ("cidr", "192.168.1.5/16", "VALUE:192.168.1.5/16"),
        (
            "cidr",
            "192.168.0.0/33",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/33\"): prefix length out of range",
        ),
        (
            "cidr",
            "192.168.0.0/-1",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/-1\"): bad bits after slash: \"-1\"",
        ),
        (
            "cidr",
            "192.168.0.0/+1",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/+1\"): bad bits after slash: \"+1\"",
        ),
        (
            "cidr",
            "192.168.0.0/01",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/01\"): bad bits after slash: \"01\"",
        ),
        (
            "cidr",
            "192.168.0.0/",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"",
        ),
        (
            "cidr",
            "192.168.0.0/a",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/a\"): bad bits after slash: \"a\"",
        ),
        (
            "cidr",
            "192.168.0.0/99999999999999999999",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/99999999999999999999\"): bad bits after slash: \"99999999999999999999\"",
        ),
        (
            "cidr",
            "192.168.0.0",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0\"): no '/'",
        ),
        (
            "cidr",
            "::ffff:1.2.3.4/128",
            "ERR:network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:1.2.3.4/128\" is not allowed",
        ),
        (
            "cidr",
            "fe80::1%eth0/64",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"fe80::1%eth0/64\"): IPv6 zones cannot be present in a prefix",
        ),
        ("cidr", "2001:db8::/32", "VALUE:2001:db8::/32"),
        (
            "cidr",
            "2001:db8::1/129",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"2001:db8::1/129\"): prefix length out of range",
        ),
        (
            "cidr",
            "1.2.3/8",
            "ERR:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"1.2.3/8\"): ParseAddr(\"1.2.3\"): IPv4 address too short",
        ),
        ("isCIDR", "1.2.3.4/32", "VALUE:true"),
        ("isCIDR", "1.2.3.4", "VALUE:false"),
    ];

    #[test]
    fn parse_and_print_like_the_apiserver() {
        for &(f, arg, want) in PARSE_CASES {
            assert_eq!(show(call(f, &[s(arg)])), want, "{f}({arg:?})");
        }
    }

    fn ip_of(v: &str) -> Value {
        call("ip", &[s(v)]).expect("valid IP")
    }

    fn cidr_of(v: &str) -> Value {
        call("cidr", &[s(v)]).expect("valid CIDR")
    }

    #[test]
    fn address_classes() {
        // isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast.
        let cases = [
            ("0.0.0.0", "10000"),
            ("::", "10000"),
            ("127.0.0.1", "01000"),
            ("::1", "01000"),
            ("224.0.0.1", "00100"),
            ("ff02::1", "00100"),
            ("169.254.1.1", "00010"),
            ("fe80::1", "00010"),
            ("255.255.255.255", "00000"),
            ("8.8.8.8", "00001"),
            ("2001:db8::1", "00001"),
            ("ff05::1", "00000"),
            ("224.0.1.1", "00000"),
        ];
        let preds = [
            "isUnspecified",
            "isLoopback",
            "isLinkLocalMulticast",
            "isLinkLocalUnicast",
            "isGlobalUnicast",
        ];
        for (addr, want) in cases {
            let got: String = preds
                .iter()
                .map(|p| match call(p, &[ip_of(addr)]) {
                    Ok(Value::Bool(true)) => '1',
                    _ => '0',
                })
                .collect();
            assert_eq!(got, want, "{addr}");
        }
        assert_eq!(show(call("family", &[ip_of("fe80::1")])), "VALUE:6");
        assert_eq!(show(call("family", &[ip_of("10.0.0.1")])), "VALUE:4");
    }

    #[test]
    fn cidr_accessors_and_containment() {
        let c = cidr_of("192.168.1.5/16");
        assert_eq!(
            show(call("masked", std::slice::from_ref(&c))),
            "VALUE:192.168.0.0/16"
        );
        assert_eq!(
            show(call("ip", std::slice::from_ref(&c))),
            "VALUE:192.168.1.5"
        );
        assert_eq!(show(call("prefixLength", &[c])), "VALUE:16");
        assert_eq!(
            show(call("masked", &[cidr_of("2001:db8:1234::1/33")])),
            "VALUE:2001:db8::/33"
        );
        let contains_ip = |c: &str, other: Value| show(call("containsIP", &[cidr_of(c), other]));
        assert_eq!(contains_ip("0.0.0.0/0", s("255.1.1.1")), "VALUE:true");
        assert_eq!(contains_ip("10.0.0.0/8", s("::1")), "VALUE:false");
        assert_eq!(contains_ip("10.0.0.0/8", ip_of("10.255.0.1")), "VALUE:true");
        assert_eq!(contains_ip("10.0.0.0/8", ip_of("11.0.0.1")), "VALUE:false");
        // cidr.go hands the parse error to cidrContainsIP, which reports `no such overload`.
        assert_eq!(contains_ip("10.0.0.0/8", s("bad")), "ERR:no such overload");
        let contains = |c: &str, other: Value| show(call("containsCIDR", &[cidr_of(c), other]));
        assert_eq!(contains("10.0.0.0/8", s("10.1.0.0/16")), "VALUE:true");
        assert_eq!(contains("10.1.0.0/16", s("10.0.0.0/8")), "VALUE:false");
        assert_eq!(contains("10.0.0.0/8", cidr_of("10.0.0.0/8")), "VALUE:true");
        assert_eq!(contains("10.0.0.0/8", cidr_of("::/0")), "VALUE:false");
        assert_eq!(contains("::/0", cidr_of("2001:db8::/32")), "VALUE:true");
        assert_eq!(
            contains("10.0.0.0/8", s("bad")),
            "ERR:network address parse error during conversion from string: network address \
             parse error during conversion from string: netip.ParsePrefix(\"bad\"): no '/'"
        );
    }

    #[test]
    fn equality_compares_the_unmasked_prefix() {
        let eq = |a: &Value, b: &Value| match (a, b) {
            (Value::Opaque(x), Value::Opaque(y)) => x.equals(&**y),
            _ => unreachable!(),
        };
        assert_eq!(eq(&cidr_of("10.0.0.0/8"), &cidr_of("10.0.0.0/8")), Ok(true));
        assert_eq!(
            eq(&cidr_of("10.0.0.0/8"), &cidr_of("10.1.0.0/8")),
            Ok(false)
        );
        assert_eq!(eq(&ip_of("1.2.3.4"), &ip_of("1.2.3.4")), Ok(true));
        assert_eq!(
            eq(&ip_of("1.2.3.4"), &cidr_of("1.2.3.4/32")),
            Err(EvalError::no_such_overload())
        );
    }

    #[test]
    fn costs_match_the_upstream_cost_tests() {
        // library/cost_test.go TestIPCost/TestCIDRCost: parse costs and accessor costs.
        assert_eq!(cost("ip", &[s("192.168.0.1")]), 2);
        assert_eq!(
            cost("ip", &[s("2001:db8:3333:4444:5555:6666:7777:8888")]),
            4
        );
        assert_eq!(cost("cidr", &[s("192.168.0.0/16")]), 2);
        assert_eq!(cost("ip", &[cidr_of("192.168.0.0/16")]), 1);
        assert_eq!(cost("family", &[ip_of("::1")]), 1);
        assert_eq!(cost("ip.isCanonical", &[s("2001:db8::1")]), 3);
        let v4 = cidr_of("192.168.0.0/16");
        let v6 = cidr_of("2001:db8::/32");
        assert_eq!(cost("containsIP", &[v4.clone(), ip_of("192.0.0.1")]), 1);
        assert_eq!(cost("containsIP", &[v4.clone(), s("192.169.0.1")]), 3);
        assert_eq!(
            cost("containsCIDR", &[v4.clone(), cidr_of("192.0.0.0/30")]),
            3
        );
        assert_eq!(cost("containsCIDR", &[v4, s("192.0.0.0/30")]), 5);
        assert_eq!(cost("containsIP", &[v6.clone(), ip_of("2001:db8::1")]), 1);
        assert_eq!(
            cost(
                "containsIP",
                &[v6.clone(), s("2001:db8:3333:4444:5555:6666:7777:8888")]
            ),
            5
        );
        assert_eq!(cost("containsCIDR", &[v6, cidr_of("2001:db8::/126")]), 3);
        // cel-go's Sizer sizes: 4 or 16 bytes for an IP, the prefix length in bytes for a CIDR.
        assert_eq!(ip_of("::1").cost_size(), 16);
        assert_eq!(cidr_of("10.0.0.0/9").cost_size(), 2);
    }
}
