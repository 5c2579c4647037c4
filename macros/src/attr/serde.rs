//! The parts of `#[serde(..)]` that change a schema: names, defaults, skips, flattening, the
//! enum representation.

use super::*;

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
    /// `tag = ".."` (internally or adjacently tagged).
    pub tag_name: Option<String>,
    /// `content = ".."` (adjacently tagged).
    pub content: Option<String>,
    /// `rename_all_fields = ".."`: the fields of every struct variant.
    pub rename_all_fields: Option<Sp<String>>,
    /// `default` without a path: schemars reads defaults from `Default::default()`.
    pub default_is_trait: bool,
}

/// Where a field's default comes from, as schemars computes the `default` it writes.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
pub enum DefaultFrom {
    #[default]
    None,
    /// `default`: the field type's `Default::default()`.
    Trait,
    /// `default = "path"`: a function's value.
    Path,
    /// The container's `#[serde(default)]`: the field of the container's `Default` value.
    Container,
}

/// The parts of `#[serde(..)]` (and of `#[schemars(..)]`, which takes the same keys and
/// overrides serde's) that change the schema of a field or variant.
#[derive(Default)]
pub struct SerdeField {
    pub rename: Option<String>,
    pub skip: bool,
    pub default: bool,
    pub default_from: DefaultFrom,
    pub flatten: bool,
    /// `skip_serializing_if = "path"`: the predicate's path, as written.
    pub skip_serializing_if: Option<String>,
    /// Whether schemars can serialize the default is decided by bounds the derive does not
    /// read (a type mentioning a type parameter; see `ast::generic_defaults`).
    pub default_unknown: bool,
}

impl SerdeField {
    /// Whether schemars writes a `default` for the field: it serializes the default value
    /// unless `skip_serializing_if` says to skip it, a predicate only running code can answer.
    /// `None` when the derive cannot know: a default from a function or from the container's
    /// `Default` with any predicate, or the type's own default with a predicate other than
    /// the emptiness checks that skip exactly it (`Option::is_none`, `Vec::is_empty`, ...).
    pub fn writes_default(&self) -> Option<bool> {
        const SKIPS_EMPTY: [&str; 6] = [
            "is_none",
            "is_empty",
            "is_false",
            "not",
            "is_zero",
            "is_default",
        ];
        match (&self.default_from, &self.skip_serializing_if) {
            (DefaultFrom::None, _) => Some(false),
            _ if self.default_unknown => None,
            (_, None) => Some(true),
            (DefaultFrom::Trait, Some(pred)) => {
                let last = pred.rsplit("::").next().unwrap_or(pred).trim();
                SKIPS_EMPTY.contains(&last).then_some(false)
            }
            _ => None,
        }
    }
}

/// Reads `rename = "x"` or `rename(deserialize = "x", ..)`: schemars describes the
/// deserialize side, so that name wins.
pub(super) fn parse_rename(meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
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

/// A field's or variant's `rename` (its deserialize name) and `skip`/`skip_deserializing`,
/// which serde and schemars spell alike; whether `meta` was one of them.
pub(super) fn parse_name_keys(
    meta: &ParseNestedMeta,
    rename: &mut Option<String>,
    skip: &mut bool,
) -> syn::Result<bool> {
    if meta.path.is_ident("rename") {
        if let Some(name) = parse_rename(meta)? {
            *rename = Some(name);
        }
    } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
        *skip = true;
    } else {
        return Ok(false);
    }
    Ok(true)
}

