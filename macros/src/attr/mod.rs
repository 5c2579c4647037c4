//! Reading attributes: `#[cel(..)]` (ours, strictly), and the parts of `#[serde(..)]`,
//! `#[schemars(..)]` and `#[kube(..)]` that change the schema (leniently: other keys belong to
//! those crates and are skipped).
//!
//! Parsers record errors in the [`Ctxt`] and return what they could read, never `Err`, so every
//! bad attribute of a type is reported in one build.

use crate::ctxt::Ctxt;
use crd_cel_core::model::{ListType, MapType};
use proc_macro2::Span;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitStr, Token};

mod extend;
mod kube;
mod schemars;
mod serde;

pub use extend::*;
pub use kube::*;
pub use schemars::*;
pub use serde::*;

/// Keys of `#[cel(..)]`, as constants so the error messages and the parser agree.
pub mod sym {
    pub const RULE: &str = "rule";
    pub const MESSAGE: &str = "message";
    pub const MESSAGE_EXPRESSION: &str = "message_expression";
    pub const FIELD_PATH: &str = "field_path";
    pub const REASON: &str = "reason";
    pub const OPTIONAL_OLD_SELF: &str = "optional_old_self";
    pub const LIST_TYPE: &str = "list_type";
    pub const LIST_MAP_KEYS: &str = "list_map_keys";
    pub const MAP_TYPE: &str = "map_type";
    pub const MAX_ITEMS: &str = "max_items";
    pub const MIN_ITEMS: &str = "min_items";
    pub const MAX_PROPERTIES: &str = "max_properties";
    pub const MIN_PROPERTIES: &str = "min_properties";
    pub const CRATE: &str = "crate";

    /// Keys that describe a rule; they need `rule` in the same attribute.
    pub const RULE_KEYS: &[&str] = &[
        RULE,
        MESSAGE,
        MESSAGE_EXPRESSION,
        FIELD_PATH,
        REASON,
        OPTIONAL_OLD_SELF,
    ];
    /// Keys that describe the schema node of a field.
    pub const SCHEMA_KEYS: &[&str] = &[
        LIST_TYPE,
        LIST_MAP_KEYS,
        MAP_TYPE,
        MAX_ITEMS,
        MIN_ITEMS,
        MAX_PROPERTIES,
        MIN_PROPERTIES,
    ];
}

/// A value with the span of the tokens it was read from (clap's `Sp<T>`).
#[derive(Clone, Debug)]
pub struct Sp<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Sp<T> {
    pub fn new(value: T, span: Span) -> Self {
        Sp { value, span }
    }
}

/// One `x-kubernetes-validations` entry read from `#[cel(rule = .., ..)]`.
#[derive(Clone)]
pub struct RuleAttr {
    /// The whole attribute, so const-eval errors underline `#[cel(...)]`.
    pub attr: Attribute,
    pub rule: LitStr,
    pub message: Option<LitStr>,
    pub message_expression: Option<LitStr>,
    pub field_path: Option<LitStr>,
    pub reason: Option<Sp<String>>,
    pub optional_old_self: Option<Sp<bool>>,
}

/// Schema keys of `#[cel(..)]`.
#[derive(Default, Clone)]
pub struct SchemaAttrs {
    pub list_type: Option<Sp<ListType>>,
    pub list_map_keys: Option<Sp<Vec<String>>>,
    pub map_type: Option<Sp<MapType>>,
    pub max_items: Option<Sp<u64>>,
    pub min_items: Option<Sp<u64>>,
    pub max_properties: Option<Sp<u64>>,
    pub min_properties: Option<Sp<u64>>,
    /// `maxItems`/`minItems`/`maxProperties`/`minProperties` came from an `extend`, which
    /// schemars applies after `length(..)` (the extend's value wins, as upstream).
    pub bounds_from_extend: bool,
    /// The rules replace those of the node's type: they came with an `extend` of
    /// `x-kubernetes-validations`, which replaces the key in what schemars generates.
    pub replace_rules: bool,
}

/// Everything `#[cel(..)]` says about one item (container or field).
#[derive(Default)]
pub struct CelAttrs {
    pub rules: Vec<RuleAttr>,
    pub schema: SchemaAttrs,
    pub crate_path: Option<syn::Path>,
}

/// Sets a slot once; the second time reports "duplicate" at the key (serde's `Attr<T>`).
fn set_once<T>(cx: &Ctxt, slot: &mut Option<T>, value: T, key: &syn::Path, what: &str) {
    if slot.is_some() {
        cx.error_spanned_by(key, format!("duplicate `{what}` in #[cel(..)]"));
    } else {
        *slot = Some(value);
    }
}

fn key_name(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_else(|| meta.path.to_token_stream().to_string().replace(' ', ""))
}

