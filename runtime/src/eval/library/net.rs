//! `net.IP` and `net.CIDR`: the apiserver's `library/ip.go` and `library/cidr.go`, over the
//! parsing and formatting rules of Go's `net/netip` (which they use), with the Kubernetes
//! restrictions: no zones, no IPv4-mapped IPv6 addresses.

use std::any::Any;
use std::fmt::Write as _;

use super::super::error::EvalError;
use super::super::function::{CostFn, Function, STRING_TRAVERSAL_FACTOR, traversal_cost};
use super::super::go::netip::{Addr, Prefix, parse_addr, parse_prefix};
use super::super::value::{Opaque, Value};
use super::k8s_util::{downcast, first_arg_traversal, opaque, quote, same_type};

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

/// `containsIP`'s cost: twice the CIDR's traversal, and the argument's traversal when the
/// overload is `cidr_contains_ip_string` (`overload_cost`) or, planned without the checker,
/// the argument is a string.
fn contains_ip_cost(args: &[Value], r: &Value) -> u64 {
    match args.get(1) {
        Some(Value::String(_)) => contains_ip_string_cost(args, r),
        _ => contains_ip_ip_cost(args, r),
    }
}

fn contains_ip_ip_cost(args: &[Value], _: &Value) -> u64 {
    let Some(c) = args.first() else { return 1 };
    traversal_cost(c.cost_size() * 2, STRING_TRAVERSAL_FACTOR)
}

fn contains_ip_string_cost(args: &[Value], r: &Value) -> u64 {
    contains_ip_ip_cost(args, r) + other_traversal(args)
}

/// The traversal of the second argument, whatever it is (an error is sized 1).
fn other_traversal(args: &[Value]) -> u64 {
    args.get(1).map_or(0, |o| {
        traversal_cost(o.cost_size(), STRING_TRAVERSAL_FACTOR)
    })
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

/// `containsCIDR`'s cost, as `containsIP`'s with the CIDR's traversal and 1 more.
fn contains_cidr_cost(args: &[Value], r: &Value) -> u64 {
    match args.get(1) {
        Some(Value::String(_)) => contains_cidr_string_cost(args, r),
        _ => contains_cidr_cidr_cost(args, r),
    }
}

fn contains_cidr_cidr_cost(args: &[Value], _: &Value) -> u64 {
    let Some(c) = args.first() else { return 1 };
    let cidr_size = c.cost_size();
    traversal_cost(cidr_size * 2, STRING_TRAVERSAL_FACTOR)
        + traversal_cost(cidr_size, STRING_TRAVERSAL_FACTOR)
        + 1
}

fn contains_cidr_string_cost(args: &[Value], r: &Value) -> u64 {
    contains_cidr_cidr_cost(args, r) + other_traversal(args)
}

/// The Kubernetes estimator's cost of the IP and CIDR functions whose formula depends on the
/// overload id it is given (`""` for a call the checker left unresolved, `id` `None`), not on
/// the values: `None` for the others.
pub(crate) fn overload_cost(name: &str, id: Option<&str>) -> Option<Option<CostFn>> {
    Some(match (name, id) {
        ("ip", Some("cidr_ip")) => None,
        ("ip", _) => Some(first_arg_traversal),
        ("containsIP", Some("cidr_contains_ip_string")) => Some(contains_ip_string_cost),
        ("containsIP", _) => Some(contains_ip_ip_cost),
        ("containsCIDR", Some("cidr_contains_cidr_string")) => Some(contains_cidr_string_cost),
        ("containsCIDR", _) => Some(contains_cidr_cidr_cost),
        _ => return None,
    })
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
    use super::super::testing::{call, cost, s, show};
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
