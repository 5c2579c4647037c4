//! Merges the per-version dumps into Rust source: one `Schema` constant per type and distinct
//! model, the `CelSchema` impls gated per Kubernetes version, and the comparison test.
//!
//! What a model holds is read from the inlined schema exactly as `crd_cel::schema::compare`
//! reads it (the keys a `Schema` has; descriptions, `oneOf`, `$ref`s and the like are not part
//! of a model). Where the schema with `$ref`s says a node is another k8s-openapi type and that
//! node reads exactly as that type's own schema, the constant of that type is named instead of
//! repeating it.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A schema node as far as a model holds it.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    ty: Option<String>,
    format: Option<String>,
    nullable: bool,
    has_default: bool,
    enum_values: Vec<String>,
    max_length: Option<u64>,
    min_length: Option<u64>,
    max_items: Option<u64>,
    min_items: Option<u64>,
    max_properties: Option<u64>,
    min_properties: Option<u64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    pattern: Option<String>,
    properties: Vec<(String, bool, Child)>,
    items: Option<Box<Child>>,
    additional_properties: Option<Box<Child>>,
    list_type: Option<String>,
    list_map_keys: Vec<String>,
    map_type: Option<String>,
    int_or_string: bool,
    preserve_unknown_fields: bool,
    embedded_resource: bool,
    validations: Vec<RuleNode>,
}

#[derive(Debug, Clone, PartialEq)]
struct RuleNode {
    rule: String,
    message: Option<String>,
    message_expression: Option<String>,
    field_path: Option<String>,
    reason: Option<String>,
    optional_old_self: Option<bool>,
}

/// A node below another: written out, or the model of a k8s-openapi type (by its path).
#[derive(Debug, Clone, PartialEq)]
enum Child {
    Inline(Box<Node>),
    Ref(String),
}

fn s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

fn b(v: &Value, k: &str) -> bool {
    v.get(k).and_then(Value::as_bool).unwrap_or(false)
}

fn u(v: &Value, k: &str) -> Option<u64> {
    v.get(k)
        .map(|x| x.as_u64().expect("a non-negative integer"))
}

/// The scalar slots of a node and its children, each child made by `child(inline, key)` where
/// key is `properties/NAME`, `items` or `additionalProperties`.
fn read(v: &Value, child: &mut dyn FnMut(&Value, &str) -> Child) -> Node {
    if v == &Value::Bool(true) {
        return read(&Value::Object(Default::default()), child);
    }
    assert!(v.is_object(), "a schema is an object: {v}");
    if let Some(t) = v.get("type") {
        assert!(t.is_string(), "a single type: {t}");
    }
    let required: Vec<&str> = v
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_str().unwrap()).collect())
        .unwrap_or_default();
    let mut properties = Vec::new();
    if let Some(props) = v.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            let c = child(p, &format!("properties/{name}"));
            properties.push((name.clone(), required.contains(&name.as_str()), c));
        }
    }
    properties.sort_by(|a, b| a.0.cmp(&b.0));
    let items = v
        .get("items")
        .filter(|i| i.is_object())
        .map(|i| Box::new(child(i, "items")));
    let additional_properties = v
        .get("additionalProperties")
        .filter(|i| i.is_object())
        .map(|i| Box::new(child(i, "additionalProperties")));
    let validations = v
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .map(|rules| {
            rules
                .iter()
                .map(|r| RuleNode {
                    rule: s(r, "rule").unwrap_or_default(),
                    message: s(r, "message"),
                    message_expression: s(r, "messageExpression"),
                    field_path: s(r, "fieldPath"),
                    reason: s(r, "reason"),
                    optional_old_self: r.get("optionalOldSelf").and_then(Value::as_bool),
                })
                .collect()
        })
        .unwrap_or_default();
    // Where schemars cut a cycle the node is a bare `$ref`: its schema is only known when
    // generated (`Type::Unknown`), spelled here as a type no schema has.
    let ty = if v.get("$ref").is_some() {
        Some(UNKNOWN.to_owned())
    } else {
        s(v, "type")
    };
    Node {
        ty,
        format: s(v, "format"),
        nullable: b(v, "nullable"),
        has_default: v.get("default").is_some(),
        enum_values: v
            .get("enum")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|x| serde_json::to_string(x).unwrap())
                    .collect()
            })
            .unwrap_or_default(),
        max_length: u(v, "maxLength"),
        min_length: u(v, "minLength"),
        max_items: u(v, "maxItems"),
        min_items: u(v, "minItems"),
        max_properties: u(v, "maxProperties"),
        min_properties: u(v, "minProperties"),
        minimum: v.get("minimum").and_then(Value::as_f64),
        maximum: v.get("maximum").and_then(Value::as_f64),
        pattern: s(v, "pattern"),
        properties,
        items,
        additional_properties,
        list_type: s(v, "x-kubernetes-list-type"),
        list_map_keys: v
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default(),
        map_type: s(v, "x-kubernetes-map-type"),
        int_or_string: b(v, "x-kubernetes-int-or-string"),
        preserve_unknown_fields: b(v, "x-kubernetes-preserve-unknown-fields"),
        embedded_resource: b(v, "x-kubernetes-embedded-resource"),
        validations,
    }
}

