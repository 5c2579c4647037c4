//! The apiserver's answer to a rejected request as a `metav1.Status` object (what
//! `kubectl ... -o json` users and kubectl-validate's JSON readers parse): `Invalid` (422)
//! with a cause per field error, or the refusal's own status.

use crd_cel::crd::CrdReport;
use crd_cel::validate::{FieldError, Refusal};
use serde_json::{Value, json};

/// `errors.NewInvalid(qualifiedKind, name, errs)`: the status of a request with field errors.
/// `causes` are `(type, field, message)`; the message is the error without its `field: `
/// prefix (`field.Error.ErrorBody`).
fn invalid(group: &str, kind: &str, name: &str, message: &str, causes: Vec<Value>) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Invalid",
        "details": {"name": name, "group": group, "kind": kind, "causes": causes},
        "code": 422,
    })
}

fn cause(reason: &str, field: &str, message: &str) -> Value {
    json!({"reason": reason, "message": message, "field": field})
}

/// The status of an object's field errors; `qualified_kind` is `Kind.group`.
pub fn of_errors(qualified_kind: &str, name: &str, message: &str, errors: &[FieldError]) -> Value {
    let (kind, group) = qualified_kind
        .split_once('.')
        .unwrap_or((qualified_kind, ""));
    let causes = errors
        .iter()
        .map(|e| {
            let full = e.to_string();
            let body = full.strip_prefix(&format!("{}: ", e.path)).unwrap_or(&full);
            cause(e.kind.as_str(), &e.path, body)
        })
        .collect();
    invalid(group, kind, name, message, causes)
}

/// The status of a rejected CRD.
pub fn of_crd(report: &CrdReport) -> Value {
    let causes = report
        .errors
        .iter()
        .map(|e| cause(e.kind.reason(), &e.field, &e.body()))
        .collect();
    invalid(
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        &report.name,
        &report.text(),
        causes,
    )
}

/// The status of a refused request: `BadRequest` (400), `NotFound` (404, details naming
/// the resource), `Conflict` (409), or the store's `InternalError` (500).
pub fn of_refusal(refusal: &Refusal) -> Value {
    let code = match refusal {
        Refusal::StrictDecoding { .. }
        | Refusal::Decoding { .. }
        | Refusal::NameMismatch { .. } => 400,
        Refusal::NotFound { .. } => 404,
        Refusal::Conflict { .. } => 409,
        Refusal::ResourceVersionRequired { .. } => 422,
        Refusal::ResourceVersionSetOnCreate => 500,
    };
    let mut status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": refusal.to_string(),
        "reason": refusal.reason(),
        "code": code,
    });
    if let Refusal::NotFound { resource, name }
    | Refusal::Conflict { resource, name, .. }
    | Refusal::ResourceVersionRequired { resource, name } = refusal
    {
        // `GroupResource.String()` is `plural.group`; the details carry them apart.
        let (plural, group) = resource.split_once('.').unwrap_or((resource, ""));
        status["details"] = json!({"name": name, "group": group, "kind": plural});
        let causes: Vec<Value> = refusal
            .field_errors()
            .iter()
            .map(|e| {
                let full = e.to_string();
                let body = full.strip_prefix(&format!("{}: ", e.path)).unwrap_or(&full);
                cause(e.kind.as_str(), &e.path, body)
            })
            .collect();
        if !causes.is_empty() {
            status["details"]["causes"] = Value::Array(causes);
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_cel::validate::{BadValue, ErrorType};

    #[test]
    fn invalid_status_has_a_cause_per_error_without_the_field_prefix() {
        let errors = [FieldError {
            kind: ErrorType::Invalid,
            path: "spec.replicas".into(),
            value: BadValue::Value(json!(11)),
            detail: "too many".into(),
        }];
        let s = of_errors("CronTab.stable.example.com", "c", "the text", &errors);
        assert_eq!(
            s,
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "the text", "reason": "Invalid", "code": 422,
                "details": {"name": "c", "group": "stable.example.com", "kind": "CronTab",
                    "causes": [{"reason": "FieldValueInvalid", "field": "spec.replicas",
                        "message": "Invalid value: 11: too many"}]}})
        );
    }

    #[test]
    fn not_found_is_404_with_the_resource_in_the_details() {
        let s = of_refusal(&Refusal::NotFound {
            resource: "counters.example.com".into(),
            name: "c2".into(),
        });
        assert_eq!(s["code"], 404);
        assert_eq!(s["reason"], "NotFound");
        assert_eq!(
            s["details"],
            json!({"name": "c2", "group": "example.com", "kind": "counters"})
        );
    }
}
