//! Writes `$OUT_DIR/types.rs`: `DIFFTYPES_COUNT` random CRD types (default 60) from the seed
//! `DIFFTYPES_SEED` (default 1), in the shapes and with the serde, schemars, validator, kube and
//! `#[cel(..)]` attributes real operators use. Each type is written twice, in `cel` (derived with
//! `CelValidate`, with rules) and in `js` (derived with `JsonSchema`, as upstream writes it), and
//! listed in `cases()` for the comparison in `src/lib.rs`.

use std::fmt::Write as _;

fn main() {
    println!("cargo::rerun-if-env-changed=DIFFTYPES_SEED");
    println!("cargo::rerun-if-env-changed=DIFFTYPES_COUNT");
    println!("cargo::rerun-if-changed=build.rs");
    let num = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let seed = num("DIFFTYPES_SEED", 1);
    let count = num("DIFFTYPES_COUNT", 60) as usize;
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66),
        items: Vec::new(),
        next: 0,
    };
    let mut cases = String::new();
    for i in 0..count {
        let name = format!("T{i}");
        // A quarter of the types are kube `CustomResource` specs (`T3Spec`, root `T3`).
        let resource = g.rng.chance(25);
        let (has_enum, check) = if resource {
            let spec = format!("{name}Spec");
            let has_enum = g.top(&spec);
            let item = g.items.iter_mut().find(|i| i.name == spec).unwrap();
            item.custom_resource = true;
            item.attrs.insert(
                0,
                format!("#[kube(group = \"difftypes.example.com\", version = \"v1\", kind = \"{name}\", namespaced)]"),
            );
            if g.rng.chance(30) {
                item.attrs.insert(
                    1,
                    "#[kube(validation = \"self.metadata.name.size() > 0\")]".to_owned(),
                );
            }
            (has_enum, "check_root")
        } else {
            (g.top(&name), "check")
        };
        writeln!(
            cases,
            "        Case {{ name: {name:?}, seed: {seed}, has_enum: {has_enum}, cel: schema_of::<cel::{name}>, js: schema_of::<js::{name}>, check: {check}::<cel::{name}> }},"
        )
        .unwrap();
    }
    let mut out = String::new();
    for (module, derive) in [
        ("cel", "crd_cel::CelValidate"),
        ("js", "schemars::JsonSchema"),
    ] {
        writeln!(out, "/// The generated types, derived with `{derive}`.").unwrap();
        writeln!(out, "pub mod {module} {{").unwrap();
        writeln!(out, "    #![allow(dead_code, missing_docs, clippy::all)]").unwrap();
        writeln!(
            out,
            "    #[allow(unused_imports)]
    use super::*;"
        )
        .unwrap();
        for item in &g.items {
            out.push_str(&item.render(derive, module == "cel"));
        }
        writeln!(out, "}}").unwrap();
    }
    writeln!(out, "/// Every top-level generated type.").unwrap();
    writeln!(
        out,
        "pub fn cases() -> Vec<Case> {{\n    vec![\n{cases}    ]\n}}"
    )
    .unwrap();
    let path = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("types.rs");
    std::fs::write(path, out).unwrap();
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// What a rule can do with a value of the type.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Num,
    Bool,
    Str,
    List,
    Map,
    /// No rule is generated on it (objects, k8s types, anything untyped).
    Other,
}

#[derive(Clone)]
struct Ty {
    rust: String,
    kind: Kind,
    /// Implements `Default` (for `#[serde(default)]`, `skip` and derived `Default`).
    default: bool,
    /// Spelled `Option<..>` (so `Option::is_none` applies).
    option: bool,
    /// May be absent from objects (an `Option`, a transparent newtype of one).
    optional: bool,
    /// A nested struct of ours (can be flattened).
    flattenable: bool,
    has_enum: bool,
    /// A scalar named in default functions (`d_i32`...), if any.
    scalar: Option<&'static str>,
}

