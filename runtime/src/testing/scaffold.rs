//! `crd-cel test --init CRD`: a starting suite for a CRD. One `onCreate` case with the smallest
//! object its schema asks for (required fields, with values their enum, format, bounds and
//! pattern allow) and the stored object crd-cel answers for it (defaults applied), then, per
//! rule of the version, a commented-out case to fill in: its path, rule and the part of the
//! error that is certain (transition rules' cases under `onUpdate`).

use std::fmt::Write as _;

use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value as Json, json};

use super::SuiteError;
use crate::validate::{Endpoint, FieldValidation, Validator};

/// How deep the smallest object goes (recursive schemas end here).
const MAX_DEPTH: usize = 24;

/// A starting suite (YAML) for `crd`'s `version` (its only or storage version when `None`),
/// and whether its first case passes as written (`false`: the smallest object the schema
/// describes breaks a rule or needs a value no schema keyword gives; the case says why).
pub fn scaffold(
    crd: &Json,
    version: Option<&str>,
    file: &str,
) -> Result<(String, bool), SuiteError> {
    let err = |message: String| SuiteError {
        file: file.to_owned(),
        line: None,
        message,
    };
    let versions = crd["spec"]["versions"]
        .as_array()
        .ok_or_else(|| err("the CRD has no spec.versions".into()))?;
    let chosen = match version {
        Some(v) => versions.iter().find(|x| x["name"] == v),
        None if versions.len() == 1 => versions.first(),
        None => versions
            .iter()
            .find(|x| x["storage"] == true)
            .or_else(|| versions.first()),
    }
    .ok_or_else(|| {
        err(format!(
            "the CRD has no version {:?}",
            version.unwrap_or("")
        ))
    })?;
    let version = chosen["name"].as_str().unwrap_or_default();
    let schema = chosen
        .pointer("/schema/openAPIV3Schema")
        .ok_or_else(|| err(format!("version {version} has no schema")))?;
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
    let name = crd["metadata"]["name"].as_str().unwrap_or_default();
    let api_version = format!("{group}/{version}");

    // The smallest object: apiVersion, kind, and the required fields under the root.
    let mut object = Map::new();
    object.insert("apiVersion".into(), Json::String(api_version.clone()));
    object.insert("kind".into(), Json::String(kind.to_owned()));
    if let Some(Json::Object(rest)) = smallest(schema, 0, true) {
        for (k, v) in rest {
            if !matches!(k.as_str(), "apiVersion" | "kind" | "metadata") {
                object.insert(k, v);
            }
        }
    }
    let mut initial = Json::Object(object);
    let validator = Validator::from_crd(crd, Some(version))
        .map_err(|e| err(e.to_string()))?
        .with_field_validation(FieldValidation::Warn)
        .with_default_namespace("default");
    let send = |initial: &Json| {
        let mut sent = initial.clone();
        sent["metadata"] = json!({"generateName": "test-", "namespace": "default"});
        validator.dry_run(&sent, &[], None, Endpoint::Resource)
    };
    let (mut out, mut stored) = send(&initial);
    // Rules that read an optional field without has() fail with `no such key: F`: give the
    // object that field (its smallest value), a few times over.
    for _ in 0..8 {
        let mut added = false;
        for e in &out.errors.errors {
            if let Some(key) = e.detail.split("no such key: ").nth(1) {
                let key = key.split_whitespace().next().unwrap_or_default();
                added |= add_field(&mut initial, schema, &e.path, key);
            }
        }
        if !added {
            break;
        }
        (out, stored) = send(&initial);
    }
    let passes = out.is_valid();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# A starting suite for {name} ({kind}, version {version}), written by `crd-cel test --init`."
    );
    let _ = writeln!(
        text,
        "# Run it with `crd-cel test --crd {file} THIS_FILE`; the format is OpenShift API's"
    );
    let _ = writeln!(
        text,
        "# (https://github.com/openshift/api/blob/master/tests/README.md): onCreate/onUpdate cases"
    );
    let _ = writeln!(
        text,
        "# with `expected` (the object as stored) or `expectedError` (part of the apiserver's error)."
    );
    let _ = writeln!(text, "name: {}", yaml_scalar(&format!("[Stable] {kind}")));
    let _ = writeln!(text, "crdName: {name}");
    if versions.len() > 1 {
        let _ = writeln!(text, "version: {version}");
    }
    let _ = writeln!(text, "tests:\n  onCreate:");
    let _ = writeln!(
        text,
        "  - name: {}",
        yaml_scalar(&format!("A minimal {kind} can be created"))
    );
    if !passes {
        let why = match &out.refusal {
            Some(r) => r.to_string(),
            None => out.errors.to_string(),
        };
        let _ = writeln!(
            text,
            "    # TODO: crd-cel refuses this object as written; fill in what the schema"
        );
        let _ = writeln!(
            text,
            "    # cannot say (patterns, rules across fields). It answers:"
        );
        for line in why.lines() {
            let _ = writeln!(text, "    #   {line}");
        }
    }
    block(&mut text, "initial", &initial);
    // `expected` is the object as a GET reads it back: defaults apply again when it is read
    // from storage (a status dropped on create comes back as its default).
    let stored = stored.map(|s| validator.decode(&s).0);
    if let (true, Some(mut stored)) = (passes, stored) {
        if let Some(m) = stored["metadata"].as_object_mut() {
            m.remove("generation");
            m.remove("generateName");
            m.remove("namespace");
            m.remove("name");
            if m.is_empty() {
                stored.as_object_mut().map(|o| o.remove("metadata"));
            }
        }
        block(&mut text, "expected", &stored);
    }
    let rules = rules_of(schema, String::new());
    // Transition rules run only on update: their cases go under `onUpdate`, with `updated`.
    let (transition, plain): (Vec<_>, Vec<_>) = rules.iter().partition(|(_, rule)| {
        // The parser's answer, as the CRD checks have it (a rule that does not parse makes the
        // CRD fail anyway).
        crate::syntax::parse_ast(rule["rule"].as_str().unwrap_or_default())
            .is_ok_and(|ast| ast.as_ast().references_old_self())
    });
    if !plain.is_empty() {
        let _ = writeln!(
            text,
            "  # One case per rule, to fill in: change `initial` so that it breaks the rule, and"
        );
        let _ = writeln!(text, "  # uncomment.");
    }
    for (path, rule) in plain {
        rule_case(&mut text, path, rule, &initial, false);
    }
    if !transition.is_empty() {
        let _ = writeln!(
            text,
            "  # One case per transition rule (it reads oldSelf, so it runs on updates only): change"
        );
        let _ = writeln!(
            text,
            "  # `updated` so that it breaks the rule against `initial`, and uncomment."
        );
        let _ = writeln!(text, "  # onUpdate:");
    }
    for (path, rule) in transition {
        rule_case(&mut text, path, rule, &initial, true);
    }
    Ok((text, passes))
}

