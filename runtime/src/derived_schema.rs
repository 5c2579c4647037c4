//! The JSON schema of a derived type, after schemars: what `#[cel(..)]` adds (rules, list and
//! map types, bounds), sets as `x-kubernetes-list-type: set`, and the shapes no structural
//! schema can express rewritten into what they mean to the apiserver, where kube's own
//! structural rewriting leaves them (or panics).

use crate::model::Decoration;
use schemars::transform::Transform;
use serde_json::Value;

/// `#[schemars(transform = Decorate(&DECORATION))]` on a field of the derive's shadow struct:
/// writes what `#[cel(..)]` says into the field's schema node.
pub struct Decorate(pub &'static Decoration<'static>);

impl Transform for Decorate {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        decorate(schema, self.0);
    }
}

/// Applies a decoration to a generated schema node: rules are appended after the rules the
/// node's type already carries, the other keys are set.
pub fn decorate(schema: &mut schemars::Schema, d: &Decoration<'static>) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if d.replace_rules {
        // The rules of an `extend("x-kubernetes-validations" = ..)`, which replaces the key.
        obj.remove("x-kubernetes-validations");
    }
    if !d.rules.is_empty() {
        let entry = obj
            .entry("x-kubernetes-validations")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(rules) = entry {
            rules.extend(d.rules.iter().map(crate::schema::rule_to_json));
        }
    }
    if let Some(lt) = d.list_type {
        obj.insert("x-kubernetes-list-type".into(), lt.as_str().into());
    }
    if !d.list_map_keys.is_empty() {
        obj.insert(
            "x-kubernetes-list-map-keys".into(),
            d.list_map_keys.iter().map(|k| Value::from(*k)).collect(),
        );
    }
    if let Some(mt) = d.map_type {
        obj.insert("x-kubernetes-map-type".into(), mt.as_str().into());
    }
    for (key, v) in [
        ("maxItems", d.max_items),
        ("minItems", d.min_items),
        ("maxProperties", d.max_properties),
        ("minProperties", d.min_properties),
    ] {
        if let Some(v) = v {
            obj.insert(key.into(), v.into());
        }
    }
}

/// The last step of every derived `json_schema`: the container's own decoration, then what
/// schemars writes that the apiserver does not take.
pub fn finish_schema(schema: &mut schemars::Schema, container: &Decoration<'static>) {
    decorate(schema, container);
    if let Some(obj) = schema.as_object_mut() {
        structural_keywords(obj);
    }
}

/// Keywords schemars writes that the apiserver does not take, as what they mean to it, in the
/// whole subtree: `uniqueItems: true` (sets; the apiserver refuses it: `uniqueItems cannot be
/// set to true since the runtime complexity becomes quadratic`) dropped, as kube's schema
/// transform drops it (a set of objects cannot be a `set` list), a map with
/// non-string keys (`patternProperties` of the keys' pattern, `additionalProperties: false`)
/// as a map of its values (the keys serialize as strings; Kubernetes schemas cannot constrain
/// them), and a tuple's list of item schemas as one item schema (a structural schema has one).
fn structural_keywords(obj: &mut serde_json::Map<String, Value>) {
    if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
        obj.remove("uniqueItems");
    }
    if obj.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(Value::Object(patterns)) = obj.get("patternProperties")
        && patterns.len() == 1
        && let Some(values) = patterns.values().next().cloned()
    {
        obj.remove("patternProperties");
        obj.insert("additionalProperties".into(), values);
    }
    // A tuple (`items` as a list of schemas): one schema when every position has the same,
    // otherwise any value at each position.
    // schemars writes `prefixItems` (and `items: false`); its OpenAPI 3 transform, which runs
    // later, would make that `items: [..]`.
    let positions = match obj.get("prefixItems") {
        Some(Value::Array(p)) => Some(p.clone()),
        _ => match obj.get("items") {
            Some(Value::Array(p)) => Some(p.clone()),
            _ => None,
        },
    };
    if let Some(positions) = positions {
        let items = match positions.split_first() {
            Some((first, rest)) if rest.iter().all(|p| p == first) => first.clone(),
            _ => serde_json::json!({"x-kubernetes-preserve-unknown-fields": true}),
        };
        obj.remove("prefixItems");
        obj.insert("items".into(), items);
    }
    for (_, child) in obj.iter_mut() {
        match child {
            Value::Object(o) => structural_keywords(o),
            Value::Array(items) => items.iter_mut().for_each(|i| {
                if let Value::Object(o) = i {
                    structural_keywords(o);
                }
            }),
            _ => {}
        }
    }
}