impl Ty {
    fn leaf(rust: &str, kind: Kind, default: bool) -> Ty {
        Ty {
            rust: rust.to_owned(),
            kind,
            default,
            option: false,
            optional: false,
            flattenable: false,
            has_enum: false,
            scalar: None,
        }
    }
}

struct Field {
    ident: String,
    json: String,
    ty: Ty,
    attrs: Vec<String>,
    cel_attrs: Vec<String>,
    flatten: bool,
}

enum Body {
    Struct(Vec<Field>),
    Enum(Vec<String>),
    /// `struct Name(pub Inner);`
    Tuple(String),
}

struct Item {
    name: String,
    /// A kube `CustomResource` spec (its `#[kube(..)]` in `attrs`).
    custom_resource: bool,
    attrs: Vec<String>,
    cel_attrs: Vec<String>,
    derive_default: bool,
    body: Body,
}

impl Item {
    fn render(&self, derive: &str, cel: bool) -> String {
        let mut s = String::new();
        let default = if self.derive_default { ", Default" } else { "" };
        let kube = if self.custom_resource {
            "kube::CustomResource, "
        } else {
            ""
        };
        writeln!(
            s,
            "    #[derive({kube}{derive}, serde::Serialize, serde::Deserialize, Clone, Debug{default})]"
        )
        .unwrap();
        for a in self
            .attrs
            .iter()
            .chain(cel.then_some(&self.cel_attrs).into_iter().flatten())
        {
            writeln!(s, "    {a}").unwrap();
        }
        match &self.body {
            Body::Struct(fields) => {
                writeln!(s, "    pub struct {} {{", self.name).unwrap();
                for f in fields {
                    for a in f
                        .attrs
                        .iter()
                        .chain(cel.then_some(&f.cel_attrs).into_iter().flatten())
                    {
                        writeln!(s, "        {a}").unwrap();
                    }
                    writeln!(s, "        pub {}: {},", f.ident, f.ty.rust).unwrap();
                }
                writeln!(s, "    }}").unwrap();
            }
            Body::Tuple(inner) => {
                writeln!(s, "    pub struct {}(pub {inner});", self.name).unwrap()
            }
            Body::Enum(variants) => {
                writeln!(s, "    pub enum {} {{", self.name).unwrap();
                for v in variants {
                    writeln!(s, "        {v},").unwrap();
                }
                writeln!(s, "    }}").unwrap();
            }
        }
        s
    }
}

struct Gen {
    rng: Rng,
    items: Vec<Item>,
    next: usize,
}

const WORDS: [&str; 8] = [
    "name", "port", "size", "mode", "level", "image", "replicas", "tls_on",
];
const RENAME_ALL: [&str; 7] = [
    "camelCase",
    "snake_case",
    "kebab-case",
    "PascalCase",
    "SCREAMING_SNAKE_CASE",
    "lowercase",
    "UPPERCASE",
];

/// serde's `rename_all` of a snake_case field name.
fn rename(rule: &str, ident: &str) -> String {
    let parts: Vec<&str> = ident.split('_').collect();
    let cap = |p: &str| {
        let mut c = p.chars();
        c.next()
            .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
            .unwrap_or_default()
    };
    match rule {
        "camelCase" => parts[0].to_owned() + &parts[1..].iter().map(|p| cap(p)).collect::<String>(),
        "PascalCase" => parts.iter().map(|p| cap(p)).collect(),
        "kebab-case" => parts.join("-"),
        "SCREAMING_SNAKE_CASE" | "UPPERCASE" => ident.to_uppercase(),
        _ => ident.to_owned(),
    }
}

/// A JSON name as a CEL rule spells it (the apiserver's escaping of the names used here).
fn cel_name(json: &str) -> String {
    json.replace("__", "__underscores__")
        .replace('-', "__dash__")
}

