//! The fields a CRD's root schema may set when the status subresource is enabled
//! (`validateCustomResourceDefinitionValidation`): only those that keep their meaning once
//! `status` is validated on its own. The apiserver shows the whole root schema as the value,
//! as Go's JSON of its internal `JSONSchemaProps`, which is reproduced here.

use super::*;

/// The fields Go's internal `JSONSchemaProps` has, in its order, with their JSON keys in a
/// manifest and whether the root may set them with the status subresource enabled.
const FIELDS: [(&str, &str, Field, bool); 44] = [
    ("ID", "id", Field::Str, false),
    ("Schema", "$schema", Field::Str, false),
    ("Ref", "$ref", Field::OptStr, false),
    ("Description", "description", Field::Str, true),
    ("Type", "type", Field::Str, true),
    ("Nullable", "nullable", Field::Bool, false),
    ("Format", "format", Field::Str, true),
    ("Title", "title", Field::Str, true),
    ("Default", "default", Field::Json, false),
    ("Maximum", "maximum", Field::Float, true),
    ("ExclusiveMaximum", "exclusiveMaximum", Field::Bool, true),
    ("Minimum", "minimum", Field::Float, true),
    ("ExclusiveMinimum", "exclusiveMinimum", Field::Bool, true),
    ("MaxLength", "maxLength", Field::Int, true),
    ("MinLength", "minLength", Field::Int, true),
    ("Pattern", "pattern", Field::Str, true),
    ("MaxItems", "maxItems", Field::Int, true),
    ("MinItems", "minItems", Field::Int, true),
    ("UniqueItems", "uniqueItems", Field::Bool, true),
    ("MultipleOf", "multipleOf", Field::Float, true),
    ("Enum", "enum", Field::JsonList, false),
    ("MaxProperties", "maxProperties", Field::Int, false),
    ("MinProperties", "minProperties", Field::Int, false),
    ("Required", "required", Field::JsonList, true),
    ("Items", "items", Field::Items, true),
    ("AllOf", "allOf", Field::Schemas, false),
    ("OneOf", "oneOf", Field::Schemas, false),
    ("AnyOf", "anyOf", Field::Schemas, false),
    ("Not", "not", Field::Schema, false),
    ("Properties", "properties", Field::SchemaMap, true),
    (
        "AdditionalProperties",
        "additionalProperties",
        Field::SchemaOrBool,
        false,
    ),
    (
        "PatternProperties",
        "patternProperties",
        Field::SchemaMap,
        false,
    ),
    ("Dependencies", "dependencies", Field::Dependencies, false),
    (
        "AdditionalItems",
        "additionalItems",
        Field::SchemaOrBool,
        false,
    ),
    ("Definitions", "definitions", Field::SchemaMap, false),
    ("ExternalDocs", "externalDocs", Field::Docs, true),
    ("Example", "example", Field::Json, true),
    (
        "XPreserveUnknownFields",
        "x-kubernetes-preserve-unknown-fields",
        Field::OptBool,
        true,
    ),
    (
        "XEmbeddedResource",
        "x-kubernetes-embedded-resource",
        Field::Bool,
        false,
    ),
    (
        "XIntOrString",
        "x-kubernetes-int-or-string",
        Field::Bool,
        false,
    ),
    (
        "XListMapKeys",
        "x-kubernetes-list-map-keys",
        Field::JsonList,
        false,
    ),
    ("XListType", "x-kubernetes-list-type", Field::OptStr, false),
    ("XMapType", "x-kubernetes-map-type", Field::OptStr, false),
    (
        "XValidations",
        "x-kubernetes-validations",
        Field::Rules,
        true,
    ),
];

/// How a field is held in Go, which decides its zero value and its JSON.
#[derive(Clone, Copy)]
enum Field {
    /// `string`: `""` when absent.
    Str,
    /// `bool`: `false` when absent.
    Bool,
    /// `*string`, `*bool`, `*int64`, `*float64`, `*JSON`: `null` when absent.
    OptStr,
    OptBool,
    Int,
    Float,
    Json,
    /// Slices and maps: `null` when absent, as written (even empty) when present.
    JsonList,
    Schemas,
    SchemaMap,
    Dependencies,
    Rules,
    /// `*JSONSchemaProps`, `*JSONSchemaPropsOrArray`, `*JSONSchemaPropsOrBool`,
    /// `*ExternalDocumentation`.
    Schema,
    Items,
    SchemaOrBool,
    Docs,
}

