//! The model of a rule's node as predicted from the source, so that the rule can be
//! type-checked natively here instead of in const evaluation (which costs several milliseconds
//! per rule).
//!
//! A prediction is only a guess: a field type is recognised by its name (`String`, `Vec<_>`,
//! a type derived earlier in this crate), and a name can mean something else. So the emitted
//! const item compares the fingerprint of the real `MODEL` with the prediction's
//! (`crd_cel_core::fingerprint`) and runs the const checker when they differ: a wrong guess
//! costs build time, never a verdict. What the derive cannot predict (bounds given by a path,
//! other crates' types, flattened fields) is a placeholder, and a rule that reads one is left
//! to the const checker.
//!
//! The model itself is [`crate::model`]'s IR, which `emit` writes as tokens and [`container`]
//! evaluates here with the same `const fn`s (`with_length`, `Decoration::apply`, ...).

use crate::ast::{Container, Data};
use crate::attr::SchemaAttrs;
use crate::intern;
use crate::model::{Base, Model, Node, Required, Slot, Step};
use crd_cel_core::model::{CelSchema, Decoration, ListType, Property, Schema, Type};
use std::cell::RefCell;
use std::collections::HashMap;

/// A predicted node.
#[derive(Clone, Copy)]
pub struct Predicted {
    pub schema: &'static Schema<'static>,
    /// `<T as CelSchema>::OPTIONAL` of the type.
    pub optional: bool,
    /// No placeholder anywhere in the subtree.
    pub complete: bool,
    /// For an object node: bit `k` set when `properties[k]`'s subtree is complete.
    pub complete_props: u64,
}

/// A type's predicted model, and for a struct its fields' nodes (in order).
pub struct PredictedType {
    pub node: Predicted,
    pub fields: Vec<Predicted>,
}

const PLACEHOLDER: Predicted = Predicted {
    schema: &Schema::of(Type::Any),
    optional: false,
    complete: false,
    complete_props: 0,
};

thread_local! {
    /// Types deriving `CelValidate`, by crate and name: those derived earlier in this
    /// expansion process and those [`scan_sources`] found. A name can be reused in another
    /// module; the fingerprint catches that.
    static DERIVED: RefCell<HashMap<(String, String), Predicted>> = RefCell::default();
    /// Source files [`scan_sources`] has read, with their modification time then: a
    /// long-lived proc-macro server (rust-analyzer's) reads a file again once it changed.
    static SCANNED: RefCell<HashMap<std::path::PathBuf, Option<std::time::SystemTime>>> =
        RefCell::default();
}

/// The crate being expanded (one process may expand several).
fn crate_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()
}

fn derived(name: &str) -> Option<Predicted> {
    DERIVED.with(|d| d.borrow().get(&(crate_dir(), name.to_owned())).copied())
}

/// Predicts every type deriving `CelValidate` in the crate's `src/` and in the source file of
/// the current expansion, each file once: types are often defined below or in another module
/// than the type that uses them (`Spec` first, its parts after), and their derives have not run
/// yet. Best effort: a file that cannot be read or parsed leaves its types to their derives
/// (predictions are verified, so a stale or misread file costs build time, never a verdict).
pub fn scan_sources() {
    let mut files = Vec::new();
    if let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") {
        rust_files(&std::path::Path::new(&dir).join("src"), 0, &mut files);
    }
    files.extend(proc_macro::Span::call_site().local_file());
    let mut inputs = Vec::new();
    for path in files {
        let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        if SCANNED.with(|s| s.borrow_mut().insert(path.clone(), mtime)) == Some(mtime) {
            continue;
        }
        // Only files that mention the derive are parsed.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if text.len() > MAX_SCANNED_FILE || !text.contains("CelValidate") {
            continue;
        }
        if let Ok(file) = syn::parse_file(&text) {
            collect(&file.items, &mut inputs);
        }
    }
    // Again while predictions improve: a type is complete once the types it names are.
    for _ in 0..4 {
        let mut improved = false;
        for input in &inputs {
            let cx = crate::ctxt::Ctxt::new();
            let cont = Container::from_ast(&cx, input);
            let name = input.ident.to_string();
            let before = derived(&name).map(|p| p.complete_props);
            // A type with bad attributes is left to its own derive to report.
            if let (Some(cont), Ok(())) = (cont, cx.check())
                && let Some(p) = container(&cont, &crate::model::build(&cont))
            {
                improved |= before != Some(p.node.complete_props);
            }
        }
        if !improved {
            break;
        }
    }
}

