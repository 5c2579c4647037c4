//! ObjectMeta validation as `k8s.io/apimachinery/pkg/api/validation/objectmeta.go` does it
//! (`ValidateObjectMetaAccessor`, `ValidateObjectMetaAccessorUpdate`), over the object's
//! `metadata` as JSON, and the custom-resource strategy's finalizer warnings
//! (`apiextensions-apiserver/pkg/registry/customresource/validator.go`,
//! `validateKubeFinalizerName`). Field paths and texts are apimachinery's.

use serde_json::{Map, Value as Json};

use super::names::{self, NameFn};
use crate::validate::{BadValue, ErrorType, FieldError, go_quoted};

/// `TotalAnnotationSizeLimitB`.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * (1 << 10);

const FINALIZER_ORPHAN: &str = "orphan";
const FINALIZER_FOREGROUND: &str = "foregroundDeletion";

/// An object's `metadata`, read as apimachinery's accessor reads it: a missing or mistyped
/// field is its zero value.
#[derive(Clone, Copy)]
pub(crate) struct Meta<'a>(Option<&'a Map<String, Json>>);

impl<'a> Meta<'a> {
    pub(crate) fn of(object: &'a Json) -> Meta<'a> {
        Meta(object.get("metadata").and_then(Json::as_object))
    }

    fn get(&self, key: &str) -> Option<&'a Json> {
        self.0.and_then(|m| m.get(key))
    }

    pub(crate) fn str(&self, key: &str) -> &'a str {
        self.get(key).and_then(Json::as_str).unwrap_or_default()
    }

    fn generation(&self) -> i64 {
        self.get("generation").and_then(Json::as_i64).unwrap_or(0)
    }

    fn string_map(&self, key: &str) -> Vec<(&'a str, &'a str)> {
        self.get(key)
            .and_then(Json::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn finalizers(&self) -> Vec<&'a str> {
        self.get("finalizers")
            .and_then(Json::as_array)
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default()
    }

    /// A set field (`deletionTimestamp`, `deletionGracePeriodSeconds`): `None` when absent.
    fn set(&self, key: &str) -> Option<&'a Json> {
        self.get(key).filter(|v| !v.is_null())
    }
}

fn error(kind: ErrorType, path: impl Into<String>, value: Json, detail: String) -> FieldError {
    FieldError {
        kind,
        path: path.into(),
        value: BadValue::Value(value),
        detail,
    }
}

fn invalid(path: impl Into<String>, value: impl Into<Json>, detail: String) -> FieldError {
    error(ErrorType::Invalid, path, value.into(), detail)
}

/// `ValidateObjectMetaAccessor(meta, namespaced, nameFn, "metadata")`.
pub(crate) fn validate(
    meta: Meta<'_>,
    namespaced: bool,
    name_fn: NameFn,
    minor: u8,
    out: &mut Vec<FieldError>,
) {
    let generate_name = meta.str("generateName");
    if !generate_name.is_empty() {
        for msg in name_fn.check(generate_name, true) {
            out.push(invalid("metadata.generateName", generate_name, msg));
        }
    }
    let name = meta.str("name");
    if name.is_empty() {
        out.push(error(
            ErrorType::Required,
            "metadata.name",
            Json::from(""),
            "name or generateName is required".into(),
        ));
    } else {
        for msg in name_fn.check(name, false) {
            out.push(invalid("metadata.name", name, msg));
        }
    }
    let namespace = meta.str("namespace");
    if namespaced {
        if namespace.is_empty() {
            out.push(error(
                ErrorType::Required,
                "metadata.namespace",
                Json::from(""),
                String::new(),
            ));
        } else {
            for msg in names::is_dns1123_label(namespace) {
                out.push(invalid("metadata.namespace", namespace, msg));
            }
        }
    } else if !namespace.is_empty() {
        out.push(error(
            ErrorType::Forbidden,
            "metadata.namespace",
            Json::from(""),
            "not allowed on this type".into(),
        ));
    }
    nonnegative_generation(meta, out);
    labels(meta, out);
    annotations(meta, minor, out);
    owner_references(meta, out);
    finalizers(meta, out);
}

/// `ValidateObjectMetaAccessorUpdate(new, old, "metadata")`.
pub(crate) fn validate_update(new: Meta<'_>, old: Meta<'_>, minor: u8, out: &mut Vec<FieldError>) {
    if old.set("deletionTimestamp").is_some() {
        let old_finalizers = old.finalizers();
        let mut extra: Vec<&str> = new
            .finalizers()
            .into_iter()
            .filter(|f| !old_finalizers.contains(f))
            .collect();
        extra.sort_unstable();
        extra.dedup();
        if !extra.is_empty() {
            let listed: Vec<String> = extra.iter().map(|f| go_quoted(f)).collect();
            out.push(error(
                ErrorType::Forbidden,
                "metadata.finalizers",
                Json::from(""),
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    listed.join(", ")
                ),
            ));
        }
    }
    if new.str("resourceVersion").is_empty() {
        out.push(invalid(
            "metadata.resourceVersion",
            "",
            "must be specified for an update".into(),
        ));
    }
    nonnegative_generation(new, out);
    if new.generation() < old.generation() {
        out.push(invalid(
            "metadata.generation",
            new.generation(),
            "must not be decremented".into(),
        ));
    }
    for key in ["name", "namespace", "uid"] {
        if new.str(key) != old.str(key) {
            out.push(invalid(
                format!("metadata.{key}"),
                new.str(key),
                "field is immutable".into(),
            ));
        }
    }
    for key in ["deletionTimestamp", "deletionGracePeriodSeconds"] {
        if new.set(key) != old.set(key) {
            out.push(invalid(
                format!("metadata.{key}"),
                new.set(key).cloned().unwrap_or(Json::Null),
                "field is immutable".into(),
            ));
        }
    }
    labels(new, out);
    annotations(new, minor, out);
    owner_references(new, out);
}