pub fn parse_serde_container(cx: &Ctxt, attrs: &[Attribute]) -> SerdeContainer {
    let mut out = SerdeContainer::default();
    each_key(cx, attrs, &["serde"], |_, meta| {
        if meta.path.is_ident("rename_all") {
            let span = meta.path.span();
            if let Some(rule) = parse_rename(meta)? {
                out.rename_all = Some(Sp::new(rule, span));
            }
        } else if meta.path.is_ident("default") {
            out.default = Some(meta.path.span());
            // `default` (the type's `Default`) or `default = "path"`.
            out.default_is_trait = !meta.input.peek(Token![=]);
            return Ok(false);
        } else if meta.path.is_ident("transparent") {
            out.transparent = true;
        } else if meta.path.is_ident("from") || meta.path.is_ident("try_from") {
            out.from = true;
            return Ok(false);
        } else if meta.path.is_ident("rename_all_fields") {
            let span = meta.path.span();
            if let Some(rule) = parse_rename(meta)? {
                out.rename_all_fields = Some(Sp::new(rule, span));
            }
        } else if meta.path.is_ident("tag") || meta.path.is_ident("content") {
            out.tag = Some(meta.path.span());
            let name = meta.value()?.parse::<LitStr>()?.value();
            if meta.path.is_ident("tag") {
                out.tag_name = Some(name);
            } else {
                out.content = Some(name);
            }
        } else if meta.path.is_ident("untagged") {
            out.untagged = true;
            out.tag = Some(meta.path.span());
        } else {
            return Ok(false);
        }
        Ok(true)
    });
    out
}

pub fn parse_serde_field(cx: &Ctxt, attrs: &[Attribute]) -> SerdeField {
    let mut out = SerdeField::default();
    // schemars reads these keys in `#[schemars(..)]` too (its `SERDE_KEYWORDS`).
    each_key(cx, attrs, &["serde", "schemars"], |_, meta| {
        if parse_name_keys(meta, &mut out.rename, &mut out.skip)? {
            return Ok(true);
        }
        if meta.path.is_ident("default") {
            out.default = true;
            out.default_from = if meta.input.peek(Token![=]) {
                DefaultFrom::Path
            } else {
                DefaultFrom::Trait
            };
            return Ok(false);
        } else if meta.path.is_ident("flatten") {
            out.flatten = true;
        } else if meta.path.is_ident("skip_serializing_if") {
            let s: LitStr = meta.value()?.parse()?;
            out.skip_serializing_if = Some(s.value());
        } else {
            return Ok(false);
        }
        Ok(true)
    });
    out
}

/// What a data enum's variant says about its schema.
#[derive(Default)]
pub struct VariantAttrs {
    pub rename: Option<String>,
    pub skip: bool,
    /// `#[serde(rename_all)]`: the variant's fields.
    pub rename_all: Option<Sp<String>>,
    /// An attribute whose effect on the schema the derive does not model (`with`, `untagged`,
    /// a schemars `extend`, ...): the enum's model is read from the generated schema.
    pub unmodeled: bool,
}

/// Reads a variant's `#[serde(..)]` and `#[schemars(..)]`. Keys that only change how values
/// are read, or the documentation, are fine; anything else makes the variant unmodeled.
pub fn parse_variant_attrs(cx: &Ctxt, attrs: &[Attribute]) -> VariantAttrs {
    let mut out = VariantAttrs {
        // `validate`/`garde` keys on a variant are rare and not modeled.
        unmodeled: attrs
            .iter()
            .any(|a| a.path().is_ident("validate") || a.path().is_ident("garde")),
        ..VariantAttrs::default()
    };
    each_key(cx, attrs, &["serde", "schemars"], |attr, meta| {
        if parse_name_keys(meta, &mut out.rename, &mut out.skip)? {
            return Ok(true);
        }
        if attr.path().is_ident("serde") && meta.path.is_ident("rename_all") {
            let span = meta.path.span();
            if let Some(rule) = parse_rename(meta)? {
                out.rename_all = Some(Sp::new(rule, span));
            }
        } else {
            const HARMLESS: [&str; 7] = [
                "alias",
                "borrow",
                "bound",
                "other",
                "title",
                "description",
                "deprecated",
            ];
            out.unmodeled |= !HARMLESS.iter().any(|k| meta.path.is_ident(k));
            return Ok(false);
        }
        Ok(true)
    });
    out
}