/// Larger source files are not read for predictions (generated code, mostly).
const MAX_SCANNED_FILE: usize = 1 << 20;

/// The `.rs` files under `dir`, a few levels and a few hundred files deep at most.
fn rust_files(dir: &std::path::Path, depth: u32, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= 512 {
            return;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth < 8 => rust_files(&path, depth + 1, out),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => out.push(path),
            _ => {}
        }
    }
}

/// The structs and enums of `items` (and of inline modules) that derive `CelValidate`.
fn collect(items: &[syn::Item], out: &mut Vec<syn::DeriveInput>) {
    let derives = |attrs: &[syn::Attribute]| {
        attrs.iter().any(|a| {
            a.path().is_ident("derive")
                && a.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == "CelValidate"))
                })
        })
    };
    for item in items {
        match item {
            syn::Item::Struct(s) if derives(&s.attrs) => out.push(s.clone().into()),
            syn::Item::Enum(e) if derives(&e.attrs) => out.push(e.clone().into()),
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect(items, out);
                }
            }
            _ => {}
        }
    }
}

fn known(schema: &'static Schema<'static>) -> Predicted {
    Predicted {
        schema,
        optional: false,
        complete: true,
        complete_props: u64::MAX,
    }
}

/// The model of a field type, by its name.
fn of_type(ty: &syn::Type) -> Predicted {
    let path = match ty {
        syn::Type::Path(p) if p.qself.is_none() => &p.path,
        syn::Type::Group(g) => return of_type(&g.elem),
        syn::Type::Paren(p) => return of_type(&p.elem),
        _ => return PLACEHOLDER,
    };
    let Some(last) = path.segments.last() else {
        return PLACEHOLDER;
    };
    let args: Vec<&syn::Type> = match &last.arguments {
        syn::PathArguments::None => Vec::new(),
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|a| match a {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        syn::PathArguments::Parenthesized(_) => return PLACEHOLDER,
    };
    let name = last.ident.to_string();
    match (name.as_str(), args.as_slice()) {
        ("Option", [t]) => {
            let inner = of_type(t);
            Predicted {
                schema: intern::schema(inner.schema.optional()),
                optional: true,
                ..inner
            }
        }
        ("Box" | "Rc" | "Arc", [t]) => of_type(t),
        ("Vec" | "VecDeque", [t]) => list(of_type(t), None),
        ("BTreeSet" | "HashSet", [t, ..]) => list(of_type(t), None),
        ("BTreeMap" | "HashMap", [k, v, ..]) if is_string(k) => {
            let values = of_type(v);
            Predicted {
                schema: intern::schema(Schema {
                    additional_properties: Some(values.schema),
                    ..Schema::of(Type::Object)
                }),
                optional: false,
                complete: values.complete,
                complete_props: u64::MAX,
            }
        }
        // A type of the crate first (a crate may derive a `Condition` of its own), by a bare
        // name only; then the std and k8s-openapi names.
        (_, []) => (path.segments.len() == 1)
            .then(|| derived(&name))
            .flatten()
            .or_else(|| scalar(&name).map(known))
            .unwrap_or(PLACEHOLDER),
        _ => PLACEHOLDER,
    }
}

fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_none()))
}

fn list(items: Predicted, list_type: Option<ListType>) -> Predicted {
    Predicted {
        schema: intern::schema(Schema {
            items: Some(items.schema),
            list_type,
            ..Schema::of(Type::Array)
        }),
        optional: false,
        complete: items.complete,
        complete_props: u64::MAX,
    }
}

