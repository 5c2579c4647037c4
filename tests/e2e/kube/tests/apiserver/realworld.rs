//! `tests/realworld`: the `Workload` CRD (what its `realworld-crd` binary prints) with the
//! objects of `tests/realworld/objects`, and the drop-in operator shapes of
//! `tests/realworld/src/dropin` (their `CelValidate` copies) with the objects of
//! `tests/realworld/tests/dropin.rs`.

use crd_cel_e2e::{Rv, Server, Session, Subject, Via, findings};
use crd_cel_realworld::crd::Workload;
use crd_cel_realworld::dropin::{autoscaler, backup, certificate, database, gateway, mesh};
use serde_json::{Value, json};

use crate::common::{at, object, with, yaml};

/// Creates `object(name, spec)` for each variant, each under its own name.
async fn creates(s: &mut Session<'_>, subject: &Subject, variants: Vec<(&str, Value)>) {
    for (label, spec) in variants {
        let name = format!("c{}", s.records.len());
        s.create(label, object(subject, &name, &spec), Via::Auto)
            .await;
    }
}

/// For each `(label, new, old)`: creates `old` under a name of its own, then replaces it with
/// `new` (the stored resourceVersion).
async fn updates(s: &mut Session<'_>, subject: &Subject, variants: Vec<(&str, Value, Value)>) {
    for (label, new, old) in variants {
        let name = format!("u{}", s.records.len());
        s.create(
            &format!("{label} (the stored object)"),
            object(subject, &name, &old),
            Via::Auto,
        )
        .await;
        s.replace(label, object(subject, &name, &new), Rv::Stored, Via::Auto)
            .await;
    }
}

