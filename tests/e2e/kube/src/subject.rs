//! A CRD under test and its Rust type: a kube root (`Foo::crd()`, `Api<Foo>`, `Foo::validate()`)
//! or a spec type that is not a root (its CRD as the UI pass cases build it, objects through
//! `Api<DynamicObject>`, `Spec::validate()` on the object's `spec`).

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;

use crd_cel::{CelValidate, ValidationErrors};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Patch, PatchParams, PostParams};
use kube::core::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, CustomResourceExt, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The field manager of every server-side apply.
pub const FIELD_MANAGER: &str = "crd-cel-e2e";

/// A write the typed client sends (`Api<K>`): the body is a JSON object that must read as a `K`.
#[derive(Debug, Clone)]
pub enum Op {
    /// `Api::create`.
    Create(Value),
    /// `Api::replace` of the object named.
    Replace(String, Value),
    /// `Api::replace_status`.
    ReplaceStatus(String, Value),
    /// `Api::patch` with `Patch::Merge`.
    Merge(String, Value),
    /// `Api::patch` with `Patch::Apply` (forced, [`FIELD_MANAGER`]).
    Apply(String, Value),
}

/// A future of the typed client.
pub type Sent<'a> = Pin<Box<dyn Future<Output = kube::Result<()>> + 'a>>;

/// What the Rust type of a subject can do.
trait Typed {
    fn validate(
        &self,
        new: &Value,
        old: Option<&Value>,
    ) -> Result<Result<(), ValidationErrors>, String>;
    fn roundtrip(&self, body: &Value) -> Option<Result<Value, String>>;
    fn send<'a>(&'a self, client: Client, namespace: &'a str, op: &'a Op) -> Option<Sent<'a>>;
}

/// `Api<K>` in a namespace or cluster-wide, as `K`'s scope says.
pub trait ScopedApi<K> {
    /// The API of `K` objects in `namespace` (ignored for a cluster-scoped `K`).
    fn api(client: Client, namespace: &str) -> Api<K>;
}

impl<K: Resource<Scope = NamespaceResourceScope, DynamicType = ()>> ScopedApi<K>
    for NamespaceResourceScope
{
    fn api(client: Client, namespace: &str) -> Api<K> {
        Api::namespaced(client, namespace)
    }
}

impl<K: Resource<Scope = ClusterResourceScope, DynamicType = ()>> ScopedApi<K>
    for ClusterResourceScope
{
    fn api(client: Client, _: &str) -> Api<K> {
        Api::all(client)
    }
}

struct Root<K>(std::marker::PhantomData<fn() -> K>);

fn read<T: DeserializeOwned>(v: &Value, what: &str) -> Result<T, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("not a value of {what}: {e}"))
}

impl<K> Typed for Root<K>
where
    K: CelValidate + Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + Debug,
    K::Scope: ScopedApi<K>,
{
    fn validate(
        &self,
        new: &Value,
        old: Option<&Value>,
    ) -> Result<Result<(), ValidationErrors>, String> {
        let name = std::any::type_name::<K>();
        let new: K = read(new, name)?;
        Ok(match old {
            None => new.validate(),
            Some(old) => new.validate_update(&read::<K>(old, name)?),
        })
    }

    fn roundtrip(&self, body: &Value) -> Option<Result<Value, String>> {
        Some(
            read::<K>(body, std::any::type_name::<K>()).and_then(|k| {
                serde_json::to_value(&k).map_err(|e| format!("does not serialize: {e}"))
            }),
        )
    }

    fn send<'a>(&'a self, client: Client, namespace: &'a str, op: &'a Op) -> Option<Sent<'a>> {
        Some(Box::pin(async move {
            let api: Api<K> = <K::Scope as ScopedApi<K>>::api(client, namespace);
            let pp = PostParams::default();
            let k = |v: &Value| -> K {
                serde_json::from_value(v.clone()).unwrap_or_else(|e| {
                    panic!(
                        "the typed client was given a body that is not a {}: {e}",
                        std::any::type_name::<K>()
                    )
                })
            };
            match op {
                Op::Create(body) => api.create(&pp, &k(body)).await.map(drop),
                Op::Replace(name, body) => api.replace(name, &pp, &k(body)).await.map(drop),
                Op::ReplaceStatus(name, body) => {
                    api.replace_status(name, &pp, &k(body)).await.map(drop)
                }
                Op::Merge(name, patch) => api
                    .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                    .await
                    .map(drop),
                Op::Apply(name, body) => api
                    .patch(
                        name,
                        &PatchParams::apply(FIELD_MANAGER).force(),
                        &Patch::Apply(&k(body)),
                    )
                    .await
                    .map(drop),
            }
        }))
    }
}