/// The models of std scalar types and of the k8s-openapi types CRDs embed most: the very
/// constants their `CelSchema` impls hold.
fn scalar(name: &str) -> Option<&'static Schema<'static>> {
    macro_rules! table {
        ($($ty:ty),*) => {
            match name {
                $(stringify!($ty) => Some(&<$ty as CelSchema>::MODEL),)*
                _ => None,
            }
        };
    }
    use crd_cel_core::model::k8s;
    match name {
        "Quantity" | "IntOrString" => Some(&k8s::INT_OR_STRING),
        "Time" | "MicroTime" => Some(&k8s::DATE_TIME),
        "Condition" => Some(&k8s::CONDITION),
        "LabelSelector" => Some(&k8s::LABEL_SELECTOR),
        "LabelSelectorRequirement" => Some(&k8s::LABEL_SELECTOR_REQUIREMENT),
        "NonZeroU8" => Some(&<std::num::NonZeroU8 as CelSchema>::MODEL),
        "NonZeroU16" => Some(&<std::num::NonZeroU16 as CelSchema>::MODEL),
        "NonZeroU32" => Some(&<std::num::NonZeroU32 as CelSchema>::MODEL),
        "NonZeroU64" => Some(&<std::num::NonZeroU64 as CelSchema>::MODEL),
        "NonZeroUsize" => Some(&<std::num::NonZeroUsize as CelSchema>::MODEL),
        "PathBuf" => Some(&<std::path::PathBuf as CelSchema>::MODEL),
        "SocketAddr" => Some(&<std::net::SocketAddr as CelSchema>::MODEL),
        _ => table!(
            bool, String, f32, f64, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, u128, i128,
            char
        )
        // Every other k8s-openapi type by its name (the newest version's model), when only one
        // API group has a type of that name.
        .or_else(|| k8s::by_name(name)),
    }
}

/// A literal integer bound (`64`, `64u32`), as `emit`'s `(#e) as u64` would give it.
fn lit_u64(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// A literal number bound (`-1`, `0.5`), as `(#e) as f64` would give it.
fn lit_f64(e: &syn::Expr) -> Option<f64> {
    match e {
        syn::Expr::Lit(syn::ExprLit { lit, .. }) => match lit {
            syn::Lit::Int(i) => i.base10_parse::<i128>().ok().map(|v| v as f64),
            syn::Lit::Float(f) => f.base10_parse().ok(),
            _ => None,
        },
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => lit_f64(expr).map(|v| -v),
        syn::Expr::Paren(p) => lit_f64(&p.expr),
        _ => None,
    }
}

/// Both bounds, when each is absent or a literal.
fn bounds<T>(
    b: &crate::attr::Bounds,
    lit: fn(&syn::Expr) -> Option<T>,
) -> Option<(Option<T>, Option<T>)> {
    let one = |e: &Option<syn::Expr>| match e {
        Some(e) => lit(e).map(Some),
        None => Some(None),
    };
    Some((one(&b.min)?, one(&b.max)?))
}

/// The decoration's constant, natively (the rules left out: nothing predicted reads them).
fn decoration(s: &SchemaAttrs) -> Decoration<'static> {
    let keys: Vec<&String> = s
        .list_map_keys
        .iter()
        .flat_map(|k| k.value.iter())
        .collect();
    Decoration {
        rules: &[],
        list_type: s.list_type.as_ref().map(|l| l.value),
        list_map_keys: intern::strs(&keys),
        map_type: s.map_type.as_ref().map(|l| l.value),
        max_items: s.max_items.as_ref().map(|v| v.value),
        min_items: s.min_items.as_ref().map(|v| v.value),
        max_properties: s.max_properties.as_ref().map(|v| v.value),
        min_properties: s.min_properties.as_ref().map(|v| v.value),
        replace_rules: s.replace_rules,
    }
}

/// Whether the property is required, natively.
fn required(r: &Required) -> bool {
    match r {
        Required::Always(b) => *b,
        Required::Field {
            forced,
            serde_default,
            ty,
            schema_with,
        } => !*serde_default && (*forced || *schema_with || !of_type(ty).optional),
        Required::All(each) => each.iter().all(required),
    }
}

