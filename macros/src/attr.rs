//! Reading attributes: `#[cel(..)]` (ours, strictly), and the parts of `#[serde(..)]`,
//! `#[schemars(..)]` and `#[kube(..)]` that change the schema (leniently: other keys belong to
//! those crates and are skipped).
//!
//! Parsers record errors in the [`Ctxt`] and return what they could read, never `Err`, so every
//! bad attribute of a type is reported in one build.

use crate::ctxt::Ctxt;
use proc_macro2::Span;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Lit, LitStr, Token};

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
    pub list_type: Option<Sp<String>>,
    pub list_map_keys: Option<Sp<Vec<String>>>,
    pub map_type: Option<Sp<String>>,
    pub max_items: Option<Sp<u64>>,
    pub min_items: Option<Sp<u64>>,
    pub max_properties: Option<Sp<u64>>,
    pub min_properties: Option<Sp<u64>>,
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

/// Consumes whatever value follows a key we do not handle, so parsing can go on.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

fn parse_lit_str(cx: &Ctxt, meta: &ParseNestedMeta, key: &str) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
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
    let expr: Expr = meta.value()?.parse()?;
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
    let expr: Expr = meta.value()?.parse()?;
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
    let expr: Expr = meta.value()?.parse()?;
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
                sym::LIST_TYPE | sym::MAP_TYPE => {
                    if let Some(v) = parse_lit_str(cx, &meta, &key)? {
                        let slot = if key == sym::LIST_TYPE {
                            &mut out.schema.list_type
                        } else {
                            &mut out.schema.map_type
                        };
                        set_once(cx, slot, Sp::new(v.value(), v.span()), &meta.path, &key);
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

/// The parts of `#[serde(..)]` that change the schema of a container.
#[derive(Default)]
pub struct SerdeContainer {
    pub rename_all: Option<Sp<String>>,
    pub default: Option<Span>,
    pub transparent: bool,
    pub tag: Option<Span>,
    /// `from`/`try_from`: the schema is the other type's.
    pub from: bool,
    /// `untagged`.
    pub untagged: bool,
    /// `default` without a path: schemars reads defaults from `Default::default()`.
    pub default_is_trait: bool,
}

/// The parts of `#[serde(..)]` that change the schema of a field or variant.
#[derive(Default)]
pub struct SerdeField {
    pub rename: Option<String>,
    pub skip: bool,
    pub default: bool,
    pub flatten: bool,
    pub skip_serializing_if: bool,
}

/// Reads `rename = "x"` or `rename(deserialize = "x", ..)`: schemars describes the
/// deserialize side, so that name wins.
fn parse_rename(meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        let s: LitStr = meta.value()?.parse()?;
        return Ok(Some(s.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        let s: LitStr = inner.value()?.parse()?;
        if inner.path.is_ident("deserialize") {
            name = Some(s.value());
        }
        Ok(())
    })?;
    Ok(name)
}

pub fn parse_serde_container(cx: &Ctxt, attrs: &[Attribute]) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                let span = meta.path.span();
                if let Some(rule) = parse_rename(&meta)? {
                    out.rename_all = Some(Sp::new(rule, span));
                }
            } else if meta.path.is_ident("default") {
                out.default = Some(meta.path.span());
                // `default` (the type's `Default`) or `default = "path"`.
                out.default_is_trait = !meta.input.peek(Token![=]);
                skip_value(&meta)?;
            } else if meta.path.is_ident("transparent") {
                out.transparent = true;
            } else if meta.path.is_ident("from") || meta.path.is_ident("try_from") {
                out.from = true;
                skip_value(&meta)?;
            } else if meta.path.is_ident("tag")
                || meta.path.is_ident("untagged")
                || meta.path.is_ident("content")
            {
                out.untagged |= meta.path.is_ident("untagged");
                out.tag = Some(meta.path.span());
                skip_value(&meta)?;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    out
}

pub fn parse_serde_field(cx: &Ctxt, attrs: &[Attribute]) -> SerdeField {
    let mut out = SerdeField::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                if let Some(name) = parse_rename(&meta)? {
                    out.rename = Some(name);
                }
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                out.skip = true;
            } else if meta.path.is_ident("default") {
                out.default = true;
                skip_value(&meta)?;
            } else if meta.path.is_ident("flatten") {
                out.flatten = true;
            } else if meta.path.is_ident("skip_serializing_if") {
                out.skip_serializing_if = true;
                skip_value(&meta)?;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    out
}

/// A `min`/`max` pair from `length(..)` or `range(..)`; the values are the user's expressions.
#[derive(Default, Clone)]
pub struct Bounds {
    pub min: Option<Expr>,
    pub max: Option<Expr>,
}

/// The validation keywords schemars applies to a node (`length`, `range`, `regex`, formats),
/// and `inner(..)` for the items of a list.
#[derive(Default, Clone)]
pub struct SchemarsValidation {
    pub length: Option<Bounds>,
    pub range: Option<Bounds>,
    pub pattern: Option<Expr>,
    pub format: Option<&'static str>,
    pub inner: Option<Box<SchemarsValidation>>,
    /// `required` inside a validation attribute (as `#[schemars(required)]`).
    pub required: bool,
    /// A keyword the model cannot describe (a pattern given by an expression, `contains`):
    /// the node is read from the generated schema.
    pub unmodeled: bool,
}

impl SchemarsValidation {
    /// Whether anything here or in `inner` cannot be modeled.
    pub fn is_unmodeled(&self) -> bool {
        self.unmodeled || self.inner.as_ref().is_some_and(|i| i.is_unmodeled())
    }
}

/// The parts of `#[schemars(..)]` that change the schema of a field.
#[derive(Default)]
pub struct SchemarsField {
    /// The node is read from the generated schema (`schema_with`, `transform`, an `extend` of
    /// a key the model is built from, a validation keyword it cannot describe).
    pub unmodeled: bool,
    pub rename: Option<String>,
    pub skip: bool,
    pub required: bool,
    pub with: Option<syn::Type>,
    pub validation: SchemarsValidation,
}

fn parse_bounds(meta: &ParseNestedMeta) -> syn::Result<Bounds> {
    let mut b = Bounds::default();
    meta.parse_nested_meta(|inner| {
        let e: Expr = inner.value()?.parse()?;
        if inner.path.is_ident("min") {
            b.min = Some(e);
        } else if inner.path.is_ident("max") {
            b.max = Some(e);
        } else if inner.path.is_ident("equal") {
            b.min = Some(e.clone());
            b.max = Some(e);
        }
        Ok(())
    })?;
    Ok(b)
}

/// Keys the model is built from: setting them through `extend` would make the schema and the
/// model disagree, so they must go through `#[cel(..)]` or schemars' own attributes.
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
];