/// A data-carrying enum's `oneOf`/`anyOf` of variants as one structural schema where kube's
/// structural rewriting cannot make one and panics (kube-rs issue 1279): variants whose shared
/// properties differ (the tag of an internally or adjacently tagged enum, a field two variants
/// type differently), or variants of different types (unit and data variants of one externally
/// tagged enum). Where kube's rewriting works, the schema is left to it, so the CRD is kube's.
///
/// The merged node is an object with every variant's properties; a property the variants agree
/// on keeps its schema, string enums (tags) are merged, anything else becomes a
/// `x-kubernetes-preserve-unknown-fields` node; `required` keeps what every variant requires.
/// Variants of different types make the whole node `x-kubernetes-preserve-unknown-fields`.
pub fn structural_variants(schema: &mut schemars::Schema) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(variants)) = obj.get(key) else {
            continue;
        };
        if let Some(scalar) = scalar_variants(variants) {
            obj.remove(key);
            obj.remove("type");
            obj.extend(scalar);
            continue;
        }
        if variants
            .iter()
            .any(|v| v.get("type").and_then(Value::as_str) != Some("object"))
        {
            // Mixed types (a unit variant is a string): nothing structural but "anything".
            if variants.iter().any(|v| v.get("type").is_some()) {
                obj.remove(key);
                obj.remove("type");
                obj.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            }
            continue;
        }
        let mut properties = serde_json::Map::new();
        let mut conflict = false;
        for v in variants {
            for (name, p) in v
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                match properties.get_mut(name) {
                    None => {
                        properties.insert(name.clone(), p.clone());
                    }
                    Some(q) if q == p => {}
                    Some(q) => {
                        conflict = true;
                        *q = merge_property(q, p);
                    }
                }
            }
        }
        if !conflict {
            continue;
        }
        let required: Vec<Value> = match variants.first().and_then(|v| v.get("required")) {
            Some(Value::Array(first)) => first
                .iter()
                .filter(|r| {
                    variants.iter().all(|v| {
                        v.get("required")
                            .and_then(Value::as_array)
                            .is_some_and(|req| req.contains(r))
                    })
                })
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        obj.remove(key);
        obj.insert("type".into(), "object".into());
        obj.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            obj.insert("required".into(), Value::Array(required));
        }
    }
}

/// Two variants' schemas of one property as one: the first when they differ only in their
/// documentation, string enums merged, else any value.
fn merge_property(a: &Value, b: &Value) -> Value {
    if undocumented(a) == undocumented(b) {
        return a.clone();
    }
    // A tag is `const` until schemars' OpenAPI 3 transforms make it a one-value `enum`.
    let string_enum = |v: &Value| {
        (v.get("type").and_then(Value::as_str) == Some("string"))
            .then(|| match (v.get("enum"), v.get("const")) {
                (Some(Value::Array(e)), _) => Some(e.clone()),
                (None, Some(c)) => Some(vec![c.clone()]),
                _ => None,
            })
            .flatten()
    };
    match (string_enum(a), string_enum(b)) {
        (Some(mut x), Some(y)) => {
            for v in y {
                if !x.contains(&v) {
                    x.push(v);
                }
            }
            serde_json::json!({"type": "string", "enum": x})
        }
        _ => serde_json::json!({"x-kubernetes-preserve-unknown-fields": true}),
    }
}

/// An untagged enum of an integer and a string (`anyOf` of the two, not structural) as what it
/// means to the apiserver: `x-kubernetes-int-or-string: true`, as k8s-openapi's `IntOrString`.
pub fn int_or_string(schema: &mut schemars::Schema) {
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("anyOf");
        obj.insert("x-kubernetes-int-or-string".into(), true.into());
    }
}

/// What an untagged enum of scalar newtype variants means as one structural node: integers
/// and strings (`Number(NonZeroU16)`, `Name(String)`) are `x-kubernetes-int-or-string`, as
/// k8s-openapi's `IntOrString`; strings only (`V4(Ipv4Addr)`, `V6(Ipv6Addr)`, a network and an
/// address) are a string, with the keywords every variant has alike (a format all share). The
/// variants' own bounds cannot be kept: a structural node has one type. `None` for anything
/// else.
fn scalar_variants(variants: &[Value]) -> Option<serde_json::Map<String, Value>> {
    let types: Vec<&str> = variants
        .iter()
        .map(|v| v.get("type").and_then(Value::as_str))
        .collect::<Option<_>>()?;
    let strings = types.iter().filter(|t| **t == "string").count();
    let integers = types.iter().filter(|t| **t == "integer").count();
    if variants.len() < 2 || strings == 0 || strings + integers != variants.len() {
        return None;
    }
    let mut out = serde_json::Map::new();
    if integers > 0 {
        out.insert("x-kubernetes-int-or-string".into(), true.into());
        return Some(out);
    }
    let first = variants[0].as_object()?;
    for (k, v) in first {
        if k != "description" && k != "title" && variants[1..].iter().all(|o| o.get(k) == Some(v)) {
            out.insert(k.clone(), v.clone());
        }
    }
    Some(out)
}

/// A schema without its `description`s and `title`s, at every level.
fn undocumented(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| *k != "description" && *k != "title")
                .map(|(k, v)| (k.clone(), undocumented(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(undocumented).collect()),
        other => other.clone(),
    }
}
