//! Go's `net/url` (go1.26, as the apiserver is built): `url.Parse` and `url.ParseRequestURI`,
//! and the `url.URL` fields and methods the Kubernetes URL library returns. The OpenAPI `uri`
//! format check is `ParseRequestURI` too.

use super::netip::{Addr, parse_addr};
use super::quote;

/// The parts of a URL `url.Parse` tells apart (the names of `url.URL`'s fields).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GoUrl {
    pub(crate) scheme: String,
    pub(crate) opaque: String,
    pub(crate) user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    pub(crate) host: Vec<u8>,
    pub(crate) path: Vec<u8>,
    raw_path: String,
    force_query: bool,
    raw_query: String,
    pub(crate) fragment: Vec<u8>,
    raw_fragment: String,
    omit_host: bool,
}

/// The part of a URL being escaped or unescaped (Go's `encoding` modes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// RFC 3986's `sub-delims` and the `:`, `[`, `]` of hosts: the bytes Go's `shouldEscape` leaves
/// alone in a host, and `validEncoded` in an encoded path (each with a few of its own).
fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$'
            | b'&'
            | b'\''
            | b'('
            | b')'
            | b'*'
            | b'+'
            | b','
            | b';'
            | b'='
            | b':'
            | b'['
            | b']'
    )
}

/// Go's `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && (is_delimiter(c) || matches!(c, b'<' | b'>' | b'"'))
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

/// Bytes quoted as Go's `strconv.Quote` prints them (bytes that are not UTF-8 as `\x..`).
fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in b.utf8_chunks() {
        let q = quote(chunk.valid());
        out.push_str(&q[1..q.len() - 1]);
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// Go's `unescape`: `%XX` decoding (and `+` as space in query components), with the host and
/// zone restrictions; the error texts are `EscapeError`'s and `InvalidHostError`'s.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                if i + 2 >= s.len()
                    || !s[i + 1].is_ascii_hexdigit()
                    || !s[i + 2].is_ascii_hexdigit()
                {
                    let end = (i + 3).min(s.len());
                    return Err(format!("invalid URL escape {}", quote_bytes(&s[i..end])));
                }
                let esc = &s[i..i + 3];
                if mode == Mode::Host && unhex(s[i + 1]) < 8 && esc != b"%25" {
                    return Err(format!("invalid URL escape {}", quote_bytes(esc)));
                }
                if mode == Mode::Zone {
                    let v = (unhex(s[i + 1]) << 4) | unhex(s[i + 2]);
                    if esc != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(format!("invalid URL escape {}", quote_bytes(esc)));
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote_bytes(&s[i..i + 1])
                    ));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                out.push((unhex(s[i + 1]) << 4) | unhex(s[i + 2]));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `escape`.
fn escape(s: &[u8], mode: Mode) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push('%');
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 15)] as char);
        } else {
            out.push(c as char);
        }
    }
    out
}

/// Go's `getScheme`.
fn get_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// Go's `validUserinfo`.
fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

/// Go's `parseHost` (go1.26: more than one colon outside brackets is an invalid port for
/// `http` and `https`, the `urlstrictcolons` default).
fn parse_host(scheme: &str, host: &str) -> Result<Vec<u8>, String> {
    match host.rfind('[') {
        Some(i) if i > 0 => return Err("invalid IP-literal".into()),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".into());
            };
            let colon_port = &host[close + 1..];
            if !valid_optional_port(colon_port.as_bytes()) {
                return Err(format!("invalid port {} after host", quote(colon_port)));
            }
            let colon_port = unescape(colon_port.as_bytes(), Mode::Host)?;
            let hostname = host.get(1..close).unwrap_or_default();
            let unescaped = match hostname.find("%25") {
                Some(z) => {
                    let mut h = unescape(&hostname.as_bytes()[..z], Mode::Host)?;
                    h.extend(unescape(&hostname.as_bytes()[z..], Mode::Zone)?);
                    h
                }
                None => unescape(hostname.as_bytes(), Mode::Host)?,
            };
            let text = String::from_utf8_lossy(&unescaped);
            match parse_addr(&text) {
                Err(e) => return Err(format!("invalid host: {e}")),
                Ok((Addr::V4(_), _)) => return Err("invalid IP-literal".into()),
                Ok(_) => {}
            }
            let mut out = b"[".to_vec();
            out.extend(unescaped);
            out.push(b']');
            out.extend(colon_port);
            return Ok(out);
        }
        None => {}
    }
    if let Some(first) = host.find(':') {
        let last = host.rfind(':').unwrap_or(first);
        let i = if scheme == "http" || scheme == "https" {
            first
        } else {
            last
        };
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port.as_bytes()) {
            return Err(format!("invalid port {} after host", quote(colon_port)));
        }
    }
    unescape(host.as_bytes(), Mode::Host)
}

type Userinfo = (Vec<u8>, Option<Vec<u8>>);

