//! The parts of `#[schemars(..)]` that change a schema, and the validation attributes schemars
//! reads (`#[validate(..)]`, `#[garde(..)]`).

use super::*;

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
    /// `schema_with = "f"`: schemars names the field's type by a wrapper of its own, which is
    /// never optional, so the field is required unless it has a default.
    pub schema_with: bool,
    pub validation: SchemarsValidation,
    /// `extend("key" = value, ..)`, read by [`read_extensions`] where the node is modeled.
    pub extensions: Vec<Extension>,
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
        } else if meta.path.is_ident("pattern") {
            // `pattern(<expr>)` (schemars 1, garde).
            let content;
            syn::parenthesized!(content in meta.input);
            pattern = Some(content.parse::<Expr>()?);
        } else {
            meta.parse_nested_meta(|inner| {
                if inner.path.is_ident("pattern") {
                    pattern = Some(inner.value()?.parse::<Expr>()?);
                } else if inner.path.is_ident("path") {
                    // validator's `regex(path = ..)` names the regex: schemars reads a string
                    // there as the expression it spells (`path = "SEMVER_RE"` is `SEMVER_RE`),
                    // never as the pattern itself.
                    let e = inner.value()?.parse::<Expr>()?;
                    pattern = Some(match &e {
                        Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => s.parse::<Expr>()?,
                        _ => e,
                    });
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
        // garde allows a bare expression list (`#[garde(skip)]`, `#[garde(custom(f))]`).
        each_key(cx, attrs, &[name], |_, meta| {
            if kind == ValidationAttr::Validate {
                warn_unread_rule(cx, meta);
            }
            parse_validation_meta(meta, v, kind)
        });
    }
}

pub fn parse_schemars_field(cx: &Ctxt, attrs: &[Attribute]) -> SchemarsField {
    let mut out = SchemarsField::default();
    parse_validator_attrs(cx, attrs, &mut out.validation);
    each_key(cx, attrs, &["schemars"], |attr, meta| {
        if parse_validation_meta(meta, &mut out.validation, ValidationAttr::Schemars)? {
            return Ok(true);
        }
        if parse_name_keys(meta, &mut out.rename, &mut out.skip)? {
            return Ok(true);
        }
        if meta.path.is_ident("required") {
            out.required = true;
        } else if meta.path.is_ident("with") {
            let s: LitStr = meta.value()?.parse()?;
            match s.parse::<syn::Type>() {
                Ok(t) => out.with = Some(t),
                Err(e) => cx.push(e),
            }
        } else if meta.path.is_ident("extend") {
            out.extensions.extend(parse_extensions(attr, meta)?);
        } else {
            // A schema made by a function is known only when it is generated.
            out.unmodeled |= is_function(meta);
            out.schema_with |= meta.path.is_ident("schema_with");
            return Ok(false);
        }
        Ok(true)
    });
    out
}

/// `schema_with` or `transform`: a schema a function makes or changes.
fn is_function(meta: &ParseNestedMeta) -> bool {
    meta.path.is_ident("schema_with") || meta.path.is_ident("transform")
}

/// `#[validate(rule = ..)]`: neither schemars, kube's `KubeSchema` nor the validator crate
/// reads it, so code that builds with it ships the CRD without the rule; crd-cel does the same
/// (the CRD stays as it was) and says so.
fn warn_unread_rule(cx: &Ctxt, meta: &ParseNestedMeta) {
    if meta.path.is_ident("rule") {
        cx.warn(
            meta.path.span(),
            "`#[validate(rule = ..)]` is read by no derive (not schemars, not kube's \
             `KubeSchema`): this rule is not in the CRD; write `#[cel(rule = ..)]` (or kube's \
             `#[x_kube(validation = ..)]`) to have it checked and shipped",
        );
    }
}

/// Container-level `#[schemars(..)]`: whether a function makes or changes the schema
/// (`transform`, `schema_with`), and its `extend`s; the rest is schemars' business.
pub fn parse_schemars_container(cx: &Ctxt, attrs: &[Attribute]) -> (bool, Vec<Extension>) {
    // The container's `#[validate(..)]` is the validator crate's: only an unread rule is
    // looked for, and what does not parse is left to that crate.
    for attr in attrs.iter().filter(|a| a.path().is_ident("validate")) {
        let _ = attr.parse_nested_meta(|meta| {
            warn_unread_rule(cx, &meta);
            skip_value(&meta)
        });
    }
    let mut function = false;
    let mut extensions = Vec::new();
    each_key(cx, attrs, &["schemars"], |attr, meta| {
        if meta.path.is_ident("extend") {
            extensions.extend(parse_extensions(attr, meta)?);
            return Ok(true);
        }
        function |= is_function(meta);
        Ok(false)
    });
    (function, extensions)
}
