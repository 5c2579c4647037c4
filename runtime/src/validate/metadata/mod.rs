//! ObjectMeta and the request path around validation: what the apiserver's create and update
//! handlers and the generic registry do with an object's `metadata` before and after the
//! custom-resource strategy validates it (`k8s.io/apiserver/pkg/registry/rest/create.go`,
//! `update.go`, `pkg/registry/generic/registry/store.go`), for a request a client sends for
//! the object (a namespaced object is posted to its own namespace, else to the default one;
//! an update is a PUT to the URL of the object's name and namespace).
//!
//! * create: the system fields a client may not set are wiped, the namespace is cleared for a
//!   cluster-scoped kind and defaulted for a namespaced one, a name is made from
//!   `generateName` ([`GENERATED_NAME_SUFFIX`]); after validation the storage refuses an
//!   object with a resourceVersion.
//! * update: the old object is completed as the create path stored it; another name or
//!   namespace is a NotFound, another uid or resourceVersion a Conflict ([`Refusal`]).
//! * ObjectMeta validation ([`objectmeta`]) and the strategy's finalizer warnings.

mod names;
mod objectmeta;
mod refusal;
mod unmarshal;

use serde_json::{Map, Value as Json};

pub use names::GENERATED_NAME_SUFFIX;
pub(crate) use names::{NameFn, is_dns1035_label};
pub(crate) use objectmeta::{Meta, finalizer_warnings, validate, validate_update};
pub use refusal::{Conflict, Refusal};
pub(crate) use unmarshal::{metadata_error, object_meta_error};

use super::{BadValue, ErrorType, FieldError};

/// Whether a kind's objects live in a namespace (a CRD's `spec.scope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// `Namespaced`.
    #[default]
    Namespaced,
    /// `Cluster`.
    Cluster,
}

/// The resource a [`Validator`](super::Validator)'s objects are: what the apiserver's request
/// path needs to know of the CRD (its group, served version, kind, plural and scope).
///
/// ```
/// use crd_cel::validate::{Resource, Scope};
///
/// let r = Resource::new("example.com", "v1", "Widget", "widgets", Scope::Namespaced);
/// assert_eq!(r.group_resource(), "widgets.example.com");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// `spec.group`.
    pub group: String,
    /// The served version objects are validated with.
    pub version: String,
    /// The kind (`status.acceptedNames.kind`, else `spec.names.kind`).
    pub kind: String,
    /// `spec.names.plural`.
    pub plural: String,
    /// `spec.scope`.
    pub scope: Scope,
}

impl Resource {
    /// A resource from its names.
    pub fn new(
        group: impl Into<String>,
        version: impl Into<String>,
        kind: impl Into<String>,
        plural: impl Into<String>,
        scope: Scope,
    ) -> Resource {
        Resource {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            plural: plural.into(),
            scope,
        }
    }

    /// The resource of a CRD manifest at `version`.
    pub(super) fn of_crd(crd: &Json, version: &str) -> Resource {
        let s = |p: &str| crd.pointer(p).and_then(Json::as_str).unwrap_or_default();
        let kind = match s("/status/acceptedNames/kind") {
            "" => s("/spec/names/kind"),
            k => k,
        };
        Resource::new(
            s("/spec/group"),
            version,
            kind,
            s("/spec/names/plural"),
            if s("/spec/scope") == "Cluster" {
                Scope::Cluster
            } else {
                Scope::Namespaced
            },
        )
    }