/// The `type` of a cut `$ref` node.
const UNKNOWN: &str = "<unknown>";

/// The whole model of an inlined schema, children written out.
fn content(v: &Value) -> Node {
    read(v, &mut |c, _| Child::Inline(Box::new(content(c))))
}

/// The k8s-openapi schema name a node of the schema with `$ref`s stands for, if it is one
/// (`{"$ref": ...}`, or `{"allOf": [{"$ref": ...}], "description": ...}`).
fn ref_target(refs: &Value) -> Option<&str> {
    let r = refs.get("$ref").or_else(|| {
        let all = refs.get("allOf")?.as_array()?;
        if all.len() == 1 {
            all[0].get("$ref")
        } else {
            None
        }
    })?;
    r.as_str()?.strip_prefix("#/components/schemas/")
}

/// One Kubernetes version's types.
struct Version {
    minor: u32,
    /// Path (`api::core::v1::PodSpec`) to its model, children that are other types as refs.
    types: BTreeMap<String, Node>,
    generic: BTreeSet<String>,
}

struct Dump<'a> {
    roots: HashMap<&'a str, Node>,
    by_name: HashMap<&'a str, &'a str>,
}

/// The model of `inline` with children that read exactly as a type's own schema referring to it.
/// `refs` is the same node in the schema with `$ref`s, `defs` that schema's definitions.
fn structure(inline: &Value, refs: &Value, defs: &Value, root: &Value, dump: &Dump<'_>) -> Node {
    read(inline, &mut |c, key| {
        let r = match key.split_once('/') {
            Some((_, name)) => refs.get("properties").and_then(|p| p.get(name)),
            None => refs.get(key),
        }
        .unwrap_or(&Value::Null);
        let target = ref_target(r);
        let mut below = r;
        if let Some(name) = target {
            if let Some(path) = dump.by_name.get(name)
                && content(c) == dump.roots[path]
            {
                return Child::Ref((*path).to_owned());
            }
            below = defs.get(name).unwrap_or(&Value::Null);
        } else if r.get("$ref").and_then(Value::as_str) == Some("#") {
            below = root;
        }
        Child::Inline(Box::new(structure(c, below, defs, root, dump)))
    })
}

fn load(file: &Path) -> Version {
    let text = std::fs::read_to_string(file).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    drop(text);
    let minor = v["minor"].as_u64().unwrap() as u32;
    let entries = v["types"].as_array().unwrap();
    let mut dump = Dump {
        roots: HashMap::new(),
        by_name: HashMap::new(),
    };
    let mut generic = BTreeSet::new();
    for e in entries {
        let path = e["path"].as_str().unwrap();
        let name = e["schemaName"].as_str().unwrap();
        assert!(
            dump.by_name.insert(name, path).is_none(),
            "1.{minor}: two types named {name}"
        );
        dump.roots.insert(path, content(&e["inline"]));
        if e["generic"].as_bool().unwrap() {
            generic.insert(path.to_owned());
        }
    }
    let mut types = BTreeMap::new();
    for e in entries {
        let path = e["path"].as_str().unwrap();
        let refs = &e["refs"];
        let defs = refs.pointer("/components/schemas").unwrap_or(&Value::Null);
        let node = structure(&e["inline"], refs, defs, refs, &dump);
        types.insert(path.to_owned(), node);
    }
    Version {
        minor,
        types,
        generic,
    }
}

