//! `#[kube(..)]` of kube's `CustomResource` (the root type, its root rules) and kube's
//! `#[x_kube(validation = ..)]` / `Rule::new(..)` spellings of a rule.

use super::*;

/// What `#[kube(..)]` on a spec struct says about the generated root type.
pub struct KubeRoot {
    pub root: syn::Ident,
    pub status: Option<syn::Path>,
    pub no_spec: bool,
    /// Root rules, `validation = "..."`, as kube puts them at the CRD root.
    pub rules: Vec<RuleAttr>,
    /// `scale(..)` (or kube's older JSON string form): the scale subresource, whose replicas
    /// and selector the apiserver checks on every write.
    pub scale: Option<Scale>,
}

/// kube's `#[kube(scale(spec_replicas_path = .., status_replicas_path = .., label_selector_path = ..))]`.
pub struct Scale {
    pub spec_replicas_path: String,
    pub status_replicas_path: String,
    pub label_selector_path: Option<String>,
}

impl Scale {
    /// `scale(..)`; `None` when a required path is missing (kube's derive reports that).
    fn from_list(meta: &ParseNestedMeta) -> syn::Result<Option<Scale>> {
        let (mut spec, mut status, mut selector) = (None, None, None);
        meta.parse_nested_meta(|m| {
            let slot = if m.path.is_ident("spec_replicas_path") {
                &mut spec
            } else if m.path.is_ident("status_replicas_path") {
                &mut status
            } else if m.path.is_ident("label_selector_path") {
                &mut selector
            } else {
                return skip_value(&m);
            };
            *slot = Some(m.value()?.parse::<LitStr>()?.value());
            Ok(())
        })?;
        Ok(spec.zip(status).map(|(spec, status)| Scale {
            spec_replicas_path: spec,
            status_replicas_path: status,
            label_selector_path: selector,
        }))
    }

    /// kube's older `scale = r#"{"specReplicasPath": .., ..}"#`; `None` when it is not that
    /// JSON (kube's derive reports it).
    fn from_json(text: &str) -> Option<Scale> {
        let v: serde_json::Value = serde_json::from_str(text).ok()?;
        let path = |k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        Some(Scale {
            spec_replicas_path: path("specReplicasPath")?,
            status_replicas_path: path("statusReplicasPath")?,
            label_selector_path: path("labelSelectorPath"),
        })
    }
}

