//! JSON data to CEL values, driven by the schema (the apiserver's `UnstructuredToVal`,
//! `k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`): the object is converted once, and every rule binds `self` to a node of
//! the result. Data the schema does not allow becomes an error value, which fails a rule only
//! when the rule touches it, as in the apiserver.

use std::sync::Arc;

use serde_json::Value as Json;

use super::error::EvalError;
use super::go::base64::{self, Alphabet};
use super::time::{parse_data_duration, parse_date, parse_date_time};
use super::value::{Key, List, Map, Value};
use crate::model::Type;
use crate::tree::{Reads, SchemaNode, StringFormat};

fn err(message: String) -> Value {
    Value::Error(Arc::new(EvalError::new(message)))
}

/// Go's `%T` of a decoded JSON value (`int64` for integers, `float64` otherwise).
fn go_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.is_i64() => "int64",
        Json::Number(_) => "float64",
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// The value of `data` under `schema`. `resource` says whether the node is a resource root (the
/// CR root or an embedded resource), which adds the implicit `apiVersion`, `kind` and
/// `metadata` (`name`, `generateName`) properties.
pub fn to_value(data: &Json, schema: &SchemaNode, resource: bool) -> Value {
    if data.is_null() {
        return if schema.nullable {
            Value::Null
        } else {
            err("invalid data, got null for schema with nullable=false".into())
        };
    }
    if schema.int_or_string {
        return match data {
            Json::String(s) => Value::string(s.as_str()),
            Json::Number(n) if n.is_i64() => Value::Int(n.as_i64().unwrap_or_default()),
            _ => err(
                "invalid data, expected XIntOrString value to be either a string or integer".into(),
            ),
        };
    }
    match schema.ty {
        Type::Object => object(data, schema, resource || schema.embedded_resource),
        Type::Array => array(data, schema),
        Type::String => {
            let Json::String(s) = data else {
                return err(format!("invalid data, expected string, got {}", go_type(data)));
            };
            match schema.format {
                StringFormat::Duration => match parse_data_duration(s) {
                    Some(d) => Value::Duration(d),
                    None => err(format!(
                        "Invalid duration {s}: unable to parse {s} as duration"
                    )),
                },
                StringFormat::Date => match parse_date(s) {
                    Some(t) => Value::Timestamp(t),
                    None => err(format!(
                        "Invalid date formatted string {s}: parsing time {s:?} as \"2006-01-02\": cannot parse {s:?} as \"2006\""
                    )),
                },
                StringFormat::DateTime => match parse_date_time(s) {
                    Some(t) => Value::Timestamp(t),
                    None => err(format!(
                        "Invalid date-time formatted string {s}: parsing time {s:?} as \"2006-01-02T15:04:05Z07:00\": cannot parse {s:?} as \"2006\""
                    )),
                },
                StringFormat::Byte => match base64::decode(s, Alphabet::Url) {
                    Some(b) => Value::Bytes(b.into()),
                    None => err(format!(
                        "Invalid byte formatted string {s}: illegal base64 data at input byte 0"
                    )),
                },
                StringFormat::Plain => Value::string(s.as_str()),
            }
        }
        Type::Number => match data {
            Json::Number(n) => Value::Double(n.as_f64().unwrap_or(f64::NAN)),
            _ => err(format!("invalid data, expected float, got {}", go_type(data))),
        },
        Type::Integer => match data {
            Json::Number(n) if n.is_i64() => Value::Int(n.as_i64().unwrap_or_default()),
            _ => err(format!("invalid data, expected int, got {}", go_type(data))),
        },
        Type::Boolean => match data {
            Json::Bool(b) => Value::Bool(*b),
            _ => err(format!("invalid data, expected bool, got {}", go_type(data))),
        },
        Type::Any if schema.preserve_unknown_fields => Value::Unknown(Arc::new(data.clone())),
        // Validators of models with unknown nodes are built from the generated schema, which
        // has none: this is a model's placeholder, never a stored schema.
        Type::Any | Type::Unknown => err(
            "invalid type, expected object, array, number, integer, boolean or string, or no type with x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true, got "
                .into(),
        ),
    }
}