/// Reads every key of the attributes of `attrs` named one of `names` (`#[serde(..)]`, ...):
/// `read` handles one key and says whether it read the key's value; the value of a key it did
/// not read (one this derive does not handle, or a value it ignores) is skipped, so that
/// parsing goes on. A syntax error ends its attribute and is reported with the others.
fn each_key<'a>(
    cx: &Ctxt,
    attrs: &'a [Attribute],
    names: &[&str],
    mut read: impl FnMut(&'a Attribute, &ParseNestedMeta) -> syn::Result<bool>,
) {
    for attr in attrs
        .iter()
        .filter(|a| names.iter().any(|n| a.path().is_ident(n)))
    {
        let result = attr.parse_nested_meta(|meta| {
            if !read(attr, &meta)? {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
}

/// Consumes whatever value follows a key we do not handle, so parsing can go on.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// One of `all` by its schema spelling, or the apiserver's error listing the supported values
/// (sorted, as it lists them).
fn parse_keyword<T: Copy>(
    cx: &Ctxt,
    v: &LitStr,
    all: &[T],
    spelling: fn(T) -> &'static str,
) -> Option<T> {
    let value = v.value();
    let found = all.iter().copied().find(|t| spelling(*t) == value);
    if found.is_none() {
        let mut names: Vec<String> = all
            .iter()
            .map(|t| format!("\"{}\"", spelling(*t)))
            .collect();
        names.sort();
        cx.push(syn::Error::new(
            v.span(),
            format!(
                "Unsupported value: \"{value}\": supported values: {}",
                names.join(", ")
            ),
        ));
    }
    found
}

/// An attribute value, out of the invisible group a `macro_rules!` fragment (`$max:literal`)
/// arrives in.
fn parse_value(meta: &ParseNestedMeta) -> syn::Result<Expr> {
    let mut expr: Expr = meta.value()?.parse()?;
    while let Expr::Group(g) = expr {
        expr = *g.expr;
    }
    Ok(expr)
}

fn parse_lit_str(cx: &Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<Option<LitStr>> {
    let expr = parse_value(meta)?;
    match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(Some(s.clone())),
        _ => {
            cx.error_spanned_by(
                &expr,
                format!("`{key}` takes a string literal: {key} = \"...\""),
            );
            Ok(None)
        }
    }
}

fn parse_u64(cx: &Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<Option<Sp<u64>>> {
    let expr = parse_value(meta)?;
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Int(i), ..
    }) = &expr
        && let Ok(v) = i.base10_parse::<u64>()
    {
        return Ok(Some(Sp::new(v, i.span())));
    }
    cx.error_spanned_by(
        &expr,
        format!("`{key}` takes a non-negative integer literal: {key} = 16"),
    );
    Ok(None)
}

fn parse_bool_flag(cx: &Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<Option<Sp<bool>>> {
    if !meta.input.peek(Token![=]) {
        return Ok(Some(Sp::new(true, meta.path.span())));
    }
    let expr = parse_value(meta)?;
    if let Expr::Lit(syn::ExprLit {
        lit: Lit::Bool(b), ..
    }) = &expr
    {
        return Ok(Some(Sp::new(b.value, b.span())));
    }
    cx.error_spanned_by(
        &expr,
        format!("`{key}` is a flag: write `{key}` or `{key} = true|false`"),
    );
    Ok(None)
}

fn parse_key_list(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    key: &str,
) -> syn::Result<Option<Sp<Vec<String>>>> {
    let expr = parse_value(meta)?;
    if let Expr::Array(arr) = &expr {
        let mut keys = Vec::new();
        let mut ok = true;
        for elem in &arr.elems {
            match elem {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => keys.push(s.value()),
                other => {
                    ok = false;
                    cx.error_spanned_by(
                        other,
                        format!("`{key}` entries are string literals (JSON field names)"),
                    );
                }
            }
        }
        return Ok(ok.then(|| Sp::new(keys, expr.span())));
    }
    cx.error_spanned_by(
        &expr,
        format!("`{key}` takes a list of field names: {key} = [\"name\"]"),
    );
    Ok(None)
}

/// Reads every `#[cel(..)]` of an item. `on_field` selects which keys are allowed.
pub fn parse_cel_attrs(cx: &Ctxt, attrs: &[Attribute], on_field: bool) -> CelAttrs {
    let mut out = CelAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("cel")) {
        if let syn::Meta::Path(_) = attr.meta {
            cx.error_spanned_by(
                attr,
                "expected #[cel(rule = \"...\")] or #[cel(list_type = ..)]",
            );
            continue;
        }
        let mut rule: Option<LitStr> = None;
        let mut message = None;
        let mut message_expression = None;
        let mut field_path = None;
        let mut reason: Option<Sp<String>> = None;
        let mut optional_old_self = None;
        // The first rule-only key seen without `rule`, to point at if `rule` never comes.
        let mut rule_key_seen: Option<syn::Path> = None;
        let result = attr.parse_nested_meta(|meta| {
            let key = key_name(&meta);
            if sym::RULE_KEYS.contains(&key.as_str()) && key != sym::RULE && rule_key_seen.is_none()
            {
                rule_key_seen = Some(meta.path.clone());
            }
            match key.as_str() {
                sym::RULE => {
                    if let Some(v) = parse_lit_str(cx, &meta, sym::RULE)? {
                        set_once(cx, &mut rule, v, &meta.path, sym::RULE);
                    }
                }
                sym::MESSAGE => {
                    if let Some(v) = parse_lit_str(cx, &meta, sym::MESSAGE)? {
                        set_once(cx, &mut message, v, &meta.path, sym::MESSAGE);
                    }
                }
                sym::MESSAGE_EXPRESSION => {
                    if let Some(v) = parse_lit_str(cx, &meta, sym::MESSAGE_EXPRESSION)? {
                        set_once(
                            cx,
                            &mut message_expression,
                            v,
                            &meta.path,
                            sym::MESSAGE_EXPRESSION,
                        );
                    }
                }
                sym::FIELD_PATH => {
                    if let Some(v) = parse_lit_str(cx, &meta, sym::FIELD_PATH)? {
                        set_once(cx, &mut field_path, v, &meta.path, sym::FIELD_PATH);
                    }
                }
                sym::REASON => {
                    if let Some(v) = parse_lit_str(cx, &meta, sym::REASON)? {
                        set_once(
                            cx,
                            &mut reason,
                            Sp::new(v.value(), v.span()),
                            &meta.path,
                            sym::REASON,
                        );
                    }
                }
                sym::OPTIONAL_OLD_SELF => {
                    if let Some(v) = parse_bool_flag(cx, &meta, sym::OPTIONAL_OLD_SELF)? {
                        set_once(
                            cx,
                            &mut optional_old_self,
                            v,
                            &meta.path,
                            sym::OPTIONAL_OLD_SELF,
                        );
                    }
                }
                sym::LIST_TYPE => {
                    if let Some(v) = parse_lit_str(cx, &meta, &key)? {
                        let all = [ListType::Atomic, ListType::Map, ListType::Set];
                        if let Some(t) = parse_keyword(cx, &v, &all, ListType::as_str) {
                            let slot = &mut out.schema.list_type;
                            set_once(cx, slot, Sp::new(t, v.span()), &meta.path, &key);
                        }
                    }
                }
                sym::MAP_TYPE => {
                    if let Some(v) = parse_lit_str(cx, &meta, &key)? {
                        let all = [MapType::Atomic, MapType::Granular];
                        if let Some(t) = parse_keyword(cx, &v, &all, MapType::as_str) {
                            let slot = &mut out.schema.map_type;
                            set_once(cx, slot, Sp::new(t, v.span()), &meta.path, &key);
                        }
                    }
                }
                sym::LIST_MAP_KEYS => {
                    if let Some(v) = parse_key_list(cx, &meta, &key)? {
                        set_once(cx, &mut out.schema.list_map_keys, v, &meta.path, &key);
                    }
                }
                sym::MAX_ITEMS | sym::MIN_ITEMS | sym::MAX_PROPERTIES | sym::MIN_PROPERTIES => {
                    if let Some(v) = parse_u64(cx, &meta, &key)? {
                        let slot = match key.as_str() {
                            sym::MAX_ITEMS => &mut out.schema.max_items,
                            sym::MIN_ITEMS => &mut out.schema.min_items,
                            sym::MAX_PROPERTIES => &mut out.schema.max_properties,
                            _ => &mut out.schema.min_properties,
                        };
                        set_once(cx, slot, v, &meta.path, &key);
                    }
                }
                sym::CRATE if !on_field => {
                    if let Some(v) = parse_lit_str(cx, &meta, sym::CRATE)? {
                        match v.parse::<syn::Path>() {
                            Ok(p) => out.crate_path = Some(p),
                            Err(_) => cx.error_spanned_by(
                                &v,
                                "`crate` takes a path: crate = \"::my_reexport::crd_cel\"",
                            ),
                        }
                    }
                }
                _ => {
                    let allowed: Vec<&str> = sym::RULE_KEYS
                        .iter()
                        .chain(sym::SCHEMA_KEYS)
                        .copied()
                        .chain((!on_field).then_some(sym::CRATE))
                        .collect();
                    cx.error_spanned_by(
                        &meta.path,
                        format!(
                            "unknown key `{key}` in #[cel(..)]; expected one of: {}",
                            allowed.join(", ")
                        ),
                    );
                    skip_value(&meta)?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
            continue;
        }
        match rule {
            Some(rule) => out.rules.push(RuleAttr {
                attr: attr.clone(),
                rule,
                message,
                message_expression,
                field_path,
                reason,
                optional_old_self,
            }),
            None => {
                if let Some(path) = rule_key_seen {
                    cx.error_spanned_by(
                        path,
                        "this key describes a rule: add `rule = \"...\"` to the same #[cel(..)]",
                    );
                }
            }
        }
    }
    out
}