#[tokio::test]
async fn workload_objects() {
    let test = "realworld::workload_objects";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject = Subject::resource::<Workload>("tests/realworld/src/crd.rs");
    let mut s = Session::open(&server, &subject, "default").await;
    s.known_difference(
        "workload.yaml over itself (Api<Workload>)",
        findings::TYPED_ROUNDTRIP,
    );

    // tests/realworld/objects, as kubectl sends them (all named `web`).
    let valid = yaml("tests/realworld/objects/workload.yaml");
    let broken = yaml("tests/realworld/objects/workload-broken.yaml");
    let memory = yaml("tests/realworld/objects/workload-memory.yaml");
    s.create("workload-broken.yaml", broken.clone(), Via::Dynamic)
        .await;
    s.create("workload-memory.yaml", memory.clone(), Via::Dynamic)
        .await;
    s.create("workload.yaml", valid.clone(), Via::Dynamic).await;
    s.replace(
        "workload-memory.yaml over workload.yaml",
        memory,
        Rv::Stored,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "workload-broken.yaml over workload.yaml",
        broken,
        Rv::Stored,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "workload.yaml over itself (Api<Workload>)",
        valid.clone(),
        Rv::Stored,
        Via::Typed,
    )
    .await;
    s.replace(
        "workload.yaml, another rawTemplate",
        at(
            &valid,
            "/spec/rawTemplate",
            json!({"spec": {"hostNetwork": true}}),
        ),
        Rv::Stored,
        Via::Dynamic,
    )
    .await;
    s.replace(
        "workload.yaml, no resourceVersion",
        valid.clone(),
        Rv::Missing,
        Via::Dynamic,
    )
    .await;
    for (label, patch, via) in [
        (
            "merge: 12 replicas",
            json!({"spec": {"replicas": 12}}),
            Via::Typed,
        ),
        (
            "merge: 11 replicas, no resources",
            json!({"spec": {"replicas": 11, "resources": null}}),
            Via::Typed,
        ),
        (
            "merge: version 1.2",
            json!({"spec": {"version": "1.2"}}),
            Via::Dynamic,
        ),
        (
            "merge: rawTemplate",
            json!({"spec": {"rawTemplate": {"spec": {"hostNetwork": true}}}}),
            Via::Dynamic,
        ),
        (
            "merge: source over http",
            json!({"spec": {"source": {"url": "http://example.com/x.git"}}}),
            Via::Typed,
        ),
        (
            "merge: port 8080",
            json!({"spec": {"port": 8080}}),
            Via::Typed,
        ),
    ] {
        s.merge_patch(label, "web", patch, via).await;
    }

    // tests/realworld/tests/workload.rs' objects, through `Api<Workload>` when they are values.
    let spec = json!({
        "replicas": 3,
        "port": "http",
        "window": [9, 17],
        "template": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}},
        "env": [{"name": "LOG", "value": "debug"}],
        "version": "1.2.3",
        "storage": {"volume": {"size": "10Gi"}},
        "paused": false,
        "owner": "team-a",
        "team": "platform",
        "timeout": "30s",
        "notBefore": "2026-01-01T00:00:00Z",
        "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "homepage": "https://example.com/",
        "source": {"kind": "git", "url": "https://example.com/repo.git"},
        "rollout": {"strategy": "canary", "value": 10},
        "resources": {"limits": {"memory": "1Gi"}},
        "podMetadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
        "containerResources": {"main": {"limits": {"cpu": "1"}}},
    });
    let containers: Vec<Value> = (0..6)
        .map(|i| json!({"name": format!("c{i}"), "image": "x"}))
        .collect();
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            (
                "a FORBIDDEN_ env var",
                with(&spec, json!({"env": [{"name": "FORBIDDEN_X"}]})),
            ),
            (
                "6 containers",
                with(
                    &spec,
                    json!({"template": {"spec": {"containers": containers}}}),
                ),
            ),
            (
                "a 2Ti volume",
                with(&spec, json!({"storage": {"volume": {"size": "2Ti"}}})),
            ),
            ("timeout 30d", with(&spec, json!({"timeout": "30d"}))),
            ("timeout 5x", with(&spec, json!({"timeout": "5x"}))),
            (
                "65Gi of memory",
                with(&spec, json!({"resources": {"limits": {"memory": "65Gi"}}})),
            ),
            (
                "pod labels without app",
                with(&spec, json!({"podMetadata": {"labels": {"tier": "web"}}})),
            ),
            (
                "a sidecar without limits",
                with(
                    &spec,
                    json!({"containerResources": {"sidecar": {"requests": {"cpu": "1"}}}}),
                ),
            ),
            (
                "git over http",
                with(
                    &spec,
                    json!({"source": {"kind": "git", "url": "http://example.com"}}),
                ),
            ),
            (
                "an image source",
                with(&spec, json!({"source": {"kind": "image", "image": "x"}})),
            ),
            (
                "rollout 101",
                with(
                    &spec,
                    json!({"rollout": {"strategy": "blueGreen", "value": 101}}),
                ),
            ),
            ("replicas -1", with(&spec, json!({"replicas": -1}))),
            (
                "11 replicas, no resources",
                with(&spec, json!({"replicas": 11, "resources": null})),
            ),
            (
                "a 64-character team",
                with(&spec, json!({"team": "x".repeat(64)})),
            ),
            (
                "not before 1999",
                with(&spec, json!({"notBefore": "1999-01-01T00:00:00Z"})),
            ),
            ("port -1", with(&spec, json!({"port": -1}))),
            ("port 8080", with(&spec, json!({"port": 8080}))),
            (
                "a 64-character owner",
                with(&spec, json!({"owner": "o".repeat(64)})),
            ),
            (
                "a window hour of 256",
                with(&spec, json!({"window": [9, 256]})),
            ),
            (
                "storage bucket",
                with(&spec, json!({"storage": {"bucket": {"name": "b"}}})),
            ),
            (
                "maxConnections 0",
                with(&spec, json!({"maxConnections": 0})),
            ),
        ],
    )
    .await;
    updates(
        &mut s,
        &subject,
        vec![
            (
                "another rawTemplate",
                with(
                    &spec,
                    json!({"rawTemplate": {"spec": {"hostNetwork": true}}}),
                ),
                with(&spec, json!({"rawTemplate": {"spec": {}}})),
            ),
            (
                "more replicas",
                with(&spec, json!({"replicas": 5})),
                spec.clone(),
            ),
        ],
    )
    .await;

    // Server-side apply.
    let applied = object(&subject, "applied", &spec);
    s.apply("apply: a new Workload", applied.clone(), Via::Typed)
        .await;
    s.apply(
        "apply: 12 replicas, no resources",
        at(&applied, "/spec/replicas", json!(12)),
        Via::Typed,
    )
    .await;
    let mut no_resources = applied.clone();
    no_resources["spec"]
        .as_object_mut()
        .expect("a spec")
        .remove("resources");
    no_resources["spec"]["replicas"] = json!(12);
    s.apply(
        "apply: 12 replicas, resources dropped",
        no_resources,
        Via::Dynamic,
    )
    .await;
    s.apply(
        "apply: 4 replicas",
        at(&applied, "/spec/replicas", json!(4)),
        Via::Dynamic,
    )
    .await;

    // The status subresource.
    let stored = s.stored("applied").expect("applied is stored").clone();
    s.replace_status(
        "status: ready 2",
        with(&stored, json!({"status": {"ready": 2}})),
        Via::Typed,
    )
    .await;
    s.replace_status(
        "status: ready is a string",
        with(&stored, json!({"status": {"ready": "two"}})),
        Via::Dynamic,
    )
    .await;

    s.finish().assert_agreement(test);
}