/// Reads kube's `#[kube(kind = .., root = .., status = .., validation = ..)]`.
pub fn parse_kube(cx: &Ctxt, attrs: &[Attribute]) -> Option<KubeRoot> {
    if !attrs.iter().any(|a| a.path().is_ident("kube")) {
        return None;
    }
    let mut kind: Option<LitStr> = None;
    let mut root: Option<LitStr> = None;
    let mut status = None;
    let mut no_spec = false;
    let mut rules = Vec::new();
    let mut scale = None;
    each_key(cx, attrs, &["kube"], |attr, meta| {
        if meta.path.is_ident("kind") {
            kind = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("root") {
            root = Some(meta.value()?.parse()?);
        } else if meta.path.is_ident("status") {
            status = path_value(cx, meta, "status")?;
        } else if meta.path.is_ident("scale") {
            scale = if meta.input.peek(Token![=]) {
                Scale::from_json(&meta.value()?.parse::<LitStr>()?.value())
            } else {
                Scale::from_list(meta)?
            };
        } else if meta.path.is_ident("no_spec") {
            no_spec = true;
        } else if meta.path.is_ident("validation") {
            let expr: Expr = meta.value()?.parse()?;
            if let Some(r) = parse_kube_rule(cx, attr, &expr) {
                rules.push(r);
            }
        } else {
            return Ok(false);
        }
        Ok(true)
    });
    let name = root.or(kind)?;
    Some(KubeRoot {
        root: syn::Ident::new(&name.value(), name.span()),
        status,
        no_spec,
        rules,
        scale,
    })
}

/// A kube-rs validation rule in any form kube-core's `impl Into<Rule>` takes: a string, a
/// `(rule, message)` tuple, `Rule::new(..)` with `.message(..)` (a string, `Message::Message`
/// or `Message::Expression`), `.reason(Reason::..)`, `.field_path(..)` and
/// `.optional_old_self(..)` in any order, or a `Rule { .. }` literal, read into the rule
/// `#[cel(..)]` would declare. `None` (with an error saying how to write it with `#[cel(..)]`)
/// for anything whose value is only known when the code runs.
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
            "crd-cel reads kube's rules written with literals: a string, a (rule, message) \
             tuple, `Rule::new(\"..\")` with `.message(..)`, `.reason(Reason::..)`, \
             `.field_path(\"..\")` and `.optional_old_self(..)`, or a `Rule { .. }` literal; \
             write anything else as #[cel(rule = \"..\", message = \"..\", \
             message_expression = \"..\", reason = \"..\", field_path = \"..\", \
             optional_old_self)]",
        );
        None
    };
    let mut e = expr;
    loop {
        if let Some(rule) = lit(e) {
            r.rule = rule;
            return Some(r);
        }
        match e {
            Expr::Paren(p) => e = &p.expr,
            // `("rule", "message")`: kube-core's `From<(&str, &str)>`.
            Expr::Tuple(t) if t.elems.len() == 2 => {
                return match (lit(&t.elems[0]), lit(&t.elems[1])) {
                    (Some(rule), Some(message)) => {
                        r.rule = rule;
                        r.message.get_or_insert(message);
                        Some(r)
                    }
                    _ => fail(t),
                };
            }
            // `Rule::new(..)`, `Rule::from(..)`.
            Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["new", "from"]) => {
                e = &c.args[0];
            }
            Expr::Struct(s) if s.path.segments.last().is_some_and(|s| s.ident == "Rule") => {
                return struct_rule(s, r, &fail);
            }
            Expr::MethodCall(m) => {
                let arg = m.args.first();
                match (m.method.to_string().as_str(), arg) {
                    ("into", None) => {}
                    ("message", Some(a)) => match message(a) {
                        Some(Msg::Text(s)) => {
                            r.message.get_or_insert(s);
                        }
                        Some(Msg::Expression(s)) => {
                            r.message_expression.get_or_insert(s);
                        }
                        None => return fail(a),
                    },
                    ("field_path", Some(a)) => match lit(a) {
                        Some(s) => {
                            r.field_path.get_or_insert(s);
                        }
                        None => return fail(a),
                    },
                    ("reason", Some(a)) => match reason(a) {
                        Some(v) => {
                            r.reason.get_or_insert(v);
                        }
                        None => return fail(a),
                    },
                    ("optional_old_self", Some(a)) => match boolean(a) {
                        Some(b) => {
                            r.optional_old_self.get_or_insert(b);
                        }
                        None => return fail(a),
                    },
                    _ => return fail(m),
                }
                e = &m.receiver;
            }
            other => return fail(other),
        }
    }
}

/// A string literal, also as `"..".into()`, `"..".to_string()`, `String::from("..")`.
fn lit(e: &Expr) -> Option<LitStr> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && ["into", "to_string", "to_owned"].contains(&m.method.to_string().as_str()) =>
        {
            lit(&m.receiver)
        }
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["from"]) => lit(&c.args[0]),
        Expr::Paren(p) => lit(&p.expr),
        Expr::Reference(r) => lit(&r.expr),
        _ => None,
    }
}

/// Whether `func` is a path ending in one of `names`.
fn last_is(func: &Expr, names: &[&str]) -> bool {
    matches!(func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| names.iter().any(|n| s.ident == n)))
}

enum Msg {
    Text(LitStr),
    Expression(LitStr),
}

/// A message: a string, `Message::Message(..)`, `Message::Expression(..)`, also in `Some(..)`.
fn message(e: &Expr) -> Option<Msg> {
    if let Some(s) = lit(e) {
        return Some(Msg::Text(s));
    }
    match e {
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["Some"]) => message(&c.args[0]),
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["Expression"]) => {
            lit(&c.args[0]).map(Msg::Expression)
        }
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["Message"]) => {
            lit(&c.args[0]).map(Msg::Text)
        }
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "into" => message(&m.receiver),
        Expr::Paren(p) => message(&p.expr),
        _ => None,
    }
}

/// A reason: `Reason::FieldValueForbidden` (also in `Some(..)`), `Reason::default()`.
fn reason(e: &Expr) -> Option<Sp<String>> {
    match e {
        Expr::Path(p) => {
            let v = p.path.segments.last()?.ident.to_string();
            Some(Sp::new(v, p.span()))
        }
        Expr::Call(c) if c.args.is_empty() && last_is(&c.func, &["default"]) => {
            Some(Sp::new("FieldValueInvalid".to_owned(), c.span()))
        }
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["Some"]) => reason(&c.args[0]),
        Expr::MethodCall(m) if m.args.is_empty() && m.method == "into" => reason(&m.receiver),
        Expr::Paren(p) => reason(&p.expr),
        _ => None,
    }
}

