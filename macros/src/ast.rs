//! The derive's IR: the container, its fields or variants, each keeping the syntax it came from
//! for spans (serde_derive's `ast.rs`).

use crate::attr::{self, CelAttrs, KubeRoot, SchemarsField, SerdeField};
use crate::case::RenameRule;
use crate::ctxt::Ctxt;

pub struct Container<'a> {
    pub original: &'a syn::DeriveInput,
    pub ident: &'a syn::Ident,
    pub cel: CelAttrs,
    pub data: Data<'a>,
    pub kube: Option<KubeRoot>,
    /// `#[serde(transparent)]`: schemars forwards the wrapped type's optionality.
    pub transparent: bool,
    /// `#[x_kube(cel)]`: the path of kube-core, whose `cel::ValidationErrors` the generated
    /// `validate_cel` returns.
    pub x_kube_cel: Option<syn::Path>,
    /// Container `#[serde(default)]` (not `default = "path"`): the schema's defaults come from
    /// the type's `Default`, which the shadow schemars derives from must then have too.
    pub default_from_trait: bool,
}

pub enum Data<'a> {
    /// A struct with named fields: an object.
    Struct(Vec<Field<'a>>),
    /// `struct Name(Inner);` or `#[serde(transparent)]`: the inner type's schema.
    Newtype(Box<Field<'a>>),
    /// An enum of unit variants: a string with `enum` values (the serialized names).
    UnitEnum(Vec<String>),
    /// An untagged enum of an integer and a string variant (`Int(i32)`, `Str(String)`): schemars
    /// renders it as `anyOf` without a `type`, which no structural schema allows; crd-cel writes
    /// what it means, `x-kubernetes-int-or-string: true` (k8s-openapi's `IntOrString`).
    IntOrString,
    /// A type whose schema crd-cel reads from what schemars generates: data-carrying enums whose
    /// variants do not say what the schema is (see `variants`), tuple structs, `from`/`try_from` containers, containers whose schema a
    /// `transform` or model-changing `extend` changes. Its model is unknown at compile time
    /// (rules on it are checked against the generated schema), its fields keep their own
    /// types' rules.
    Opaque,
    /// A data-carrying enum whose schema the derive can follow from its variants: its model
    /// is built at compile time (the schema itself is still schemars', rewritten as kube does).
    Enum(Variants<'a>),
}

/// How serde writes the variant (`#[serde(tag, content, untagged)]`).
pub enum Repr {
    /// `{"variant": payload}`.
    External,
    /// `{"tag": "variant", ..fields}`.
    Internal { tag: String },
    /// `{"tag": "variant", "content": payload}`.
    Adjacent { tag: String, content: String },
    /// The payload alone.
    Untagged,
}

pub struct Variants<'a> {
    pub repr: Repr,
    pub variants: Vec<Variant<'a>>,
}

pub struct Variant<'a> {
    /// The serialized name.
    pub name: String,
    pub payload: Payload<'a>,
}

