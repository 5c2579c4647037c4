//! The OpenAPI-schema checks of a CRD manifest's schema nodes
//! (`ValidateCustomResourceDefinitionOpenAPISchema` and `specStandardValidatorV3.validate`):
//! unsupported keywords and types, forbidden defaults, `properties` next to
//! `additionalProperties`, and what list and map extensions require.

use super::walker::Ctx;
use super::*;

/// The types a schema may name (`openapiV3Types`), sorted as Go lists them.
const OPENAPI_TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];

/// The checks of a CRD manifest's schema node that the apiserver makes before it visits
/// the node's children (`specStandardValidatorV3.validate`, then `additionalProperties`
/// next to `properties`).
pub(super) fn node_checks_first(
    errors: &mut Vec<CrdError>,
    obj: &Map<String, Value>,
    path: &str,
    ctx: Ctx<'_>,
) -> usize {
    let before = errors.len();
    let mut push = |key: &str, kind: Kind, value: Option<String>, detail: &str| {
        errors.push(CrdError {
            help: None,
            field: format!("{path}.{key}"),
            kind,
            value,
            detail: detail.to_owned(),
        });
    };
    let ty = str_field(obj, "type").unwrap_or("");
    if !ty.is_empty() && !OPENAPI_TYPES.contains(&ty) {
        let supported: Vec<String> = OPENAPI_TYPES.iter().map(|t| go_quote(t)).collect();
        let detail = format!("supported values: {}", supported.join(", "));
        push("type", Kind::Unsupported, Some(go_quote(ty)), &detail);
    }
    if let Some(reason) = ctx.no_defaults
        && present(obj, "default").is_some()
    {
        push(
            "default",
            Kind::Forbidden,
            None,
            &format!("must not be set {reason}"),
        );
    }
    if non_empty(obj, "id") {
        push("id", Kind::Forbidden, None, "id is not supported");
    }
    // Go tests these by nil (present, even empty) or by length, field by field.
    let refused = [
        ("additionalItems", present(obj, "additionalItems").is_some()),
        ("patternProperties", non_empty(obj, "patternProperties")),
        ("definitions", non_empty(obj, "definitions")),
        ("dependencies", present(obj, "dependencies").is_some()),
        ("$ref", present(obj, "$ref").is_some()),
    ];
    for (key, is_set) in refused {
        if is_set {
            push(
                key,
                Kind::Forbidden,
                None,
                &format!("{key} is not supported"),
            );
        }
    }
    if ty == "null" {
        push(
            "type",
            Kind::Forbidden,
            None,
            "type cannot be set to null, use nullable as an alternative",
        );
    }
    if matches!(obj.get("items"), Some(Value::Array(a)) if !a.is_empty()) {
        push(
            "items",
            Kind::Forbidden,
            None,
            "items must be a schema object and not an array",
        );
    }
    if ctx.inside_meta && is_true(obj, "x-kubernetes-embedded-resource") {
        push(
            "x-kubernetes-embedded-resource",
            Kind::Forbidden,
            None,
            "must not be used inside of resource meta",
        );
    }
    // Properties are for structs, additionalProperties for maps; `true` is allowed.
    if non_empty(obj, "properties")
        && matches!(
            obj.get("additionalProperties"),
            Some(Value::Bool(false) | Value::Object(_))
        )
    {
        push(
            "additionalProperties",
            Kind::Forbidden,
            None,
            "additionalProperties and properties are mutual exclusive",
        );
    }
    errors.len() - before
}