struct SpecOnly<T>(std::marker::PhantomData<fn() -> T>);

/// The start of the error the apiserver adds at the root when a schema error kept the rules
/// from running.
const NOT_CHECKED: &str = "some validation rules were not checked";

/// A field path of a spec type's own validation (`<nil>`, `a.b`, `[0]`) under `spec`.
fn under_spec(path: &str) -> String {
    match path {
        "<nil>" | "" => "spec".into(),
        p if p.starts_with('[') => format!("spec{p}"),
        p => format!("spec.{p}"),
    }
}

impl<T: CelValidate + DeserializeOwned> Typed for SpecOnly<T> {
    fn validate(
        &self,
        new: &Value,
        old: Option<&Value>,
    ) -> Result<Result<(), ValidationErrors>, String> {
        let name = std::any::type_name::<T>();
        let spec = |v: &Value| v.get("spec").cloned().unwrap_or(Value::Null);
        let new: T = read(&spec(new), name)?;
        let result = match old {
            None => new.validate(),
            Some(old) => new.validate_update(&read::<T>(&spec(old), name)?),
        };
        Ok(result.map_err(|mut e| {
            for error in &mut e.errors {
                // The request's own error stays at the root.
                if error.detail.starts_with(NOT_CHECKED) {
                    continue;
                }
                let path = under_spec(&error.path);
                // OpenAPI errors name the field in their text too.
                error.detail = error.detail.replace(
                    &format!("{} in body", error.path),
                    &format!("{path} in body"),
                );
                error.path = path;
            }
            e
        }))
    }

    fn roundtrip(&self, _: &Value) -> Option<Result<Value, String>> {
        None
    }

    fn send<'a>(&'a self, _: Client, _: &'a str, _: &'a Op) -> Option<Sent<'a>> {
        None
    }
}

/// A CRD under test, with its Rust type.
pub struct Subject {
    /// Where the type is defined (`tests/ui/pass/hygiene.rs`, `examples/src/lib.rs`).
    pub origin: &'static str,
    /// The Rust type (`crd_cel_examples::WebApp`).
    pub type_name: &'static str,
    /// Whether the type is a kube root (else a spec type under a CRD built for it).
    pub root: bool,
    /// The CRD as generated.
    pub crd: CustomResourceDefinition,
    /// The same as JSON.
    pub json: Value,
    typed: Box<dyn Typed>,
}

