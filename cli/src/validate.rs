//! `crd-cel validate`: custom resources checked against their CRD's validation rules, as the
//! apiserver's create/update path runs them (CEL-SEMANTICS 5), without a cluster.
//!
//! Scope: the CEL rules (`x-kubernetes-validations`) with the apiserver's budget, transition
//! rules, ratcheting and error texts, and the status-subresource handling of the registry. The
//! OpenAPI schema checks that run before CEL (types, enums, bounds, required fields) and
//! defaulting are not part of crd-cel yet.

use std::collections::HashMap;
use std::sync::Arc;

use crd_cel::validate::{BadValue, ManifestError, Options, Validator};
use serde::Serialize;
use serde_json::Value;

use crate::input::{Document, InputError};

/// The CRDs given with `--crd`, and the validators built from them (once per CRD version).
pub struct Crds {
    docs: Vec<Document>,
    validators: HashMap<(usize, String), Arc<Validator>>,
}

/// What one object is checked against.
pub struct Target {
    /// The validator of the object's CRD version.
    pub validator: Arc<Validator>,
    /// `Kind.group`, as the apiserver names the resource in its error text.
    pub qualified_kind: String,
    /// Whether the version has the status subresource.
    pub status_subresource: bool,
}

fn group_of(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    }
}

impl Crds {
    /// The CRD documents of the `--crd` files.
    pub fn new(docs: Vec<Document>) -> Crds {
        Crds {
            docs,
            validators: HashMap::new(),
        }
    }

    /// The CRD and version for an object (by its `apiVersion` and `kind`, or `--version`).
    pub fn target(&mut self, object: &Value, version: Option<&str>) -> Result<Target, String> {
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .ok_or("the object has no kind")?;
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .ok_or("the object has no apiVersion")?;
        let (group, object_version) = group_of(api_version);
        let version = version.unwrap_or(object_version);
        let found = self.docs.iter().position(|d| {
            d.value.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind)
                && d.value.pointer("/spec/group").and_then(Value::as_str) == Some(group)
        });
        let Some(i) = found else {
            let known: Vec<String> = self
                .docs
                .iter()
                .filter_map(|d| {
                    Some(format!(
                        "{}.{}",
                        d.value.pointer("/spec/names/kind")?.as_str()?,
                        d.value.pointer("/spec/group")?.as_str()?
                    ))
                })
                .collect();
            return Err(format!(
                "no CRD for kind {kind} in group {group:?} (the --crd files define: {})",
                if known.is_empty() {
                    "no CRD".to_owned()
                } else {
                    known.join(", ")
                }
            ));
        };
        let crd = &self.docs[i].value;
        let versions = crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let spec_version = versions
            .iter()
            .find(|v| v.get("name").and_then(Value::as_str) == Some(version));
        let status_subresource = spec_version
            .and_then(|v| v.pointer("/subresources/status"))
            .or_else(|| crd.pointer("/spec/subresources/status"))
            .is_some();
        let validator = match self.validators.get(&(i, version.to_owned())) {
            Some(v) => v.clone(),
            None => {
                let v = Arc::new(
                    Validator::from_crd(crd, Some(version)).map_err(|e| match e {
                        ManifestError::UnknownVersion { version, available } => format!(
                            "the CRD {} has no version {version:?} (it has: {available})",
                            crd.pointer("/metadata/name")
                                .and_then(Value::as_str)
                                .unwrap_or("?")
                        ),
                        other => other.to_string(),
                    })?,
                );
                self.validators.insert((i, version.to_owned()), v.clone());
                v
            }
        };
        Ok(Target {
            validator,
            qualified_kind: if group.is_empty() {
                kind.to_owned()
            } else {
                format!("{kind}.{group}")
            },
            status_subresource,
        })
    }
}