/// [`to_value`], building only what rules read ([`SchemaNode::reads`], planned with the
/// validator): the fields rules here or above select, the items a comprehension reads, and
/// every child a rule below is bound to. Rules bound to the result see what the whole
/// conversion would give them.
pub(crate) fn to_value_read(data: &Json, schema: &SchemaNode, resource: bool) -> Value {
    let resource = resource || schema.embedded_resource;
    match (&schema.reads, schema.ty, data) {
        (Some(Reads::Whole), ..) => to_value(data, schema, resource),
        _ if schema.int_or_string || resource => to_value(data, schema, resource),
        (Some(Reads::Fields(read)), Type::Object, Json::Object(raw)) => {
            partial_object(raw, schema, |i, child| {
                read.contains(&i) || child.rules_below
            })
        }
        (None, Type::Object, Json::Object(raw))
            if !schema.properties.is_empty() && schema.additional_properties.is_none() =>
        {
            partial_object(raw, schema, |_, child| child.rules_below)
        }
        (Some(Reads::Items) | None, Type::Array, Json::Array(raw)) => match &schema.items {
            Some(items) if schema.reads.is_some() || items.rules_below => {
                Value::List(Arc::new(List {
                    items: raw.iter().map(|v| to_value_read(v, items, false)).collect(),
                    kind: schema.list_kind.clone(),
                }))
            }
            _ => to_value(data, schema, resource),
        },
        _ => to_value(data, schema, resource),
    }
}

/// The declared properties `keep` selects, each converted as it is read; the rest counted as
/// hidden entries.
fn partial_object(
    raw: &serde_json::Map<String, Json>,
    schema: &SchemaNode,
    keep: impl Fn(usize, &SchemaNode) -> bool,
) -> Value {
    let mut entries = Vec::new();
    for (k, v) in raw {
        if v.is_null() {
            continue;
        }
        if let Some(i) = schema
            .properties
            .iter()
            .position(|(p, _)| super::value::name_eq(p, k))
        {
            let (key, child) = &schema.properties[i];
            if keep(i, child) {
                entries.push((Key::String(Arc::clone(key)), to_value_read(v, child, false)));
            }
        }
    }
    let hidden = raw.len() - entries.len();
    Value::Map(Arc::new(Map::object(entries, hidden, Vec::new())))
}

/// Whether `name` is a property of the node, counting a resource root's implicit ones.
fn property_schema<'a>(schema: &'a SchemaNode, resource: bool, name: &str) -> Option<Implicit<'a>> {
    if let Some((key, p)) = schema.property_entry(name) {
        return Some(Implicit::Declared(key, p));
    }
    if resource {
        match name {
            "apiVersion" | "kind" => return Some(Implicit::String),
            "metadata" => return Some(Implicit::Metadata),
            _ => {}
        }
    }
    None
}

/// A property's schema: declared, or one a resource root adds.
enum Implicit<'a> {
    Declared(&'a Arc<str>, &'a SchemaNode),
    String,
    Metadata,
}

fn object(data: &Json, schema: &SchemaNode, resource: bool) -> Value {
    let Json::Object(raw) = data else {
        return err("invalid data, expected a map for the provided schema with type=object".into());
    };
    if schema.properties.is_empty()
        && !resource
        && let Some(values) = &schema.additional_properties
    {
        // A map: null values are present (as null or an error value).
        let entries = raw
            .iter()
            .map(|(k, v)| (Key::String(k.as_str().into()), to_value(v, values, false)))
            .collect();
        return Value::Map(Arc::new(Map::new(entries)));
    }
    let mut entries = Vec::with_capacity(raw.len());
    let mut unknown = Vec::new();
    for (k, v) in raw {
        match property_schema(schema, resource, k) {
            Some(s) if !v.is_null() => {
                let key = match &s {
                    Implicit::Declared(key, _) => Key::String(Arc::clone(key)),
                    _ => Key::String(k.as_str().into()),
                };
                let child = match s {
                    Implicit::Declared(_, s) => to_value(v, s, s.embedded_resource),
                    Implicit::String => match v {
                        Json::String(s) => Value::string(s.as_str()),
                        _ => err(format!("invalid data, expected string, got {}", go_type(v))),
                    },
                    Implicit::Metadata => metadata(v),
                };
                entries.push((key, child));
            }
            Some(_) => {}
            None => unknown.push((Arc::from(k.as_str()), Arc::new(v.clone()))),
        }
    }
    let hidden = raw.len() - entries.len();
    Value::Map(Arc::new(Map::object(entries, hidden, unknown)))
}