    fn namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }

    /// apimachinery's `GroupResource.String()`: `plural.group` (the plural alone in the core
    /// group), as NotFound and Conflict messages name the resource.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// The etcd key the etcd3 store prints in storage errors (default prefix `/registry`).
    fn storage_key(&self, namespace: &str, name: &str) -> String {
        if self.namespaced() {
            format!(
                "/registry/{}/{}/{namespace}/{name}",
                self.group, self.plural
            )
        } else {
            format!("/registry/{}/{}/{name}", self.group, self.plural)
        }
    }

    /// The namespace of the request a client sends for an object with this `metadata.namespace`.
    pub(super) fn request_namespace(&self, object: &Json, default: &str) -> String {
        if !self.namespaced() {
            return String::new();
        }
        match Meta::of(object).str("namespace") {
            "" => default.to_owned(),
            ns => ns.to_owned(),
        }
    }

    /// The custom-resource validator's `ValidateTypeMeta`.
    pub(super) fn type_meta_errors(&self, object: &Json) -> Vec<FieldError> {
        let mut out = Vec::new();
        let s = |k: &str| object.get(k).and_then(Json::as_str).unwrap_or_default();
        if s("kind") != self.kind {
            out.push(FieldError {
                kind: ErrorType::Invalid,
                path: "kind".into(),
                value: BadValue::Value(s("kind").into()),
                detail: format!("must be {}", self.kind),
            });
        }
        let api_version = format!("{}/{}", self.group, self.version);
        if s("apiVersion") != api_version {
            out.push(FieldError {
                kind: ErrorType::Invalid,
                path: "apiVersion".into(),
                value: BadValue::Value(s("apiVersion").into()),
                detail: format!("must be {api_version}"),
            });
        }
        out
    }

    /// What the create handler and `Store.create` do before `rest.BeforeCreate`:
    /// `WipeObjectMetaSystemFields`, `EnsureObjectNamespaceMatchesRequestNamespace` (which
    /// clears the namespace of a cluster-scoped object and sets a missing one), and a name
    /// from `generateName` when there is none.
    pub(super) fn prepare_create(&self, object: &mut Json, request_namespace: &str) {
        let meta = if self.namespaced() {
            metadata_mut(object)
        } else {
            existing_metadata_mut(object)
        };
        let Some(meta) = meta else {
            return;
        };
        for system in [
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "selfLink",
        ] {
            meta.remove(system);
        }
        self.ensure_namespace(meta, request_namespace);
        generate_name(meta);
    }

    fn ensure_namespace(&self, meta: &mut Map<String, Json>, request_namespace: &str) {
        if !self.namespaced() {
            meta.remove("namespace");
        } else if meta_str(meta, "namespace").is_empty() {
            meta.insert("namespace".into(), request_namespace.into());
        }
    }

    /// The old object as the apiserver has it stored: as the create path left it (no
    /// namespace for a cluster-scoped kind, the request's when it had none, a name from
    /// `generateName`), with what a record leaves out taken from the update (the client read
    /// what it updates: name, uid, resourceVersion), else fixed values (uid
    /// `00000000-0000-0000-0000-000000000001`, resourceVersion `1`), and generation 1.
    pub(super) fn as_stored(&self, old: &mut Json, new: &Json, request_namespace: &str) {
        let new = Meta::of(new);
        let Some(meta) = metadata_mut(old) else {
            return;
        };
        if !self.namespaced() {
            meta.remove("namespace");
        } else if meta_str(meta, "namespace").is_empty() {
            meta.insert("namespace".into(), request_namespace.into());
        }
        generate_name(meta);
        for (key, fallback) in [
            ("name", ""),
            ("uid", "00000000-0000-0000-0000-000000000001"),
            ("resourceVersion", "1"),
        ] {
            if meta_str(meta, key).is_empty() {
                let value = match new.str(key) {
                    "" => fallback,
                    v => v,
                };
                meta.insert(key.into(), value.into());
            }
        }
        if meta.get("generation").and_then(Json::as_i64).unwrap_or(0) == 0 {
            meta.insert("generation".into(), 1.into());
        }
    }

    /// What the update handler and `Store.Update` check before `rest.BeforeUpdate`: the
    /// namespace, the body's name against the URL's, that an object is stored under that name
    /// and namespace, the uid precondition and the resourceVersion (a missing one is the one
    /// read).
    pub(super) fn prepare_update(
        &self,
        new: &mut Json,
        old: &Json,
        request_namespace: &str,
        put: bool,
    ) -> Result<(), Refusal> {
        let meta = if self.namespaced() {
            metadata_mut(new)
        } else {
            existing_metadata_mut(new)
        };
        if let Some(meta) = meta {
            self.ensure_namespace(meta, request_namespace);
        }
        let stored = Meta::of(old);
        let body = Meta::of(new);
        let name = match body.str("name") {
            "" => stored.str("name"),
            n => n,
        };
        if body.str("name") != name {
            return Err(Refusal::NameMismatch {
                object: body.str("name").to_owned(),
                url: name.to_owned(),
            });
        }
        if name != stored.str("name") || request_namespace != stored.str("namespace") {
            return Err(Refusal::NotFound {
                resource: self.group_resource(),
                name: name.to_owned(),
            });
        }
        let uid = body.str("uid");
        if !uid.is_empty() && uid != stored.str("uid") {
            return Err(Refusal::Conflict {
                resource: self.group_resource(),
                name: name.to_owned(),
                reason: Conflict::Uid {
                    key: self.storage_key(request_namespace, name),
                    precondition: uid.to_owned(),
                    stored: stored.str("uid").to_owned(),
                },
            });
        }
        let stored_version = stored.str("resourceVersion");
        // A PUT carries what the client sent; a custom resource allows no unconditional
        // update (`Store.Update`), before the optimistic lock is checked.
        if put && body.str("resourceVersion").is_empty() {
            return Err(Refusal::ResourceVersionRequired {
                resource: self.group_resource(),
                name: name.to_owned(),
            });
        }
        let conflict = match body.str("resourceVersion") {
            "" => false,
            v => v != stored_version,
        };
        if conflict {
            return Err(Refusal::Conflict {
                resource: self.group_resource(),
                name: name.to_owned(),
                reason: Conflict::Modified,
            });
        }
        if body.str("resourceVersion").is_empty()
            && let Some(meta) = metadata_mut(new)
        {
            meta.insert("resourceVersion".into(), stored_version.into());
        }
        Ok(())
    }
}