/// `true`/`false`, also in `Some(..)`.
fn boolean(e: &Expr) -> Option<Sp<bool>> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        }) => Some(Sp::new(b.value, b.span())),
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["Some"]) => boolean(&c.args[0]),
        Expr::Paren(p) => boolean(&p.expr),
        _ => None,
    }
}

/// `Rule { rule: .., message: Some(..), field_path: Some(..), reason: Some(..),
/// optional_old_self: Some(..), ..Default::default() }`.
fn struct_rule(
    s: &syn::ExprStruct,
    mut r: RuleAttr,
    fail: &dyn Fn(&dyn quote::ToTokens) -> Option<RuleAttr>,
) -> Option<RuleAttr> {
    let mut has_rule = false;
    for f in &s.fields {
        let syn::Member::Named(name) = &f.member else {
            return fail(f);
        };
        let v = &f.expr;
        let none = matches!(v, Expr::Path(p) if p.path.is_ident("None"));
        match name.to_string().as_str() {
            _ if none => {}
            "rule" => {
                r.rule = match lit(v) {
                    Some(s) => s,
                    None => return fail(v),
                };
                has_rule = true;
            }
            "message" => match message(v) {
                Some(Msg::Text(s)) => r.message = Some(s),
                Some(Msg::Expression(s)) => r.message_expression = Some(s),
                None => return fail(v),
            },
            "field_path" => match strip_some(v).and_then(lit) {
                Some(s) => r.field_path = Some(s),
                None => return fail(v),
            },
            "reason" => match reason(v) {
                Some(x) => r.reason = Some(x),
                None => return fail(v),
            },
            "optional_old_self" => match boolean(v) {
                Some(b) => r.optional_old_self = Some(b),
                None => return fail(v),
            },
            _ => return fail(f),
        }
    }
    if has_rule { Some(r) } else { fail(s) }
}

fn strip_some(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Call(c) if c.args.len() == 1 && last_is(&c.func, &["Some"]) => Some(&c.args[0]),
        other => Some(other),
    }
}

/// kube's `#[x_kube(validation = ..)]` and `#[x_kube(merge_strategy = ..)]` (the `KubeSchema`
/// derive's), read into `cel` as the `#[cel(..)]` they mean, so a type moving from `KubeSchema`
/// to `CelValidate` keeps them.
pub fn parse_x_kube(cx: &Ctxt, attrs: &[Attribute], cel: &mut CelAttrs) {
    each_key(cx, attrs, &["x_kube"], |attr, meta| {
        if meta.path.is_ident("validation") {
            let expr: Expr = meta.value()?.parse()?;
            if let Some(r) = parse_kube_rule(cx, attr, &expr) {
                cel.rules.push(r);
            }
            return Ok(true);
        }
        if meta.path.is_ident("merge_strategy") {
            let expr: Expr = meta.value()?.parse()?;
            merge_strategy(cx, &expr, &mut cel.schema);
            return Ok(true);
        }
        Ok(false)
    });
}