#[tokio::test]
async fn dropin_database() {
    let test = "realworld::dropin_database";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject = Subject::resource::<database::celvalidate::Database>(
        "tests/realworld/src/dropin/database.rs",
    );
    let mut s = Session::open(&server, &subject, "default").await;
    let spec = json!({
        "clusterName": "main",
        "postgresVersion": 16,
        "instances": 3,
        "highAvailability": true,
        "storage": {"size": "10Gi", "storageClass": "fast"},
        "resources": {"limits": {"memory": "2Gi"}},
        "parameters": {"max_connections": "200"},
        "roles": [{"name": "app", "login": true}, {"name": "readonly", "inRoles": ["pg_read_all_data"]}],
        "bootstrap": {"initDb": {"database": "app", "owner": "app"}},
    });
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            ("2 instances", with(&spec, json!({"instances": 2}))),
            ("no instances", with(&spec, json!({"instances": null}))),
            (
                "recovery from itself",
                with(
                    &spec,
                    json!({"bootstrap": {"recovery": {"source": "main"}}}),
                ),
            ),
            (
                "listen_addresses",
                with(&spec, json!({"parameters": {"listen_addresses": "*"}})),
            ),
            ("500Mi", with(&spec, json!({"storage": {"size": "500Mi"}}))),
            (
                "two roles app",
                with(&spec, json!({"roles": [{"name": "app"}, {"name": "app"}]})),
            ),
        ],
    )
    .await;
    updates(
        &mut s,
        &subject,
        vec![
            (
                "5 instances",
                with(&spec, json!({"instances": 5})),
                spec.clone(),
            ),
            (
                "postgres 15",
                with(&spec, json!({"postgresVersion": 15})),
                spec.clone(),
            ),
            (
                "another clusterName",
                with(&spec, json!({"clusterName": "other"})),
                spec.clone(),
            ),
            (
                "another storageClass",
                with(
                    &spec,
                    json!({"storage": {"size": "20Gi", "storageClass": "slow"}}),
                ),
                spec.clone(),
            ),
        ],
    )
    .await;
    s.finish().assert_agreement(test);
}