/// The checks of a CRD manifest's schema node after its children: the types that the
/// list and map extensions require, and what `map` and `set` lists require of their items.
pub(super) fn node_list_map_checks(
    errors: &mut Vec<CrdError>,
    obj: &Map<String, Value>,
    path: &str,
) {
    let mut push = |field, kind, value, detail: &str| push(errors, field, kind, value, detail);
    let ty = str_field(obj, "type").unwrap_or("");
    let type_field = format!("{path}.type");
    if present(obj, "x-kubernetes-map-type").is_some() && ty != "object" {
        let detail = "must be object if x-kubernetes-map-type is specified";
        match ty {
            "" => push(type_field.clone(), Kind::Required, None, detail),
            _ => push(
                type_field.clone(),
                Kind::Invalid,
                Some(go_quote(ty)),
                detail,
            ),
        }
    }
    let list_type = present(obj, "x-kubernetes-list-type").map(|v| v.as_str().unwrap_or(""));
    let items = obj.get("items").and_then(object);
    if list_type.is_some() && ty != "array" {
        let detail = "must be array if x-kubernetes-list-type is specified";
        match ty {
            "" => push(type_field, Kind::Required, None, detail),
            _ => push(type_field, Kind::Invalid, Some(go_quote(ty)), detail),
        }
    } else if list_type == Some("set")
        && let Some(items) = items
    {
        // Set elements are compared whole: they must be atomic.
        let detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
        // Go prints the items' list type in both cases (a pointer: null when unset).
        let item_list_type = gojson::to_string(&items.get("x-kubernetes-list-type"));
        match str_field(items, "type") {
            Some("array")
                if present(items, "x-kubernetes-list-type")
                    .is_some_and(|t| t.as_str() != Some("atomic")) =>
            {
                push(
                    format!("{path}.items.x-kubernetes-list-type"),
                    Kind::Invalid,
                    Some(item_list_type),
                    detail,
                );
            }
            Some("object") if str_field(items, "x-kubernetes-map-type") != Some("atomic") => {
                push(
                    format!("{path}.items.x-kubernetes-map-type"),
                    Kind::Invalid,
                    Some(item_list_type),
                    detail,
                );
            }
            _ => {}
        }
    }
    let keys = str_list(obj, "x-kubernetes-list-map-keys");
    let keys_json = || gojson::to_string(&keys);
    if list_type == Some("map") {
        match obj.get("items") {
            None | Some(Value::Null) => push(
                format!("{path}.items"),
                Kind::Required,
                None,
                "must have a schema if x-kubernetes-list-type is map",
            ),
            Some(Value::Object(items)) => {
                let item_type = str_field(items, "type").unwrap_or("");
                if item_type != "object" {
                    push(
                        format!("{path}.items.type"),
                        Kind::Invalid,
                        Some(go_quote(item_type)),
                        "must be object if parent array's x-kubernetes-list-type is map",
                    );
                } else {
                    let props = items.get("properties").and_then(object);
                    let mut seen = HashSet::new();
                    for k in &keys {
                        match props.and_then(|p| p.get(*k)) {
                            Some(p) => {
                                let t = p.get("type").and_then(Value::as_str);
                                if matches!(t, Some("array" | "object")) {
                                    // Go prints the items' type here, not the key's.
                                    push(
                                        format!("{path}.items.properties[{k}].type"),
                                        Kind::Invalid,
                                        Some(go_quote(item_type)),
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                    );
                                }
                            }
                            None => push(
                                format!("{path}.x-kubernetes-list-map-keys"),
                                Kind::Invalid,
                                Some(keys_json()),
                                "entries must all be names of item properties",
                            ),
                        }
                        if !seen.insert(*k) {
                            push(
                                format!("{path}.x-kubernetes-list-map-keys"),
                                Kind::Invalid,
                                Some(keys_json()),
                                "must not contain duplicate entries",
                            );
                        }
                    }
                }
            }
            Some(items) => push(
                format!("{path}.items"),
                Kind::Invalid,
                Some(items_json(items)),
                "must only have a single schema if x-kubernetes-list-type is map",
            ),
        }
    }
    // `validateMapListKeysMapSet`: set and map items are never null, map keys always set.
    if let (Some(lt @ ("set" | "map")), Some(items)) = (list_type, items) {
        if is_true(items, "nullable") {
            push(
                format!("{path}.items.nullable"),
                Kind::Forbidden,
                None,
                &format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
            );
        }
        if lt == "map" {
            let required: HashSet<&str> = str_list(items, "required").into_iter().collect();
            let props = items.get("properties").and_then(object);
            for k in &keys {
                let Some(p) = props.and_then(|p| p.get(*k)).and_then(object) else {
                    continue;
                };
                if !required.contains(k) && present(p, "default").is_none() {
                    push(
                        format!("{path}.items.properties[{k}].default"),
                        Kind::Required,
                        None,
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    );
                }
                if is_true(p, "nullable") {
                    push(
                        format!("{path}.items.properties[{k}].nullable"),
                        Kind::Forbidden,
                        None,
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    );
                }
            }
        }
    }
}
