//! `crd-cel validate`: custom resources checked against their CRD's validation rules, as the
//! apiserver's create/update path runs them (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`), without a cluster.
//!
//! The pipeline is [`crd_cel::Validator::validate_request`]: pruning and defaults, the registry's
//! status handling, OpenAPI schema and list-type errors, then the CEL rules
//! (`x-kubernetes-validations`) with the apiserver's budget, transition rules, ratcheting and
//! texts. Not done yet (no error is reported for them): `oneOf`/`anyOf`/`allOf`/`not`, a few
//! string formats, the embedded-ObjectMeta checks.

use std::collections::HashMap;
use std::sync::Arc;

use crd_cel::go::quote as go_quoted;
use crd_cel::validate::{BadValue, FieldValidation, ManifestError, UpdateMethod, Validator};
use serde::Serialize;
use serde_json::Value;

use crate::input::{Document, InputError};
use crate::report::Cause;

/// The CRDs given with `--crd`, and the validators built from them (once per CRD version).
pub struct Crds {
    docs: Vec<Document>,
    validators: HashMap<(usize, String), Arc<Validator>>,
    /// The Kubernetes minor version whose messages the validators print.
    kubernetes_minor: u8,
    /// The namespace of requests for namespaced objects without one (`--namespace`).
    namespace: String,
    /// The requests' `fieldValidation` (`--field-validation`).
    field_validation: FieldValidation,
    update_method: UpdateMethod,
}

/// Why an object is not validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTarget {
    /// No CRD given defines its kind and group: kubectl's `no matches for kind` (an input
    /// error unless `--ignore-missing-crds`).
    NoMatch(String),
    /// Not validated, and why: a built-in kind, or `--skip`.
    Skipped(String),
    /// It cannot be validated: no kind, no such version of its CRD, a CRD that does not read.
    Invalid(String),
}

impl std::fmt::Display for NoTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoTarget::NoMatch(m) | NoTarget::Skipped(m) | NoTarget::Invalid(m) => f.write_str(m),
        }
    }
}

/// The API groups of the built-in kinds: the core group (`v1`), the groups without a dot
/// (`apps`, `batch`, `policy`, ...) and Kubernetes' own `*.k8s.io` groups, except those
/// served by CRDs (`x-k8s.io` projects, Gateway API's `gateway.networking.k8s.io`). A CRD
/// given for a kind always wins.
fn is_built_in_group(group: &str) -> bool {
    const BUILT_IN_K8S_IO: &[&str] = &[
        "admissionregistration.k8s.io",
        "apiextensions.k8s.io",
        "apiregistration.k8s.io",
        "authentication.k8s.io",
        "authorization.k8s.io",
        "certificates.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "events.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "internal.apiserver.k8s.io",
        "networking.k8s.io",
        "node.k8s.io",
        "rbac.authorization.k8s.io",
        "resource.k8s.io",
        "scheduling.k8s.io",
        "storage.k8s.io",
        "storagemigration.k8s.io",
    ];
    !group.contains('.') || BUILT_IN_K8S_IO.contains(&group)
}

/// Why `--skip` leaves an object out: its `Kind` or `group/version/Kind` (`v1/Kind` for the
/// core group) is listed.
pub fn skip_reason(object: &Value, skip: &[String]) -> Option<NoTarget> {
    let kind = object.get("kind").and_then(Value::as_str)?;
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let full = format!("{api_version}/{kind}");
    skip.iter()
        .any(|s| s == kind || *s == full)
        .then(|| NoTarget::Skipped(format!("{api_version} {kind} is skipped (--skip)")))
}

/// An object left out, as a line of `--output jsonl`.
#[derive(Serialize)]
pub struct Skipped {
    file: String,
    doc: usize,
    line: usize,
    kind: String,
    name: String,
    skipped: String,
}

