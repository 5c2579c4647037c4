//! The apiserver's custom-resource request path, in its order: the handler's decoding
//! (pruning, defaults), the registry's `status` handling, the OpenAPI schema checks, the scale
//! subresource's checks, the list-type checks, then the CEL rules (skipped after a blocking
//! schema error).

use serde_json::Value as Json;

use super::metadata::{self, Meta, NameFn, Scope};
use super::validator::{FieldValidation, Options, Outcome, RUNTIME_COST_BUDGET, Validator};
use super::{BadValue, Body, ErrorType, FieldError, Refusal};

/// Where a request goes, for the registry's handling of `status` in
/// [`Validator::validate_request`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Endpoint {
    /// The resource itself (a create, or an update of the main resource).
    #[default]
    Resource,
    /// The `/status` subresource (an update of `status`).
    Status,
}

impl Validator {
    /// A create (or, with `old`, an update) through the apiserver's custom-resource path: the
    /// handler's decoding ([`Validator::decode`], with its warnings), the registry's `status`
    /// handling (with the version's status subresource, see
    /// [`Validator::with_status_subresource`]; `endpoint` says whether the request is to
    /// `/status`), the OpenAPI schema errors, the scale subresource's errors (a CRD version with
    /// `subresources.scale`: replicas from 0 to 2147483647, a string selector) and list-type
    /// errors, then the CEL rules, which do not run after a blocking schema error. Errors are in
    /// the registry's order (schema, scale, list types, CEL).
    ///
    /// ```
    /// use crd_cel::validate::{Endpoint, Validator};
    /// use serde_json::json;
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"spec": {
    ///         "type": "object",
    ///         "x-kubernetes-validations": [{"rule": "self.min <= self.max"}],
    ///         "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}},
    ///     }},
    /// });
    /// let v = Validator::from_schema_json(&schema, true).unwrap();
    /// let object = json!({"apiVersion": "x/v1", "kind": "X", "spec": {"min": 3, "max": 2}});
    /// let out = v.validate_request(&object, None, Endpoint::Resource);
    /// assert_eq!(out.errors.to_string(), "spec: Invalid value: failed rule: self.min <= self.max");
    /// ```
    pub fn validate_request(
        &self,
        object: &Json,
        old: Option<&Json>,
        endpoint: Endpoint,
    ) -> Outcome {
        self.request(object, &[], old, endpoint, false).0
    }

    /// [`Validator::validate_request`] of a decoded request body, whose repeated fields the
    /// strict decoding reports with the unknown ones, as the request's `fieldValidation` says
    /// ([`Validator::with_field_validation`]).
    pub fn validate_body(&self, body: &Body, old: Option<&Json>, endpoint: Endpoint) -> Outcome {
        self.request(&body.object, &body.duplicate_fields, old, endpoint, false)
            .0
    }

    /// [`Validator::validate_body`] of `object` with the repeated fields `duplicate_fields`
    /// (see [`Body`]), and, when the request succeeds, the object as the
    /// apiserver would store it: what `kubectl apply --dry-run=server -o yaml` prints, less
    /// what the server invents (`uid`, `creationTimestamp`, `resourceVersion` on create,
    /// `managedFields`). It is the object validation saw: unknown fields pruned, defaults
    /// applied, the namespace and a `generateName` name set, `status` handled as the registry
    /// does, and `metadata.generation` (1 on create, one more on an update that changes more
    /// than `metadata`), when the validator knows its [`Resource`](super::Resource).
    ///
    /// ```
    /// use crd_cel::validate::{Endpoint, Validator};
    /// use serde_json::json;
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"spec": {
    ///         "type": "object",
    ///         "properties": {"replicas": {"type": "integer", "default": 1}},
    ///     }},
    /// });
    /// let v = Validator::from_schema_json(&schema, true).unwrap();
    /// let object = json!({"apiVersion": "x/v1", "kind": "X", "spec": {"extra": true}});
    /// let (out, stored) = v.dry_run(&object, &[], None, Endpoint::Resource);
    /// assert!(out.is_valid());
    /// assert_eq!(stored.unwrap()["spec"], json!({"replicas": 1}));
    /// ```
    pub fn dry_run(
        &self,
        object: &Json,
        duplicate_fields: &[String],
        old: Option<&Json>,
        endpoint: Endpoint,
    ) -> (Outcome, Option<Json>) {
        let (out, stored) = self.request(object, duplicate_fields, old, endpoint, true);
        let stored = stored.filter(|_| out.is_valid());
        (out, stored)
    }

    /// The request, and (when `keep` is set and nothing refused it) the object validated.
    fn request(
        &self,
        object: &Json,
        duplicates: &[String],
        old: Option<&Json>,
        endpoint: Endpoint,
        keep: bool,
    ) -> (Outcome, Option<Json>) {
        use std::borrow::Cow;
        // The CR decoder reads `metadata` into Go's ObjectMeta first, then coerces embedded
        // resources' type and object metadata: a field of the wrong type fails the request
        // (before its strict decoding errors too).
        if self.resource.is_some()
            && let Some(error) = metadata::object_meta_error(object).or_else(|| {
                super::embedded::coerce_error(&self.root, object).map(|e| e.to_string())
            })
        {
            let out = Outcome {
                remaining_budget: RUNTIME_COST_BUDGET,
                refusal: Some(self.decoding_error(object, error)),
                ..Outcome::default()
            };
            return (out, None);
        }
        // A model validator's values come from serde: nothing to prune, no defaults known.
        let (mut new, unknown): (Cow<'_, Json>, _) = if self.decodes {
            let (v, w) = self.decode(object);
            (Cow::Owned(v), w)
        } else {
            (Cow::Borrowed(object), Vec::new())
        };
        // The handler's strict decoding: repeated fields (the JSON decoder), then the fields
        // pruning dropped.
        let strict: Vec<String> = duplicates
            .iter()
            .map(|p| super::duplicate_field_error(p))
            .chain(unknown)
            .collect();
        let decode_warnings = match self.field_validation {
            FieldValidation::Strict if !strict.is_empty() => {
                let out = Outcome {
                    remaining_budget: RUNTIME_COST_BUDGET,
                    name: Some(metadata::name_of(&new)),
                    refusal: Some(self.strict_decoding_error(&new, strict)),
                    ..Outcome::default()
                };
                return (out, None);
            }
            FieldValidation::Warn => strict,
            FieldValidation::Strict | FieldValidation::Ignore => Vec::new(),
        };
        let mut old: Option<Cow<'_, Json>> = old.map(|o| {
            if self.decodes {
                Cow::Owned(self.decode(o).0)
            } else {
                Cow::Borrowed(o)
            }
        });
        // The handlers' and the store's handling of metadata before `rest.BeforeCreate` /
        // `rest.BeforeUpdate`.
        if let Some(resource) = &self.resource {
            let namespace = resource.request_namespace(&new, &self.default_namespace);
            let refused = match old.as_mut() {
                None => {
                    resource.prepare_create(new.to_mut(), &namespace);
                    None
                }
                Some(old) => {
                    resource.as_stored(old.to_mut(), &new, &namespace);
                    let put = self.update_method == super::validator::UpdateMethod::Put;
                    resource
                        .prepare_update(new.to_mut(), old, &namespace, put)
                        .err()
                }
            };
            if let Some(refusal) = refused {
                let out = Outcome {
                    warnings: decode_warnings,
                    remaining_budget: RUNTIME_COST_BUDGET,
                    name: Some(metadata::name_of(&new)),
                    refusal: Some(refusal),
                    ..Outcome::default()
                };
                return (out, None);
            }
        }
        let old = old.as_deref();
        if self.status_subresource {
            registry_status(new.to_mut(), old, endpoint);
        }
        if let (Some(_), Some(old)) = (&self.resource, old) {
            metadata::before_update(new.to_mut(), old);
        }
        let new = new;
        // rest's `validateCommonFields` on update, before the strategy.
        let mut common = Vec::new();
        if let (Some(resource), Some(old)) = (&self.resource, old) {
            metadata::validate(
                Meta::of(&new),
                resource.scope == Scope::Namespaced,
                NameFn::PathSegment,
                self.kubernetes_minor,
                &mut common,
            );
            metadata::validate_update(
                Meta::of(&new),
                Meta::of(old),
                self.kubernetes_minor,
                &mut common,
            );
        }
        // The strategy: kind and apiVersion (which, when wrong, replace the ObjectMeta and
        // schema errors), ObjectMeta, the schema, the scale subresource, embedded resources,
        // the list types, then the rules.
        let type_meta = self
            .resource
            .as_ref()
            .map(|r| r.type_meta_errors(&new))
            .unwrap_or_default();
        let mut schema_errors = if type_meta.is_empty() {
            let mut errors = Vec::new();
            if let Some(resource) = &self.resource {
                match old {
                    None => metadata::validate(
                        Meta::of(&new),
                        resource.scope == Scope::Namespaced,
                        NameFn::DnsSubdomain,
                        self.kubernetes_minor,
                        &mut errors,
                    ),
                    Some(old) => {
                        metadata::validate_update(
                            Meta::of(&new),
                            Meta::of(old),
                            self.kubernetes_minor,
                            &mut errors,
                        );
                    }
                }
            }
            let status_update =
                self.status_subresource && endpoint == Endpoint::Status && old.is_some();
            errors.extend(self.schema_errors(&new, old, status_update));
            // The scale subresource's replicas and selector (`ValidateScaleSpec` on create and
            // main-resource update, `ValidateScaleStatus` on both and on a status update).
            if let Some(scale) = &self.scale {
                if !status_update {
                    scale.spec_errors(&new, &mut errors);
                }
                scale.status_errors(&new, &mut errors);
            }
            // The CR strategy then checks embedded resources' apiVersion, kind and metadata
            // (the status strategy does not).
            if self.resource.is_some() && !status_update {
                super::embedded::check(&self.root, &new, self.kubernetes_minor, &mut errors);
            }
            errors
        } else {
            type_meta
        };
        schema_errors.extend(self.list_type_errors(&new, old));
        // Without rules there is no CEL validator to skip.
        let blocked = if self.root.rules_below {
            blocks_cel(&schema_errors)
        } else {
            None
        };
        let mut out = match blocked {
            Some(skipped) => {
                schema_errors.push(skipped);
                Outcome {
                    remaining_budget: RUNTIME_COST_BUDGET,
                    ..Outcome::default()
                }
            }
            None => self.validate(&new, old, &Options::default()),
        };
        out.errors.errors.splice(0..0, schema_errors);
        out.errors.errors.splice(0..0, common);
        out.warnings.splice(0..0, decode_warnings);
        if let Some(resource) = &self.resource {
            if old.is_none() && out.errors.is_empty() {
                // `rest.ValidateCreate`: the generic checks, only when the strategy found
                // nothing.
                metadata::validate(
                    Meta::of(&new),
                    resource.scope == Scope::Namespaced,
                    NameFn::PathSegment,
                    self.kubernetes_minor,
                    &mut out.errors.errors,
                );
            }
            if out.errors.is_empty() {
                if endpoint == Endpoint::Resource {
                    out.warnings.extend(metadata::finalizer_warnings(
                        Meta::of(&new),
                        old.map(Meta::of),
                    ));
                }
                if old.is_none() {
                    out.refusal = metadata::store_create(&new);
                }
            }
            out.name = Some(metadata::name_of(&new));
        }
        super::release::adapt_values(&mut out.errors.errors, self.kubernetes_minor);
        let stored = keep.then(|| {
            let mut stored = new.into_owned();
            if let (Some(_), None) = (&self.resource, old) {
                // The custom-resource strategy's `PrepareForCreate`.
                metadata::set_generation(&mut stored, 1);
            }
            stored
        });
        (out, stored)
    }