/// A commented-out case for the rule at `path` (the schema path of its node): `initial` to
/// edit, and with `update` an `updated` object too, and the part of the error that is certain.
fn rule_case(text: &mut String, path: &str, rule: &Json, initial: &Json, update: bool) {
    let r = rule["rule"].as_str().unwrap_or_default();
    let at = rule["fieldPath"]
        .as_str()
        .map(|f| format!("{path}{f}"))
        .unwrap_or_else(|| path.to_owned());
    let shown = if at.is_empty() {
        "<nil>".to_owned()
    } else {
        at
    };
    // A substring of the error whatever the failing value and the release: between
    // `Invalid value: ` and the message the apiserver writes the value of a scalar node
    // (1.35 and later) or the node's type (1.34 and earlier), so only the message, or for a
    // messageExpression the part before the value, is certain.
    // Under a list the path holds an index where the schema path has `[*]`: only the part
    // before it is certain.
    let expected = match (rule["message"].as_str(), rule["messageExpression"].as_str()) {
        (Some(m), _) if !m.is_empty() => m.to_owned(),
        (_, Some(_)) => match shown.find("[*]") {
            Some(i) => shown[..=i].to_owned(),
            None => format!("{shown}: Invalid value: "),
        },
        _ => format!("failed rule: {r}"),
    };
    let _ = writeln!(
        text,
        "  # - name: {}",
        yaml_scalar(&format!("breaks the rule at {shown}: {r}"))
    );
    let object = crate::yaml::to_string(initial).unwrap_or_default();
    let keys: &[&str] = if update {
        &["initial", "updated"]
    } else {
        &["initial"]
    };
    for key in keys {
        let _ = writeln!(text, "  #   {key}: |");
        for line in object.lines() {
            let _ = writeln!(text, "  #     {line}");
        }
    }
    let _ = writeln!(text, "  #   expectedError: {}", yaml_scalar(&expected));
}