/// What `rest.BeforeUpdate` takes from the old object (after the strategy's
/// `PrepareForUpdate`): the generation (one more when anything but `metadata` changed), the
/// uid when the update has none, the creation and deletion timestamps and the deletion grace
/// period.
pub(super) fn before_update(new: &mut Json, old: &Json) {
    let stored = Meta::of(old);
    let changed = match (new.as_object(), old.as_object()) {
        (Some(n), Some(o)) => n
            .iter()
            .filter(|(k, _)| *k != "metadata")
            .ne(o.iter().filter(|(k, _)| *k != "metadata")),
        _ => false,
    };
    let old_meta = old.get("metadata").and_then(Json::as_object).cloned();
    let Some(meta) = metadata_mut(new) else {
        return;
    };
    let generation = old_meta
        .as_ref()
        .and_then(|m| m.get("generation"))
        .and_then(Json::as_i64)
        .unwrap_or(0);
    meta.insert(
        "generation".into(),
        (generation + i64::from(changed)).into(),
    );
    if meta_str(meta, "uid").is_empty() {
        meta.insert("uid".into(), stored.str("uid").into());
    }
    let Some(old_meta) = old_meta else {
        return;
    };
    for key in ["creationTimestamp", "deletionTimestamp"] {
        if let Some(v) = old_meta.get(key).filter(|v| !v.is_null()) {
            meta.insert(key.into(), v.clone());
        }
    }
    if meta
        .get("deletionGracePeriodSeconds")
        .is_none_or(Json::is_null)
        && let Some(v) = old_meta
            .get("deletionGracePeriodSeconds")
            .filter(|v| !v.is_null())
    {
        meta.insert("deletionGracePeriodSeconds".into(), v.clone());
    }
}

/// The etcd3 store's answer to a valid create: an object with a resourceVersion (one that
/// parses as a non-zero unsigned integer) is refused.
pub(super) fn store_create(object: &Json) -> Option<Refusal> {
    let rv = Meta::of(object).str("resourceVersion");
    rv.parse::<u64>()
        .is_ok_and(|v| v != 0)
        .then_some(Refusal::ResourceVersionSetOnCreate)
}

/// Sets `metadata.generation` (the custom-resource strategy's `PrepareForCreate` sets 1).
pub(super) fn set_generation(object: &mut Json, generation: i64) {
    if let Some(meta) = metadata_mut(object) {
        meta.insert("generation".into(), generation.into());
    }
}

/// The object's name (after the request path: a generated one).
pub(super) fn name_of(object: &Json) -> String {
    Meta::of(object).str("name").to_owned()
}

fn meta_str<'a>(meta: &'a Map<String, Json>, key: &str) -> &'a str {
    meta.get(key).and_then(Json::as_str).unwrap_or_default()
}

/// The object's `metadata`, made an empty object when missing or null (as apimachinery's
/// setters do); `None` when the object is not an object or its metadata is of another type.
fn metadata_mut(object: &mut Json) -> Option<&mut Map<String, Json>> {
    let obj = object.as_object_mut()?;
    let meta = obj
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()));
    if meta.is_null() {
        *meta = Json::Object(Map::new());
    }
    meta.as_object_mut()
}

/// The object's `metadata` when it has one (what apimachinery's removals and reads need).
fn existing_metadata_mut(object: &mut Json) -> Option<&mut Map<String, Json>> {
    object.get_mut("metadata")?.as_object_mut()
}

/// `strategy.GenerateName` when `generateName` is set and `name` is not.
fn generate_name(meta: &mut Map<String, Json>) {
    let base = meta_str(meta, "generateName");
    if !base.is_empty() && meta_str(meta, "name").is_empty() {
        let name = names::generate_name(base);
        meta.insert("name".into(), name.into());
    }
}