/// The error the apiserver reports about the root of a schema whose version has the status
/// subresource enabled, if any: the first field (in Go's order) the root may not set.
pub(super) fn root_field_error(root: &Value, path: &str) -> Option<CrdError> {
    let obj = object(root)?;
    for (go_name, key, kind, allowed) in FIELDS {
        let Some(v) = present(obj, key) else { continue };
        if is_zero(kind, v) {
            continue;
        }
        if go_name == "Type" {
            let ty = v.as_str().unwrap_or("");
            if ty == "object" {
                continue;
            }
            return Some(CrdError {
                help: None,
                field: format!("{path}.type"),
                kind: Kind::Invalid,
                value: Some(go_quote(ty)),
                detail: "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled".to_owned(),
            });
        }
        if !allowed {
            let names: Vec<&str> = FIELDS.iter().filter(|f| f.3).map(|f| f.0).collect();
            return Some(CrdError {
                help: None,
                field: path.to_owned(),
                kind: Kind::Invalid,
                value: Some(props_json(obj)),
                detail: format!(
                    "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                    names.join(" ")
                ),
            });
        }
    }
    None
}

/// Go's zero value of the field (skipped by the check).
fn is_zero(kind: Field, v: &Value) -> bool {
    match kind {
        Field::Str => v.as_str() == Some(""),
        Field::Bool => v == &Value::Bool(false),
        _ => false,
    }
}

/// Go's JSON of the internal `JSONSchemaProps` a manifest schema converts to.
fn props_json(obj: &Map<String, Value>) -> String {
    let mut out = String::from("{");
    for (i, (go_name, key, kind, _)) in FIELDS.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("\"{go_name}\":"));
        out.push_str(&field_json(*kind, present(obj, key)));
    }
    out.push('}');
    out
}

/// Go's JSON of a manifest's `items` (`*JSONSchemaPropsOrArray`).
pub(super) fn items_json(v: &Value) -> String {
    field_json(Field::Items, Some(v))
}

fn schema_json(v: &Value) -> String {
    match v.as_object() {
        Some(o) => props_json(o),
        None => props_json(&Map::new()),
    }
}

fn field_json(kind: Field, v: Option<&Value>) -> String {
    let null = || "null".to_owned();
    match kind {
        Field::Str => gojson::to_string(v.and_then(Value::as_str).unwrap_or("")),
        Field::Bool => v.and_then(Value::as_bool).unwrap_or(false).to_string(),
        Field::OptStr | Field::OptBool | Field::Int | Field::Json | Field::JsonList => {
            v.map_or_else(null, gojson::to_string)
        }
        // Go reads every number of a schema bound as a float64.
        Field::Float => v
            .and_then(Value::as_f64)
            .map_or_else(null, |f| gojson::to_string(&f)),
        Field::Schemas => v.and_then(Value::as_array).map_or_else(null, |a| {
            let items: Vec<String> = a.iter().map(schema_json).collect();
            format!("[{}]", items.join(","))
        }),
        Field::Schema => v.map_or_else(null, schema_json),
        Field::SchemaMap => v.and_then(Value::as_object).map_or_else(null, |m| {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", gojson::to_string(k), schema_json(&m[k])))
                .collect();
            format!("{{{}}}", entries.join(","))
        }),
        Field::Dependencies => v.and_then(Value::as_object).map_or_else(null, |m| {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .into_iter()
                .map(|k| {
                    let (schema, property) = match &m[k] {
                        Value::Array(p) => (null(), gojson::to_string(p)),
                        other => (schema_json(other), null()),
                    };
                    format!(
                        "{}:{{\"Schema\":{schema},\"Property\":{property}}}",
                        gojson::to_string(k)
                    )
                })
                .collect();
            format!("{{{}}}", entries.join(","))
        }),
        Field::Items => v.map_or_else(null, |v| match v {
            Value::Array(a) => {
                let items: Vec<String> = a.iter().map(schema_json).collect();
                format!("{{\"Schema\":null,\"JSONSchemas\":[{}]}}", items.join(","))
            }
            other => format!("{{\"Schema\":{},\"JSONSchemas\":null}}", schema_json(other)),
        }),
        Field::SchemaOrBool => v.map_or_else(null, |v| match v {
            Value::Bool(b) => format!("{{\"Allows\":{b},\"Schema\":null}}"),
            other => format!("{{\"Allows\":true,\"Schema\":{}}}", schema_json(other)),
        }),
        Field::Docs => v.map_or_else(null, |d| {
            let s = |k| gojson::to_string(d.get(k).and_then(Value::as_str).unwrap_or(""));
            format!(
                "{{\"Description\":{},\"URL\":{}}}",
                s("description"),
                s("url")
            )
        }),
        Field::Rules => v.and_then(Value::as_array).map_or_else(null, |rules| {
            let items: Vec<String> = rules.iter().map(|r| rule_struct(&rule_input(r))).collect();
            format!("[{}]", items.join(","))
        }),
    }
}
