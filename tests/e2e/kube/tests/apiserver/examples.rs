//! The examples crate's `WebApp`: the objects of `examples/objects/*.yaml` as kubectl sends them,
//! `WebApp` values as an operator builds them (the ones `cargo run --bin webapp` validates), and
//! objects the type cannot hold.

use std::collections::{BTreeMap, BTreeSet};

use crd_cel_e2e::{Rv, Server, Session, Subject, Via};
use crd_cel_examples::{
    Autoscaling, Port, Protocol, Resources, Tier, WebApp, WebAppSpec, WebAppStatus,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use serde_json::{Value, json};

use crate::common::{at, object, with, yaml};

fn spec() -> WebAppSpec {
    WebAppSpec {
        image: "shop:1.4.2".into(),
        replicas: 3,
        tier: Tier::Standard,
        ports: vec![Port {
            name: "http".into(),
            port: 8080,
            protocol: Protocol::Tcp,
        }],
        hostnames: BTreeSet::from(["shop.example.com".to_owned()]),
        labels: BTreeMap::from([("app".to_owned(), "shop".to_owned())]),
        autoscaling: None,
        resources: None,
    }
}

fn webapp(name: &str, spec: WebAppSpec) -> Value {
    serde_json::to_value(WebApp::new(name, spec)).expect("a WebApp serializes")
}

fn condition(type_: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: "True".into(),
        reason: "Ready".into(),
        message: "ok".into(),
        last_transition_time: Time("2026-01-01T00:00:00Z".parse().expect("a timestamp")),
        observed_generation: None,
    }
}