#[tokio::test]
async fn dropin_gateway() {
    let test = "realworld::dropin_gateway";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject =
        Subject::resource::<gateway::celvalidate::Gateway>("tests/realworld/src/dropin/gateway.rs");
    let mut s = Session::open(&server, &subject, "default").await;
    let spec = json!({
        "gatewayClassName": "nginx",
        "listeners": [
            {"name": "http", "port": 80, "protocol": "HTTP", "backend": {"target": "10.0.0.1", "port": 8080}},
            {
                "name": "https",
                "port": "https",
                "protocol": "HTTPS",
                "hostname": "example.com",
                "tls": {"terminate": {"certificateRefs": ["web-tls"]}},
                "backend": {"target": "web.default.svc", "port": 8443},
            },
        ],
        "addresses": ["192.0.2.1", "2001:db8::1"],
        "infrastructure": {"labels": {"team": "edge"}},
    });
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            ("HTTPS without tls", at(&spec, "/listeners/1/tls", Value::Null)),
            ("a loopback address", with(&spec, json!({"addresses": ["127.0.0.1"]}))),
            ("a long port name", at(&spec, "/listeners/1/port", json!("a-very-long-port-name"))),
            ("no certificate", at(&spec, "/listeners/1/tls", json!({"terminate": {"certificateRefs": []}}))),
            (
                "a reserved label",
                with(&spec, json!({"infrastructure": {"labels": {"gateway.dropin.example.com/owner": "me"}}})),
            ),
            ("two listeners http", at(&spec, "/listeners/1/name", json!("http"))),
            ("port 0", at(&spec, "/listeners/0/port", json!(0))),
            ("protocol UDP", at(&spec, "/listeners/0/protocol", json!("UDP"))),
        ],
    )
    .await;
    updates(
        &mut s,
        &subject,
        vec![(
            "another gatewayClassName",
            with(&spec, json!({"gatewayClassName": "envoy"})),
            spec.clone(),
        )],
    )
    .await;
    s.finish().assert_agreement(test);
}

#[tokio::test]
async fn dropin_certificate() {
    let test = "realworld::dropin_certificate";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject = Subject::resource::<certificate::celvalidate::Certificate>(
        "tests/realworld/src/dropin/certificate.rs",
    );
    let mut s = Session::open(&server, &subject, "default").await;
    let spec = json!({
        "secretName": "web-tls",
        "dnsNames": ["example.com", "www.example.com"],
        "duration": "2160h",
        "renewBefore": "360h",
        "issuerRef": {"name": "letsencrypt"},
        "privateKey": {"algorithm": "RSA", "size": 4096, "rotationPolicy": "Always"},
        "usages": ["digital-signature", "server-auth"],
    });
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            ("no dnsNames", with(&spec, json!({"dnsNames": null}))),
            (
                "a 65-character commonName",
                with(&spec, json!({"commonName": "x".repeat(65)})),
            ),
            (
                "an empty commonName",
                with(&spec, json!({"commonName": ""})),
            ),
            (
                "30m",
                with(&spec, json!({"duration": "30m", "renewBefore": "10m"})),
            ),
            (
                "renewBefore 3000h",
                with(&spec, json!({"renewBefore": "3000h"})),
            ),
            (
                "a Vault issuer",
                with(&spec, json!({"issuerRef": {"name": "le", "kind": "Vault"}})),
            ),
            (
                "a 254-character DNS name",
                with(&spec, json!({"dnsNames": ["x".repeat(254)]})),
            ),
            (
                "RSA 1024",
                with(
                    &spec,
                    json!({"privateKey": {"algorithm": "RSA", "size": 1024}}),
                ),
            ),
            (
                "an unknown usage",
                with(&spec, json!({"usages": ["everything"]})),
            ),
        ],
    )
    .await;
    s.create(
        "a 53-character name",
        object(&subject, &"c".repeat(53), &spec),
        Via::Auto,
    )
    .await;
    updates(
        &mut s,
        &subject,
        vec![
            (
                "rotationPolicy set",
                with(&spec, json!({"privateKey": {"algorithm": "RSA", "size": 4096, "rotationPolicy": "Never"}})),
                spec.clone(),
            ),
            (
                "rotationPolicy removed",
                spec.clone(),
                with(&spec, json!({"privateKey": {"algorithm": "RSA", "size": 4096}})),
            ),
            ("another secretName", with(&spec, json!({"secretName": "other"})), spec.clone()),
            (
                "a smaller key",
                with(&spec, json!({"privateKey": {"algorithm": "RSA", "size": 2048, "rotationPolicy": "Always"}})),
                spec.clone(),
            ),
        ],
    )
    .await;
    // A status rule with oldSelf.
    let stored = s
        .stored("c0")
        .expect("the valid certificate is stored")
        .clone();
    s.replace_status(
        "status: revision 3",
        with(&stored, json!({"status": {"revision": 3}})),
        Via::Typed,
    )
    .await;
    let stored = s.stored("c0").expect("still stored").clone();
    s.replace_status(
        "status: revision 2 after 3",
        with(&stored, json!({"status": {"revision": 2}})),
        Via::Auto,
    )
    .await;
    s.finish().assert_agreement(test);
}

