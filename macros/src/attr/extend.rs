//! schemars' `extend("key" = value, ..)`, whose values are `serde_json::json!` input: a JSON
//! literal, or Rust expressions inside one. Keys that carry what `#[cel(..)]` says (rules, list
//! and map types, item and property bounds) are read when their value is a literal, checked
//! like `#[cel(..)]`, and written by the derive instead of schemars (the shadow type drops
//! them); anything else that shapes the schema makes the node one read from the generated
//! schema.

use super::*;
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// One `"key" = value` of an `extend(..)`.
pub struct Extension {
    /// The `#[schemars(..)]` it is in (spans of rule errors).
    pub attr: Attribute,
    pub key: LitStr,
    pub value: TokenStream,
}

/// Keys the model is built from: set through `extend` with a value the derive cannot read,
/// the node is read from the generated schema.
const MODEL_KEYS: &[&str] = &[
    "type",
    "format",
    "nullable",
    "enum",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "minimum",
    "maximum",
    "pattern",
    "properties",
    "items",
    "additionalProperties",
    "required",
    "default",
];

/// Keys the derive reads from a literal value and writes itself.
const READ_KEYS: &[&str] = &[
    "x-kubernetes-validations",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
];

/// The fields of one `x-kubernetes-validations` entry, as the apiserver names them.
const RULE_FIELDS: &str = "rule, message, messageExpression, fieldPath, reason, optionalOldSelf";

/// Parses the inside of `extend(..)` as schemars does: a string key, `=`, and the tokens up to
/// the next top-level comma.
pub fn parse_extensions(attr: &Attribute, meta: &ParseNestedMeta) -> syn::Result<Vec<Extension>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let mut out = Vec::new();
    while !content.is_empty() {
        let key: LitStr = content.parse()?;
        content.parse::<Token![=]>()?;
        let mut value = TokenStream::new();
        while !content.is_empty() && !content.peek(Token![,]) {
            value.extend([content.parse::<TokenTree>()?]);
        }
        if value.is_empty() {
            return Err(syn::Error::new(
                content.span(),
                "expected an extension value",
            ));
        }
        out.push(Extension {
            attr: attr.clone(),
            key,
            value,
        });
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(out)
}

/// A JSON literal written as `json!` input, with the tokens' spans.
pub enum Json {
    Null,
    Bool(syn::LitBool),
    Int(syn::LitInt, bool),
    Float,
    Str(LitStr),
    Array(Vec<Json>, Span),
    Object(Vec<(LitStr, Json)>, Span),
}

impl Json {
    /// Reads `tokens` as a JSON literal; `None` when any part of it is a Rust expression.
    pub fn read(tokens: &TokenStream) -> Option<Json> {
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        match trees.as_slice() {
            [TokenTree::Punct(p), TokenTree::Literal(l)] if p.as_char() == '-' => {
                match Lit::new(l.clone()) {
                    Lit::Int(i) => Some(Json::Int(i, true)),
                    Lit::Float(_) => Some(Json::Float),
                    _ => None,
                }
            }
            [one] => Self::tree(one),
            _ => None,
        }
    }

    fn tree(t: &TokenTree) -> Option<Json> {
        match t {
            TokenTree::Literal(l) => match Lit::new(l.clone()) {
                Lit::Str(s) => Some(Json::Str(s)),
                Lit::Int(i) => Some(Json::Int(i, false)),
                Lit::Float(_) => Some(Json::Float),
                _ => None,
            },
            TokenTree::Ident(i) if i == "null" => Some(Json::Null),
            TokenTree::Ident(i) if i == "true" || i == "false" => {
                Some(Json::Bool(syn::LitBool::new(i == "true", i.span())))
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                let items = split_commas(g.stream())
                    .iter()
                    .map(Json::read)
                    .collect::<Option<Vec<_>>>()?;
                Some(Json::Array(items, g.span()))
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                let mut entries = Vec::new();
                for entry in split_commas(g.stream()) {
                    let mut it = entry.into_iter();
                    let key = match (it.next(), it.next()) {
                        (Some(TokenTree::Literal(l)), Some(TokenTree::Punct(p)))
                            if p.as_char() == ':' =>
                        {
                            match Lit::new(l) {
                                Lit::Str(s) => s,
                                _ => return None,
                            }
                        }
                        _ => return None,
                    };
                    entries.push((key, Json::read(&it.collect())?));
                }
                Some(Json::Object(entries, g.span()))
            }
            _ => None,
        }
    }

    fn span(&self) -> Span {
        match self {
            Json::Null | Json::Float => Span::call_site(),
            Json::Bool(b) => b.span(),
            Json::Int(i, _) => i.span(),
            Json::Str(s) => s.span(),
            Json::Array(_, s) | Json::Object(_, s) => *s,
        }
    }
}

