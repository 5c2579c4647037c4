//! The structural-schema checks (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema`:
//! `NewStructural`, then `ValidateStructural`'s invariants and completeness). Any error here
//! keeps every rule of the schema from being compiled: the apiserver builds its CEL context
//! only for a structural schema.

use super::*;

/// Where a node sits in the structural spine (`level` in `validation.go`): some checks apply
/// only at the root, and "type must not be empty" names the place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Root,
    Item,
    Field,
}

/// What `NewStructural` and `ValidateStructural` say about a schema.
pub(super) enum Structural {
    /// `NewStructural` refused the schema: the apiserver shows this text only when nothing
    /// else is wrong with the schema.
    Unconvertible(String),
    /// `ValidateStructural`'s errors, sorted by their text as it sorts them.
    Checked(Vec<CrdError>),
}

/// Checks a schema as `validateCustomResourceDefinitionValidation` does before it builds the
/// CEL context: `NewStructural`, then `ValidateStructural` (invariants and completeness).
pub(super) fn structural(root: &Value, path: &str, level: Level) -> Structural {
    let Some(obj) = object(root) else {
        return Structural::Checked(Vec::new());
    };
    if let Err(e) = convertible(obj) {
        return Structural::Unconvertible(e.to_owned());
    }
    let mut out = Vec::new();
    invariants(obj, level, path, &mut out);
    completeness(obj, path, &mut out);
    out.sort_by_cached_key(ToString::to_string);
    Structural::Checked(out)
}

/// The structural errors the rule checks of a bare schema report
/// ([`check_schema`](super::check_schema)): rules inside `allOf`/`anyOf`/`oneOf`/`not`, and a
/// root `metadata` that constrains more than its name.
pub(super) fn is_rule_related(e: &CrdError) -> bool {
    e.field.ends_with(".x-kubernetes-validations") || e.detail == METADATA_IMPLICIT
}

const METADATA_IMPLICIT: &str = "must not specify anything other than name and generateName, but metadata is implicitly specified";

fn ty(o: &Map<String, Value>) -> &str {
    str_field(o, "type").unwrap_or("")
}

pub(super) fn is_true(o: &Map<String, Value>, key: &str) -> bool {
    o.get(key) == Some(&Value::Bool(true))
}

/// Present and not `null` (a JSON `null` decodes to an absent pointer or slice in Go).
pub(super) fn present<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

/// Go's zero value of a scalar field (`null`, `false`, `""`): the same as no field.
fn is_go_zero(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(false)) || v.as_str() == Some("")
}

/// A list Go keeps as none when it is empty (`null` or `[]`).
fn is_empty_list(v: &Value) -> bool {
    v.is_null() || v.as_array().is_some_and(Vec::is_empty)
}

pub(super) fn non_empty(o: &Map<String, Value>, key: &str) -> bool {
    match o.get(key) {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
        _ => false,
    }
}

/// The strings of a list of strings (`required`, `x-kubernetes-list-map-keys`).
pub(super) fn str_list<'a>(o: &'a Map<String, Value>, key: &str) -> Vec<&'a str> {
    o.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn properties(o: &Map<String, Value>) -> Option<&Map<String, Value>> {
    o.get("properties").and_then(object)
}

/// `items` when it is one schema (an array of schemas is refused elsewhere).
fn items(o: &Map<String, Value>) -> Option<&Map<String, Value>> {
    o.get("items").and_then(object)
}

/// The subschemas of `not`, `allOf`, `anyOf` and `oneOf`, with their path suffixes, in
/// `newValueValidation`'s order.
fn junctors(o: &Map<String, Value>) -> Vec<(String, &Map<String, Value>)> {
    let mut out = Vec::new();
    if let Some(not) = o.get("not").and_then(object) {
        out.push(("not".to_owned(), not));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, sub) in o
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(sub) = object(sub) {
                out.push((format!("{key}[{i}]"), sub));
            }
        }
    }
    out
}