#[tokio::test]
async fn dropin_autoscaler() {
    let test = "realworld::dropin_autoscaler";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject = Subject::resource::<autoscaler::celvalidate::Autoscaler>(
        "tests/realworld/src/dropin/autoscaler.rs",
    );
    let mut s = Session::open(&server, &subject, "default").await;
    let spec = json!({
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 2,
        "maxReplicas": 10,
        "metrics": [
            {"resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}},
            {"pods": {"metricName": "rps", "target": {"type": "AverageValue", "averageValue": "100"}}},
            {"external": {
                "metricName": "queue",
                "target": {"type": "Value", "value": "30"},
                "selector": {"matchLabels": {"queue": "jobs"}},
            }},
        ],
        "scaleDownLimit": "25%",
        "selector": {"matchLabels": {"app": "web"}},
    });
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            ("defaults", with(&spec, json!({"minReplicas": null, "scaleDownLimit": null, "metrics": null}))),
            ("min 11", with(&spec, json!({"minReplicas": 11}))),
            (
                "a gpu metric",
                with(&spec, json!({"metrics": [{"resource": {"name": "gpu", "target": {"type": "Value", "value": "1"}}}]})),
            ),
            (
                "Utilization without a value",
                with(&spec, json!({"metrics": [{"resource": {"name": "cpu", "target": {"type": "Utilization"}}}]})),
            ),
            (
                "averageValue 0",
                with(&spec, json!({"metrics": [{"pods": {"metricName": "rps", "target": {"type": "AverageValue", "averageValue": "0"}}}]})),
            ),
            ("scaleDownLimit 3", with(&spec, json!({"scaleDownLimit": 3}))),
            ("scaleDownLimit 25", with(&spec, json!({"scaleDownLimit": "25"}))),
            ("maxReplicas 0", with(&spec, json!({"maxReplicas": 0}))),
            ("11 metrics", with(&spec, json!({"metrics": vec![spec["metrics"][0].clone(); 11]}))),
        ],
    )
    .await;
    let cond = |t: &str| json!({"type": t, "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Scaled", "message": "ok"});
    let stored = s
        .stored("c0")
        .expect("the valid autoscaler is stored")
        .clone();
    s.replace_status(
        "status: Ready and Active",
        with(&stored, json!({"status": {"currentReplicas": 3, "conditions": [cond("Ready"), cond("Active")]}})),
        Via::Typed,
    )
    .await;
    let stored = s.stored("c0").expect("still stored").clone();
    s.replace_status(
        "status: Ready twice",
        with(
            &stored,
            json!({"status": {"currentReplicas": 3, "conditions": [cond("Ready"), cond("Ready")]}}),
        ),
        Via::Dynamic,
    )
    .await;
    s.finish().assert_agreement(test);
}