/// A node of the model IR evaluated natively, as `emit` writes it; `None` when it cannot be
/// predicted (a bound that is not a literal, a schema made by a function, flattened nodes).
/// `items` is the enclosing base's items (for [`Base::Items`]); `props` receives the
/// prediction of each of the node's own properties.
fn eval(
    node: &Node,
    items: Option<&'static Schema<'static>>,
    props: &mut Vec<Predicted>,
) -> Option<Predicted> {
    // Another type's properties, merged in: the checker reads through them.
    if node
        .slots
        .iter()
        .any(|s| matches!(s, Slot::Flatten(f) if !f.is_empty()))
    {
        return None;
    }
    let base = match node.base {
        Base::Type(ty) => of_type(ty),
        Base::Unmodeled(_) | Base::Unknown => return None,
        Base::Of(ty) => known(intern::schema(Schema::of(ty))),
        Base::IntOrString => known(&crd_cel_core::model::k8s::INT_OR_STRING),
        Base::Preserved => known(intern::schema(Schema {
            preserve_unknown_fields: true,
            ..Schema::of(Type::Any)
        })),
        Base::Items => known(items?),
    };
    let mut s = *base.schema;
    for step in &node.steps {
        s = match step {
            Step::Length(b) => {
                let (min, max) = bounds(b, lit_u64)?;
                s.with_length(min, max)
            }
            Step::Range(b) => {
                let (min, max) = bounds(b, lit_f64)?;
                s.with_range(min, max)
            }
            Step::Pattern(pattern) => s.with_pattern(intern::str(&pattern.value())),
            Step::Format(f) => s.with_format(f),
            Step::NotNullable(ty) => s.required_nullable(of_type(ty).optional),
            Step::ForProperty(r) => s.for_property(required(r)),
            Step::WithoutRules => s.without_rules(),
            Step::Decorate(d) => decoration(d.attrs).apply(s),
        };
    }
    let mut out = base;
    for slot in &node.slots {
        match slot {
            Slot::Items(inner) => {
                if let Some(items) = base.schema.items {
                    let items = eval(inner, Some(items), &mut Vec::new())?;
                    s.items = Some(items.schema);
                    out.complete &= items.complete;
                }
            }
            Slot::HasDefault => s.has_default = true,
            Slot::EnumValues(values) => s.enum_values = intern::strs(values),
            Slot::Properties(list) => {
                let mut properties = Vec::new();
                (out.complete, out.complete_props) = (true, 0);
                for (k, p) in list.iter().enumerate() {
                    let node = eval(&p.node, None, &mut Vec::new()).unwrap_or(PLACEHOLDER);
                    out.complete &= node.complete;
                    if node.complete && k < 64 {
                        out.complete_props |= 1 << k;
                    }
                    let required = required(&p.required);
                    properties.push(Property {
                        name: intern::str(&p.name),
                        required,
                        schema: intern::schema(node.schema.for_property(required)),
                    });
                    props.push(node);
                }
                s.properties = intern::properties(properties);
                s.properties_fingerprint = None;
            }
            // Empty (see above).
            Slot::Flatten(_) => {}
            // Rules are left out of predictions (and of fingerprints): nothing predicted reads them.
            Slot::Validations { .. } => {}
        }
    }
    out.schema = intern::schema(s);
    Some(out)
}

/// The container's `MODEL`, evaluated natively, remembered for types derived later. `None` for
/// generic types and what is not predicted.
pub fn container(cont: &Container, model: &Model) -> Option<PredictedType> {
    // A generic type's model depends on its parameters; a data enum's is not predicted (its
    // rules go to the const checker).
    if !cont.original.generics.params.is_empty() || matches!(cont.data, Data::Enum(_)) {
        return None;
    }
    let mut fields = Vec::new();
    let node = Predicted {
        optional: false,
        ..eval(&model.node, None, &mut fields)?
    };
    DERIVED.with(|d| {
        d.borrow_mut()
            .insert((crate_dir(), cont.ident.to_string()), node)
    });
    Some(PredictedType { node, fields })
}