/// Leaf nodes common enough to have a name of their own (in the generated `common.rs`).
fn leaves() -> Vec<(&'static str, &'static str, Node)> {
    let j = |t: &str| content(&serde_json::from_str(t).unwrap());
    vec![
        ("STRING", "`type: string`.", j(r#"{"type":"string"}"#)),
        ("BOOLEAN", "`type: boolean`.", j(r#"{"type":"boolean"}"#)),
        (
            "INT32",
            "`type: integer, format: int32`.",
            j(r#"{"type":"integer","format":"int32"}"#),
        ),
        (
            "INT64",
            "`type: integer, format: int64`.",
            j(r#"{"type":"integer","format":"int64"}"#),
        ),
        (
            "DOUBLE",
            "`type: number, format: double`.",
            j(r#"{"type":"number","format":"double"}"#),
        ),
        (
            "DATE_TIME",
            "`type: string, format: date-time`.",
            j(r#"{"type":"string","format":"date-time"}"#),
        ),
        (
            "BYTE",
            "`type: string, format: byte`.",
            j(r#"{"type":"string","format":"byte"}"#),
        ),
        (
            "STRING_LIST",
            "A list of strings.",
            j(r#"{"type":"array","items":{"type":"string"}}"#),
        ),
        (
            "STRING_MAP",
            "A map of strings.",
            j(r#"{"type":"object","additionalProperties":{"type":"string"}}"#),
        ),
        (
            "INT_OR_STRING",
            "`x-kubernetes-int-or-string: true`.",
            j(r#"{"x-kubernetes-int-or-string":true}"#),
        ),
        (
            "NULLABLE_INT_OR_STRING",
            "`x-kubernetes-int-or-string: true` and `nullable: true`.",
            j(r#"{"x-kubernetes-int-or-string":true,"nullable":true}"#),
        ),
        (
            "ANY",
            "No type: any value (a `oneOf` node, which a model does not hold, reads as this).",
            j(r#"{}"#),
        ),
        (
            "UNKNOWN",
            "Where schemars cuts a recursive type with a `$ref`: known only when generated.",
            j(r##"{"$ref":"#"}"##),
        ),
    ]
}

/// What a generated file names from outside itself.
#[derive(Default)]
struct Uses {
    items: BTreeSet<String>,
}

struct Emitter<'a> {
    leaves: &'a [(&'static str, &'static str, Node)],
}

impl Emitter<'_> {
    /// The Rust expression of a `Schema` node; `refs` renders a reference to a type's model.
    fn node(&self, n: &Node, refs: &mut dyn FnMut(&str) -> String, uses: &mut Uses) -> String {
        self.node_in(n, None, refs, uses)
    }

    /// [`Self::node`]; for a named model (`top`: its constant's name, and where to write the
    /// items it needs beside it), the properties are a `static` and their fingerprint another
    /// (`Schema::properties_fingerprint`), both evaluated once when crd-cel-core is compiled:
    /// const evaluation in a crate using the model reads them, and neither evaluates nor
    /// validates the subtree again.
    fn node_in(
        &self,
        n: &Node,
        top: Option<(&str, &mut String)>,
        refs: &mut dyn FnMut(&str) -> String,
        uses: &mut Uses,
    ) -> String {
        let mut o = String::from("Schema {");
        uses.items.insert("Schema".into());
        uses.items.insert("Type".into());
        let q = |x: &str| format!("{x:?}");
        if let Some(f) = &n.format {
            write!(o, "format: Some({}),", q(f)).unwrap();
        }
        if n.nullable {
            o.push_str("nullable: true,");
        }
        if n.has_default {
            o.push_str("has_default: true,");
        }
        if !n.enum_values.is_empty() {
            let vals: Vec<String> = n.enum_values.iter().map(|v| q(v)).collect();
            write!(o, "enum_values: &[{}],", vals.join(",")).unwrap();
        }
        for (k, v) in [
            ("max_length", n.max_length),
            ("min_length", n.min_length),
            ("max_items", n.max_items),
            ("min_items", n.min_items),
            ("max_properties", n.max_properties),
            ("min_properties", n.min_properties),
        ] {
            if let Some(v) = v {
                write!(o, "{k}: Some({v}),").unwrap();
            }
        }
        for (k, v) in [("minimum", n.minimum), ("maximum", n.maximum)] {
            if let Some(v) = v {
                write!(o, "{k}: Some({v:?}),").unwrap();
            }
        }
        if let Some(p) = &n.pattern {
            write!(o, "pattern: Some({}),", q(p)).unwrap();
        }
        if !n.properties.is_empty() {
            uses.items.insert("prop".into());
            let mut list = String::new();
            for (name, required, c) in &n.properties {
                let c = self.child(c, refs, uses);
                write!(list, "prop({}, {required}, &{c}),", q(name)).unwrap();
            }
            match top {
                Some((name, statics)) => {
                    uses.items.insert("Property".into());
                    write!(
                        o,
                        "properties: &{name}_PROPERTIES, properties_fingerprint: Some(&{name}_PROPERTIES_FINGERPRINT),"
                    )
                    .unwrap();
                    write!(
                        statics,
                        "static {name}_PROPERTIES: [Property<'static>; {}] = [{list}];\nstatic {name}_PROPERTIES_FINGERPRINT: u64 = crate::model::fingerprint::of_properties(&{name}_PROPERTIES);\n",
                        n.properties.len()
                    )
                    .unwrap();
                }
                None => write!(o, "properties: &[{list}],").unwrap(),
            }
        }
        if let Some(c) = &n.items {
            write!(o, "items: Some(&{}),", self.child(c, refs, uses)).unwrap();
        }
        if let Some(c) = &n.additional_properties {
            write!(
                o,
                "additional_properties: Some(&{}),",
                self.child(c, refs, uses)
            )
            .unwrap();
        }
        if let Some(l) = &n.list_type {
            uses.items.insert("ListType".into());
            let v = match l.as_str() {
                "atomic" => "Atomic",
                "set" => "Set",
                "map" => "Map",
                other => panic!("list type {other}"),
            };
            write!(o, "list_type: Some(ListType::{v}),").unwrap();
        }
        if !n.list_map_keys.is_empty() {
            let keys: Vec<String> = n.list_map_keys.iter().map(|k| q(k)).collect();
            write!(o, "list_map_keys: &[{}],", keys.join(",")).unwrap();
        }
        if let Some(m) = &n.map_type {
            uses.items.insert("MapType".into());
            let v = match m.as_str() {
                "atomic" => "Atomic",
                "granular" => "Granular",
                other => panic!("map type {other}"),
            };
            write!(o, "map_type: Some(MapType::{v}),").unwrap();
        }
        for (k, v) in [
            ("int_or_string", n.int_or_string),
            ("preserve_unknown_fields", n.preserve_unknown_fields),
            ("embedded_resource", n.embedded_resource),
        ] {
            if v {
                write!(o, "{k}: true,").unwrap();
            }
        }
        if !n.validations.is_empty() {
            uses.items.insert("Rules".into());
            uses.items.insert("Rule".into());
            o.push_str("validations: Rules::new(&[");
            for r in &n.validations {
                let opt = |x: &Option<String>| match x {
                    Some(x) => format!("Some({})", q(x)),
                    None => "None".into(),
                };
                let reason = match &r.reason {
                    Some(x) => {
                        uses.items.insert("Reason".into());
                        format!("Some(Reason::{x})")
                    }
                    None => "None".into(),
                };
                write!(
                    o,
                    "Rule {{ rule: {}, message: {}, message_expression: {}, field_path: {}, reason: {reason}, optional_old_self: {:?} }},",
                    q(&r.rule),
                    opt(&r.message),
                    opt(&r.message_expression),
                    opt(&r.field_path),
                    r.optional_old_self
                )
                .unwrap();
            }
            o.push_str("]),");
        }
        let ty = match n.ty.as_deref() {
            None => "Any",
            Some("boolean") => "Boolean",
            Some("integer") => "Integer",
            Some("number") => "Number",
            Some("string") => "String",
            Some("array") => "Array",
            Some("object") => "Object",
            Some(UNKNOWN) => "Unknown",
            Some(other) => panic!("type {other}"),
        };
        write!(o, "..Schema::of(Type::{ty})}}").unwrap();
        o
    }

    fn child(&self, c: &Child, refs: &mut dyn FnMut(&str) -> String, uses: &mut Uses) -> String {
        match c {
            Child::Ref(path) => refs(path),
            Child::Inline(n) => {
                if let Some((name, ..)) = self.leaves.iter().find(|(_, _, l)| l == n.as_ref()) {
                    uses.items.insert((*name).to_owned());
                    (*name).to_owned()
                } else {
                    self.node(n, refs, uses)
                }
            }
        }
    }
}

/// `PodSpec` -> `POD_SPEC`, `JSONSchemaProps` -> `JSON_SCHEMA_PROPS`.
fn const_name(ty: &str) -> String {
    let c: Vec<char> = ty.chars().collect();
    let mut o = String::new();
    for (i, &ch) in c.iter().enumerate() {
        if i > 0 && ch.is_uppercase() {
            let prev = c[i - 1];
            let next_lower = c.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                o.push('_');
            }
        }
        o.push(ch.to_ascii_uppercase());
    }
    o
}

fn split_path(path: &str) -> (&str, &str) {
    path.rsplit_once("::").unwrap_or(("", path))
}

/// `1.33`, `1.33 to 1.35`, `1.33, 1.35`.
fn versions_text(vs: &[u32]) -> String {
    if vs.len() > 1 && vs.windows(2).all(|w| w[1] == w[0] + 1) {
        format!("1.{} to 1.{}", vs[0], vs[vs.len() - 1])
    } else {
        vs.iter()
            .map(|v| format!("1.{v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The macro calls (outermost first) that expand their contents only for versions `vs` of `all`,
/// or `None` when `vs` is one contiguous range; then one call per version.
fn gates(vs: &[u32], all: &[u32]) -> Vec<Vec<String>> {
    if vs == all {
        return vec![vec![]];
    }
    let (min, max) = (all[0], all[all.len() - 1]);
    if vs.windows(2).all(|w| w[1] == w[0] + 1) {
        let (a, z) = (vs[0], vs[vs.len() - 1]);
        if a == z {
            return vec![vec![format!("k8s_openapi::k8s_if_1_{a}!")]];
        }
        let mut g = Vec::new();
        if a > min {
            g.push(format!("k8s_openapi::k8s_if_ge_1_{a}!"));
        }
        if z < max {
            g.push(format!("k8s_openapi::k8s_if_le_1_{z}!"));
        }
        return vec![g];
    }
    vs.iter()
        .map(|v| vec![format!("k8s_openapi::k8s_if_1_{v}!")])
        .collect()
}

/// `body` once per gate of `gates`.
fn gated(gates: &[Vec<String>], body: &str) -> String {
    let mut o = String::new();
    for g in gates {
        let mut s = body.to_owned();
        for m in g.iter().rev() {
            s = format!("{m} {{ {s} }}\n");
        }
        o.push_str(&s);
    }
    o
}

/// One constant: a type's model shared by some versions.
struct Variant {
    name: String,
    versions: Vec<u32>,
    node: Node,
    /// The version whose references name this variant's children.
    rep: u32,
}

pub fn run(dump_dir: &str, core_dir: &str, test_file: &str) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dump_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let versions: Vec<Version> = files.iter().map(|f| load(f)).collect();
    let all: Vec<u32> = versions.iter().map(|v| v.minor).collect();
    eprintln!("versions: {all:?}");
    let leaves = leaves();
    let em = Emitter { leaves: &leaves };

    // The key of (type, version): its rendering with references keyed by the referenced
    // type's key, so that equal keys mean equal models all the way down.
    let mut keys: HashMap<(String, u32), String> = HashMap::new();
    fn key(
        path: &str,
        vi: usize,
        versions: &[Version],
        em: &Emitter<'_>,
        keys: &mut HashMap<(String, u32), String>,
    ) -> String {
        let minor = versions[vi].minor;
        if let Some(k) = keys.get(&(path.to_owned(), minor)) {
            return k.clone();
        }
        let node = &versions[vi].types[path];
        let mut sub = Vec::new();
        let text = em.node(
            node,
            &mut |p| {
                sub.push(p.to_owned());
                format!("<{p}#{}>", sub.len() - 1)
            },
            &mut Uses::default(),
        );
        let mut text = text;
        for (i, p) in sub.iter().enumerate() {
            let k = key(p, vi, versions, em, keys);
            let h = {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                k.hash(&mut h);
                h.finish()
            };
            text = text.replace(&format!("<{p}#{i}>"), &format!("<{p}@{h:016x}>"));
        }
        keys.insert((path.to_owned(), minor), text.clone());
        text
    }

    // Every type path, with its variants.
    let mut paths: BTreeSet<String> = BTreeSet::new();
    for v in &versions {
        paths.extend(v.types.keys().cloned());
    }
    let mut variants: BTreeMap<String, Vec<Variant>> = BTreeMap::new();
    // (path, version) -> constant name
    let mut names: HashMap<(String, u32), String> = HashMap::new();
    for path in &paths {
        let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
        for (vi, v) in versions.iter().enumerate() {
            if !v.types.contains_key(path) {
                continue;
            }
            let k = key(path, vi, &versions, &em, &mut keys);
            match groups.iter_mut().find(|(gk, _)| *gk == k) {
                Some((_, vs)) => vs.push(v.minor),
                None => groups.push((k, vec![v.minor])),
            }
        }
        let (_, ty) = split_path(path);
        let base = const_name(ty);
        let last = *groups.iter().flat_map(|(_, vs)| vs.iter()).max().unwrap();
        let mut vs_out = Vec::new();
        for (_, vs) in groups {
            let name = if vs.contains(&last) {
                base.clone()
            } else if vs.len() > 1 && vs.windows(2).all(|w| w[1] == w[0] + 1) {
                format!("{base}_1_{}_TO_1_{}", vs[0], vs[vs.len() - 1])
            } else {
                let parts: Vec<String> = vs.iter().map(|v| format!("1_{v}")).collect();
                format!("{base}_{}", parts.join("_"))
            };
            for m in &vs {
                names.insert((path.clone(), *m), name.clone());
            }
            let rep = *vs.last().unwrap();
            let node = versions.iter().find(|v| v.minor == rep).unwrap().types[path].clone();
            vs_out.push(Variant {
                name,
                versions: vs,
                node,
                rep,
            });
        }
        vs_out.sort_by_key(|v| std::cmp::Reverse(v.rep));
        variants.insert(path.clone(), vs_out);
    }

    // Files: one per module.
    let mut modules: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for path in &paths {
        modules
            .entry(split_path(path).0.to_owned())
            .or_default()
            .push(path);
    }
    let core_dir = Path::new(core_dir);
    if core_dir.exists() {
        std::fs::remove_dir_all(core_dir).unwrap();
    }
    let mut written = Vec::new();
    let header = "// @generated by tests/k8s-models (`tests/k8s-models/generate.sh`) from k8s-openapi's\n// schemas under kube's CRD settings. Do not edit.\n";
    let mut constants = 0;
    let mut parents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut used_leaves: BTreeSet<String> = BTreeSet::new();
    for (module, paths) in &modules {
        let segs: Vec<&str> = module.split("::").collect();
        for i in 0..segs.len() {
            parents
                .entry(segs[..i].join("::"))
                .or_default()
                .insert(segs[i].to_owned());
        }
        let mut uses = Uses::default();
        let mut body = String::new();
        let mut impls = String::new();
        for path in paths {
            for var in &variants[*path] {
                constants += 1;
                let mut refs = |p: &str| {
                    let name = &names[&(p.to_owned(), var.rep)];
                    let (m, _) = split_path(p);
                    if m == module {
                        name.clone()
                    } else {
                        uses.items
                            .insert(format!("@{}", m.split("::").next().unwrap()));
                        format!("{m}::{name}")
                    }
                };
                let mut local = Uses::default();
                let mut statics = String::new();
                let expr = em.node_in(
                    &var.node,
                    Some((&var.name, &mut statics)),
                    &mut refs,
                    &mut local,
                );
                uses.items.extend(local.items);
                let mut exists: Vec<u32> = Vec::new();
                for v in &versions {
                    if v.types.contains_key(*path) {
                        exists.push(v.minor);
                    }
                }
                let when = if var.versions == exists && exists == all {
                    String::new()
                } else {
                    format!(" (Kubernetes {})", versions_text(&var.versions))
                };
                writeln!(
                    body,
                    "/// The model of `k8s_openapi::{path}`{when}.\npub const {}: Schema<'static> = {expr};\n{statics}",
                    var.name
                )
                .unwrap();
                let generic = versions.iter().any(|v| v.generic.contains(*path));
                let imp = if generic {
                    format!(
                        "impl<T> crate::model::CelSchema for k8s_openapi::{path}<T> {{ const MODEL: crate::model::Schema<'static> = super::{}; }}",
                        var.name
                    )
                } else {
                    format!(
                        "impl crate::model::CelSchema for k8s_openapi::{path} {{ const MODEL: crate::model::Schema<'static> = super::{}; }}",
                        var.name
                    )
                };
                impls.push_str(&gated(&gates(&var.versions, &all), &imp));
            }
        }
        used_leaves.extend(uses.items.iter().cloned());
        let mut o = String::new();
        writeln!(o, "{header}\n//! The models of `k8s_openapi::{module}`.\n").unwrap();
        let mut model_uses: Vec<&str> = Vec::new();
        let mut common_uses: Vec<&str> = Vec::new();
        let mut top_uses: Vec<&str> = Vec::new();
        for u in &uses.items {
            if let Some(t) = u.strip_prefix('@') {
                top_uses.push(t);
            } else if [
                "Schema", "Type", "ListType", "MapType", "Rules", "Rule", "Reason", "Property",
            ]
            .contains(&u.as_str())
            {
                model_uses.push(u);
            } else {
                common_uses.push(u);
            }
        }
        if !model_uses.is_empty() {
            writeln!(o, "use crate::model::{{{}}};", model_uses.join(", ")).unwrap();
        }
        if !common_uses.is_empty() {
            writeln!(
                o,
                "use crate::model::k8s::common::{{{}}};",
                common_uses.join(", ")
            )
            .unwrap();
        }
        if !top_uses.is_empty() {
            writeln!(o, "use crate::model::k8s::{{{}}};", top_uses.join(", ")).unwrap();
        }
        o.push('\n');
        o.push_str(&body);
        writeln!(
            o,
            "#[cfg(feature = \"k8s-openapi\")]\nmod impls {{\n{impls}}}"
        )
        .unwrap();
        let file = core_dir.join(format!("{}.rs", segs.join("/")));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, o).unwrap();
        written.push(file);
    }
    // Intermediate modules (the top one, `k8s.rs`, is hand-written).
    for (parent, children) in &parents {
        if parent.is_empty() {
            continue;
        }
        let mut o = String::new();
        writeln!(o, "{header}\n//! The models of `k8s_openapi::{parent}`.\n").unwrap();
        for c in children {
            writeln!(o, "pub mod {c};").unwrap();
        }
        let file = core_dir.join(format!("{}.rs", parent.replace("::", "/")));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, o).unwrap();
        written.push(file);
    }
    // common.rs: the named leaves and the property helper.
    {
        let mut o = String::new();
        writeln!(
            o,
            "{header}\n//! Nodes the generated models share, and their property helper.\n"
        )
        .unwrap();
        writeln!(o, "use crate::model::{{Property, Schema, Type}};\n").unwrap();
        writeln!(o, "/// A property of an object node.\npub(crate) const fn prop(name: &'static str, required: bool, schema: &'static Schema<'static>) -> Property<'static> {{ Property {{ name, required, schema }} }}\n").unwrap();
        for (name, doc, node) in leaves.iter().filter(|l| used_leaves.contains(l.0)) {
            let expr = em.node(node, &mut |_| unreachable!(), &mut Uses::default());
            writeln!(
                o,
                "/// {doc}\npub(crate) const {name}: Schema<'static> = {expr};\n"
            )
            .unwrap();
        }
        let file = core_dir.join("common.rs");
        std::fs::write(&file, o).unwrap();
        written.push(file);
    }
    let tops: Vec<&String> = parents[""].iter().collect();
    eprintln!("top-level modules (declared in k8s.rs): {tops:?}");

    // The comparison test.
    {
        let mut o = String::new();
        writeln!(o, "{header}\n//! Every generated k8s-openapi model (`crd_cel_core::model::k8s`) agrees with the schema\n//! schemars generates for its type under kube's CRD settings, for the enabled Kubernetes version.\n").unwrap();
        o.push_str(
            "use crd_cel::CelSchema;\nuse crd_cel::schema::compare;\nuse crd_cel_tests::kube_schema;\nuse schemars::JsonSchema;\n\n",
        );
        o.push_str("/// Compares `T`'s model with its schema, recording the differences.\nfn check<T: CelSchema + JsonSchema>(checked: &mut usize, failures: &mut Vec<String>) {\n    *checked += 1;\n    let json = kube_schema::<T>();\n    let diffs = compare(&T::MODEL, &json).expect(\"the generated schema reads\");\n    if !diffs.is_empty() {\n        failures.push(format!(\n            \"{}:\\n{}\",\n            std::any::type_name::<T>(),\n            diffs.iter().map(|d| format!(\"  {d}\")).collect::<Vec<_>>().join(\"\\n\")\n        ));\n    }\n}\n\n");
        for v in &versions {
            writeln!(
                o,
                "k8s_openapi::k8s_if_1_{}! {{ /// How many types k8s-openapi has for this version.\nconst EXPECTED: usize = {}; }}",
                v.minor,
                v.types.len()
            )
            .unwrap();
        }
        o.push_str("\n#[test]\nfn every_k8s_openapi_model_agrees_with_its_schema() {\n    let mut checked = 0;\n    let mut failures = Vec::new();\n");
        for path in &paths {
            let generic = versions.iter().any(|v| v.generic.contains(path));
            let ty = if generic {
                format!("k8s_openapi::{path}<serde_json::Value>")
            } else {
                format!("k8s_openapi::{path}")
            };
            let exists: Vec<u32> = versions
                .iter()
                .filter(|v| v.types.contains_key(path))
                .map(|v| v.minor)
                .collect();
            o.push_str(&gated(
                &gates(&exists, &all),
                &format!("check::<{ty}>(&mut checked, &mut failures);\n"),
            ));
        }
        o.push_str("    assert!(failures.is_empty(), \"{} of {checked} models disagree with their schema:\\n{}\", failures.len(), failures.join(\"\\n\"));\n    assert_eq!(checked, EXPECTED);\n    eprintln!(\"{checked} k8s-openapi models agree with their schemas\");\n}\n");
        std::fs::write(test_file, o).unwrap();
        written.push(PathBuf::from(test_file));
    }
    let status = std::process::Command::new("rustfmt")
        .args(["--edition", "2024"])
        .args(&written)
        .status()
        .expect("rustfmt runs");
    assert!(status.success(), "rustfmt failed");
    for v in &versions {
        eprintln!("1.{}: {} types", v.minor, v.types.len());
    }
    eprintln!(
        "{} type paths, {constants} constants, {} files",
        paths.len(),
        written.len()
    );
}