/// Which attribute validation keywords come from: schemars reads its own, validator's
/// `#[validate(..)]` and garde's `#[garde(..)]`, each with its own spellings.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ValidationAttr {
    Schemars,
    Validate,
    Garde,
}

fn literal_pattern(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
    )
}

/// Reads one validation keyword the way schemars reads it from `attr` (its
/// `attr/validation.rs`): `Ok(false)` when the keyword is not a validation keyword.
fn parse_validation_meta(
    meta: &ParseNestedMeta,
    v: &mut SchemarsValidation,
    attr: ValidationAttr,
) -> syn::Result<bool> {
    let format = ["email", "url", "ip", "ipv4", "ipv6"]
        .into_iter()
        .find(|f| meta.path.is_ident(f));
    if let Some(f) = format {
        v.format = Some(if f == "url" { "uri" } else { f });
        // validator allows `email(message = ..)`.
        skip_value(meta)?;
    } else if meta.path.is_ident("length") {
        v.length = Some(parse_bounds(meta)?);
    } else if meta.path.is_ident("range") {
        v.range = Some(parse_bounds(meta)?);
    } else if meta.path.is_ident("required") {
        v.required = true;
        skip_value(meta)?;
    } else if (meta.path.is_ident("regex") && attr != ValidationAttr::Garde)
        || (meta.path.is_ident("pattern") && attr != ValidationAttr::Validate)
    {
        let mut pattern = None;
        if meta.input.peek(Token![=]) {
            pattern = Some(meta.value()?.parse::<Expr>()?);
        } else if attr == ValidationAttr::Garde {
            // `pattern(<expr>)`.
            let content;
            syn::parenthesized!(content in meta.input);
            pattern = Some(content.parse::<Expr>()?);
        } else {
            meta.parse_nested_meta(|inner| {
                if inner.path.is_ident("pattern") || inner.path.is_ident("path") {
                    pattern = Some(inner.value()?.parse::<Expr>()?);
                } else {
                    skip_value(&inner)?;
                }
                Ok(())
            })?;
        }
        match pattern {
            // Only a literal is known at compile time; anything else is read from the
            // generated schema.
            Some(e) if literal_pattern(&e) => v.pattern = Some(e),
            _ => v.unmodeled = true,
        }
    } else if meta.path.is_ident("contains") {
        // schemars renders it as a pattern or an array keyword: read from the generated schema.
        v.unmodeled = true;
        skip_value(meta)?;
    } else if meta.path.is_ident("inner") && attr != ValidationAttr::Validate {
        let mut inner_v = SchemarsValidation::default();
        meta.parse_nested_meta(|inner| {
            if !parse_validation_meta(&inner, &mut inner_v, attr)? {
                skip_value(&inner)?;
            }
            Ok(())
        })?;
        v.inner = Some(Box::new(inner_v));
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// The validation keywords of `#[validate(..)]` and `#[garde(..)]` on a field, which schemars
/// applies like its own; other keys of those attributes are the validators' business.
fn parse_validator_attrs(cx: &Ctxt, attrs: &[Attribute], v: &mut SchemarsValidation) {
    for (kind, name) in [
        (ValidationAttr::Validate, "validate"),
        (ValidationAttr::Garde, "garde"),
    ] {
        for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
            // garde allows a bare expression list (`#[garde(skip)]`, `#[garde(custom(f))]`).
            let result = attr.parse_nested_meta(|meta| {
                if !parse_validation_meta(&meta, v, kind)? {
                    skip_value(&meta)?;
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.push(e);
            }
        }
    }
}

pub fn parse_schemars_field(cx: &Ctxt, attrs: &[Attribute]) -> SchemarsField {
    let mut out = SchemarsField::default();
    parse_validator_attrs(cx, attrs, &mut out.validation);
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        let result = attr.parse_nested_meta(|meta| {
            if parse_validation_meta(&meta, &mut out.validation, ValidationAttr::Schemars)? {
                return Ok(());
            }
            if meta.path.is_ident("rename") {
                if let Some(name) = parse_rename(&meta)? {
                    out.rename = Some(name);
                }
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                out.skip = true;
            } else if meta.path.is_ident("required") {
                out.required = true;
            } else if meta.path.is_ident("with") {
                let s: LitStr = meta.value()?.parse()?;
                match s.parse::<syn::Type>() {
                    Ok(t) => out.with = Some(t),
                    Err(e) => cx.push(e),
                }
            } else if meta.path.is_ident("schema_with") || meta.path.is_ident("transform") {
                // A schema made by a function is known only when it is generated.
                out.unmodeled = true;
                skip_value(&meta)?;
            } else if meta.path.is_ident("extend") {
                if extends_model(&meta)? {
                    out.unmodeled = true;
                }
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    out
}

/// Whether `extend("key" = value, ..)` sets a key the model is built from (a type, bound, or
/// `x-kubernetes-*` extension, e.g. preserve-unknown-fields to hide a pod template): the node
/// is then read from the generated schema. Documentation keys change nothing.
pub fn extends_model(meta: &ParseNestedMeta) -> syn::Result<bool> {
    let content;
    syn::parenthesized!(content in meta.input);
    let mut model = false;
    while !content.is_empty() {
        let key: LitStr = content.parse()?;
        content.parse::<Token![=]>()?;
        let _: Expr = content.parse()?;
        let k = key.value();
        if MODEL_KEYS.contains(&k.as_str()) || k.starts_with("x-kubernetes-") {
            model = true;
        }
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(model)
}

/// Container-level `#[schemars(..)]`: whether it changes the schema in a way the model cannot
/// describe (`extend` of a model key, `transform`, `schema_with`); the rest is schemars'
/// business.
pub fn schemars_container_unmodeled(cx: &Ctxt, attrs: &[Attribute]) -> bool {
    let mut unmodeled = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("schemars")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("extend") {
                unmodeled |= extends_model(&meta)?;
            } else if meta.path.is_ident("transform") || meta.path.is_ident("schema_with") {
                unmodeled = true;
                skip_value(&meta)?;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    unmodeled
}

/// What `#[kube(..)]` on a spec struct says about the generated root type.
pub struct KubeRoot {
    pub root: syn::Ident,
    pub status: Option<syn::Path>,
    pub no_spec: bool,
    /// Root rules, `validation = "..."`, as kube puts them at the CRD root.
    pub rules: Vec<RuleAttr>,
}

/// Reads kube's `#[kube(kind = .., root = .., status = .., validation = ..)]`.
pub fn parse_kube(cx: &Ctxt, attrs: &[Attribute]) -> Option<KubeRoot> {
    let kube_attrs: Vec<&Attribute> = attrs.iter().filter(|a| a.path().is_ident("kube")).collect();
    if kube_attrs.is_empty() {
        return None;
    }
    let mut kind: Option<LitStr> = None;
    let mut root: Option<LitStr> = None;
    let mut status = None;
    let mut no_spec = false;
    let mut rules = Vec::new();
    for attr in &kube_attrs {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("kind") {
                kind = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("root") {
                root = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("status") {
                let s: LitStr = meta.value()?.parse()?;
                match s.parse::<syn::Path>() {
                    Ok(p) => status = Some(p),
                    Err(e) => cx.push(e),
                }
            } else if meta.path.is_ident("no_spec") {
                no_spec = true;
            } else if meta.path.is_ident("validation") {
                let expr: Expr = meta.value()?.parse()?;
                if let Some(r) = parse_kube_rule(cx, attr, &expr) {
                    rules.push(r);
                }
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    let name = root.or(kind)?;
    Some(KubeRoot {
        root: syn::Ident::new(&name.value(), name.span()),
        status,
        no_spec,
        rules,
    })
}

/// A kube-rs validation rule as `KubeSchema` takes it, `validation = "<rule>"` or
/// `validation = Rule::new("<rule>").message(..).reason(..).field_path(..)`, read into the
/// rule `#[cel(..)]` would declare. `None` (with an error saying how to write it with
/// `#[cel(..)]`) for any other expression.
pub fn parse_kube_rule(cx: &Ctxt, attr: &Attribute, expr: &Expr) -> Option<RuleAttr> {
    let mut r = RuleAttr {
        attr: attr.clone(),
        rule: LitStr::new("", Span::call_site()),
        message: None,
        message_expression: None,
        field_path: None,
        reason: None,
        optional_old_self: None,
    };
    let fail = |at: &dyn quote::ToTokens| {
        cx.error_spanned_by(
            at,
            "crd-cel reads kube's rules written as a string or as `Rule::new(\"..\")` with \
             `.message(\"..\")`, `.message(Message::Expression(\"..\"))`, `.reason(Reason::..)` \
             and `.field_path(\"..\")`; write anything else as #[cel(rule = \"..\", message = \
             \"..\", message_expression = \"..\", reason = \"..\", field_path = \"..\")]",
        );
        None
    };
    fn lit(e: &Expr) -> Option<LitStr> {
        match e {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.clone()),
            // `"..".into()` / `"..".to_string()`
            Expr::MethodCall(m) if m.args.is_empty() => lit(&m.receiver),
            Expr::Paren(p) => lit(&p.expr),
            _ => None,
        }
    }
    let mut e = expr;
    loop {
        match e {
            Expr::Lit(_) => {
                r.rule = lit(e)?;
                return Some(r);
            }
            Expr::Call(c) => {
                let is_new = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "new"));
                return match (is_new, c.args.first().and_then(lit)) {
                    (true, Some(rule)) if c.args.len() == 1 => {
                        r.rule = rule;
                        Some(r)
                    }
                    _ => fail(c),
                };
            }
            Expr::MethodCall(m) => {
                let arg = m.args.first();
                let name = m.method.to_string();
                match (name.as_str(), arg) {
                    ("message", Some(a)) => {
                        if let Some(s) = lit(a) {
                            r.message.get_or_insert(s);
                        } else if let Expr::Call(c) = a
                            && let Expr::Path(p) = &*c.func
                            && p.path
                                .segments
                                .last()
                                .is_some_and(|s| s.ident == "Expression")
                            && let Some(s) = c.args.first().and_then(lit)
                        {
                            r.message_expression.get_or_insert(s);
                        } else if let Expr::Call(c) = a
                            && let Expr::Path(p) = &*c.func
                            && p.path.segments.last().is_some_and(|s| s.ident == "Message")
                            && let Some(s) = c.args.first().and_then(lit)
                        {
                            r.message.get_or_insert(s);
                        } else {
                            return fail(a);
                        }
                    }
                    ("field_path", Some(a)) => match lit(a) {
                        Some(s) => {
                            r.field_path.get_or_insert(s);
                        }
                        None => return fail(a),
                    },
                    ("reason", Some(Expr::Path(p))) => {
                        let v = p.path.segments.last().map(|s| s.ident.to_string());
                        match v {
                            Some(v) => {
                                r.reason.get_or_insert(Sp::new(v, p.span()));
                            }
                            None => return fail(p),
                        }
                    }
                    _ => return fail(m),
                }
                e = &m.receiver;
            }
            other => return fail(other),
        }
    }
}

/// kube's `#[x_kube(validation = ..)]` (the `KubeSchema` derive's): the rules it declares, so a
/// type moving from `KubeSchema` to `CelValidate` keeps them. `merge_strategy` is pointed to its
/// `#[cel(..)]` spelling.
pub fn parse_x_kube(cx: &Ctxt, attrs: &[Attribute]) -> Vec<RuleAttr> {
    let mut rules = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("x_kube")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("validation") {
                let expr: Expr = meta.value()?.parse()?;
                if let Some(r) = parse_kube_rule(cx, attr, &expr) {
                    rules.push(r);
                }
            } else if meta.path.is_ident("merge_strategy") {
                cx.error_spanned_by(
                    &meta.path,
                    "write the list's merge strategy as #[cel(list_type = \"map\", list_map_keys = \
                     [..])], #[cel(list_type = \"set\")] or #[cel(map_type = \"atomic\")]",
                );
                skip_value(&meta)?;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.push(e);
        }
    }
    rules
}
