//! Rules that read into k8s-openapi types: a pod template and compute resources.
//!
//! `cargo run -p crd-cel-examples --example pod_template`
//!
//! A CRD that embeds a `PodTemplateSpec` (as Deployments and Jobs do) can put rules on what is
//! inside it: the containers, their resources, their quantities. k8s-openapi's types have
//! build-time models, so `cargo build` type-checks these rules (a typo such as `c.imgae` or
//! `self.limit` fails the build, naming the fields that exist) and estimates their cost, as the
//! apiserver does when the CRD is created. At runtime `validate()` gives the apiserver's verdict
//! and message.

use std::collections::BTreeMap;

use crd_cel::CelValidate;
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// A pool of workers: pods from a template, with the resources each container gets by default.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "batch.example.com",
    version = "v1",
    kind = "Worker",
    namespaced
)]
// A rule on the spec reads two levels into the template.
#[cel(
    rule = "has(self.template.spec) && self.template.spec.containers.size() <= 4",
    message = "a worker runs one to four containers"
)]
#[serde(rename_all = "camelCase")]
pub struct WorkerSpec {
    /// The pods to run. `self` is the `PodTemplateSpec`: `self.spec.containers` is the
    /// container list, each `c.resources.limits` a map of quantities.
    #[cel(
        rule = "!has(self.spec) || self.spec.containers.all(c, \
                has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)",
        message = "every container needs a memory limit"
    )]
    pub template: PodTemplateSpec,

    /// Default resources of each container. Quantities are strings (`500m`, `2Gi`): CEL's
    /// `quantity()` reads them, so `1024Mi` and `1Gi` compare equal.
    #[cel(
        rule = "!has(self.limits) || !('memory' in self.limits) || \
                quantity(self.limits['memory']).compareTo(quantity('64Gi')) <= 0",
        message = "at most 64Gi of memory"
    )]
    #[cel(
        rule = "!has(self.requests) || !has(self.limits) || \
                !('cpu' in self.requests) || !('cpu' in self.limits) || \
                quantity(self.requests['cpu']).compareTo(quantity(self.limits['cpu'])) <= 0",
        message = "the cpu request must not exceed the cpu limit"
    )]
    pub resources: ResourceRequirements,
}

/// `name: value` pairs as a map of quantities.
fn quantities(pairs: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), Quantity((*v).to_owned())))
        .collect()
}

/// A container running `image`, with a memory limit when one is given.
fn container(name: &str, image: &str, memory_limit: Option<&str>) -> Container {
    Container {
        name: name.into(),
        image: Some(image.into()),
        resources: memory_limit.map(|m| ResourceRequirements {
            limits: Some(quantities(&[("memory", m)])),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A worker whose template runs `containers`, with these default resources.
fn worker(containers: Vec<Container>, resources: ResourceRequirements) -> Worker {
    let template = PodTemplateSpec {
        spec: Some(PodSpec {
            containers,
            ..Default::default()
        }),
        ..Default::default()
    };
    Worker::new(
        "crawler",
        WorkerSpec {
            template,
            resources,
        },
    )
}

fn main() {
    let resources = |requests: &[(&str, &str)], limits: &[(&str, &str)]| ResourceRequirements {
        requests: Some(quantities(requests)),
        limits: Some(quantities(limits)),
        ..Default::default()
    };
    let ok_resources = resources(&[("cpu", "500m")], &[("cpu", "1"), ("memory", "1024Mi")]);

    // `validate()` answers as the apiserver would on `kubectl create`: `Ok(())`, or the
    // errors with the apiserver's paths and messages.
    let cases = [
        (
            "a valid worker",
            worker(
                vec![container("main", "crawler:1.2", Some("1Gi"))],
                ok_resources.clone(),
            ),
            None,
        ),
        (
            "a container without a memory limit",
            worker(
                vec![
                    container("main", "crawler:1.2", Some("1Gi")),
                    container("sidecar", "proxy:3", None),
                ],
                ok_resources.clone(),
            ),
            Some("spec.template: Invalid value: every container needs a memory limit"),
        ),
        (
            "five containers",
            worker(
                (0..5)
                    .map(|i| container(&format!("c{i}"), "crawler:1.2", Some("1Gi")))
                    .collect(),
                ok_resources.clone(),
            ),
            Some("spec: Invalid value: a worker runs one to four containers"),
        ),
        (
            // 65536Mi is 64Gi: allowed. 65537Mi is not. Quantities compare by value.
            "65537Mi of memory, and a cpu request over its limit",
            worker(
                vec![container("main", "crawler:1.2", Some("1Gi"))],
                resources(&[("cpu", "1500m")], &[("cpu", "1"), ("memory", "65537Mi")]),
            ),
            Some(
                "[spec.resources: Invalid value: at most 64Gi of memory, \
                 spec.resources: Invalid value: the cpu request must not exceed the cpu limit]",
            ),
        ),
        (
            "65536Mi (exactly 64Gi) and a request equal to its limit",
            worker(
                vec![container("main", "crawler:1.2", Some("1Gi"))],
                resources(&[("cpu", "1000m")], &[("cpu", "1"), ("memory", "65536Mi")]),
            ),
            None,
        ),
    ];

    for (what, worker, expected) in cases {
        let verdict = worker.validate();
        match &verdict {
            Ok(()) => println!("{what}: valid"),
            // The whole text `kubectl apply` would print.
            Err(errors) => println!(
                "{what}: {}",
                errors.status_message("Worker", "batch.example.com", "crawler")
            ),
        }
        // What this example demonstrates: the verdict and the exact message.
        assert_eq!(
            verdict.map_err(|e| e.to_string()),
            expected.map_or(Ok(()), |m| Err(m.to_owned())),
            "{what}"
        );
    }

    // The check `cargo build` ran on each rule, callable at runtime too: what the apiserver
    // says when the CRD is created, with each rule's estimated cost (the rule's worst case
    // times how many times it can run) against the per-rule limit. The containers rule is the
    // costly one: the container list has no `maxItems`, so the apiserver assumes as many as
    // fit in a request.
    let report =
        crd_cel::crd::check_resource::<Worker>(&Default::default()).expect("the schema generates");
    assert!(report.accepted(), "{}", report.text());
    for rule in &report.rules {
        println!(
            "estimated cost {:>9} (limit {}) of {}",
            rule.estimated_cost,
            crd_cel::cost::PER_EXPRESSION_LIMIT,
            rule.path
        );
    }
    println!("pod_template: every verdict is as expected");
}