fn nonnegative_generation(meta: Meta<'_>, out: &mut Vec<FieldError>) {
    if meta.generation() < 0 {
        out.push(invalid(
            "metadata.generation",
            meta.generation(),
            "must be greater than or equal to 0".into(),
        ));
    }
}

/// `v1validation.ValidateLabels`.
fn labels(meta: Meta<'_>, out: &mut Vec<FieldError>) {
    for (k, v) in meta.string_map("labels") {
        for msg in names::is_qualified_name(k) {
            out.push(invalid("metadata.labels", k, msg));
        }
        for msg in names::is_label_value(v) {
            out.push(invalid("metadata.labels", v, msg));
        }
    }
}

/// `ValidateAnnotations`: keys are checked lower-cased; the total size of keys and values is
/// at most 256 KiB.
fn annotations(meta: Meta<'_>, minor: u8, out: &mut Vec<FieldError>) {
    let annotations = meta.string_map("annotations");
    for (k, _) in &annotations {
        for msg in names::is_qualified_name(&k.to_lowercase()) {
            out.push(invalid("metadata.annotations", *k, msg));
        }
    }
    let total: usize = annotations.iter().map(|(k, v)| k.len() + v.len()).sum();
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        out.push(error(
            ErrorType::TooLong,
            "metadata.annotations",
            Json::from(""),
            crate::validate::release::too_long(TOTAL_ANNOTATION_SIZE_LIMIT as u64, minor),
        ));
    }
}

/// `ValidateOwnerReferences`.
fn owner_references(meta: Meta<'_>, out: &mut Vec<FieldError>) {
    let Some(refs) = meta.get("ownerReferences").and_then(Json::as_array) else {
        return;
    };
    let mut first_controller: Option<String> = None;
    for (i, r) in refs.iter().enumerate() {
        let at = |f: &str| format!("metadata.ownerReferences[{i}].{f}");
        let s = |k: &str| r.get(k).and_then(Json::as_str).unwrap_or_default();
        let required = |f: &str| {
            error(
                ErrorType::Required,
                at(f),
                Json::from(""),
                "must not be empty".into(),
            )
        };
        let api_version = s("apiVersion");
        let group_version = parse_group_version(api_version);
        if api_version.is_empty() {
            out.push(required("apiVersion"));
        } else if group_version.is_none_or(|(_, v)| v.is_empty()) {
            out.push(invalid(
                at("apiVersion"),
                api_version,
                "must be <group>/<version> or <version>".into(),
            ));
        }
        for f in ["kind", "name", "uid"] {
            if s(f).is_empty() {
                out.push(required(f));
            }
        }
        let (group, version) = group_version.unwrap_or_default();
        if group.is_empty() && version == "v1" && s("kind") == "Event" {
            out.push(invalid(
                format!("metadata.ownerReferences[{i}]"),
                r.clone(),
                format!(
                    "{group}/{version}, Kind={} is disallowed from being an owner",
                    s("kind")
                ),
            ));
        }
        if r.get("controller").and_then(Json::as_bool) == Some(true) {
            let current = format!("{}/{}", s("kind"), s("name"));
            match &first_controller {
                Some(first) => out.push(invalid(
                    "metadata.ownerReferences",
                    Json::Array(refs.clone()),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                    ),
                )),
                None => first_controller = Some(current),
            }
        }
    }
}

/// `schema.ParseGroupVersion`: `None` for more than one `/`.
fn parse_group_version(gv: &str) -> Option<(&str, &str)> {
    if gv.is_empty() || gv == "/" {
        return Some(("", ""));
    }
    match gv.matches('/').count() {
        0 => Some(("", gv)),
        1 => gv.split_once('/'),
        _ => None,
    }
}

/// `ValidateFinalizers`.
fn finalizers(meta: Meta<'_>, out: &mut Vec<FieldError>) {
    let all = meta.finalizers();
    for f in &all {
        for msg in names::is_qualified_name(f) {
            out.push(invalid("metadata.finalizers", *f, msg));
        }
    }
    if all.contains(&FINALIZER_ORPHAN) && all.contains(&FINALIZER_FOREGROUND) {
        out.push(invalid(
            "metadata.finalizers",
            Json::from(all.clone()),
            format!("finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set"),
        ));
    }
}

/// The strategy's `WarningsOnCreate` / `WarningsOnUpdate`: for each finalizer (on update, each
/// one added), sorted, the name's syntax problems and a hint to qualify it with a domain.
pub(crate) fn finalizer_warnings(new: Meta<'_>, old: Option<Meta<'_>>) -> Vec<String> {
    let old = old.map(|o| o.finalizers()).unwrap_or_default();
    let mut added: Vec<&str> = new
        .finalizers()
        .into_iter()
        .filter(|f| !old.contains(f))
        .collect();
    added.sort_unstable();
    added.dedup();
    let mut warnings = Vec::new();
    for f in added {
        let quoted = go_quoted(f);
        for msg in names::is_qualified_name(f) {
            warnings.push(format!("metadata.finalizers: {quoted}: {msg}"));
        }
        let standard = matches!(f, FINALIZER_ORPHAN | FINALIZER_FOREGROUND | "kubernetes");
        if !f.contains('/') && !standard {
            if f.contains('.') {
                warnings.push(format!("metadata.finalizers: {quoted}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"));
            } else {
                warnings.push(format!("metadata.finalizers: {quoted}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"));
            }
        }
    }
    warnings
}
