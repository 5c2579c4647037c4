//! An answer to a request, from the server (`kube::Error::Api(Status)`) or from crd-cel, and
//! how two answers are compared.

use std::fmt;

use crd_cel::ValidationErrors;
use crd_cel::validate::{Outcome, Refusal};
use kube::core::Status;

/// One cause of an `Invalid` status (`details.causes[]`): the field error's type, field and
/// message (the error without its `field: ` prefix).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cause {
    /// `FieldValueInvalid`, ...
    pub reason: String,
    /// `spec.replicas`, `<nil>` for the root.
    pub field: String,
    /// `Invalid value: 3: ...`.
    pub message: String,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.reason, self.field, self.message)
    }
}

/// What a request got: accepted, or refused with a status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The object was stored (the server), or is valid (crd-cel).
    Valid,
    /// Refused.
    Refused {
        /// The status reason (`Invalid`, `Conflict`, ...).
        reason: String,
        /// The status message (`Kind.group "name" is invalid: ...`).
        message: String,
        /// The causes, in the order given.
        causes: Vec<Cause>,
    },
}

impl Answer {
    /// The server's answer in a `kube::Error::Api` status.
    pub fn of_status(status: &Status) -> Answer {
        let causes = status
            .details
            .as_ref()
            .map(|d| {
                d.causes
                    .iter()
                    .map(|c| Cause {
                        reason: c.reason.clone(),
                        field: c.field.clone(),
                        message: c.message.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Answer::Refused {
            reason: status.reason.clone(),
            message: status.message.clone(),
            causes,
        }
    }

    /// The `Invalid` status the apiserver answers for `errors` on the object `name` of
    /// `kind`/`group` (`errors.NewInvalid`: a cause per field error, the message listing each
    /// distinct error once).
    pub fn of_errors(errors: &ValidationErrors, kind: &str, group: &str, name: &str) -> Answer {
        let causes = errors
            .errors
            .iter()
            .map(|e| {
                let full = e.to_string();
                let body = full
                    .strip_prefix(&format!("{}: ", e.path))
                    .unwrap_or(&full)
                    .to_owned();
                Cause {
                    reason: e.kind.as_str().to_owned(),
                    field: e.path.clone(),
                    message: body,
                }
            })
            .collect();
        Answer::Refused {
            reason: "Invalid".into(),
            message: errors.status_message(kind, group, name),
            causes,
        }
    }

    /// The answer of a typed `validate()` / `validate_update()`.
    pub fn of_typed(
        result: &Result<(), ValidationErrors>,
        kind: &str,
        group: &str,
        name: &str,
    ) -> Answer {
        match result {
            Ok(()) => Answer::Valid,
            Err(e) => Answer::of_errors(e, kind, group, name),
        }
    }

    /// The answer of the manifest `Validator::validate_request`.
    pub fn of_outcome(out: &Outcome, kind: &str, group: &str, name: &str) -> Answer {
        if let Some(r) = &out.refusal {
            return Answer::of_refusal(r);
        }
        if out.errors.is_empty() {
            return Answer::Valid;
        }
        Answer::of_errors(
            &out.errors,
            kind,
            group,
            out.name.as_deref().unwrap_or(name),
        )
    }

    /// A refusal, with the field errors it carries (`Refusal::field_errors`).
    pub fn of_refusal(r: &Refusal) -> Answer {
        let causes = r
            .field_errors()
            .iter()
            .map(|e| {
                let full = e.to_string();
                Cause {
                    reason: e.kind.as_str().to_owned(),
                    field: e.path.clone(),
                    message: full
                        .strip_prefix(&format!("{}: ", e.path))
                        .unwrap_or(&full)
                        .to_owned(),
                }
            })
            .collect();
        Answer::Refused {
            reason: r.reason().to_owned(),
            message: r.to_string(),
            causes,
        }
    }

    /// Whether the request was accepted.
    pub fn is_valid(&self) -> bool {
        matches!(self, Answer::Valid)
    }

    /// The message, or `valid`.
    pub fn text(&self) -> &str {
        match self {
            Answer::Valid => "valid",
            Answer::Refused { message, .. } => message,
        }
    }
}

/// How crd-cel's answer compares with the server's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agreement {
    /// Same verdict, reason, message and causes (in the same order).
    Same,
    /// The same causes (as a multiset) and reason, in another order: the message is the
    /// server's once crd-cel's causes are put in the server's order. Not a failure (the server
    /// orders siblings in Go map order).
    Order,
    /// A real difference (verdict, reason, the set of causes, or a message that no order of
    /// the causes explains).
    Differs(String),
}

impl Agreement {
    /// Whether this is a failure.
    pub fn is_failure(&self) -> bool {
        matches!(self, Agreement::Differs(_))
    }
}

/// Compares crd-cel's answer (`ours`) with the server's. `rebuild` makes the message of a list of
/// causes in a given order (crd-cel's `status_message` of its errors reordered), to tell an
/// order difference from a text difference.
pub fn compare(
    server: &Answer,
    ours: &Answer,
    rebuild: impl Fn(&[usize]) -> Option<String>,
) -> Agreement {
    match (server, ours) {
        (Answer::Valid, Answer::Valid) => Agreement::Same,
        (Answer::Valid, Answer::Refused { .. }) => {
            Agreement::Differs("the server accepts what crd-cel refuses".into())
        }
        (Answer::Refused { .. }, Answer::Valid) => {
            Agreement::Differs("the server refuses what crd-cel accepts".into())
        }
        (
            Answer::Refused {
                reason: r1,
                message: m1,
                causes: c1,
            },
            Answer::Refused {
                reason: r2,
                message: m2,
                causes: c2,
            },
        ) => {
            if r1 != r2 {
                return Agreement::Differs(format!("reason {r1} (server) vs {r2} (crd-cel)"));
            }
            let mut s1 = c1.clone();
            let mut s2 = c2.clone();
            s1.sort();
            s2.sort();
            if s1 != s2 {
                let only_server: Vec<String> = s1
                    .iter()
                    .filter(|c| !s2.contains(c))
                    .map(ToString::to_string)
                    .collect();
                let only_ours: Vec<String> = s2
                    .iter()
                    .filter(|c| !s1.contains(c))
                    .map(ToString::to_string)
                    .collect();
                return Agreement::Differs(format!(
                    "the causes differ: only the server's: {only_server:?}; only crd-cel's: \
                     {only_ours:?} ({} causes vs {})",
                    c1.len(),
                    c2.len()
                ));
            }
            if m1 == m2 && c1 == c2 {
                return Agreement::Same;
            }
            // crd-cel's causes in the server's order: each server cause takes the first unused
            // equal one of ours.
            let mut used = vec![false; c2.len()];
            let order: Vec<usize> = c1
                .iter()
                .filter_map(|c| {
                    let i = (0..c2.len()).find(|&i| !used[i] && c2[i] == *c)?;
                    used[i] = true;
                    Some(i)
                })
                .collect();
            match rebuild(&order) {
                Some(m) if m == *m1 => Agreement::Order,
                // Refusals have no causes to reorder: their messages must be equal.
                None if c1.is_empty() && m1 == m2 => Agreement::Same,
                _ => Agreement::Differs(
                    "the same causes, but a message no order of them explains".into(),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crd_cel::validate::{BadValue, ErrorType, FieldError};

    fn err(path: &str, detail: &str) -> FieldError {
        FieldError {
            kind: ErrorType::Invalid,
            path: path.into(),
            value: BadValue::Omitted,
            detail: detail.into(),
        }
    }

    fn answer(errors: &[FieldError]) -> Answer {
        let e = ValidationErrors {
            errors: errors.to_vec(),
        };
        Answer::of_errors(&e, "Foo", "example.com", "x")
    }

    fn rebuild(errors: &[FieldError]) -> impl Fn(&[usize]) -> Option<String> + '_ {
        |order: &[usize]| {
            let e = ValidationErrors {
                errors: order.iter().map(|&i| errors[i].clone()).collect(),
            };
            Some(e.status_message("Foo", "example.com", "x"))
        }
    }

    #[test]
    fn causes_carry_the_error_without_its_field() {
        let a = answer(&[err("spec.a", "too big")]);
        let Answer::Refused {
            message, causes, ..
        } = a
        else {
            panic!()
        };
        assert_eq!(
            message,
            r#"Foo.example.com "x" is invalid: spec.a: Invalid value: too big"#
        );
        assert_eq!(causes[0].message, "Invalid value: too big");
        assert_eq!(causes[0].field, "spec.a");
        assert_eq!(causes[0].reason, "FieldValueInvalid");
    }

    #[test]
    fn another_order_is_not_a_failure_another_set_is() {
        let ours = [err("spec.a", "a"), err("spec.b", "b")];
        let theirs = [err("spec.b", "b"), err("spec.a", "a")];
        let server = answer(&theirs);
        assert_eq!(
            compare(&server, &answer(&ours), rebuild(&ours)),
            Agreement::Order
        );
        assert_eq!(
            compare(&server, &answer(&theirs), rebuild(&theirs)),
            Agreement::Same
        );
        let fewer = [err("spec.a", "a")];
        assert!(compare(&server, &answer(&fewer), rebuild(&fewer)).is_failure());
        assert!(compare(&server, &Answer::Valid, |_| None).is_failure());
    }
}