/// kube-core's `ListMerge::{Atomic, Set, Map(keys)}`, `MapMerge::{Atomic, Granular}` and
/// `StructMerge::{Atomic, Granular}` (also inside `MergeStrategy::..(..)` or `.into()`), as
/// `x-kubernetes-list-type`, `-list-map-keys` and `-map-type`. kube writes a struct's as
/// `x-kubernetes-struct-type`, which the apiserver does not know (it drops the key); a struct's
/// merge strategy is its `x-kubernetes-map-type`, so that is what crd-cel writes.
fn merge_strategy(cx: &Ctxt, expr: &Expr, s: &mut SchemaAttrs) {
    let fail = |at: &dyn quote::ToTokens| {
        cx.error_spanned_by(
            at,
            "crd-cel reads `merge_strategy` written as ListMerge::Atomic, ListMerge::Set, \
             ListMerge::Map(vec![\"key\".into(), ..]), MapMerge::.. or StructMerge::..; or \
             write #[cel(list_type = \"map\", list_map_keys = [..])], #[cel(list_type = \"set\")] \
             or #[cel(map_type = \"atomic\")]",
        )
    };
    let span = expr.span();
    let (ty, variant, args) = match expr {
        Expr::Path(p) if p.path.segments.len() >= 2 => {
            let n = p.path.segments.len();
            (
                p.path.segments[n - 2].ident.to_string(),
                p.path.segments[n - 1].ident.to_string(),
                None,
            )
        }
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if p.path.segments.len() >= 2 => {
                let n = p.path.segments.len();
                let ty = p.path.segments[n - 2].ident.to_string();
                if ty == "MergeStrategy" && c.args.len() == 1 {
                    return merge_strategy(cx, &c.args[0], s);
                }
                (ty, p.path.segments[n - 1].ident.to_string(), Some(&c.args))
            }
            _ => return fail(expr),
        },
        Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => {
            return merge_strategy(cx, &m.receiver, s);
        }
        Expr::Paren(p) => return merge_strategy(cx, &p.expr, s),
        _ => return fail(expr),
    };
    let set_list = |s: &mut SchemaAttrs, t: ListType| {
        set_merge(cx, &mut s.list_type, Sp::new(t, span), expr);
    };
    match (ty.as_str(), variant.as_str(), args) {
        ("ListMerge", "Atomic", None) => set_list(s, ListType::Atomic),
        ("ListMerge", "Set", None) => set_list(s, ListType::Set),
        ("ListMerge", "Map", Some(args)) if args.len() == 1 => {
            let keys = match &args[0] {
                Expr::Macro(m) if m.mac.path.is_ident("vec") => m
                    .mac
                    .parse_body_with(
                        syn::punctuated::Punctuated::<Expr, Token![,]>::parse_terminated,
                    )
                    .ok()
                    .and_then(|es| es.iter().map(string_of).collect::<Option<Vec<_>>>()),
                Expr::Array(a) => a.elems.iter().map(string_of).collect(),
                _ => None,
            };
            match keys {
                Some(k) => {
                    set_list(s, ListType::Map);
                    set_merge(cx, &mut s.list_map_keys, Sp::new(k, span), expr);
                }
                None => fail(&args[0]),
            }
        }
        ("MapMerge" | "StructMerge", "Atomic", None) => {
            set_merge(cx, &mut s.map_type, Sp::new(MapType::Atomic, span), expr)
        }
        ("MapMerge" | "StructMerge", "Granular", None) => {
            set_merge(cx, &mut s.map_type, Sp::new(MapType::Granular, span), expr)
        }
        _ => fail(expr),
    }
}

/// A string literal, also as `"..".into()`, `"..".to_string()` or `String::from("..")`.
fn string_of(e: &Expr) -> Option<String> {
    lit(e).map(|s| s.value())
}

fn set_merge<T>(cx: &Ctxt, slot: &mut Option<T>, value: T, at: &Expr) {
    if slot.is_some() {
        cx.error_spanned_by(at, "this merge strategy is set twice (by #[cel(..)] too?)");
    } else {
        *slot = Some(value);
    }
}

/// The value of a key that takes a path, as kube's darling attributes read one: bare
/// (`status = FooStatus`) or in a string (`status = "FooStatus"`). `None` (with an error) for
/// anything else.
fn path_value(
    cx: &Ctxt,
    meta: &syn::meta::ParseNestedMeta<'_>,
    key: &str,
) -> syn::Result<Option<syn::Path>> {
    let e: Expr = meta.value()?.parse()?;
    Ok(match &e {
        Expr::Path(p) => Some(p.path.clone()),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.parse::<syn::Path>() {
            Ok(p) => Some(p),
            Err(err) => {
                cx.push(err);
                None
            }
        },
        _ => {
            cx.error_spanned_by(&e, format!("`{key}` takes a path"));
            None
        }
    })
}

/// `#[x_kube(cel)]`: `KubeSchema` then generates `T::validate_cel(value, old)`, returning
/// kube-core's `cel::ValidationErrors`. The path of kube-core (`::kube::core`, or
/// `crates(kube_core = ..)`), when it is asked for.
pub fn parse_x_kube_cel(cx: &Ctxt, attrs: &[Attribute]) -> Option<syn::Path> {
    let mut cel = false;
    let mut kube_core: syn::Path = syn::parse_quote!(::kube::core);
    each_key(cx, attrs, &["x_kube"], |_, meta| {
        if meta.path.is_ident("cel") {
            cel = true;
            return Ok(true);
        }
        if meta.path.is_ident("crates") {
            meta.parse_nested_meta(|inner| {
                if inner.path.is_ident("kube_core") {
                    if let Some(p) = path_value(cx, &inner, "kube_core")? {
                        kube_core = p;
                    }
                } else {
                    skip_value(&inner)?;
                }
                Ok(())
            })?;
            return Ok(true);
        }
        Ok(false)
    });
    cel.then_some(kube_core)
}