pub(super) fn push(
    out: &mut Vec<CrdError>,
    field: String,
    kind: Kind,
    value: Option<String>,
    detail: &str,
) {
    out.push(CrdError {
        help: None,
        field,
        kind,
        value,
        detail: detail.to_owned(),
    });
}

/// `NewStructural`: the first field it cannot convert, in its walk order.
fn convertible(o: &Map<String, Value>) -> Result<(), &'static str> {
    for (key, what) in [
        ("id", "OpenAPIV3Schema 'id' is not supported"),
        ("$schema", "OpenAPIV3Schema 'schema' is not supported"),
        ("$ref", "OpenAPIV3Schema '$ref' is not supported"),
        (
            "patternProperties",
            "OpenAPIV3Schema 'patternProperties' is not supported",
        ),
        (
            "dependencies",
            "OpenAPIV3Schema 'dependencies' is not supported",
        ),
    ] {
        if non_empty(o, key) {
            return Err(what);
        }
    }
    if present(o, "additionalItems").is_some() {
        return Err("OpenAPIV3Schema 'additionalItems' is not supported");
    }
    if non_empty(o, "definitions") {
        return Err("OpenAPIV3Schema 'definitions' is not supported");
    }
    for (_, sub) in junctors(o) {
        convertible(sub)?;
    }
    if o.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        return Err(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined",
        );
    }
    match o.get("items") {
        Some(Value::Array(a)) if !a.is_empty() => {
            return Err("OpenAPIV3Schema 'items' must be a schema, but is an array");
        }
        Some(Value::Object(i)) => convertible(i)?,
        _ => {}
    }
    if let Some(props) = properties(o) {
        for name in sorted_keys(props) {
            if let Some(p) = object(&props[name]) {
                convertible(p)?;
            }
        }
    }
    if let Some(ap) = o.get("additionalProperties").and_then(object) {
        convertible(ap)?;
    }
    Ok(())
}

/// `validateStructuralInvariants`: the spine (properties, items, additionalProperties).
fn invariants(o: &Map<String, Value>, level: Level, path: &str, out: &mut Vec<CrdError>) {
    let t = ty(o);
    if t == "array" && items(o).is_none() {
        push(
            out,
            format!("{path}.items"),
            Kind::Required,
            None,
            "must be specified",
        );
    }
    if let Some(i) = items(o) {
        invariants(i, Level::Item, &format!("{path}.items"), out);
    }
    let props = properties(o);
    for (name, p) in props.into_iter().flatten() {
        if let Some(p) = object(p) {
            invariants(p, Level::Field, &format!("{path}.properties[{name}]"), out);
        }
    }
    let additional = matches!(
        o.get("additionalProperties"),
        Some(Value::Bool(_) | Value::Object(_))
    );
    if additional && level == Level::Root {
        push(
            out,
            format!("{path}.additionalProperties"),
            Kind::Forbidden,
            None,
            "must not be used at the root",
        );
    }
    if let Some(ap) = o.get("additionalProperties").and_then(object) {
        invariants(
            ap,
            Level::Field,
            &format!("{path}.additionalProperties"),
            out,
        );
    }

    let int_or_string = is_true(o, "x-kubernetes-int-or-string");
    let preserve = is_true(o, "x-kubernetes-preserve-unknown-fields");
    let embedded = is_true(o, "x-kubernetes-embedded-resource");
    // An int-or-string node is neither free-form nor a resource.
    for (conflict, set) in [
        ("x-kubernetes-preserve-unknown-fields", preserve),
        ("x-kubernetes-embedded-resource", embedded),
    ] {
        if int_or_string && set {
            push(
                out,
                format!("{path}.{conflict}"),
                Kind::Invalid,
                Some("true".to_owned()),
                "must be false if x-kubernetes-int-or-string is true",
            );
        }
    }

    value_validation(
        o,
        is_int_or_string_any_of(o),
        is_int_or_string_all_of(o),
        level,
        path,
        out,
    );

    let type_field = format!("{path}.type");
    if embedded && t != "object" {
        let detail = "must be object if x-kubernetes-embedded-resource is true";
        match t {
            "" => push(out, type_field, Kind::Required, None, detail),
            _ => push(out, type_field, Kind::Invalid, Some(go_quote(t)), detail),
        }
    } else if t.is_empty() && !int_or_string && !preserve {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        push(out, type_field, Kind::Required, None, detail);
    }
    if embedded && additional {
        push(
            out,
            format!("{path}.additionalProperties"),
            Kind::Forbidden,
            None,
            "must not be used if x-kubernetes-embedded-resource is set",
        );
    }
    if level == Level::Root && !t.is_empty() && t != "object" {
        push(
            out,
            format!("{path}.type"),
            Kind::Invalid,
            Some(go_quote(t)),
            "must be object at the root",
        );
    }
    let check_metadata = level == Level::Root || embedded;
    for name in ["kind", "apiVersion"] {
        if let Some(p) = props.and_then(|p| p.get(name)).and_then(object)
            && check_metadata
            && ty(p) != "string"
        {
            push(
                out,
                format!("{path}.properties[{name}].type"),
                Kind::Invalid,
                Some(go_quote(ty(p))),
                "must be string",
            );
        }
    }
    if let Some(meta) = props.and_then(|p| p.get("metadata")).and_then(object) {
        let meta_path = format!("{path}.properties[metadata]");
        if check_metadata && ty(meta) != "object" {
            push(
                out,
                format!("{meta_path}.type"),
                Kind::Invalid,
                Some(go_quote(ty(meta))),
                "must be object",
            );
        }
        if level == Level::Root && !metadata_is_implicit(meta) {
            push(out, meta_path, Kind::Forbidden, None, METADATA_IMPLICIT);
        }
    }
    if embedded && !preserve && props.is_none_or(Map::is_empty) {
        push(
            out,
            format!("{path}.properties"),
            Kind::Required,
            None,
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        );
    }
}