/// The implicit `metadata` of a resource root: only `name` and `generateName` are visible.
pub(crate) fn metadata(data: &Json) -> Value {
    let Json::Object(raw) = data else {
        return err("invalid data, expected a map for the provided schema with type=object".into());
    };
    let mut entries = Vec::new();
    let mut unknown = Vec::new();
    for (k, v) in raw {
        if (k == "name" || k == "generateName") && !v.is_null() {
            let name = match v {
                Json::String(s) => Value::string(s.as_str()),
                _ => err(format!("invalid data, expected string, got {}", go_type(v))),
            };
            entries.push((Key::String(k.as_str().into()), name));
        } else if !v.is_null() {
            unknown.push((Arc::from(k.as_str()), Arc::new(v.clone())));
        }
    }
    let hidden = raw.len() - entries.len();
    Value::Map(Arc::new(Map::object(entries, hidden, unknown)))
}

fn array(data: &Json, schema: &SchemaNode) -> Value {
    let Json::Array(raw) = data else {
        return err(
            "invalid data, expected an array for the provided schema with type=array".into(),
        );
    };
    let Some(items) = &schema.items else {
        return err("invalid array type, expected Items with a non-empty Schema".into());
    };
    let items = raw
        .iter()
        .map(|v| to_value(v, items, items.embedded_resource))
        .collect();
    Value::List(Arc::new(List {
        items,
        kind: schema.list_kind.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_and_numbers_follow_the_schema_not_the_json() {
        let int = SchemaNode::of(Type::Integer);
        let num = SchemaNode::of(Type::Number);
        assert!(matches!(to_value(&json!(3), &int, false), Value::Int(3)));
        assert!(matches!(to_value(&json!(3), &num, false), Value::Double(d) if d == 3.0));
        let e = to_value(&json!(1.5), &int, false);
        assert_eq!(
            e.as_error().unwrap().message,
            "invalid data, expected int, got float64"
        );
        let e = to_value(&json!(null), &int, false);
        assert_eq!(
            e.as_error().unwrap().message,
            "invalid data, got null for schema with nullable=false"
        );
    }

    #[test]
    fn objects_hide_null_and_unknown_fields_but_count_them() {
        const A: crate::model::Schema<'static> = crate::model::Schema::of(Type::String);
        const PROPS: [crate::model::Property<'static>; 1] = [crate::model::Property {
            name: "a",
            required: false,
            schema: &A,
        }];
        let s = SchemaNode::from_model(&crate::model::Schema {
            properties: &PROPS,
            ..crate::model::Schema::of(Type::Object)
        });
        let Value::Map(m) = to_value(&json!({"a": null, "b": 1}), &s, false) else {
            panic!("an object")
        };
        assert!(m.is_empty());
        assert_eq!(m.raw_len(), 2);
        let Value::Map(m) = to_value(
            &json!({"apiVersion": "v1", "metadata": {"name": "x", "uid": "u"}}),
            &s,
            true,
        ) else {
            panic!("an object")
        };
        assert!(m.get_str("apiVersion").is_some());
        let Some(Value::Map(meta)) = m.get_str("metadata") else {
            panic!("metadata")
        };
        assert!(meta.get_str("name").is_some() && meta.get_str("uid").is_none());
    }
}