pub enum Payload<'a> {
    Unit,
    Newtype(Box<Field<'a>>),
    Struct(Vec<Field<'a>>),
    /// Several unnamed fields: a JSON array.
    Tuple,
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    /// The JSON name.
    pub name: String,
    /// The type the schema is generated from (`#[schemars(with)]` or the field's type).
    pub ty: syn::Type,
    pub serde: SerdeField,
    pub schemars: SchemarsField,
    pub cel: CelAttrs,
}

impl<'a> Container<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Container<'a>> {
        let mut cel = attr::parse_cel_attrs(cx, &input.attrs, false);
        attr::parse_x_kube(cx, &input.attrs, &mut cel);
        let serde = attr::parse_serde_container(cx, &input.attrs);
        let (function, extensions) = attr::parse_schemars_container(cx, &input.attrs);
        let extended = attr::read_extensions(cx, extensions, &mut cel);
        let container_unmodeled = function || extended || serde.from;
        let unmodeled = container_unmodeled || serde.tag.is_some();
        let kube = attr::parse_kube(cx, &input.attrs);
        let rename_all = serde.rename_all.as_ref().and_then(|r| {
            let rule = RenameRule::from_str(&r.value);
            if rule.is_none() {
                cx.push(syn::Error::new(
                    r.span,
                    format!("unknown rename rule `{}` for serde", r.value),
                ));
            }
            rule
        });
        let data = match &input.data {
            syn::Data::Struct(s) => match &s.fields {
                syn::Fields::Named(named) if serde.transparent => {
                    let fields: Vec<_> = named
                        .named
                        .iter()
                        .filter_map(|f| Field::from_ast(cx, f, rename_all, true))
                        .collect();
                    match fields.len() {
                        1 => Data::Newtype(Box::new(
                            fields.into_iter().next().expect("BUG: one field"),
                        )),
                        _ => {
                            cx.error_spanned_by(
                                input,
                                "#[serde(transparent)] needs exactly one field",
                            );
                            return None;
                        }
                    }
                }
                _ if unmodeled => {
                    check_fields(cx, &s.fields);
                    Data::Opaque
                }
                syn::Fields::Named(named) => Data::Struct(
                    named
                        .named
                        .iter()
                        .filter_map(|f| {
                            let mut f = Field::from_ast(cx, f, rename_all, true)?;
                            // `#[serde(default)]` on the container defaults every field.
                            if serde.default.is_some() && !f.serde.default {
                                f.serde.default = true;
                                f.serde.default_from = attr::DefaultFrom::Container;
                            }
                            Some(f)
                        })
                        .collect(),
                ),
                syn::Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                    let f = Field::from_ast(cx, &unnamed.unnamed[0], None, true)?;
                    Data::Newtype(Box::new(f))
                }
                // schemars renders a tuple as an array of `prefixItems`.
                syn::Fields::Unnamed(_) => {
                    check_fields(cx, &s.fields);
                    Data::Opaque
                }
                syn::Fields::Unit => {
                    cx.error_spanned_by(&input.ident, "unit structs have no CRD schema");
                    return None;
                }
            },
            syn::Data::Enum(e) => {
                let unit = e
                    .variants
                    .iter()
                    .all(|v| matches!(v.fields, syn::Fields::Unit));
                for v in &e.variants {
                    if let Some(a) = v.attrs.iter().find(|a| a.path().is_ident("cel")) {
                        cx.error_spanned_by(
                            a,
                            "#[cel(..)] cannot go on a variant: put the rule on the enum (it sees \
                             the serialized value: test the tag or `has()` the variant's field \
                             first), or on the type of a variant's field",
                        );
                    }
                    check_variant_fields(cx, &v.fields);
                }
                if serde.untagged && is_int_or_string(e) {
                    Data::IntOrString
                } else if unit && !unmodeled {
                    // schemars lists the variants without metadata first (one `enum`), then
                    // each other one (a `const` with its description), which kube merges in
                    // that order.
                    let (plain, described): (Vec<_>, Vec<_>) = e
                        .variants
                        .iter()
                        .partition(|v| !has_schema_metadata(&v.attrs));
                    let mut names = Vec::new();
                    for v in plain.into_iter().chain(described) {
                        let serde = attr::parse_serde_field(cx, &v.attrs);
                        let schemars = attr::parse_schemars_field(cx, &v.attrs);
                        if serde.skip || schemars.skip {
                            continue;
                        }
                        let name = schemars.rename.or(serde.rename).unwrap_or_else(|| {
                            let raw = v.ident.to_string();
                            rename_all.map_or(raw.clone(), |r| r.apply_to_variant(&raw))
                        });
                        names.push(name);
                    }
                    Data::UnitEnum(names)
                } else if container_unmodeled {
                    Data::Opaque
                } else {
                    Variants::from_ast(cx, e, &serde, rename_all).map_or(Data::Opaque, Data::Enum)
                }
            }
            syn::Data::Union(_) => {
                cx.error_spanned_by(&input.ident, "unions have no CRD schema");
                return None;
            }
        };
        let mut data = data;
        generic_defaults(&input.generics, &mut data);
        // A struct whose schema is read from schemars' output (a `transform`, an `extend` of
        // a key the derive does not write) is still a spec: its rules are checked by the
        // generated test. kube takes an enum as `spec` too (the `spec` property is the enum's
        // schema), but flattens only a struct into the root (`no_spec`).
        let struct_like = matches!(data, Data::Struct(_) | Data::Newtype(_))
            || (matches!(data, Data::Opaque) && matches!(input.data, syn::Data::Struct(_)));
        if !struct_like && kube.as_ref().is_some_and(|k| k.no_spec) {
            cx.error_spanned_by(&input.ident, "a CustomResource spec must be a struct");
        }
        Some(Container {
            original: input,
            ident: &input.ident,
            cel,
            data,
            kube,
            x_kube_cel: attr::parse_x_kube_cel(cx, &input.attrs),
            transparent: serde.transparent,
            default_from_trait: serde.default_is_trait,
        })
    }

    /// All fields (one for a newtype).
    pub fn fields(&self) -> &[Field<'a>] {
        match &self.data {
            Data::Struct(fields) => fields,
            Data::Newtype(f) => std::slice::from_ref(f),
            Data::UnitEnum(_) | Data::Opaque | Data::IntOrString | Data::Enum(_) => &[],
        }
    }
}