impl Gen {
    fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        format!("{base}N{}", self.next)
    }

    /// The top-level type `name`; whether an enum is anywhere in it.
    fn top(&mut self, name: &str) -> bool {
        self.structure(name, 0)
    }

    fn structure(&mut self, name: &str, depth: usize) -> bool {
        let n = 1 + self.rng.below(5);
        let mut fields = Vec::new();
        let rename_all = self.rng.chance(40).then(|| *self.rng.pick(&RENAME_ALL));
        let mut has_enum = false;
        for _ in 0..n {
            // Unique in the type and in what it flattens (serde would see one key twice).
            self.next += 1;
            let ident = format!("f{}_{}", self.next, self.rng.pick(&WORDS));
            let ty = self.ty(name, depth);
            has_enum |= ty.has_enum;
            let mut json = match rename_all {
                Some(r) => rename(r, &ident),
                None => ident.clone(),
            };
            let mut attrs = Vec::new();
            let mut cel_attrs = Vec::new();
            let mut flatten = false;
            if self.rng.chance(20) {
                attrs.push("/// A documented field.".to_owned());
            }
            if self.rng.chance(10) {
                json = format!("r{}-{}", self.next, self.rng.pick(&WORDS));
                attrs.push(format!("#[serde(rename = {json:?})]"));
            }
            let mut ty = ty;
            self.field_attrs(&mut ty, &mut attrs, &mut cel_attrs, &mut flatten, depth);
            fields.push(Field {
                ident,
                json,
                ty,
                attrs,
                cel_attrs,
                flatten,
            });
        }
        let mut attrs = Vec::new();
        let mut cel_attrs = Vec::new();
        if self.rng.chance(20) {
            attrs.push("/// A documented type.".to_owned());
        }
        if let Some(r) = rename_all {
            attrs.push(format!("#[serde(rename_all = {r:?})]"));
        }
        let all_default = fields.iter().all(|f| f.ty.default);
        let derive_default = all_default && self.rng.chance(50);
        if derive_default && self.rng.chance(40) {
            attrs.push("#[serde(default)]".to_owned());
        }
        if !fields.iter().any(|f| f.flatten) && self.rng.chance(10) {
            attrs.push("#[serde(deny_unknown_fields)]".to_owned());
        }
        // A rule on the container reading a scalar field it has.
        let scalars: Vec<&Field> = fields
            .iter()
            .filter(|f| {
                !f.flatten && matches!(f.ty.kind, Kind::Int | Kind::Num | Kind::Bool | Kind::Str)
            })
            .filter(|f| {
                !f.attrs.iter().any(|a| {
                    a.contains("schema_with") || a.contains("with =") || a.contains("skip")
                })
            })
            .collect();
        if !scalars.is_empty() && self.rng.chance(60) {
            let f = scalars[self.rng.below(scalars.len())];
            let name = cel_name(&f.json);
            let body = expr(f.ty.kind, &format!("self.{name}"));
            let rule =
                if f.ty.option || f.ty.optional || f.attrs.iter().any(|a| a.contains("default")) {
                    format!("!has(self.{name}) || {body}")
                } else {
                    body
                };
            match self.rng.below(100) {
                0..=29 => attrs.push(format!(
                    "#[schemars(extend(\"x-kubernetes-validations\" = [{{\"rule\": {rule:?}, \"message\": \"bad\"}}]))]"
                )),
                30..=44 => cel_attrs.push(format!("#[x_kube(validation = ({rule:?}, \"bad\"))]")),
                _ => cel_attrs.push(format!("#[cel(rule = {rule:?}, message = \"bad\")]")),
            }
        }
        self.items.push(Item {
            name: name.to_owned(),
            custom_resource: false,
            attrs,
            cel_attrs,
            derive_default,
            body: Body::Struct(fields),
        });
        has_enum
    }

    fn field_attrs(
        &mut self,
        ty: &mut Ty,
        attrs: &mut Vec<String>,
        cel_attrs: &mut Vec<String>,
        flatten: &mut bool,
        depth: usize,
    ) {
        let r = self.rng.below(100);
        match r {
            0..=9 if ty.flattenable && depth < 2 => {
                attrs.push("#[serde(flatten)]".to_owned());
                *flatten = true;
                return;
            }
            10..=17 if ty.default => attrs.push("#[serde(default)]".to_owned()),
            18..=24 if ty.option => attrs
                .push("#[serde(default, skip_serializing_if = \"Option::is_none\")]".to_owned()),
            25..=29 if ty.rust.starts_with("Vec<") => {
                attrs.push("#[serde(default, skip_serializing_if = \"Vec::is_empty\")]".to_owned())
            }
            30..=34 if ty.scalar.is_some() => {
                let s = ty.scalar.unwrap();
                let o = if ty.option { "opt_" } else { "" };
                if self.rng.chance(50) {
                    attrs.push(format!("#[serde(default = \"crate::d_{o}{s}\")]"));
                } else {
                    attrs.push(format!(
                        "#[serde(default = \"crate::d_{o}{s}\", skip_serializing_if = \"crate::is_d_{o}{s}\")]"
                    ));
                }
            }
            35..=37 if ty.default => {
                attrs.push("#[serde(skip)]".to_owned());
                return;
            }
            38..=41 => {
                attrs.push("#[schemars(with = \"String\")]".to_owned());
                ty.kind = Kind::Str;
                ty.option = false;
                return;
            }
            42..=44 => {
                let f = if self.rng.chance(50) {
                    "any_string"
                } else {
                    "preserve"
                };
                let d = if ty.option && self.rng.chance(50) {
                    ", default"
                } else {
                    ""
                };
                attrs.push(format!("#[schemars(schema_with = \"crate::{f}\"{d})]"));
                ty.kind = Kind::Other;
                return;
            }
            45..=47 if ty.option => attrs.push("#[schemars(required)]".to_owned()),
            _ => {}
        }
        // Validation keywords.
        let v = self.rng.below(100);
        let attr = *self
            .rng
            .pick(&["schemars", "schemars", "schemars", "validate", "garde"]);
        match (ty.kind, v) {
            (Kind::Str, 0..=19) => attrs.push(format!("#[{attr}(length(min = 1, max = 63))]")),
            (Kind::Str, 20..=29) if attr == "schemars" => {
                attrs.push("#[schemars(regex(pattern = \"^[a-z]+$\"))]".to_owned())
            }
            (Kind::Str, 30..=34) => attrs.push(format!("#[{attr}(email)]")),
            (Kind::Int, 0..=24) => attrs.push(format!("#[{attr}(range(min = 0, max = 65535))]")),
            (Kind::List, 0..=19) => attrs.push(format!("#[{attr}(length(max = 16))]")),
            (Kind::List, 20..=29) if attr != "validate" => {
                attrs.push(format!("#[{attr}(inner(length(max = 8)))]"))
            }
            _ => {}
        }
        match self.rng.below(100) {
            0..=9 => attrs.push("#[schemars(extend(\"description\" = \"extended\"))]".to_owned()),
            10..=14 if ty.kind == Kind::List && ty.rust.ends_with("<String>") => attrs.push(
                "#[schemars(extend(\"x-kubernetes-list-type\" = \"set\", \"maxItems\" = 32))]"
                    .to_owned(),
            ),
            _ => {}
        }
        // A rule on the field's own node.
        if ty.kind != Kind::Other && self.rng.chance(35) {
            let rule = expr(ty.kind, "self");
            match self.rng.below(100) {
                0..=24 => attrs.push(format!(
                    "#[schemars(extend(\"x-kubernetes-validations\" = [{{\"rule\": {rule:?}}}]))]"
                )),
                25..=39 => cel_attrs.push(format!(
                    "#[x_kube(validation = Rule::new({rule:?}).message(\"m\").reason(Reason::FieldValueForbidden))]"
                )),
                _ => cel_attrs.push(format!("#[cel(rule = {rule:?})]")),
            }
        }
    }

    fn ty(&mut self, owner: &str, depth: usize) -> Ty {
        let r = self.rng.below(100);
        match r {
            0..=39 => self.scalar(),
            40..=49 if depth < 2 => {
                let mut t = self.ty(owner, depth + 1);
                if t.option {
                    return t;
                }
                t.rust = format!("Option<{}>", t.rust);
                t.option = true;
                t.default = true;
                t.flattenable = false;
                t
            }
            50..=59 if depth < 2 => {
                let inner = self.ty(owner, depth + 1);
                Ty {
                    rust: format!("Vec<{}>", inner.rust),
                    kind: typed(&inner, Kind::List),
                    default: true,
                    option: false,
                    optional: false,
                    flattenable: false,
                    has_enum: inner.has_enum,
                    scalar: None,
                }
            }
            60..=65 if depth < 2 => {
                let inner = self.ty(owner, depth + 1);
                let map = if self.rng.chance(50) {
                    "std::collections::BTreeMap"
                } else {
                    "std::collections::HashMap"
                };
                Ty {
                    rust: format!("{map}<String, {}>", inner.rust),
                    kind: typed(&inner, Kind::Map),
                    default: true,
                    option: false,
                    optional: false,
                    flattenable: false,
                    has_enum: inner.has_enum,
                    scalar: None,
                }
            }
            66..=67 => Ty::leaf("std::collections::BTreeSet<String>", Kind::List, true),
            68..=77 if depth < 2 => {
                let name = self.fresh(owner);
                let has_enum = self.structure(&name, depth + 1);
                let default = self
                    .items
                    .iter()
                    .find(|i| i.name == name)
                    .is_some_and(|i| i.derive_default);
                Ty {
                    rust: name,
                    kind: Kind::Other,
                    default,
                    option: false,
                    optional: false,
                    flattenable: true,
                    has_enum,
                    scalar: None,
                }
            }
            78..=85 => self.enumeration(owner),
            86..=95 => {
                let (rust, kind) = *self.rng.pick(&[
                    (
                        "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
                        Kind::Other,
                    ),
                    (
                        "k8s_openapi::apimachinery::pkg::util::intstr::IntOrString",
                        Kind::Other,
                    ),
                    (
                        "k8s_openapi::apimachinery::pkg::apis::meta::v1::Time",
                        Kind::Other,
                    ),
                    (
                        "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
                        Kind::Other,
                    ),
                    (
                        "k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector",
                        Kind::Other,
                    ),
                    ("k8s_openapi::api::core::v1::EnvVar", Kind::Other),
                    (
                        "k8s_openapi::api::core::v1::ResourceRequirements",
                        Kind::Other,
                    ),
                    ("k8s_openapi::api::core::v1::Toleration", Kind::Other),
                    ("serde_json::Value", Kind::Other),
                ]);
                // Time (and so Condition) has no Default.
                Ty::leaf(
                    rust,
                    kind,
                    !rust.ends_with("Time") && !rust.ends_with("Condition"),
                )
            }
            96..=97 => self.newtype(owner),
            _ => {
                let (rust, kind) = *self.rng.pick(&[
                    ("chrono::DateTime<chrono::Utc>", Kind::Other),
                    ("uuid::Uuid", Kind::Str),
                    ("std::num::NonZeroU32", Kind::Int),
                    ("std::net::Ipv4Addr", Kind::Str),
                    ("Box<String>", Kind::Str),
                    ("u64", Kind::Int),
                    ("f32", Kind::Num),
                ]);
                Ty::leaf(rust, kind, !rust.starts_with("std::n"))
            }
        }
    }

    /// `#[serde(transparent)] struct N { inner: T }` or `struct N(pub T);`: `T`'s schema.
    fn newtype(&mut self, owner: &str) -> Ty {
        let name = self.fresh(owner);
        let inner = self.scalar();
        let (attrs, body) = if self.rng.chance(50) {
            let field = Field {
                ident: "inner".to_owned(),
                json: "inner".to_owned(),
                ty: inner.clone(),
                attrs: Vec::new(),
                cel_attrs: Vec::new(),
                flatten: false,
            };
            (
                vec!["#[serde(transparent)]".to_owned()],
                Body::Struct(vec![field]),
            )
        } else {
            (Vec::new(), Body::Tuple(inner.rust.clone()))
        };
        self.items.push(Item {
            name: name.clone(),
            custom_resource: false,
            attrs,
            cel_attrs: Vec::new(),
            derive_default: true,
            body,
        });
        Ty {
            rust: name,
            scalar: None,
            option: false,
            optional: inner.option,
            flattenable: false,
            ..inner
        }
    }

    fn scalar(&mut self) -> Ty {
        let (rust, kind, scalar) = *self.rng.pick(&[
            ("i32", Kind::Int, Some("i32")),
            ("i64", Kind::Int, None),
            ("u16", Kind::Int, None),
            ("f64", Kind::Num, None),
            ("bool", Kind::Bool, Some("bool")),
            ("String", Kind::Str, Some("string")),
            ("String", Kind::Str, Some("string")),
        ]);
        let mut t = Ty::leaf(rust, kind, true);
        t.scalar = scalar;
        if scalar.is_some() && self.rng.chance(30) {
            t.rust = format!("Option<{rust}>");
            t.option = true;
        }
        t
    }

    fn enumeration(&mut self, owner: &str) -> Ty {
        let name = self.fresh(owner);
        let mut attrs = Vec::new();
        let variants: Vec<String>;
        let mut kind = Kind::Other;
        match self.rng.below(6) {
            0 => {
                if self.rng.chance(50) {
                    attrs.push(format!(
                        "#[serde(rename_all = {:?})]",
                        self.rng.pick(&RENAME_ALL)
                    ));
                }
                variants = vec![
                    "Alpha".into(),
                    "BetaTwo".into(),
                    "#[serde(rename = \"g-3\")] Gamma".into(),
                ];
                kind = Kind::Str;
            }
            1 => {
                variants = vec![
                    "Num(i32)".into(),
                    "Text(String)".into(),
                    "Pair { a: i32, b: String }".into(),
                ]
            }
            2 => {
                attrs.push("#[serde(tag = \"kind\")]".into());
                variants = vec![
                    "A { x: i32 }".into(),
                    "B { y: String, z: Option<bool> }".into(),
                ];
            }
            3 => {
                attrs.push("#[serde(tag = \"t\", content = \"c\")]".into());
                variants = vec!["A(i32)".into(), "B { y: String }".into()];
            }
            4 => {
                attrs.push("#[serde(untagged)]".into());
                let int = self
                    .rng
                    .pick(&["u16", "i32", "std::num::NonZeroU16", "i64"]);
                variants = vec![format!("Number({int})"), "Name(String)".into()];
            }
            _ => {
                attrs.push("#[serde(untagged)]".into());
                variants = vec![
                    "V4(std::net::Ipv4Addr)".into(),
                    "V6(std::net::Ipv6Addr)".into(),
                ];
                kind = Kind::Str;
            }
        }
        self.items.push(Item {
            name: name.clone(),
            custom_resource: false,
            attrs,
            cel_attrs: Vec::new(),
            derive_default: false,
            body: Body::Enum(variants),
        });
        Ty {
            rust: name,
            kind,
            default: false,
            option: false,
            optional: false,
            flattenable: false,
            has_enum: true,
            scalar: None,
        }
    }
}

/// `kind` for a list or map of `inner`, or no rule at all where the items are "anything"
/// (`serde_json::Value`): the apiserver gives such a node no CEL type a rule can use.
fn typed(inner: &Ty, kind: Kind) -> Kind {
    if inner.rust.contains("serde_json::Value") {
        Kind::Other
    } else {
        kind
    }
}

/// A rule that holds for every value of the kind and type-checks only on that kind.
fn expr(kind: Kind, at: &str) -> String {
    match kind {
        Kind::Int => format!("{at} + 0 == {at}"),
        Kind::Num => format!("{at} + 0.0 == {at}"),
        Kind::Bool => format!("{at} || !{at}"),
        Kind::Str => format!("{at}.size() >= 0"),
        Kind::List | Kind::Map => format!("{at}.size() >= 0"),
        Kind::Other => "true".to_owned(),
    }
}