/// Sets the property `key` of the object at `path` (an apiserver field path) to the smallest
/// value its schema gives; whether anything was added.
fn add_field(object: &mut Json, schema: &Json, path: &str, key: &str) -> bool {
    let (mut value, mut node) = (object, schema);
    for step in path.split('.').filter(|s| !s.is_empty()) {
        let (name, index) = match step.split_once('[') {
            Some((n, rest)) => (n, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (step, None),
        };
        node = &node["properties"][name];
        let Some(next) = value.get_mut(name) else {
            return false;
        };
        value = next;
        if let Some(i) = index {
            node = &node["items"];
            let Some(next) = value.get_mut(i) else {
                return false;
            };
            value = next;
        }
    }
    let child = &node["properties"][key];
    match (value.as_object_mut(), child.is_object()) {
        (Some(map), true) if !map.contains_key(key) => {
            map.insert(
                key.to_owned(),
                smallest(child, 1, false).unwrap_or(Json::Null),
            );
            true
        }
        _ => false,
    }
}

/// `key: |` and the object's YAML, indented as a case field.
fn block(text: &mut String, key: &str, v: &Json) {
    let _ = writeln!(text, "    {key}: |");
    for line in crate::yaml::to_string(v).unwrap_or_default().lines() {
        let _ = writeln!(text, "      {line}");
    }
}

/// A one-line YAML scalar (JSON's double-quoted string is one), so that it can stand in a
/// comment too; runs of whitespace (a rule written over several lines) become one space.
fn yaml_scalar(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    serde_json::to_string(&one_line).unwrap_or_default()
}

/// Every rule of the schema with the field path of its node (`spec.ports[*]`), in schema order.
fn rules_of(schema: &Json, path: String) -> Vec<(String, Json)> {
    let mut out = Vec::new();
    if let Some(rules) = schema["x-kubernetes-validations"].as_array() {
        out.extend(rules.iter().map(|r| (path.clone(), r.clone())));
    }
    if let Some(props) = schema["properties"].as_object() {
        for (k, s) in props {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            out.extend(rules_of(s, p));
        }
    }
    if schema["items"].is_object() {
        out.extend(rules_of(&schema["items"], format!("{path}[*]")));
    }
    if schema["additionalProperties"].is_object() {
        out.extend(rules_of(
            &schema["additionalProperties"],
            format!("{path}[*]"),
        ));
    }
    out
}

/// The smallest value `schema` accepts, as far as its keywords say: an object's required
/// properties, a list's `minItems` items, a string its enum's first value, a sample of its
/// format, or the shortest match of its pattern padded to `minLength`.
fn smallest(schema: &Json, depth: usize, root: bool) -> Option<Json> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return Some(first.clone());
    }
    if let Some(d) = schema.get("default") {
        return Some(d.clone());
    }
    if schema["x-kubernetes-int-or-string"] == true {
        return Some(json!(1));
    }
    let ty = schema["type"].as_str().unwrap_or_default();
    match ty {
        "object" | "" if schema["properties"].is_object() || ty == "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            for key in required {
                if root && key == "metadata" {
                    continue;
                }
                let child = &schema["properties"][key];
                let value = if child.is_null() {
                    smallest(&schema["additionalProperties"], depth + 1, false)
                } else {
                    smallest(child, depth + 1, false)
                };
                out.insert(key.to_owned(), value.unwrap_or(Json::Null));
            }
            // A root without required fields still gets its spec, where the rules usually are.
            if root
                && !out.contains_key("spec")
                && schema["properties"]["spec"].is_object()
                && let Some(spec) = smallest(&schema["properties"]["spec"], depth + 1, false)
            {
                out.insert("spec".into(), spec);
            }
            let min = schema["minProperties"].as_u64().unwrap_or(0) as usize;
            if out.len() < min {
                let candidates: Vec<(&String, &Json)> = schema["properties"]
                    .as_object()
                    .map(|p| p.iter().collect())
                    .unwrap_or_default();
                for (k, s) in candidates {
                    if out.len() >= min {
                        break;
                    }
                    if !out.contains_key(k) {
                        out.insert(
                            k.clone(),
                            smallest(s, depth + 1, false).unwrap_or(Json::Null),
                        );
                    }
                }
            }
            Some(Json::Object(out))
        }
        "array" => {
            let n = schema["minItems"].as_u64().unwrap_or(0).min(8);
            let items: Vec<Json> = (0..n)
                .map(|i| {
                    let mut v = smallest(&schema["items"], depth + 1, false).unwrap_or(Json::Null);
                    // Distinct items for sets and map lists: the key fields numbered.
                    if i > 0 {
                        if let Json::String(s) = &mut v {
                            s.push_str(&i.to_string());
                        }
                        if let Some(keys) = schema["x-kubernetes-list-map-keys"].as_array() {
                            for k in keys.iter().filter_map(Json::as_str) {
                                if let Some(Json::String(s)) = v.get_mut(k) {
                                    s.push_str(&i.to_string());
                                }
                            }
                        }
                    }
                    v
                })
                .collect();
            Some(Json::Array(items))
        }
        "integer" | "number" => {
            let min = schema["minimum"].as_f64();
            let max = schema["maximum"].as_f64();
            let mut v = min.map_or(1.0, |m| {
                if schema["exclusiveMinimum"] == true {
                    m.floor() + 1.0
                } else {
                    m.ceil()
                }
            });
            if let Some(max) = max
                && v > max
            {
                v = max.floor();
            }
            Some(json!(v as i64))
        }
        "boolean" => Some(json!(false)),
        "string" => Some(Json::String(string(schema))),
        _ => Some(json!({})),
    }
}

