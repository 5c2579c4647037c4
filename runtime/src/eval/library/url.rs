//! `kubernetes.URL`: the apiserver's `library/urls.go`, over Go's `net/url` (go1.26, as the
//! apiserver is built): `url(s)` must pass `url.ParseRequestURI` (an absolute URI or an
//! absolute path, no fragment split) and is then parsed by `url.Parse`; the accessors return
//! `url.URL`'s fields and methods, and `==` compares `URL.String()`.
//!
//! Go strings are bytes: a `%ff` in a path or query decodes to a byte that is not UTF-8. Such
//! bytes become U+FFFD in the CEL strings the accessors return (Go would return the raw byte).

use std::any::Any;

use super::super::error::EvalError;
use super::super::function::Function;
use super::super::go::url::GoUrl;
use super::super::value::{Key, Map, Opaque, Value};
use super::k8s_util::{downcast, first_arg_traversal, opaque, same_type};

fn text(b: &[u8]) -> Value {
    Value::string(String::from_utf8_lossy(b).into_owned())
}

/// The `kubernetes.URL` value.
#[derive(Debug)]
pub(crate) struct Url(GoUrl);

impl Opaque for Url {
    fn type_name(&self) -> &'static str {
        "kubernetes.URL"
    }
    fn equals(&self, other: &dyn Opaque) -> Result<bool, EvalError> {
        Ok(self.0.to_go_string() == same_type::<Url>(other)?.0.to_go_string())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn url(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    let wrap = |e: String| {
        EvalError::new(format!(
            "URL parse error during conversion from string: {e}"
        ))
    };
    GoUrl::parse_request_uri(s).map_err(wrap)?;
    Ok(opaque(Url(GoUrl::parse(s).map_err(wrap)?)))
}

fn is_url(args: &[Value]) -> Result<Value, EvalError> {
    let [Value::String(s)] = args else {
        return Err(EvalError::no_such_overload());
    };
    Ok(Value::Bool(GoUrl::parse_request_uri(s).is_ok()))
}

fn url_arg(args: &[Value]) -> Result<&GoUrl, EvalError> {
    match args {
        [v] => downcast::<Url>(v)
            .map(|u| &u.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn get_scheme_fn(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::string(url_arg(args)?.scheme.as_str()))
}

fn get_host(args: &[Value]) -> Result<Value, EvalError> {
    Ok(text(&url_arg(args)?.host))
}

fn get_hostname(args: &[Value]) -> Result<Value, EvalError> {
    Ok(text(url_arg(args)?.host_port().0))
}

fn get_port(args: &[Value]) -> Result<Value, EvalError> {
    Ok(text(url_arg(args)?.host_port().1))
}

fn get_escaped_path(args: &[Value]) -> Result<Value, EvalError> {
    Ok(Value::string(url_arg(args)?.escaped_path()))
}

fn get_query(args: &[Value]) -> Result<Value, EvalError> {
    let entries = url_arg(args)?
        .query()
        .into_iter()
        .map(|(k, vs)| {
            let key = Key::String(String::from_utf8_lossy(&k).into_owned().into());
            (key, Value::list(vs.iter().map(|v| text(v)).collect()))
        })
        .collect();
    Ok(Value::Map(std::sync::Arc::new(Map::new(entries))))
}

/// The URL functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function {
        name: "url",
        call: url,
        cost: Some(first_arg_traversal),
    },
    Function {
        name: "isURL",
        call: is_url,
        cost: None,
    },
    Function {
        name: "getScheme",
        call: get_scheme_fn,
        cost: None,
    },
    Function {
        name: "getHost",
        call: get_host,
        cost: None,
    },
    Function {
        name: "getHostname",
        call: get_hostname,
        cost: None,
    },
    Function {
        name: "getPort",
        call: get_port,
        cost: None,
    },
    Function {
        name: "getEscapedPath",
        call: get_escaped_path,
        cost: None,
    },
    Function {
        name: "getQuery",
        call: get_query,
        cost: None,
    },
];

#[cfg(test)]
mod tests {
    use super::super::testing::{call, cost, s, show, text};
    use super::*;

    /// `url(s)` or `url(s).<accessor>()`, recorded from the apiserver v1.37.2 (go1.26) through
    /// tests/oracle.
    const CASES: &[(&str, &str, &str)] = &[
        (
            "https://example.com/path?k1=a&k2=b&k2=c#frag",
            "getHost",
            "VALUE:example.com",
        ),
        (
            "https://a:b:c/",
            "getHost",
            "ERR:URL parse error during conversion from string: parse \"https://a:b:c/\": invalid port \":b:c\" after host",
        ),
        ("postgres://a:1,b:2/db", "getHost", "VALUE:a:1,b:2"),
        ("postgres://a:1,b:2/db", "getPort", "VALUE:2"),
        ("https://[::1]:80/", "getHostname", "VALUE:::1"),
        ("https://[::1]:80/", "getPort", "VALUE:80"),
        (
            "https://[fe80::1%25en0]:80/",
            "getHostname",
            "VALUE:fe80::1%en0",
        ),
        (
            "https://[1.2.3.4]/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://[1.2.3.4]/\": invalid IP-literal",
        ),
        (
            "https://[::1/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://[::1/\": missing ']' in host",
        ),
        (
            "https://x[::1]/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://x[::1]/\": invalid IP-literal",
        ),
        (
            "https://[::1]x/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://[::1]x/\": invalid port \"x\" after host",
        ),
        (
            "https://[zz]/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://[zz]/\": invalid host: ParseAddr(\"zz\"): unable to parse IP",
        ),
        (
            "https://%zz/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://%zz/\": invalid URL escape \"%zz\"",
        ),
        (
            "https://%41/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://%41/\": invalid URL escape \"%41\"",
        ),
        (
            "https://a b/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://a b/\": invalid character \" \" in host name",
        ),
        ("https://ex%C3%A4mple.com/", "getHost", "VALUE:exämple.com"),
        (
            "https://user:pa ss@host/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://user:pa ss@host/\": net/url: invalid userinfo",
        ),
        (
            "https://us%zz@host/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://us%zz@host/\": invalid URL escape \"%zz\"",
        ),
        ("https://u@h@host/", "getHost", "VALUE:host"),
        (
            "/path%zz",
            "",
            "ERR:URL parse error during conversion from string: parse \"/path%zz\": invalid URL escape \"%zz\"",
        ),
        (
            "/path%2",
            "",
            "ERR:URL parse error during conversion from string: parse \"/path%2\": invalid URL escape \"%2\"",
        ),
        (
            "/path%",
            "",
            "ERR:URL parse error during conversion from string: parse \"/path%\": invalid URL escape \"%\"",
        ),
        (
            "relative",
            "",
            "ERR:URL parse error during conversion from string: parse \"relative\": invalid URI for request",
        ),
        (
            "",
            "",
            "ERR:URL parse error during conversion from string: parse \"\": empty url",
        ),
        ("*", "getEscapedPath", "VALUE:*"),
        (
            ":foo",
            "",
            "ERR:URL parse error during conversion from string: parse \":foo\": missing protocol scheme",
        ),
        ("https://h/a b", "getEscapedPath", "VALUE:/a%20b"),
        ("https://h/a%20b", "getEscapedPath", "VALUE:/a%20b"),
        ("https://h/a%2fb", "getEscapedPath", "VALUE:/a%2fb"),
        ("https://h/a%2Fb?x", "getEscapedPath", "VALUE:/a%2Fb"),
        ("https://h/a?b#c d", "getEscapedPath", "VALUE:/a"),
        (
            "https://h/p?x#%zz",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://h/p?x#%zz\": invalid URL escape \"%zz\"",
        ),
        (
            "https://h/p#%zz",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://h/p#%zz\": invalid URL escape \"%zz\"",
        ),
        (
            "https://h/p#frag%zz",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://h/p#frag%zz\": invalid URL escape \"%zz\"",
        ),
        ("mailto:a@b.c", "getScheme", "VALUE:mailto"),
        ("HTTPS://H/", "getScheme", "VALUE:https"),
        ("https://h/", "getHost", "VALUE:h"),
        ("HTTPS:/p", "getHost", "VALUE:"),
        ("https://h:/", "getPort", "VALUE:"),
        (
            "https://h:80x/",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://h:80x/\": invalid port \":80x\" after host",
        ),
        (
            "https://h:80x/x",
            "",
            "ERR:URL parse error during conversion from string: parse \"https://h:80x/x\": invalid port \":80x\" after host",
        ),
        (
            "http://a:b:c/",
            "",
            "ERR:URL parse error during conversion from string: parse \"http://a:b:c/\": invalid port \":b:c\" after host",
        ),
        ("https://h/é", "getEscapedPath", "VALUE:/%C3%A9"),
        ("https://h/%FF", "getEscapedPath", "VALUE:/%FF"),
        ("https://h/%ff", "getEscapedPath", "VALUE:/%ff"),
        ("https://h/a;b,c", "getEscapedPath", "VALUE:/a;b,c"),
        (
            "https://h/a@b:c$d&e=f+g",
            "getEscapedPath",
            "VALUE:/a@b:c$d&e=f+g",
        ),
        ("https://h/[x]", "getEscapedPath", "VALUE:/[x]"),
        ("https://h/a|b", "getEscapedPath", "VALUE:/a%7Cb"),
        ("https://h/a%7cb", "getEscapedPath", "VALUE:/a%7cb"),
    ];

    #[test]
    fn parsing_and_accessors_match_the_apiserver() {
        for &(input, accessor, want) in CASES {
            let u = call("url", &[s(input)]);
            let got = match (accessor, u) {
                ("", u) => show(u.map(|_| Value::string("<url>"))),
                (_, Err(e)) => show(Err(e)),
                (a, Ok(u)) => show(call(a, &[u])),
            };
            let want = if accessor.is_empty() && want.starts_with("VALUE") {
                "VALUE:<url>"
            } else {
                want
            };
            assert_eq!(got, want, "url({input:?}).{accessor}()");
        }
    }

    /// `url(a) == url(b)`: `URL.String()` equality.
    const EQUALITY: &[(&str, &str, bool)] = &[
        ("https://h/a b", "https://h/a%20b", true),
        ("https://h/a%2fb", "https://h/a/b", false),
        ("https://h/p#a b", "https://h/p#a%20b", true),
        ("https://u:p@h/", "https://u:p@h", false),
        ("https://h", "https://h/", false),
        ("HTTPS://h/", "https://h/", true),
        ("https:/p", "https:///p", false),
        ("https://h/?", "https://h/", false),
        ("https://h/p?x", "https://h/p?x#", true),
        ("https:opaque", "https:opaque", true),
    ];

    #[test]
    fn equality_compares_the_reassembled_url() {
        for &(a, b, want) in EQUALITY {
            let (Ok(Value::Opaque(x)), Ok(Value::Opaque(y))) =
                (call("url", &[s(a)]), call("url", &[s(b)]))
            else {
                panic!("{a} or {b} does not parse");
            };
            assert_eq!(x.equals(&*y), Ok(want), "url({a:?}) == url({b:?})");
        }
    }

    #[test]
    fn is_url_is_parse_request_uri() {
        for &(input, want) in &[
            (
                "https://user:pass@example.com:80/path?query=val#fragment",
                true,
            ),
            ("https://a:b:c/", false),
            ("../relative-path", false),
            ("https://h/\u{1}", false),
            ("//h/p", true),
            ("///p", true),
        ] {
            assert_eq!(
                show(call("isURL", &[s(input)])),
                format!("VALUE:{want}"),
                "{input:?}"
            );
        }
    }

    #[test]
    fn query_parameters_in_order_with_malformed_pairs_dropped() {
        let u = call(
            "url",
            &[s("https://h/?a=1&b=2;c=3&=4&d&e=%zz&f=%41+b&a=2&a")],
        )
        .unwrap();
        let Ok(Value::Map(m)) = call("getQuery", &[u]) else {
            panic!("getQuery gives a map")
        };
        let got: Vec<String> = m
            .entries()
            .iter()
            .map(|(k, v)| format!("{k}={}", text(v)))
            .collect();
        assert_eq!(got, ["a=[1, 2, ]", "=[4]", "d=[]", "f=[A b]"]);
    }

    #[test]
    fn costs() {
        // url() is a string traversal; the accessors and isURL cost 1 (library/cost.go).
        assert_eq!(cost("url", &[s("https://kubernetes.io/")]), 3);
        assert_eq!(cost("isURL", &[s("https://kubernetes.io/")]), 1);
        let u = call("url", &[s("https://kubernetes.io/")]).unwrap();
        assert_eq!(cost("getHost", &[u]), 1);
    }
}