/// `{type: integer}` or `{type: string}` alone (zero values count as absent, as Go's
/// comparison of the converted clause sees them).
fn is_only_type(v: &Value, t: &str) -> bool {
    object(v).is_some_and(|o| {
        o.iter().all(|(k, v)| match k.as_str() {
            "type" => v.as_str() == Some(t),
            // Not carried by the converted clause.
            "id" | "$schema" | "$ref" | "patternProperties" | "dependencies"
            | "additionalItems" | "definitions" => true,
            // Lists Go builds by appending (and `items: []`, no schema): empty is none.
            "allOf" | "anyOf" | "oneOf" | "enum" | "items" => is_empty_list(v),
            _ => is_go_zero(v),
        }) && str_field(o, "type") == Some(t)
    })
}

/// `anyOf: [{type: integer}, {type: string}]`, the int-or-string pattern.
fn is_int_or_string_any_of(o: &Map<String, Value>) -> bool {
    matches!(o.get("anyOf").and_then(Value::as_array).map(Vec::as_slice),
        Some([a, b]) if is_only_type(a, "integer") && is_only_type(b, "string"))
}

/// `allOf: [{anyOf: [{type: integer}, {type: string}]}, ...]`.
fn is_int_or_string_all_of(o: &Map<String, Value>) -> bool {
    o.get("allOf")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(object)
        .is_some_and(is_int_or_string_any_of)
}

/// `validateValueValidation`: the junctors of a node, and its `pattern`.
fn value_validation(
    o: &Map<String, Value>,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    level: Level,
    path: &str,
    out: &mut Vec<CrdError>,
) {
    let list = |key| {
        o.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
    };
    if !skip_any_of {
        for (i, sub) in list("anyOf") {
            nested(
                object(sub),
                false,
                level,
                &format!("{path}.anyOf[{i}]"),
                out,
            );
        }
    }
    for (i, sub) in list("allOf") {
        let skip = skip_first_all_of_any_of && i == 0;
        nested(object(sub), skip, level, &format!("{path}.allOf[{i}]"), out);
    }
    for (i, sub) in list("oneOf") {
        nested(
            object(sub),
            false,
            level,
            &format!("{path}.oneOf[{i}]"),
            out,
        );
    }
    if let Some(not) = o.get("not") {
        nested(object(not), false, level, &format!("{path}.not"), out);
    }
    if let Some(pattern) = str_field(o, "pattern").filter(|p| !p.is_empty())
        && let Err(e) = crd_cel_core::literals::check_re2(pattern)
    {
        push(
            out,
            format!("{path}.pattern"),
            Kind::Invalid,
            Some(go_quote(pattern)),
            &format!("must be a valid regular expression, but isn't: {e}"),
        );
    }
}