/// Go's `parseAuthority`.
fn parse_authority(scheme: &str, authority: &str) -> Result<(Option<Userinfo>, Vec<u8>), String> {
    let Some(at) = authority.rfind('@') else {
        return Ok((None, parse_host(scheme, authority)?));
    };
    let host = parse_host(scheme, &authority[at + 1..])?;
    let userinfo = &authority[..at];
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".into());
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo.as_bytes(), Mode::UserPassword)?, None),
        Some((name, password)) => (
            unescape(name.as_bytes(), Mode::UserPassword)?,
            Some(unescape(password.as_bytes(), Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// `raw` decoded, and `raw` itself when it is not how the decoded bytes encode (else empty):
/// Go's `setPath` and `setFragment`.
fn decode_keeping_raw(raw: &str, mode: Mode) -> Result<(Vec<u8>, String), String> {
    let decoded = unescape(raw.as_bytes(), mode)?;
    let kept = if escape(&decoded, mode) == raw {
        String::new()
    } else {
        raw.to_owned()
    };
    Ok((decoded, kept))
}

/// Go's `validEncoded`.
fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes()
        .all(|c| is_delimiter(c) || matches!(c, b'@' | b'%') || !should_escape(c, mode))
}

impl GoUrl {
    /// Go's `parse(rawURL, viaRequest)`; the error without its `parse "..."` wrapping.
    fn parse_inner(raw: &str, via_request: bool) -> Result<GoUrl, String> {
        if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
            return Err("net/url: invalid control character in URL".into());
        }
        if raw.is_empty() && via_request {
            return Err("empty url".into());
        }
        let mut url = GoUrl::default();
        if raw == "*" {
            url.path = b"*".to_vec();
            return Ok(url);
        }
        let (scheme, mut rest) = get_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            url.force_query = true;
            rest = &rest[..rest.len() - 1];
        } else if let Some((r, q)) = rest.split_once('?') {
            rest = r;
            url.raw_query = q.to_owned();
        }
        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                url.opaque = rest.to_owned();
                return Ok(url);
            }
            if via_request {
                return Err("invalid URI for request".into());
            }
            let segment = rest.split('/').next().unwrap_or_default();
            if segment.contains(':') {
                return Err("first path segment in URL cannot contain colon".into());
            }
        }
        if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///"))
            && rest.starts_with("//")
        {
            let mut authority = &rest[2..];
            rest = "";
            if let Some(i) = authority.find('/') {
                rest = &authority[i..];
                authority = &authority[..i];
            }
            let (user, host) = parse_authority(&url.scheme, authority)?;
            url.user = user;
            url.host = host;
        } else if !url.scheme.is_empty() && rest.starts_with('/') {
            url.omit_host = true;
        }
        url.set_path(rest)?;
        Ok(url)
    }

    /// `url.ParseRequestURI`, with its error text.
    pub(crate) fn parse_request_uri(raw: &str) -> Result<GoUrl, String> {
        GoUrl::parse_inner(raw, true).map_err(|e| format!("parse {}: {e}", quote(raw)))
    }

    /// `url.Parse`, with its error text.
    pub(crate) fn parse(raw: &str) -> Result<GoUrl, String> {
        let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
        let mut url =
            GoUrl::parse_inner(u, false).map_err(|e| format!("parse {}: {e}", quote(u)))?;
        if !frag.is_empty() {
            url.set_fragment(frag)
                .map_err(|e| format!("parse {}: {e}", quote(raw)))?;
        }
        Ok(url)
    }

    fn set_path(&mut self, p: &str) -> Result<(), String> {
        (self.path, self.raw_path) = decode_keeping_raw(p, Mode::Path)?;
        Ok(())
    }

    fn set_fragment(&mut self, f: &str) -> Result<(), String> {
        (self.fragment, self.raw_fragment) = decode_keeping_raw(f, Mode::Fragment)?;
        Ok(())
    }

    /// `URL.EscapedPath()`.
    pub(crate) fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(self.raw_path.as_bytes(), Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }

    /// `URL.EscapedFragment()`.
    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(self.raw_fragment.as_bytes(), Mode::Fragment)
                .is_ok_and(|f| f == self.fragment)
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// `URL.String()`, which `==` compares.
    pub(crate) fn to_go_string(&self) -> String {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            let has_authority =
                !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            // OmitHost: `scheme:/path` keeps its single slash.
            let omit = self.omit_host && self.host.is_empty() && self.user.is_none();
            if has_authority && !omit {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.push_str("//");
                }
                if let Some((name, password)) = &self.user {
                    buf.push_str(&escape(name, Mode::UserPassword));
                    if let Some(p) = password {
                        buf.push(':');
                        buf.push_str(&escape(p, Mode::UserPassword));
                    }
                    buf.push('@');
                }
                buf.push_str(&escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                buf.push_str("./");
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push('#');
            buf.push_str(&self.escaped_fragment());
        }
        buf
    }

    /// Go's `splitHostPort` on `Host`: (`Hostname()`, `Port()`).
    pub(crate) fn host_port(&self) -> (&[u8], &[u8]) {
        let mut host: &[u8] = &self.host;
        let mut port: &[u8] = b"";
        if let Some(colon) = host.iter().rposition(|&c| c == b':')
            && valid_optional_port(&host[colon..])
        {
            port = &host[colon + 1..];
            host = &host[..colon];
        }
        if host.len() >= 2 && host.starts_with(b"[") && host.ends_with(b"]") {
            host = &host[1..host.len() - 1];
        }
        (host, port)
    }

    /// `URL.Query()`: the decoded query parameters, in order of first appearance (Go returns
    /// a map), malformed pairs skipped.
    pub(crate) fn query(&self) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
        let mut out: Vec<(Vec<u8>, Vec<Vec<u8>>)> = Vec::new();
        let q = &self.raw_query;
        // Go's default `urlmaxqueryparams`: over 10000 parameters parse to nothing.
        if q.matches('&').count() + 1 > 10000 {
            return out;
        }
        for pair in q.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(k), Ok(v)) = (
                unescape(k.as_bytes(), Mode::QueryComponent),
                unescape(v.as_bytes(), Mode::QueryComponent),
            ) else {
                continue;
            };
            match out.iter_mut().find(|(key, _)| *key == k) {
                Some((_, values)) => values.push(v),
                None => out.push((k, vec![v])),
            }
        }
        out
    }
}
