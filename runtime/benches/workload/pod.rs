//! A second shape beside the anchor workload: a spec whose pod template (k8s-openapi's
//! `PodTemplateSpec`) has no view, so the typed path's checks serialize it alone while the rest
//! is read in place. `Viewed` is that; `Serialized` is the same spec with one more field written
//! by `serialize_with` (no view at all), which sends every object's checks through the serde
//! pass: the two side by side are what reading the checks on views saves, or costs, on such a
//! type.

use crd_cel::CelValidate;
use k8s_openapi::api::core::v1::{Container, ContainerPort, PodSpec, PodTemplateSpec};
use serde::Serialize;

fn as_is<S: serde::Serializer>(s: &str, out: S) -> Result<S::Ok, S::Error> {
    out.serialize_str(s)
}

/// A spec with a pod template and rules on its own fields.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
#[cel(rule = "self.minReplicas <= self.maxReplicas")]
pub struct Viewed {
    #[cel(rule = "self >= 1")]
    pub min_replicas: i32,
    pub max_replicas: i32,
    #[schemars(length(max = 63))]
    #[cel(rule = "self.matches('^[a-z0-9-]+$')")]
    pub name: String,
    pub template: PodTemplateSpec,
}

/// [`Viewed`] with a field written by `serialize_with`.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
#[cel(rule = "self.minReplicas <= self.maxReplicas")]
pub struct Serialized {
    #[cel(rule = "self >= 1")]
    pub min_replicas: i32,
    pub max_replicas: i32,
    #[schemars(length(max = 63))]
    #[cel(rule = "self.matches('^[a-z0-9-]+$')")]
    pub name: String,
    pub template: PodTemplateSpec,
    #[serde(serialize_with = "as_is")]
    pub note: String,
}

/// [`Viewed`] with two rules the views cannot run: one reads into the pod template (which has
/// no view), one builds a list literal. They run on the spec's value, built by serde; the
/// others stay on views (before rule-by-rule fallback, the whole type went to built values).
#[derive(CelValidate, Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
#[cel(rule = "self.minReplicas <= self.maxReplicas")]
#[cel(rule = "self.template.spec.containers.size() <= 5")]
#[cel(rule = "[self.minReplicas, self.maxReplicas].filter(x, x > 100).size() == 0")]
pub struct Mixed {
    #[cel(rule = "self >= 1")]
    pub min_replicas: i32,
    pub max_replicas: i32,
    #[schemars(length(max = 63))]
    #[cel(rule = "self.matches('^[a-z0-9-]+$')")]
    pub name: String,
    pub template: PodTemplateSpec,
}

/// A pod template of three containers with ports, as operators' specs hold them.
pub fn template() -> PodTemplateSpec {
    let container = |name: &str| Container {
        name: name.into(),
        image: Some(format!("registry.example.com/{name}:1.2.3")),
        args: Some(vec!["--port=8080".into(), "--verbose".into()]),
        ports: Some(vec![ContainerPort {
            container_port: 8080,
            name: Some("http".into()),
            ..ContainerPort::default()
        }]),
        ..Container::default()
    };
    PodTemplateSpec {
        metadata: None,
        spec: Some(PodSpec {
            containers: vec![container("app"), container("sidecar"), container("metrics")],
            ..PodSpec::default()
        }),
    }
}

pub fn viewed() -> Viewed {
    Viewed {
        min_replicas: 1,
        max_replicas: 3,
        name: "shop".into(),
        template: template(),
    }
}

pub fn serialized() -> Serialized {
    Serialized {
        min_replicas: 1,
        max_replicas: 3,
        name: "shop".into(),
        template: template(),
        note: "n".into(),
    }
}

pub fn mixed() -> Mixed {
    Mixed {
        min_replicas: 1,
        max_replicas: 3,
        name: "shop".into(),
        template: template(),
    }
}