    /// The handler's refusal of a body with strict-decoding errors (`transformDecodeError`):
    /// the body's kind and version, and the kind the resource is served as.
    fn strict_decoding_error(&self, object: &Json, errors: Vec<String>) -> Refusal {
        let (kind, version, resource_kind) = self.decoded_as(object);
        Refusal::StrictDecoding {
            kind,
            version,
            resource_kind,
            errors,
        }
    }

    fn decoding_error(&self, object: &Json, error: String) -> Refusal {
        let (kind, version, resource_kind) = self.decoded_as(object);
        Refusal::Decoding {
            kind,
            version,
            resource_kind,
            error,
        }
    }

    /// The body's kind and version, and the kind the resource is served as: what
    /// `transformDecodeError` names.
    fn decoded_as(&self, object: &Json) -> (String, String, String) {
        let text = |key: &str| object.get(key).and_then(Json::as_str).unwrap_or_default();
        let kind = text("kind").to_owned();
        let version = text("apiVersion")
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        let resource_kind = self
            .resource
            .as_ref()
            .map_or_else(|| kind.clone(), |r| r.kind.clone());
        (kind, version, resource_kind)
    }
}

/// The registry's handling of `status` before validation (`PrepareForCreate`,
/// `PrepareForUpdate` of the CR strategies) of a version with the status subresource: a
/// create drops `status`, a main-resource update keeps the old `status`, and a status update
/// keeps everything but `status` from the old object. In place: the decoded object is the
/// request's own copy (cloning it cost as much as pruning it).
fn registry_status(object: &mut Json, old: Option<&Json>, endpoint: Endpoint) {
    let Some(obj) = object.as_object_mut() else {
        return;
    };
    match old {
        None => {
            obj.remove("status");
        }
        Some(old) if endpoint == Endpoint::Status => {
            let mut merged = old.clone();
            if let Some(m) = merged.as_object_mut() {
                match obj.remove("status") {
                    Some(s) => {
                        m.insert("status".into(), s);
                    }
                    None => {
                        m.remove("status");
                    }
                }
            }
            *object = merged;
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
}

/// Whether these schema errors make the apiserver skip every CEL rule (an error of type
/// Required, NotSupported, TooLong, TooMany or TypeInvalid), and the error it then appends.
pub(super) fn blocks_cel(errors: &[FieldError]) -> Option<FieldError> {
    errors
        .iter()
        .any(|e| super::openapi::is_blocking(e.kind))
        .then(|| FieldError {
            kind: ErrorType::Invalid,
            path: "<nil>".into(),
            value: BadValue::Value(Json::Null),
            detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation".into(),
        })
}