/// The registry's handling of `status` before validation (`PrepareForCreate`,
/// `PrepareForUpdate` of the CR strategies): with the status subresource, a create drops
/// `status`, a main-resource update keeps the old `status`, and a status update keeps
/// everything but `status` from the old object.
pub fn prepare(
    object: &Value,
    old: Option<&Value>,
    status_subresource: bool,
    subresource_status: bool,
) -> Value {
    let mut out = object.clone();
    if !status_subresource {
        return out;
    }
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    match old {
        None => {
            obj.remove("status");
        }
        Some(old) if subresource_status => {
            let mut merged = old.clone();
            if let Some(m) = merged.as_object_mut() {
                match obj.get("status") {
                    Some(s) => {
                        m.insert("status".into(), s.clone());
                    }
                    None => {
                        m.remove("status");
                    }
                }
            }
            return merged;
        }
        Some(old) => match old.get("status") {
            Some(s) => {
                obj.insert("status".into(), s.clone());
            }
            None => {
                obj.remove("status");
            }
        },
    }
    out
}

/// One error of `--output json`, as the oracle's `validate` prints it.
#[derive(Serialize)]
pub struct JsonError {
    field: String,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Value>,
    detail: String,
    message: String,
}

/// One line of `--output json`: the oracle's `validate` object, with where the object was read.
#[derive(Serialize)]
pub struct JsonResult {
    file: String,
    doc: usize,
    valid: bool,
    operation: &'static str,
    errors: Vec<JsonError>,
    text: String,
    warnings: Vec<String>,
}

/// The outcome of one object, ready to print.
pub struct Verdict {
    /// Valid (no errors).
    pub valid: bool,
    /// The apiserver's error text (`Kind.group "name" is invalid: ...`), empty when valid.
    pub text: String,
    /// Ratcheting warnings.
    pub warnings: Vec<String>,
    /// The `--output json` line.
    pub json: JsonResult,
}

/// Validates one object document against its target.
pub fn validate_one(
    doc: &Document,
    old: Option<&Value>,
    target: &Target,
    subresource_status: bool,
) -> Verdict {
    // The handler decodes (prunes, defaults) both objects before the registry sees them.
    let (new, decode_warnings) = target.validator.decode_with_warnings(&doc.value);
    let old_prepared = old.map(|o| target.validator.decode(o));
    let prepared = prepare(
        &new,
        old_prepared.as_ref(),
        target.status_subresource,
        subresource_status,
    );
    let list_errors = target
        .validator
        .list_type_errors(&prepared, old_prepared.as_ref());
    let mut out = target
        .validator
        .validate(&prepared, old_prepared.as_ref(), &Options::default());
    // Schema-level errors come before CEL errors (the registry's order).
    out.errors.errors.splice(0..0, list_errors);
    out.warnings.splice(0..0, decode_warnings);
    let name = doc
        .value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut sorted_for_text = out.errors.clone();
    sorted_for_text.errors.sort_by(|a, b| a.path.cmp(&b.path));
    let text = if sorted_for_text.is_empty() {
        String::new()
    } else {
        let (kind, group) = target
            .qualified_kind
            .split_once('.')
            .unwrap_or((&target.qualified_kind, ""));
        sorted_for_text.status_message(kind, group, name)
    };
    // The oracle's canonical order: stable-sorted by field (the apiserver visits sibling
    // properties in random order).
    let mut sorted = out.errors.clone();
    sorted.errors.sort_by(|a, b| a.path.cmp(&b.path));
    let out = crd_cel::validate::Outcome {
        errors: sorted,
        ..out
    };
    let errors = out
        .errors
        .errors
        .iter()
        .map(|e| JsonError {
            field: e.path.clone(),
            kind: e.kind.as_str(),
            value: match &e.value {
                BadValue::Omitted => None,
                BadValue::TypeName(t) => Some(Value::String((*t).to_owned())),
                BadValue::Value(v) => Some(v.clone()),
            },
            detail: e.detail.clone(),
            message: e.to_string(),
        })
        .collect();
    Verdict {
        valid: out.errors.is_empty(),
        text: text.clone(),
        warnings: out.warnings.clone(),
        json: JsonResult {
            file: doc.file.clone(),
            doc: doc.index,
            valid: out.errors.is_empty(),
            operation: if old.is_some() { "UPDATE" } else { "CREATE" },
            errors,
            text,
            warnings: out.warnings,
        },
    }
}

/// A bad object document, for the CLI's exit code 2.
pub fn input_error(doc: &Document, message: String) -> InputError {
    InputError {
        location: doc.location(),
        message,
    }
}
