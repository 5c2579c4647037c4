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
    each_key(cx, attrs, &["kube"], |attr, meta| {
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
    each_key(cx, attrs, &["x_kube"], |attr, meta| {
        if meta.path.is_ident("validation") {
            let expr: Expr = meta.value()?.parse()?;
            if let Some(r) = parse_kube_rule(cx, attr, &expr) {
                rules.push(r);
            }
            return Ok(true);
        }
        if meta.path.is_ident("merge_strategy") {
            cx.error_spanned_by(
                &meta.path,
                "write the list's merge strategy as #[cel(list_type = \"map\", list_map_keys = \
                 [..])], #[cel(list_type = \"set\")] or #[cel(map_type = \"atomic\")]",
            );
        }
        Ok(false)
    });
    rules
}