impl Skipped {
    /// The object of `doc`, not validated for `reason`.
    pub fn new(doc: &Document, reason: String) -> Skipped {
        let text = |p: &str| {
            doc.value
                .pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Skipped {
            file: doc.file.clone(),
            doc: doc.index,
            line: doc.line,
            kind: text("/kind"),
            name: text("/metadata/name"),
            skipped: reason,
        }
    }

    /// What is skipped: `Kind "name"`.
    pub fn subject(&self) -> String {
        format!("{} {}", self.kind, go_quoted(&self.name))
    }

    /// The text line: `Kind "name" skipped: reason`.
    pub fn text(&self) -> String {
        format!("{} skipped: {}", self.subject(), self.skipped)
    }
}

/// What one object is checked against.
pub struct Target {
    /// The validator of the object's CRD version.
    pub validator: Arc<Validator>,
    /// `Kind.group`, as the apiserver names the resource in its error text.
    pub qualified_kind: String,
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
            kubernetes_minor: crd_cel::check::NEWEST_KUBERNETES_MINOR,
            namespace: "default".to_owned(),
            field_validation: FieldValidation::default(),
            update_method: UpdateMethod::default(),
        }
    }

    /// The registry, treating unknown and repeated fields as `mode` says
    /// ([`Validator::with_field_validation`]).
    #[must_use]
    pub fn with_field_validation(mut self, mode: FieldValidation) -> Crds {
        self.field_validation = mode;
        self
    }

    /// How updates are sent ([`Validator::with_update_method`]).
    pub fn with_update_method(mut self, method: UpdateMethod) -> Crds {
        self.update_method = method;
        self
    }

    /// The registry, sending namespaced objects without a namespace to `namespace`
    /// ([`Validator::with_default_namespace`]).
    #[must_use]
    pub fn with_default_namespace(mut self, namespace: &str) -> Crds {
        namespace.clone_into(&mut self.namespace);
        self
    }

    /// The registry, printing the messages of Kubernetes `1.<minor>`
    /// ([`Validator::with_kubernetes_version`]).
    #[must_use]
    pub fn with_kubernetes_version(mut self, minor: u8) -> Crds {
        self.kubernetes_minor = minor;
        self
    }

    /// The CRD and version for an object (by its `apiVersion` and `kind`, or `--version`).
    pub fn target(&mut self, object: &Value, version: Option<&str>) -> Result<Target, NoTarget> {
        let found = self.locate(object, version)?;
        let key = (found.crd, found.version);
        let validator = match self.validators.get(&key) {
            Some(v) => v.clone(),
            None => {
                let v = Arc::new(self.build(key.0, &key.1)?);
                self.validators.insert(key, v.clone());
                v
            }
        };
        Ok(Target {
            validator,
            qualified_kind: found.qualified_kind,
        })
    }

    /// Builds, `jobs` at a time (`-j`), the validators that [`Crds::target`] will want for
    /// `objects` and has not built yet, each once. Nothing is reported here: an object whose
    /// validator does not build gets its error from [`Crds::target`].
    pub fn prepare<'a>(
        &mut self,
        objects: impl Iterator<Item = &'a Value>,
        version: Option<&str>,
        jobs: usize,
    ) {
        if crate::jobs::threads(jobs) <= 1 {
            return;
        }
        let mut wanted: Vec<(usize, String)> = Vec::new();
        for object in objects {
            if let Ok(found) = self.locate(object, version) {
                let key = (found.crd, found.version);
                if !self.validators.contains_key(&key) && !wanted.contains(&key) {
                    wanted.push(key);
                }
            }
        }
        let this = &*self;
        let built = crate::jobs::map_in_order(&wanted, jobs, |(crd, version)| {
            this.build(*crd, version).ok().map(Arc::new)
        });
        for (key, validator) in wanted.into_iter().zip(built) {
            if let Some(v) = validator {
                self.validators.insert(key, v);
            }
        }
    }

    /// The CRD document (its index), the version and the `Kind.group` for an object.
    fn locate(&self, object: &Value, version: Option<&str>) -> Result<Located, NoTarget> {
        let kind = object
            .get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| NoTarget::Invalid("the object has no kind".to_owned()))?;
        let api_version = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| NoTarget::Invalid("the object has no apiVersion".to_owned()))?;
        let (group, object_version) = group_of(api_version);
        let version = version.unwrap_or(object_version);
        let found = self.docs.iter().position(|d| {
            d.value.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind)
                && d.value.pointer("/spec/group").and_then(Value::as_str) == Some(group)
        });
        let Some(i) = found else {
            if is_built_in_group(group) {
                return Err(NoTarget::Skipped(format!(
                    "{api_version} {kind} is a built-in kind (crd-cel validates custom resources)"
                )));
            }
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
            // kubectl's RESTMapper error, and what the given CRDs define.
            return Err(NoTarget::NoMatch(format!(
                "no matches for kind {} in version {}: ensure CRDs are installed first (the CRDs given define: {})",
                go_quoted(kind),
                go_quoted(api_version),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        };
        Ok(Located {
            crd: i,
            version: version.to_owned(),
            qualified_kind: if group.is_empty() {
                kind.to_owned()
            } else {
                format!("{kind}.{group}")
            },
        })
    }

    /// The validator of version `version` of the CRD `self.docs[crd]`.
    fn build(&self, crd: usize, version: &str) -> Result<Validator, NoTarget> {
        let crd = &self.docs[crd].value;
        Ok(Validator::from_crd(crd, Some(version))
            .map_err(|e| {
                NoTarget::Invalid(match e {
                    ManifestError::UnknownVersion { version, available } => format!(
                        "the CRD {} has no version {version:?} (it has: {available})",
                        crd.pointer("/metadata/name")
                            .and_then(Value::as_str)
                            .unwrap_or("?")
                    ),
                    other => other.to_string(),
                })
            })?
            .with_kubernetes_version(self.kubernetes_minor)
            .with_default_namespace(self.namespace.clone())
            .with_field_validation(self.field_validation)
            .with_update_method(self.update_method))
    }
}

/// Where an object's validator comes from ([`Crds::locate`]).
struct Located {
    /// The index of its CRD document.
    crd: usize,
    /// The CRD version.
    version: String,
    /// `Kind.group`.
    qualified_kind: String,
}

/// One error of `--output jsonl`, as the oracle's `validate` prints it.
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

/// One line of `--output jsonl`: the oracle's `validate` object, with where the object was read.
#[derive(Serialize)]
pub struct JsonResult {
    file: String,
    doc: usize,
    line: usize,
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
    /// The field errors (or the refusal) as report causes.
    pub causes: Vec<Cause>,
    /// The oracle's JSON line (`--output jsonl`).
    pub json: JsonResult,
    /// The apiserver's `Status` for a rejected request.
    pub api_status: Option<Value>,
    /// The object as the apiserver would store it, when valid.
    pub stored: Option<Value>,
}

/// Validates one object document against its target.
pub fn validate_one(
    doc: &Document,
    old: Option<&Value>,
    target: &Target,
    subresource_status: bool,
) -> Verdict {
    let endpoint = if subresource_status {
        crd_cel::validate::Endpoint::Status
    } else {
        crd_cel::validate::Endpoint::Resource
    };
    let (out, stored) = target
        .validator
        .dry_run(&doc.value, &doc.duplicate_fields, old, endpoint);
    // The name the request path gave the object (made from generateName), else its own.
    let name: String = out.name.clone().unwrap_or_else(|| {
        doc.value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    });
    let (kind, group) = target
        .qualified_kind
        .split_once('.')
        .unwrap_or((&target.qualified_kind, ""));
    let text_of = |errors: &crd_cel::validate::ValidationErrors| {
        if let Some(refusal) = &out.refusal {
            refusal.to_string()
        } else if errors.is_empty() {
            String::new()
        } else {
            errors.status_message(kind, group, &name)
        }
    };
    // What a user reads (the text, the causes, the Status) is in the apiserver's order: the
    // request's stages in turn, and within one the order its validator visits the object.
    let text = text_of(&out.errors);
    // The jsonl line is the oracle's comparison format: its canonical order, the errors
    // stable-sorted by field, since the apiserver visits sibling properties in Go map order;
    // errors at `<nil>` (composition and rule errors of different nodes all land there) by
    // their text as well, since map order decides theirs too.
    let mut canonical = out.errors.clone();
    canonical.errors.sort_by(|a, b| {
        a.path.cmp(&b.path).then_with(|| match a.path.as_str() {
            "<nil>" => a.to_string().cmp(&b.to_string()),
            _ => std::cmp::Ordering::Equal,
        })
    });
    let canonical_text = text_of(&canonical);
    let errors = canonical
        .errors
        .iter()
        .map(|e| JsonError {
            field: e.path.clone(),
            kind: e.kind.as_str(),
            value: match &e.value {
                BadValue::Omitted => None,
                BadValue::TypeName(t) => Some(Value::String((*t).to_owned())),
                BadValue::Value(v) | BadValue::GoSyntax(v) => Some(v.clone()),
            },
            detail: e.detail.clone(),
            message: e.to_string(),
        })
        .collect();
    let valid = out.is_valid();
    let api_status = match &out.refusal {
        Some(r) => Some(crate::status::of_refusal(r)),
        None if !valid => Some(crate::status::of_errors(
            &target.qualified_kind,
            &name,
            &text,
            &out.errors.errors,
        )),
        None => None,
    };
    let causes = match &out.refusal {
        Some(r) => vec![Cause {
            field: String::new(),
            reason: r.reason().to_owned(),
            message: r.to_string(),
            line: None,
        }],
        None => out
            .errors
            .errors
            .iter()
            .map(|e| Cause {
                field: e.path.clone(),
                reason: e.kind.as_str().to_owned(),
                message: e.to_string(),
                line: Some(doc.line_of(&e.path)),
            })
            .collect(),
    };
    Verdict {
        valid,
        api_status,
        stored,
        text,
        warnings: out.warnings.clone(),
        causes,
        json: JsonResult {
            file: doc.file.clone(),
            doc: doc.index,
            line: doc.line,
            valid,
            operation: if old.is_some() { "UPDATE" } else { "CREATE" },
            errors,
            text: canonical_text,
            // Sorted, as the oracle's contract has them (the apiserver's order depends on Go
            // map iteration).
            warnings: {
                let mut w = out.warnings;
                w.sort();
                w
            },
        },
    }
}

/// A bad object document, for the CLI's exit code 2.
pub fn input_error(doc: &Document, message: String) -> InputError {
    InputError::at(&doc.file, doc.line, message)
}