/// `validateNestedValueValidation`: inside a junctor only value validations may appear.
fn nested(
    o: Option<&Map<String, Value>>,
    skip_any_of: bool,
    level: Level,
    path: &str,
    out: &mut Vec<CrdError>,
) {
    let Some(o) = o else { return };
    value_validation(o, skip_any_of, false, level, path, out);
    if let Some(i) = items(o) {
        nested(Some(i), false, level, &format!("{path}.items"), out);
    }
    for (name, p) in properties(o).into_iter().flatten() {
        let p = object(p);
        nested(
            p,
            false,
            Level::Field,
            &format!("{path}.properties[{name}]"),
            out,
        );
    }
    let mut forbid = |key: &str, detail: &str| {
        push(out, format!("{path}.{key}"), Kind::Forbidden, None, detail);
    };
    let empty = "must be empty to be structural";
    let undefined = "must be undefined to be structural";
    let false_ = "must be false to be structural";
    if non_empty(o, "type") {
        forbid("type", empty);
    }
    if matches!(
        o.get("additionalProperties"),
        Some(Value::Object(_) | Value::Bool(true))
    ) {
        forbid("additionalProperties", undefined);
    }
    if present(o, "default").is_some() {
        forbid("default", undefined);
    }
    for key in ["title", "description"] {
        if non_empty(o, key) {
            forbid(key, empty);
        }
    }
    for key in [
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    ] {
        if is_true(o, key) {
            forbid(key, false_);
        }
    }
    if non_empty(o, "x-kubernetes-list-map-keys") {
        forbid("x-kubernetes-list-map-keys", empty);
    }
    for key in ["x-kubernetes-list-type", "x-kubernetes-map-type"] {
        if present(o, key).is_some() {
            forbid(key, undefined);
        }
    }
    if non_empty(o, "x-kubernetes-validations") {
        forbid("x-kubernetes-validations", empty);
    }
    if properties(o).is_some_and(|p| p.contains_key("metadata")) {
        forbid(
            "properties[metadata]",
            "must not be specified in a nested context",
        );
    }
}

/// `validateStructuralCompleteness`: what the root's junctors constrain must be specified in
/// the spine too (the apiserver checks the root's junctors only).
fn completeness(root: &Map<String, Value>, path: &str, out: &mut Vec<CrdError>) {
    junctor_completeness(root, root, path, path, out);
}

fn junctor_completeness(
    v: &Map<String, Value>,
    s: &Map<String, Value>,
    s_path: &str,
    v_path: &str,
    out: &mut Vec<CrdError>,
) {
    for (suffix, sub) in junctors(v) {
        nested_completeness(sub, Some(s), s_path, &format!("{v_path}.{suffix}"), out);
    }
}

fn nested_completeness(
    v: &Map<String, Value>,
    s: Option<&Map<String, Value>>,
    s_path: &str,
    v_path: &str,
    out: &mut Vec<CrdError>,
) {
    let Some(s) = s else {
        let detail = format!("because it is defined in {v_path}");
        push(out, s_path.to_owned(), Kind::Required, None, &detail);
        return;
    };
    junctor_completeness(v, s, s_path, v_path, out);
    if let Some(vi) = items(v) {
        let (sp, vp) = (format!("{s_path}.items"), format!("{v_path}.items"));
        nested_completeness(vi, items(s), &sp, &vp, out);
    }
    for (name, vp) in properties(v).into_iter().flatten() {
        let Some(vp) = object(vp) else { continue };
        let sp = properties(s).and_then(|p| p.get(name)).and_then(object);
        let s_child = format!("{s_path}.properties[{name}]");
        let v_child = format!("{v_path}.properties[{name}]");
        match sp {
            Some(sp) => nested_completeness(vp, Some(sp), &s_child, &v_child, out),
            None => push(
                out,
                s_child,
                Kind::Required,
                None,
                &format!("because it is defined in {v_child}"),
            ),
        }
    }
}