impl<'a> Variants<'a> {
    /// `None` when a variant uses something whose schema the derive does not follow.
    fn from_ast(
        cx: &Ctxt,
        e: &'a syn::DataEnum,
        serde: &attr::SerdeContainer,
        rename_all: Option<RenameRule>,
    ) -> Option<Variants<'a>> {
        let repr = match (&serde.tag_name, &serde.content) {
            _ if serde.untagged => Repr::Untagged,
            (Some(tag), Some(content)) => Repr::Adjacent {
                tag: tag.clone(),
                content: content.clone(),
            },
            (Some(tag), None) => Repr::Internal { tag: tag.clone() },
            (None, _) => Repr::External,
        };
        let rule =
            |r: &Option<attr::Sp<String>>| r.as_ref().and_then(|r| RenameRule::from_str(&r.value));
        let fields_rule = rule(&serde.rename_all_fields);
        let mut variants = Vec::new();
        for v in &e.variants {
            let a = attr::parse_variant_attrs(cx, &v.attrs);
            if a.skip {
                continue;
            }
            if a.unmodeled {
                return None;
            }
            let name = a.rename.unwrap_or_else(|| {
                let raw = v.ident.to_string();
                rename_all.map_or(raw.clone(), |r| r.apply_to_variant(&raw))
            });
            let payload = match &v.fields {
                syn::Fields::Unit => Payload::Unit,
                syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => {
                    Payload::Newtype(Box::new(Field::from_ast(cx, &f.unnamed[0], None, false)?))
                }
                syn::Fields::Unnamed(_) => Payload::Tuple,
                syn::Fields::Named(named) => {
                    let rename = rule(&a.rename_all).or(fields_rule);
                    Payload::Struct(
                        named
                            .named
                            .iter()
                            .filter_map(|f| Field::from_ast(cx, f, rename, false))
                            .collect(),
                    )
                }
            };
            variants.push(Variant { name, payload });
        }
        Some(Variants { repr, variants })
    }
}

impl<'a> Field<'a> {
    /// `None` for a field that does not appear in the (deserialize-side) schema. `decorated`:
    /// the derive writes the field's node (a struct's field, not a variant's), so it reads the
    /// `extend`s it can write itself.
    fn from_ast(
        cx: &Ctxt,
        f: &'a syn::Field,
        rename_all: Option<RenameRule>,
        decorated: bool,
    ) -> Option<Field<'a>> {
        let mut cel = attr::parse_cel_attrs(cx, &f.attrs, true);
        attr::parse_x_kube(cx, &f.attrs, &mut cel);
        let serde = attr::parse_serde_field(cx, &f.attrs);
        let mut schemars = attr::parse_schemars_field(cx, &f.attrs);
        let extensions = std::mem::take(&mut schemars.extensions);
        schemars.unmodeled |= if decorated {
            attr::read_extensions(cx, extensions, &mut cel)
        } else {
            attr::shapes_schema(&extensions)
        };
        if serde.skip || schemars.skip {
            if !cel.rules.is_empty() {
                cx.error_spanned_by(
                    &cel.rules[0].attr,
                    "this field is skipped by serde/schemars, so it has no schema to carry a rule",
                );
            }
            return None;
        }
        let name = match &f.ident {
            Some(ident) => {
                let raw = ident.to_string();
                let raw = raw.strip_prefix("r#").unwrap_or(&raw).to_owned();
                schemars
                    .rename
                    .clone()
                    .or_else(|| serde.rename.clone())
                    .unwrap_or_else(|| rename_all.map_or(raw.clone(), |r| r.apply_to_field(&raw)))
            }
            None => String::new(),
        };
        if serde.flatten
            && let Some(r) = cel.rules.first()
        {
            {
                cx.error_spanned_by(
                    &r.attr,
                    "a flattened field has no node of its own; put the rule on the container or inside the flattened type",
                );
            }
        }
        let ty = schemars.with.clone().unwrap_or_else(|| f.ty.clone());
        schemars.required |= schemars.validation.required;
        schemars.unmodeled |= schemars.validation.is_unmodeled();
        Some(Field {
            original: f,
            name,
            ty,
            serde,
            schemars,
            cel,
        })
    }
}

