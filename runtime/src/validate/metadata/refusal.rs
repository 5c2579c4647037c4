//! The answers of the apiserver's request path that are not a 422 `Invalid` with field
//! errors: the handlers' strict decoding (400), the update handler's name check (400), the registry store's NotFound (404) and
//! Conflicts (409), and the etcd3 store's refusal of a resourceVersion on create (500).

use std::fmt;

use crate::validate::go_quoted;

/// A request the apiserver refuses before or after validation, with no field errors. `Display`
/// is the message of the apiserver's `Status`, as `kubectl` prints it after `Error from server
/// (...)`.
///
/// ```
/// use crd_cel::validate::{Conflict, Refusal};
///
/// let r = Refusal::NotFound { resource: "widgets.example.com".into(), name: "w2".into() };
/// assert_eq!(r.to_string(), r#"widgets.example.com "w2" not found"#);
/// let r = Refusal::Conflict {
///     resource: "widgets.example.com".into(),
///     name: "w1".into(),
///     reason: Conflict::Modified,
/// };
/// assert!(r.to_string().starts_with(r#"Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified"#));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// 400 BadRequest of the create and update handlers under `fieldValidation=Strict`: the
    /// body has repeated or unknown fields (`transformDecodeError` of a strict decoding error).
    StrictDecoding {
        /// The body's kind.
        kind: String,
        /// The version of the body's `apiVersion`.
        version: String,
        /// The kind the resource is served as.
        resource_kind: String,
        /// The errors: `duplicate field "spec.x"`, then `unknown field "spec.y"`.
        errors: Vec<String>,
    },
    /// 400 BadRequest of the create and update handlers: the body cannot be decoded, as when
    /// `metadata` has a field of the wrong JSON type (`transformDecodeError` of the CR
    /// decoder's error).
    Decoding {
        /// The body's kind.
        kind: String,
        /// The version of the body's `apiVersion`.
        version: String,
        /// The kind the resource is served as.
        resource_kind: String,
        /// The decoder's error (`json: cannot unmarshal number into Go struct field
        /// ObjectMeta.labels of type string`).
        error: String,
    },
    /// 400 BadRequest of the update handler: the body's name is not the URL's (an update
    /// whose body has no name: `was undeterminable: name must be provided`).
    NameMismatch {
        /// The body's name.
        object: String,
        /// The name on the URL.
        url: String,
    },
    /// 404 NotFound of `Store.Update`: no object is stored under the name and namespace of
    /// the update (an update cannot rename an object or move it to another namespace).
    NotFound {
        /// The resource, `plural.group` (apimachinery's `GroupResource.String()`).
        resource: String,
        /// The object's name.
        name: String,
    },
    /// 409 Conflict of `Store.Update`.
    Conflict {
        /// The resource, `plural.group`.
        resource: String,
        /// The object's name.
        name: String,
        /// Why.
        reason: Conflict,
    },
    /// 422 Invalid of `Store.Update`: a PUT without `metadata.resourceVersion` (custom
    /// resources allow no unconditional update; see `UpdateMethod::Put`).
    ResourceVersionRequired {
        /// The resource, `plural.group` (the Status names it as its kind).
        resource: String,
        /// The object's name.
        name: String,
    },
    /// The etcd3 store's `ErrResourceVersionSetOnCreate`: a create whose object has a
    /// resourceVersion (answered after validation, only when the object is valid).
    ResourceVersionSetOnCreate,
}

/// Why an update conflicts with the stored object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    /// The update's resourceVersion is not the stored one (the optimistic lock).
    Modified,
    /// The update's uid is not the stored one (`storage.Preconditions.Check`).
    Uid {
        /// The storage key, as the etcd3 store prints it (`/registry/<group>/<plural>/...`).
        key: String,
        /// The update's uid.
        precondition: String,
        /// The stored object's uid.
        stored: String,
    },
}

impl Refusal {
    /// The field errors of the Status, for the refusals that carry some (the causes of
    /// [`Refusal::ResourceVersionRequired`]'s 422; the others have none).
    pub fn field_errors(&self) -> Vec<crate::validate::FieldError> {
        match self {
            Refusal::ResourceVersionRequired { .. } => vec![crate::validate::FieldError {
                kind: crate::validate::ErrorType::Invalid,
                path: "metadata.resourceVersion".into(),
                value: crate::validate::BadValue::Value(0.into()),
                detail: "must be specified for an update".into(),
            }],
            _ => Vec::new(),
        }
    }

    /// The `reason` of the apiserver's Status (`BadRequest`, `NotFound`, `Conflict`,
    /// `InternalError`).
    pub const fn reason(&self) -> &'static str {
        match self {
            Refusal::StrictDecoding { .. }
            | Refusal::Decoding { .. }
            | Refusal::NameMismatch { .. } => "BadRequest",
            Refusal::NotFound { .. } => "NotFound",
            Refusal::Conflict { .. } => "Conflict",
            Refusal::ResourceVersionRequired { .. } => "Invalid",
            Refusal::ResourceVersionSetOnCreate => "InternalError",
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::StrictDecoding {
                kind,
                version,
                resource_kind,
                errors,
            } => write!(
                f,
                "{kind} in version {} cannot be handled as a {resource_kind}: strict decoding error: {}",
                go_quoted(version),
                errors.join(", ")
            ),
            Refusal::Decoding {
                kind,
                version,
                resource_kind,
                error,
            } => write!(
                f,
                "{kind} in version {} cannot be handled as a {resource_kind}: {error}",
                go_quoted(version)
            ),
            // The handler's `checkName`: the namer refuses an empty name before comparing.
            Refusal::NameMismatch { object, url } if object.is_empty() => write!(
                f,
                "the name of the object ({url} based on URL) was undeterminable: name must be provided"
            ),
            Refusal::NameMismatch { object, url } => write!(
                f,
                "the name of the object ({object}) does not match the name on the URL ({url})"
            ),
            // `errors.NewInvalid` of the store, whose "kind" is the resource.
            Refusal::ResourceVersionRequired { resource, name } => {
                let errors = crate::validate::ValidationErrors {
                    errors: self.field_errors(),
                };
                let (plural, group) = resource.split_once('.').unwrap_or((resource, ""));
                f.write_str(&errors.status_message(plural, group, name))
            }
            Refusal::NotFound { resource, name } => {
                write!(f, "{resource} {} not found", go_quoted(name))
            }
            Refusal::Conflict {
                resource,
                name,
                reason,
            } => {
                write!(
                    f,
                    "Operation cannot be fulfilled on {resource} {}: ",
                    go_quoted(name)
                )?;
                match reason {
                    Conflict::Modified => f.write_str(
                        "the object has been modified; please apply your changes to the latest version and try again",
                    ),
                    Conflict::Uid {
                        key,
                        precondition,
                        stored,
                    } => write!(
                        f,
                        "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {precondition}, UID in object meta: {stored}"
                    ),
                }
            }
            Refusal::ResourceVersionSetOnCreate => {
                f.write_str("resourceVersion should not be set on objects to be created")
            }
        }
    }
}

impl std::error::Error for Refusal {}