impl Subject {
    /// A kube root type: its CRD is `K::crd()`.
    pub fn resource<K>(origin: &'static str) -> Subject
    where
        K: CustomResourceExt
            + CelValidate
            + Resource<DynamicType = ()>
            + Serialize
            + DeserializeOwned
            + Clone
            + Debug
            + 'static,
        K::Scope: ScopedApi<K>,
    {
        let crd = K::crd();
        Subject {
            origin,
            type_name: std::any::type_name::<K>(),
            root: true,
            json: serde_json::to_value(&crd).expect("a CRD serializes"),
            crd,
            typed: Box::new(Root::<K>(std::marker::PhantomData)),
        }
    }

    /// A spec type that is not a kube root: its CRD is the UI pass cases'
    /// (`crd_cel_tests::crd_of_type::<T>()`: kind `Thing`, the type under `spec`) in `group`.
    pub fn spec_type<T>(origin: &'static str, group: &str) -> Subject
    where
        T: CelValidate + schemars::JsonSchema + DeserializeOwned + 'static,
    {
        let mut json = crd_cel_tests::crd_of_type::<T>();
        let plural = json["spec"]["names"]["plural"]
            .as_str()
            .expect("crd_of_type names a plural")
            .to_owned();
        json["spec"]["group"] = group.into();
        json["metadata"]["name"] = format!("{plural}.{group}").into();
        Subject {
            origin,
            type_name: std::any::type_name::<T>(),
            root: false,
            crd: serde_json::from_value(json.clone()).expect("crd_of_type is a CRD"),
            json,
            typed: Box::new(SpecOnly::<T>(std::marker::PhantomData)),
        }
    }

    /// `metadata.name` of the CRD.
    pub fn name(&self) -> &str {
        self.json["metadata"]["name"].as_str().unwrap_or_default()
    }

    /// `spec.group`.
    pub fn group(&self) -> &str {
        self.json["spec"]["group"].as_str().unwrap_or_default()
    }

    /// `spec.names.kind`.
    pub fn kind(&self) -> &str {
        self.json["spec"]["names"]["kind"]
            .as_str()
            .unwrap_or_default()
    }

    /// `spec.names.plural`.
    pub fn plural(&self) -> &str {
        self.json["spec"]["names"]["plural"]
            .as_str()
            .unwrap_or_default()
    }

    /// The storage version (the first one when none is marked).
    pub fn version(&self) -> &str {
        let versions = self.json["spec"]["versions"].as_array();
        versions
            .and_then(|vs| {
                vs.iter()
                    .find(|v| v["storage"] == true)
                    .or_else(|| vs.first())
            })
            .and_then(|v| v["name"].as_str())
            .unwrap_or_default()
    }

    /// `group/version`.
    pub fn api_version(&self) -> String {
        format!("{}/{}", self.group(), self.version())
    }

    /// Whether the objects live in a namespace.
    pub fn namespaced(&self) -> bool {
        self.json["spec"]["scope"] != "Cluster"
    }

    /// Validates `new` (an update from `old` when given) with the type's `validate()` /
    /// `validate_update()`; `Err` when the objects are not values of the type.
    pub fn validate_typed(
        &self,
        new: &Value,
        old: Option<&Value>,
    ) -> Result<Result<(), ValidationErrors>, String> {
        self.typed.validate(new, old)
    }

    /// `body` as `Api<K>` sends it (read as a `K` and serialized); `None` for a spec type (no
    /// typed client), `Some(Err)` when it is not a value of `K`.
    pub fn roundtrip(&self, body: &Value) -> Option<Result<Value, String>> {
        self.typed.roundtrip(body)
    }

    /// Sends `op` with `Api<K>`; `None` for a spec type.
    pub fn send_typed<'a>(
        &'a self,
        client: Client,
        namespace: &'a str,
        op: &'a Op,
    ) -> Option<Sent<'a>> {
        self.typed.send(client, namespace, op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_paths_go_under_spec() {
        assert_eq!(under_spec("<nil>"), "spec");
        assert_eq!(under_spec("a.b"), "spec.a.b");
        assert_eq!(under_spec("[0].a"), "spec[0].a");
    }

    #[test]
    fn every_ui_pass_case_is_compiled_here() {
        assert!(
            crate::ui_pass::NOT_INCLUDED.is_empty(),
            "UI pass cases whose CRD types were not found: {:?}",
            crate::ui_pass::NOT_INCLUDED
        );
        assert!(!crate::ui_pass::FILES.is_empty());
        let subjects = crate::ui_pass::subjects();
        for file in crate::ui_pass::FILES {
            assert!(
                subjects.iter().any(|s| s.origin == *file),
                "{file} has no subject"
            );
        }
        // Distinct CRDs: the tests apply them side by side.
        let mut names: Vec<&str> = subjects.iter().map(Subject::name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "two UI pass CRDs have one name");
    }
}
