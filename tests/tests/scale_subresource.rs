//! kube's `#[kube(scale(..))]` on a typed resource: `validate()` checks the replicas at both
//! paths (integers from 0 to 2147483647) and the selector (a string), as the apiserver does on
//! every write, with the texts the manifest path of the same `Foo::crd()` gives (which
//! `tests/validate/scale-subresource` compares with the oracle). Both spellings of the
//! attribute: `scale(..)` and kube's older JSON string.

use crd_cel::{CelValidate, Validator};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A resource with the scale subresource written as `scale(..)`.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Pool",
    namespaced,
    status = "PoolStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    )
)]
pub struct PoolSpec {
    /// The scale subresource's `specReplicasPath`.
    pub replicas: i64,
}

/// `Pool`'s status.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug, Default)]
pub struct PoolStatus {
    /// The scale subresource's `statusReplicasPath`.
    pub replicas: i64,
    /// Its `labelSelectorPath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// The same with kube's older JSON string form, and no selector.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "Fleet",
    namespaced,
    status = "FleetStatus",
    scale = r#"{"specReplicasPath":".spec.size", "statusReplicasPath":".status.size"}"#
)]
pub struct FleetSpec {
    /// `specReplicasPath`.
    pub size: i32,
}

/// `Fleet`'s status.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Debug, Default)]
pub struct FleetStatus {
    /// `statusReplicasPath`.
    pub size: i32,
}

/// The typed path's verdict and text, and the manifest path's for the same object: a create,
/// or with `status_of` a status update from it (the typed path validates the whole value,
/// `status` included, which a create through the main resource would drop).
fn both<T: CelValidate + CustomResourceExt + Serialize>(
    object: &T,
    kind: &str,
    status_of: Option<&T>,
) -> (String, String) {
    use crd_cel::validate::Endpoint;
    let typed = match object.validate() {
        Ok(()) => String::new(),
        Err(e) => e.status_message(kind, "example.com", "p"),
    };
    let v = Validator::from_crd(&serde_json::to_value(T::crd()).unwrap(), None).unwrap();
    let json = serde_json::to_value(object).unwrap();
    let out = match status_of {
        None => v.validate_request(&json, None, Endpoint::Resource),
        Some(old) => {
            let old = serde_json::to_value(old).unwrap();
            v.validate_request(&json, Some(&old), Endpoint::Status)
        }
    };
    let manifest = if out.is_valid() {
        String::new()
    } else {
        out.errors.status_message(kind, "example.com", "p")
    };
    (typed, manifest)
}

fn pool(replicas: i64, status: Option<PoolStatus>) -> Pool {
    let mut p = Pool::new("p", PoolSpec { replicas });
    p.metadata.namespace = Some("default".into());
    p.status = status;
    p
}

#[test]
fn replicas_in_range_are_valid() {
    let p = pool(
        3,
        Some(PoolStatus {
            replicas: 2,
            selector: Some("app=x".into()),
        }),
    );
    assert_eq!(both(&p, "Pool", None), (String::new(), String::new()));
}

#[test]
fn negative_or_too_large_replicas_are_refused_as_the_manifest_path_refuses_them() {
    let valid = pool(3, Some(PoolStatus::default()));
    for (spec, status) in [(-1, 0), (3, -2), (i64::from(i32::MAX) + 1, 0), (3, 1 << 40)] {
        let p = pool(
            spec,
            Some(PoolStatus {
                replicas: status,
                selector: None,
            }),
        );
        let status_update = (status != 0).then_some(&valid);
        let (typed, manifest) = both(&p, "Pool", status_update);
        assert!(!typed.is_empty(), "spec {spec}, status {status}: accepted");
        assert_eq!(typed, manifest, "spec {spec}, status {status}");
        assert!(typed.contains("replicas"), "{typed}");
    }
}

/// Every boundary of both ranges, with and without a status and a selector: the typed path
/// (which reads the replicas and selector from their paths without serializing the object)
/// gives the manifest path's verdict and text.
#[test]
fn every_boundary_agrees_with_the_manifest_path() {
    let max = i64::from(i32::MAX);
    let valid = pool(3, Some(PoolStatus::default()));
    for spec in [-1, 0, 1, max, max + 1] {
        for status in [None, Some(-1), Some(0), Some(max), Some(max + 1)] {
            for selector in [None, Some("app=x")] {
                let status_bad = status.is_some_and(|s| !(0..=max).contains(&s));
                if status_bad && !(0..=max).contains(&spec) {
                    // Both parts bad: no single request of the apiserver checks both.
                    continue;
                }
                let p = pool(
                    spec,
                    status.map(|replicas| PoolStatus {
                        replicas,
                        selector: selector.map(str::to_owned),
                    }),
                );
                let (typed, manifest) = both(&p, "Pool", status_bad.then_some(&valid));
                assert_eq!(
                    typed, manifest,
                    "spec {spec}, status {status:?}, {selector:?}"
                );
            }
        }
    }
}

#[test]
fn the_older_json_form_is_read_too() {
    let mut f = Fleet::new("p", FleetSpec { size: -1 });
    f.metadata.namespace = Some("default".into());
    let (typed, manifest) = both(&f, "Fleet", None);
    assert_eq!(typed, manifest);
    assert!(typed.contains("spec.size"), "{typed}");
    f.spec.size = 1;
    assert_eq!(both(&f, "Fleet", None), (String::new(), String::new()));
}