/// The comma-separated parts of a group's tokens (a trailing comma allowed).
fn split_commas(tokens: TokenStream) -> Vec<TokenStream> {
    let mut parts = Vec::new();
    let mut cur = TokenStream::new();
    for t in tokens {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(std::mem::take(&mut cur)),
            _ => cur.extend([t]),
        }
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

/// Whether any of `extensions` shapes the schema (where the derive does not read them).
pub fn shapes_schema(extensions: &[Extension]) -> bool {
    extensions.iter().any(|e| {
        let k = e.key.value();
        MODEL_KEYS.contains(&k.as_str()) || k.starts_with("x-kubernetes-")
    })
}

/// Whether the derive writes this extension itself (the shadow type must then drop it).
pub fn is_read(key: &str, value: &TokenStream) -> bool {
    READ_KEYS.contains(&key) && Json::read(value).is_some()
}

/// Reads `extensions` into `cel` (rules and schema keys, checked like `#[cel(..)]`'s); returns
/// whether any other extension shapes the schema so that the node is read from the generated
/// schema. Rules from `extend` come first and replace the rules the node's type carries, as
/// schemars' `extend` replaces the key.
pub fn read_extensions(cx: &Ctxt, extensions: Vec<Extension>, cel: &mut CelAttrs) -> bool {
    let mut unmodeled = false;
    let mut rules = Vec::new();
    for ext in extensions {
        let key = ext.key.value();
        let json = if READ_KEYS.contains(&key.as_str()) {
            Json::read(&ext.value)
        } else {
            None
        };
        let Some(json) = json else {
            unmodeled |= shapes_schema(std::slice::from_ref(&ext));
            continue;
        };
        let s = &mut cel.schema;
        let span = json.span();
        match key.as_str() {
            "x-kubernetes-validations" => {
                read_rules(cx, &ext, json, &mut rules);
                cel.schema.replace_rules = true;
            }
            "x-kubernetes-list-type" => {
                if let Some(v) = string(cx, &ext, &json) {
                    let all = [ListType::Atomic, ListType::Map, ListType::Set];
                    if let Some(t) = parse_keyword(cx, &v, &all, ListType::as_str) {
                        set_ext(cx, &mut s.list_type, Sp::new(t, span), &ext);
                    }
                }
            }
            "x-kubernetes-map-type" => {
                if let Some(v) = string(cx, &ext, &json) {
                    let all = [MapType::Atomic, MapType::Granular];
                    if let Some(t) = parse_keyword(cx, &v, &all, MapType::as_str) {
                        set_ext(cx, &mut s.map_type, Sp::new(t, span), &ext);
                    }
                }
            }
            "x-kubernetes-list-map-keys" => {
                let keys = match &json {
                    Json::Array(items, _) => items
                        .iter()
                        .map(|i| match i {
                            Json::Str(s) => Some(s.value()),
                            _ => None,
                        })
                        .collect::<Option<Vec<_>>>(),
                    _ => None,
                };
                match keys {
                    Some(k) => set_ext(cx, &mut s.list_map_keys, Sp::new(k, span), &ext),
                    None => cx.push(syn::Error::new(
                        span,
                        "x-kubernetes-list-map-keys takes a list of field names: [\"name\"]",
                    )),
                }
            }
            _ => {
                let n = match &json {
                    Json::Int(i, false) => i.base10_parse::<u64>().ok(),
                    _ => None,
                };
                let Some(n) = n else {
                    cx.push(syn::Error::new(
                        span,
                        format!("{key} takes a non-negative integer"),
                    ));
                    continue;
                };
                s.bounds_from_extend = true;
                let slot = match key.as_str() {
                    "maxItems" => &mut s.max_items,
                    "minItems" => &mut s.min_items,
                    "maxProperties" => &mut s.max_properties,
                    _ => &mut s.min_properties,
                };
                set_ext(cx, slot, Sp::new(n, span), &ext);
            }
        }
    }
    rules.append(&mut cel.rules);
    cel.rules = rules;
    unmodeled
}

fn set_ext<T>(cx: &Ctxt, slot: &mut Option<T>, value: T, ext: &Extension) {
    if slot.is_some() {
        cx.error_spanned_by(
            &ext.key,
            format!(
                "`{}` is set twice (by #[cel(..)] and extend, or twice)",
                ext.key.value()
            ),
        );
    } else {
        *slot = Some(value);
    }
}

fn string(cx: &Ctxt, ext: &Extension, json: &Json) -> Option<LitStr> {
    match json {
        Json::Str(s) => Some(s.clone()),
        other => {
            cx.push(syn::Error::new(
                other.span(),
                format!("{} takes a string", ext.key.value()),
            ));
            None
        }
    }
}

/// The entries of an `x-kubernetes-validations` array, as `#[cel(..)]` rules.
fn read_rules(cx: &Ctxt, ext: &Extension, json: Json, out: &mut Vec<RuleAttr>) {
    let Json::Array(items, _) = json else {
        cx.push(syn::Error::new(
            json.span(),
            "x-kubernetes-validations takes a list of rules: [{\"rule\": \"...\"}]",
        ));
        return;
    };
    for item in items {
        let Json::Object(entries, span) = item else {
            cx.push(syn::Error::new(
                item.span(),
                format!("a rule is an object with the fields {RULE_FIELDS}"),
            ));
            continue;
        };
        let mut r = RuleAttr {
            attr: ext.attr.clone(),
            rule: LitStr::new("", span),
            message: None,
            message_expression: None,
            field_path: None,
            reason: None,
            optional_old_self: None,
        };
        let (mut has_rule, mut rule_ok) = (false, false);
        for (key, value) in entries {
            let k = key.value();
            let text = |cx: &Ctxt| match &value {
                Json::Str(s) => Some(s.clone()),
                other => {
                    cx.push(syn::Error::new(
                        other.span(),
                        format!("`{k}` takes a string"),
                    ));
                    None
                }
            };
            match k.as_str() {
                "rule" => {
                    // Present: a value of the wrong kind is reported as such, not as missing.
                    has_rule = true;
                    if let Some(s) = text(cx) {
                        r.rule = s;
                        rule_ok = true;
                    }
                }
                "message" => r.message = text(cx),
                "messageExpression" => r.message_expression = text(cx),
                "fieldPath" => r.field_path = text(cx),
                "reason" => r.reason = text(cx).map(|s| Sp::new(s.value(), s.span())),
                "optionalOldSelf" => match &value {
                    Json::Bool(b) => r.optional_old_self = Some(Sp::new(b.value, b.span())),
                    other => cx.push(syn::Error::new(
                        other.span(),
                        "`optionalOldSelf` takes true or false",
                    )),
                },
                _ => cx.push(syn::Error::new(
                    key.span(),
                    format!("unknown field `{k}` in an x-kubernetes-validations rule; a rule has: {RULE_FIELDS}"),
                )),
            }
        }
        if has_rule {
            if rule_ok {
                out.push(r);
            }
        } else {
            cx.push(syn::Error::new(
                span,
                "this x-kubernetes-validations entry has no \"rule\"",
            ));
        }
    }
}

/// A `#[schemars(..)]` without the extensions the derive writes itself (`None` when nothing
/// is left); any other attribute unchanged.
pub fn without_read_extensions(attr: &Attribute) -> Option<Attribute> {
    let syn::Meta::List(list) = &attr.meta else {
        return Some(attr.clone());
    };
    if !attr.path().is_ident("schemars") {
        return Some(attr.clone());
    }
    let mut kept: Vec<TokenStream> = Vec::new();
    let mut changed = false;
    for item in split_commas(list.tokens.clone()) {
        let mut it = item.clone().into_iter();
        match (it.next(), it.next(), it.next()) {
            (Some(TokenTree::Ident(i)), Some(TokenTree::Group(g)), None)
                if i == "extend" && g.delimiter() == Delimiter::Parenthesis =>
            {
                let mut entries = Vec::new();
                for entry in split_commas(g.stream()) {
                    let mut et = entry.clone().into_iter();
                    let read = match (et.next(), et.next()) {
                        (Some(TokenTree::Literal(l)), Some(TokenTree::Punct(p)))
                            if p.as_char() == '=' =>
                        {
                            match Lit::new(l) {
                                Lit::Str(k) => is_read(&k.value(), &et.collect()),
                                _ => false,
                            }
                        }
                        _ => false,
                    };
                    if read {
                        changed = true;
                    } else {
                        entries.push(entry);
                    }
                }
                if !entries.is_empty() {
                    let mut g2 =
                        proc_macro2::Group::new(Delimiter::Parenthesis, join_commas(entries));
                    g2.set_span(g.span());
                    kept.push(quote::quote!(#i #g2));
                }
            }
            _ => kept.push(item),
        }
    }
    if !changed {
        return Some(attr.clone());
    }
    if kept.is_empty() {
        return None;
    }
    let mut out = attr.clone();
    if let syn::Meta::List(l) = &mut out.meta {
        l.tokens = join_commas(kept);
    }
    Some(out)
}

fn join_commas(parts: Vec<TokenStream>) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, p) in parts.into_iter().enumerate() {
        if i > 0 {
            out.extend(quote::quote!(,));
        }
        out.extend(p);
    }
    out
}