#[tokio::test]
async fn dropin_backup() {
    let test = "realworld::dropin_backup";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject =
        Subject::resource::<backup::celvalidate::BackupJob>("tests/realworld/src/dropin/backup.rs");
    let mut s = Session::open(&server, &subject, "default").await;
    let spec = json!({
        "schedule": "0 3 * * *",
        "keepLast": 7,
        "keepDaily": 30,
        "destination": {"s3": {"bucket": "backups", "region": "eu-west-1"}},
        "includeNamespaces": ["shop", "billing"],
        "jobTemplate": {"spec": {
            "restartPolicy": "OnFailure",
            "containers": [{
                "name": "restic",
                "image": "restic/restic:0.17",
                "resources": {"limits": {"cpu": "1", "memory": "512Mi"}},
            }],
        }},
        "labels": {"team": "sre"},
    });
    let mut no_limits = spec.clone();
    no_limits["jobTemplate"]["spec"]["containers"][0]
        .as_object_mut()
        .expect("a container")
        .remove("resources");
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            ("a container without limits", no_limits),
            (
                "restartPolicy Always",
                at(&spec, "/jobTemplate/spec/restartPolicy", json!("Always")),
            ),
            (
                "include and exclude",
                with(&spec, json!({"excludeNamespaces": ["kube-system"]})),
            ),
            (
                "a cron macro",
                with(&spec, json!({"schedule": "@hourly * * * *"})),
            ),
            ("schedule daily", with(&spec, json!({"schedule": "daily"}))),
            ("keepLast 0", with(&spec, json!({"keepLast": 0}))),
            (
                "bucket ab",
                with(
                    &spec,
                    json!({"destination": {"s3": {"bucket": "ab", "region": "x"}}}),
                ),
            ),
            (
                "an absolute subPath",
                with(
                    &spec,
                    json!({"destination": {"volume": {"claimName": "backups", "subPath": "/abs"}}}),
                ),
            ),
            (
                "gcs",
                with(&spec, json!({"destination": {"gcs": {"bucket": "b"}}})),
            ),
        ],
    )
    .await;
    s.finish().assert_agreement(test);
}

#[tokio::test]
async fn dropin_mesh() {
    let test = "realworld::dropin_mesh";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    let subject =
        Subject::resource::<mesh::celvalidate::TrafficPolicy>("tests/realworld/src/dropin/mesh.rs");
    let mut s = Session::open(&server, &subject, "default").await;
    let spec = json!({
        "routes": [
            {"name": "v1", "weight": 90, "destination": {"host": "reviews", "subset": "v1"}},
            {
                "name": "v2",
                "weight": 10,
                "destination": {"host": "reviews", "port": 9080, "subset": "v2"},
                "matches": [{"pathPrefix": "/api", "headers": {"x-canary": "true"}}],
            },
        ],
        "ipFamilies": ["IPv4"],
        "timeout": "10s",
        "retries": {"attempts": 3},
    });
    let mut zero = spec.clone();
    zero["routes"][0]["weight"] = json!(0);
    zero["routes"][1]["weight"] = json!(0);
    creates(
        &mut s,
        &subject,
        vec![
            ("valid", spec.clone()),
            ("empty", json!({})),
            ("no weight", zero),
            (
                "IPv4 twice",
                with(&spec, json!({"ipFamilies": ["IPv4", "IPv4"]})),
            ),
            ("timeout 90s", with(&spec, json!({"timeout": "90s"}))),
            (
                "retries without timeout",
                with(&spec, json!({"timeout": null})),
            ),
            (
                "11 attempts",
                with(&spec, json!({"retries": {"attempts": 11}})),
            ),
            (
                "an unrouted fallback",
                with(&spec, json!({"fallback": {"host": "reviews"}})),
            ),
            ("route name V1", at(&spec, "/routes/0/name", json!("V1"))),
            ("port 0", at(&spec, "/routes/1/destination/port", json!(0))),
            (
                "pathPrefix api",
                at(&spec, "/routes/1/matches/0/pathPrefix", json!("api")),
            ),
            ("two routes v1", at(&spec, "/routes/1/name", json!("v1"))),
            ("mtls sometimes", with(&spec, json!({"mtls": "SOMETIMES"}))),
        ],
    )
    .await;
    s.create(
        "named default",
        object(&subject, "default", &spec),
        Via::Auto,
    )
    .await;
    s.finish().assert_agreement(test);
}