fn string(schema: &Json) -> String {
    let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
    let format = schema["format"].as_str().unwrap_or_default();
    let sample = match format {
        "date-time" => Some("2024-01-02T03:04:05Z"),
        "date" => Some("2024-01-02"),
        "duration" => Some("1h"),
        "hostname" => Some("example.com"),
        "ipv4" => Some("10.0.0.1"),
        "ipv6" => Some("2001:db8::1"),
        "uri" => Some("https://example.com"),
        "uuid" => Some("123e4567-e89b-12d3-a456-426614174000"),
        "byte" => Some("aGVsbG8="),
        "email" => Some("a@example.com"),
        "cidr" => Some("10.0.0.0/8"),
        "mac" => Some("00:00:5e:00:53:01"),
        _ => None,
    };
    let mut s = match (sample, schema["pattern"].as_str()) {
        (Some(s), _) => s.to_owned(),
        (None, Some(p)) => regex_syntax::parse(p)
            .ok()
            .map(|h| shortest(&h))
            .unwrap_or_else(|| "a".to_owned()),
        (None, None) => "a".to_owned(),
    };
    if s.chars().count() < min {
        // Pad with the last character: for most patterns (`[a-z0-9]+`) still a match.
        let pad = s.chars().last().unwrap_or('a');
        while s.chars().count() < min {
            s.push(pad);
        }
    }
    if let Some(max) = schema["maxLength"].as_u64() {
        s = s.chars().take(max as usize).collect();
    }
    s
}

/// A shortest string the regex matches (anchors and look-arounds ignored, the first branch of
/// an alternation, the first character of a class, the minimum of a repetition).
fn shortest(h: &Hir) -> String {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => String::new(),
        HirKind::Literal(l) => String::from_utf8_lossy(&l.0).into_owned(),
        HirKind::Class(Class::Unicode(c)) => c
            .ranges()
            .iter()
            .map(|r| r.start())
            .find(|c| c.is_ascii_alphanumeric())
            .or_else(|| c.ranges().first().map(|r| r.start()))
            .map(String::from)
            .unwrap_or_default(),
        HirKind::Class(Class::Bytes(c)) => c
            .ranges()
            .first()
            .map(|r| char::from(r.start()).to_string())
            .unwrap_or_default(),
        HirKind::Repetition(r) => shortest(&r.sub).repeat(r.min as usize),
        HirKind::Capture(c) => shortest(&c.sub),
        HirKind::Concat(parts) => parts.iter().map(shortest).collect(),
        HirKind::Alternation(branches) => branches.first().map(shortest).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The shortest match of patterns CRDs use, and values within bounds.
    #[test]
    fn smallest_values_satisfy_their_keywords() {
        let s = |schema: Json| smallest(&schema, 0, false).unwrap();
        assert_eq!(
            s(json!({"type": "string", "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$"})),
            "a"
        );
        assert_eq!(
            s(json!({"type": "string", "pattern": "^v[0-9]+$", "minLength": 3})),
            "v00"
        );
        assert_eq!(s(json!({"type": "string", "enum": ["b", "c"]})), "b");
        assert_eq!(s(json!({"type": "integer", "minimum": 5, "maximum": 9})), 5);
        assert_eq!(
            s(json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true})),
            1
        );
        assert_eq!(
            s(
                json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "array", "minItems": 2,
                "items": {"type": "string"}, "x-kubernetes-list-type": "set"}}})
            ),
            json!({"a": ["a", "a1"]})
        );
    }
}