/// schemars writes a field's `default` only if it can serialize the value where its impl is
/// written (`MaybeSerializeWrapper` resolves there): for a type that mentions a type parameter
/// that depends on the bounds in scope (`#[schemars(bound)]`, the parameter's own), so whether
/// a `#[serde(default)]` field of such a type has a `default` is read from the generated schema.
fn generic_defaults(generics: &syn::Generics, data: &mut Data) {
    let params: Vec<&syn::Ident> = generics.type_params().map(|p| &p.ident).collect();
    if params.is_empty() {
        return;
    }
    fn mentions(tokens: proc_macro2::TokenStream, params: &[&syn::Ident]) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => params.iter().any(|p| **p == i),
            proc_macro2::TokenTree::Group(g) => mentions(g.stream(), params),
            _ => false,
        })
    }
    let mark = |f: &mut Field| {
        if mentions(quote::ToTokens::to_token_stream(&f.ty), &params) {
            f.serde.default_unknown = true;
        }
    };
    match data {
        Data::Struct(fields) => fields.iter_mut().for_each(mark),
        Data::Newtype(f) => mark(f),
        Data::Enum(v) => {
            for variant in &mut v.variants {
                match &mut variant.payload {
                    Payload::Newtype(f) => mark(f),
                    Payload::Struct(fields) => fields.iter_mut().for_each(mark),
                    Payload::Unit | Payload::Tuple => {}
                }
            }
        }
        Data::UnitEnum(_) | Data::IntOrString | Data::Opaque => {}
    }
}

/// The fields of a type whose schema is read from schemars' output (tuple structs, variants):
/// `#[cel(..)]` there has no node the derive can name; rules belong on the fields' own types.
fn check_fields(cx: &Ctxt, fields: &syn::Fields) {
    for f in fields {
        if let Some(a) = f.attrs.iter().find(|a| a.path().is_ident("cel")) {
            cx.error_spanned_by(
                a,
                "crd-cel reads the schema of this type from schemars' output, so a field here \
                 cannot carry #[cel(..)]: put the rule on the field's own type, or on the \
                 containing type",
            );
        }
    }
}

/// The fields of an enum's variants: the enum's schema merges them (or is read from schemars'
/// output), so no node is a variant's field alone; a rule goes on the enum or the field's type.
fn check_variant_fields(cx: &Ctxt, fields: &syn::Fields) {
    for f in fields {
        if let Some(a) = f.attrs.iter().find(|a| a.path().is_ident("cel")) {
            cx.error_spanned_by(
                a,
                "a field of an enum variant cannot carry #[cel(..)]: put the rule on the enum \
                 (it sees the serialized value, where a struct variant's field is `self.<name>` \
                 when that variant is present), or on the field's own type (a newtype with \
                 #[cel(..)])",
            );
        }
    }
}

/// Two newtype variants, one of an integer type (`NonZero*` included) and one of `String`,
/// nothing that changes them.
fn is_int_or_string(e: &syn::DataEnum) -> bool {
    const INTS: [&str; 22] = [
        "i8",
        "i16",
        "i32",
        "i64",
        "isize",
        "u8",
        "u16",
        "u32",
        "u64",
        "usize",
        "NonZeroI8",
        "NonZeroI16",
        "NonZeroI32",
        "NonZeroI64",
        "NonZeroIsize",
        "NonZeroU8",
        "NonZeroU16",
        "NonZeroU32",
        "NonZeroU64",
        "NonZeroUsize",
        "u128",
        "i128",
    ];
    let mut int = false;
    let mut string = false;
    for v in &e.variants {
        let syn::Fields::Unnamed(f) = &v.fields else {
            return false;
        };
        if f.unnamed.len() != 1
            || v.attrs
                .iter()
                .chain(&f.unnamed[0].attrs)
                .any(|a| a.path().is_ident("serde") || a.path().is_ident("schemars"))
        {
            return false;
        }
        let syn::Type::Path(tp) = &f.unnamed[0].ty else {
            return false;
        };
        let last = tp.path.segments.last().filter(|s| s.arguments.is_empty());
        match last.map(|s| s.ident.to_string()).as_deref() {
            Some(i) if INTS.contains(&i) && !int => int = true,
            Some("String") if !string => string = true,
            _ => return false,
        }
    }
    int && string
}

/// Whether schemars gives a unit variant a schema of its own (a `const` with metadata): a
/// non-empty doc comment, `#[deprecated]`, or a `#[schemars(..)]` title, description, example,
/// extend or transform.
fn has_schema_metadata(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("deprecated") {
            return true;
        }
        if a.path().is_ident("doc") {
            return matches!(&a.meta, syn::Meta::NameValue(syn::MetaNameValue {
                value: syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }),
                ..
            }) if !s.value().trim().is_empty());
        }
        if a.path().is_ident("schemars") {
            let text = quote::ToTokens::to_token_stream(&a.meta).to_string();
            return ["title", "description", "example", "extend", "transform"]
                .iter()
                .any(|k| text.contains(k));
        }
        false
    })
}