/// The root `metadata` may only be `type: object` (with a `default`) and list `name` and/or
/// `generateName` as properties; anything else is rejected. Zero values (`false`, `""`,
/// `null`, and empty lists where Go keeps none) count as absent, as in the apiserver's
/// comparison of the structural schema with an empty one.
pub(super) fn metadata_is_implicit(meta: &Map<String, Value>) -> bool {
    meta.iter().all(|(k, v)| match k.as_str() {
        "type" | "default" => true,
        // Not part of a structural schema (when set, `NewStructural` refuses the schema).
        "id" | "$schema" | "$ref" | "patternProperties" | "dependencies" | "additionalItems"
        | "definitions" => true,
        "allOf" | "anyOf" | "oneOf" | "items" => is_empty_list(v),
        // A pointer: `false` is set.
        "additionalProperties" => v.is_null(),
        "properties" => match v.as_object() {
            Some(p) => {
                let names: Vec<&str> = p.keys().map(String::as_str).collect();
                matches!(
                    names.as_slice(),
                    [] | ["name"]
                        | ["generateName"]
                        | ["name", "generateName"]
                        | ["generateName", "name"]
                )
            }
            None => v.is_null(),
        },
        _ => is_go_zero(v),
    })
}

/// Whether two versions' `schema`s are the same to the apiserver (`apiequality.Semantic`
/// on the internal types): an empty list or map is no list or map, a zero scalar no value.
/// Pointers (`default`, `maximum`, `items`, ...) stay distinct when set, even to a zero value.
pub(super) fn same_schema(a: Option<&Value>, b: Option<&Value>) -> bool {
    let norm = |v: Option<&Value>| {
        v.and_then(object).map(|o| {
            let mut m = Map::new();
            if let Some(s) = present(o, "openAPIV3Schema") {
                m.insert("openAPIV3Schema".to_owned(), normalized(s));
            }
            m
        })
    };
    norm(a).unwrap_or_default() == norm(b).unwrap_or_default()
}

/// A schema node with Go's zero values and empty collections dropped.
fn normalized(v: &Value) -> Value {
    let Some(o) = object(v) else {
        return v.clone();
    };
    let empty = |v: &Value| match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    };
    let mut out = Map::new();
    for (k, v) in o {
        let kept = match k.as_str() {
            // Pointers: set, even to a zero value, is not unset.
            "default"
            | "example"
            | "$ref"
            | "x-kubernetes-list-type"
            | "x-kubernetes-map-type"
            | "x-kubernetes-preserve-unknown-fields" => (!v.is_null()).then(|| v.clone()),
            "enum" | "required" | "x-kubernetes-list-map-keys" => (!empty(v)).then(|| v.clone()),
            "x-kubernetes-validations" | "allOf" | "anyOf" | "oneOf" => (!empty(v)).then(|| {
                Value::Array(v.as_array().into_iter().flatten().map(normalized).collect())
            }),
            "properties" | "patternProperties" | "definitions" | "dependencies" => (!empty(v))
                .then(|| {
                    let m = v.as_object().into_iter().flatten();
                    Value::Object(m.map(|(k, s)| (k.clone(), normalized(s))).collect())
                }),
            "items" | "not" | "additionalProperties" | "additionalItems" | "externalDocs" => {
                (!v.is_null()).then(|| match v {
                    Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
                    other => normalized(other),
                })
            }
            _ => (!is_go_zero(v)).then(|| v.clone()),
        };
        if let Some(kept) = kept {
            out.insert(k.clone(), kept);
        }
    }
    Value::Object(out)
}