#[tokio::test]
async fn webapp_objects() {
    let test = "examples::webapp_objects";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject = Subject::resource::<WebApp>("examples/src/lib.rs");
    let mut s = Session::open(&server, &subject, "default").await;

    // examples/objects, as `kubectl create/replace -f` sends them.
    let shop = yaml("examples/objects/shop.yaml");
    let broken = yaml("examples/objects/shop-broken.yaml");
    let premium = yaml("examples/objects/shop-premium.yaml");
    s.create("shop-broken.yaml", broken.clone(), Via::Dynamic)
        .await;
    s.create("shop.yaml", shop.clone(), Via::Dynamic).await;
    s.replace(
        "shop-premium.yaml over shop.yaml",
        premium.clone(),
        Rv::Stored,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "shop-broken.yaml over shop.yaml",
        broken.clone(),
        Rv::Stored,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "shop-premium.yaml over shop.yaml, no resourceVersion",
        premium.clone(),
        Rv::Missing,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "shop.yaml, no resourceVersion",
        shop.clone(),
        Rv::Missing,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "shop.yaml, a stale resourceVersion",
        shop.clone(),
        Rv::Stale,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "shop.yaml over itself (Api<WebApp>)",
        shop.clone(),
        Rv::Stored,
        Via::Typed,
    )
    .await;
    s.replace(
        "shop.yaml with 4 replicas",
        at(&shop, "/spec/replicas", json!(4)),
        Rv::Stored,
        Via::Dynamic,
    )
    .await;

    // JSON merge patches of the stored shop.
    for (label, patch, via) in [
        (
            "merge: 150 replicas",
            json!({"spec": {"replicas": 150}}),
            Via::Dynamic,
        ),
        (
            "merge: tier premium",
            json!({"spec": {"tier": "premium"}}),
            Via::Typed,
        ),
        (
            "merge: tier gold",
            json!({"spec": {"tier": "gold"}}),
            Via::Dynamic,
        ),
        (
            "merge: no image",
            json!({"spec": {"image": null}}),
            Via::Dynamic,
        ),
        (
            "merge: image without a tag",
            json!({"spec": {"image": "shop"}}),
            Via::Typed,
        ),
        (
            "merge: a port out of range, a long label key",
            json!({"spec": {"ports": [{"name": "http", "port": 70000}], "labels": {"k".repeat(64): "v"}}}),
            Via::Dynamic,
        ),
        (
            "merge: inverted autoscaling, CPU 120",
            json!({"spec": {"autoscaling": {"minReplicas": 5, "maxReplicas": 2, "targetCpuPercent": 120}}}),
            Via::Typed,
        ),
        (
            "merge: replicas as a string",
            json!({"spec": {"replicas": "3"}}),
            Via::Dynamic,
        ),
        (
            "merge: 5 replicas",
            json!({"spec": {"replicas": 5}}),
            Via::Typed,
        ),
        (
            "merge: a label",
            json!({"metadata": {"labels": {"team": "web"}}}),
            Via::Dynamic,
        ),
    ] {
        s.merge_patch(label, "shop", patch, via).await;
    }

    // `WebApp` values, as `cargo run --bin webapp` validates them, through `Api<WebApp>`.
    let mut broken_spec = spec();
    broken_spec.image = "shop".into();
    broken_spec.replicas = 150;
    broken_spec.ports.push(Port {
        name: "metrics".into(),
        port: 70000,
        protocol: Protocol::Tcp,
    });
    broken_spec.autoscaling = Some(Autoscaling {
        min_replicas: 10,
        max_replicas: 2,
        target_cpu_percent: Some(120),
    });
    let mut oversized = spec();
    oversized.replicas = 2000;
    oversized.tier = Tier::Premium;
    let mut premium_spec = spec();
    premium_spec.tier = Tier::Premium;
    let mut resources = spec();
    resources.resources = Some(Resources {
        cpu: Quantity("500m".into()),
        memory: Quantity("1Gi".into()),
        limits: Some(BTreeMap::from([(
            "memory".to_owned(),
            Quantity("2Gi".into()),
        )])),
    });
    let mut duplicate_ports = spec();
    duplicate_ports.ports.push(duplicate_ports.ports[0].clone());
    let mut many_ports = spec();
    many_ports.ports = (0..17)
        .map(|i| Port {
            name: format!("p{i}"),
            port: 8000 + i,
            protocol: Protocol::Udp,
        })
        .collect();
    let mut many_labels = spec();
    many_labels.labels = (0..65).map(|i| (format!("l{i}"), "v".to_owned())).collect();
    let mut long_names = spec();
    long_names.hostnames = (0..33).map(|i| format!("h{i}.example.com")).collect();
    long_names.hostnames.insert("h".repeat(254));
    long_names.image = format!("{}:1", "i".repeat(256));
    long_names.ports[0].name = "a-very-long-port-name".into();
    for (label, value) in [
        ("typed: valid", webapp("typed", spec())),
        (
            "typed: breaks five rules",
            webapp("typed-broken", broken_spec),
        ),
        (
            "typed: over the schema maximum",
            webapp("typed-oversized", oversized),
        ),
        ("typed: resources", webapp("typed-resources", resources)),
        (
            "typed: duplicate port names",
            webapp("typed-dup", duplicate_ports),
        ),
        ("typed: 17 ports", webapp("typed-ports", many_ports)),
        ("typed: 65 labels", webapp("typed-labels", many_labels)),
        (
            "typed: long strings, 34 hostnames",
            webapp("typed-long", long_names),
        ),
        (
            "typed: a name over 40 characters",
            webapp(&"n".repeat(41), spec()),
        ),
    ] {
        s.create(label, value, Via::Typed).await;
    }
    s.replace(
        "typed: tier update",
        webapp("typed", premium_spec),
        Rv::Stored,
        Via::Typed,
    )
    .await;
    s.replace(
        "typed: unchanged",
        webapp("typed", spec()),
        Rv::Stored,
        Via::Typed,
    )
    .await;

    // Objects the type cannot hold, as JSON.
    let base = serde_json::to_value(spec()).expect("a spec serializes");
    for (label, spec) in [
        (
            "json: replicas is a string",
            with(&base, json!({"replicas": "three"})),
        ),
        ("json: tier gold", with(&base, json!({"tier": "gold"}))),
        (
            "json: protocol SCTP",
            at(&base, "/ports/0/protocol", json!("SCTP")),
        ),
        (
            "json: no ports, no tier",
            with(&base, json!({"ports": null, "tier": null})),
        ),
        ("json: an unknown field", with(&base, json!({"unknown": 1}))),
        (
            "json: a quantity that is none",
            with(
                &base,
                json!({"resources": {"cpu": "lots", "memory": "1Gi"}}),
            ),
        ),
    ] {
        let name = format!("json-{}", s.records.len());
        s.create(label, object(&subject, &name, &spec), Via::Dynamic)
            .await;
    }

    // Server-side apply: created by apply, then applied again by the same manager.
    s.apply("apply: a new WebApp", webapp("applied", spec()), Via::Typed)
        .await;
    let mut more = spec();
    more.replicas = 150;
    s.apply("apply: 150 replicas", webapp("applied", more), Via::Typed)
        .await;
    let mut premium_spec = spec();
    premium_spec.tier = Tier::Premium;
    s.apply(
        "apply: tier premium",
        webapp("applied", premium_spec),
        Via::Dynamic,
    )
    .await;
    let mut seven = spec();
    seven.replicas = 7;
    seven.hostnames.clear();
    s.apply(
        "apply: 7 replicas, no hostnames",
        webapp("applied", seven),
        Via::Dynamic,
    )
    .await;

    // The status subresource.
    let stored = s.stored("applied").expect("applied is stored").clone();
    let mut status: WebApp = serde_json::from_value(stored).expect("a stored WebApp");
    status.status = Some(WebAppStatus {
        ready_replicas: 2,
        observed_generation: Some(1),
        conditions: vec![condition("Ready"), condition("Ready")],
    });
    let twice = serde_json::to_value(&status).expect("a WebApp serializes");
    s.replace_status("status: two Ready conditions", twice, Via::Typed)
        .await;
    if let Some(st) = &mut status.status {
        st.conditions[1] = condition("Available");
    }
    let good = serde_json::to_value(&status).expect("a WebApp serializes");
    s.replace_status("status: Ready and Available", good.clone(), Via::Dynamic)
        .await;
    s.replace_status(
        "status: spec changed too",
        at(&good, "/spec/replicas", json!(500)),
        Via::Dynamic,
    )
    .await;

    s.finish().assert_agreement(test);
}
