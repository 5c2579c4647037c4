//! Drop-in on real operators' code (`src/dropin/`): for each operator shape, the CRD with
//! `CelValidate` is upstream's CRD plus the `#[cel(..)]` rules, the apiserver's CRD checks accept
//! it, and objects validate as the apiserver would (the typed path, the CRD manifest and, where
//! upstream's CRD carries the same rules, upstream's manifest all agree).

use crd_cel::CelValidate;
use crd_cel::crd::{Options, check_crd, check_resource};
use crd_cel::validate::{Endpoint, Validator};
use crd_cel_realworld::dropin::{autoscaler, backup, certificate, database, gateway, mesh};
use kube::CustomResourceExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod variants;

const ROOT: &str = "/spec/versions/0/schema/openAPIV3Schema";

fn crd_of<T: CustomResourceExt>() -> Value {
    serde_json::to_value(T::crd()).unwrap()
}

/// `x-kubernetes-validations` removed everywhere.
fn without_rules(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("x-kubernetes-validations");
            m.values_mut().for_each(without_rules);
        }
        Value::Array(a) => a.iter_mut().for_each(without_rules),
        _ => {}
    }
}

/// The nodes with rules, by JSON pointer under the `openAPIV3Schema`, sorted.
fn rule_paths(crd: &Value) -> Vec<String> {
    fn walk(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| match k.as_str() {
                "x-kubernetes-validations" => out.push(at.to_owned()),
                _ => walk(x, &format!("{at}/{k}"), out),
            }),
            Value::Array(a) => {
                (a.iter().enumerate()).for_each(|(i, x)| walk(x, &format!("{at}/{i}"), out))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(crd.pointer(ROOT).unwrap(), "", &mut out);
    out.sort();
    out
}

/// The CRD passes the apiserver's CRD-creation checks (schema and rules) and compiles `n` rules.
/// So does `check_resource` on the generated schema (what the derive's generated test runs).
fn assert_accepted<T: CustomResourceExt + schemars::JsonSchema>(n: usize) {
    let report = check_crd(&crd_of::<T>(), &Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    assert_eq!(report.rules.len(), n, "{:#?}", report.rules);
    let report = check_resource::<T>(&Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
}

/// A kube root type with `CelValidate`.
trait Typed: CelValidate + DeserializeOwned + Serialize {}
impl<T: CelValidate + DeserializeOwned + Serialize> Typed for T {}

/// One CRD's objects, validated through the Rust type and through the manifests.
struct Shape {
    api_version: &'static str,
    kind: &'static str,
    manifest: Validator,
    /// Upstream's CRD, when it carries the same rules.
    upstream: Option<Validator>,
}

impl Shape {
    fn new(crd: &Value, upstream: Option<&Value>) -> Shape {
        let group = crd["spec"]["group"].as_str().unwrap();
        let version = crd["spec"]["versions"][0]["name"].as_str().unwrap();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
        Shape {
            api_version: format!("{group}/{version}").leak(),
            kind: kind.to_owned().leak(),
            manifest: Validator::from_crd(crd, None).unwrap(),
            upstream: upstream.map(|c| Validator::from_crd(c, None).unwrap()),
        }
    }

    fn object(&self, name: &str, spec: &Value) -> Value {
        json!({
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": name},
            "spec": spec,
        })
    }

    /// The errors of a create (`old` `None`) or an update through `T`'s `validate` /
    /// `validate_update`, after checking that both manifests give the same.
    fn verdict<T: Typed>(&self, object: &Value, old: Option<&Value>, endpoint: Endpoint) -> String {
        let typed: T = serde_json::from_value(object.clone()).unwrap();
        let ours = match old {
            None => typed.validate(),
            Some(o) => typed.validate_update(&serde_json::from_value::<T>(o.clone()).unwrap()),
        };
        for (which, v) in [
            ("ours", Some(&self.manifest)),
            ("upstream", self.upstream.as_ref()),
        ] {
            let Some(v) = v else { continue };
            let out = v.validate_request(object, old, endpoint);
            let theirs = out.is_valid().then_some(()).ok_or(out.errors);
            assert_eq!(
                ours, theirs,
                "typed path against {which} manifest: {object}"
            );
        }
        ours.err().map(|e| e.to_string()).unwrap_or_default()
    }

    fn create<T: Typed>(&self, spec: &Value) -> String {
        self.verdict::<T>(&self.object("x", spec), None, Endpoint::Resource)
    }

    fn update<T: Typed>(&self, spec: &Value, old: &Value) -> String {
        let old = self.object("x", old);
        self.verdict::<T>(&self.object("x", spec), Some(&old), Endpoint::Resource)
    }
}

/// `base` with `patch`'s top-level keys replaced (`null` removes one).
fn with(base: &Value, patch: Value) -> Value {
    let mut v = base.clone();
    for (k, x) in patch.as_object().unwrap() {
        if x.is_null() {
            v.as_object_mut().unwrap().remove(k);
        } else {
            v[k] = x.clone();
        }
    }
    v
}

/// `base` with the value at the JSON pointer replaced (`null` removes it).
fn at(base: &Value, pointer: &str, value: Value) -> Value {
    let mut v = base.clone();
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    match (v.pointer_mut(parent).unwrap(), value) {
        (Value::Object(m), Value::Null) => drop(m.remove(key)),
        (Value::Object(m), x) => drop(m.insert(key.to_owned(), x)),
        (Value::Array(a), x) => a[key.parse::<usize>().unwrap()] = x,
        _ => panic!("{pointer}"),
    }
    v
}

// ---------------------------------------------------------------------------------------------
// database: rules as `schemars(extend(..))`, so upstream's CRD is the same, rules included.

fn database_spec() -> Value {
    json!({
        "clusterName": "main",
        "postgresVersion": 16,
        "instances": 3,
        "highAvailability": true,
        "storage": {"size": "10Gi", "storageClass": "fast"},
        "resources": {"limits": {"memory": "2Gi"}},
        "parameters": {"max_connections": "200"},
        "roles": [{"name": "app", "login": true}, {"name": "readonly", "inRoles": ["pg_read_all_data"]}],
        "bootstrap": {"initDb": {"database": "app", "owner": "app"}},
    })
}

#[test]
fn database_crd_is_upstreams_rules_included() {
    let ours = crd_of::<database::celvalidate::Database>();
    let theirs = crd_of::<database::jsonschema::Database>();
    assert_eq!(ours, theirs);
    let spec = ours.pointer(&format!("{ROOT}/properties/spec")).unwrap();
    assert_eq!(
        spec["x-kubernetes-validations"][1],
        json!({
            "rule": "!has(self.bootstrap) || !has(self.bootstrap.recovery) || self.bootstrap.recovery.source != self.clusterName",
            "message": "a cluster cannot recover from itself",
            "fieldPath": ".bootstrap.recovery.source",
            "reason": "FieldValueForbidden",
        })
    );
    let props = &spec["properties"];
    assert_eq!(props["backupSchedule"]["default"], "0 0 * * *");
    assert_eq!(props["roles"]["x-kubernetes-list-type"], "map");
    assert_eq!(
        props["roles"]["x-kubernetes-list-map-keys"],
        json!(["name"])
    );
    let paths = rule_paths(&ours);
    assert_eq!(
        paths,
        [
            "/properties/spec",
            "/properties/spec/properties/clusterName",
            "/properties/spec/properties/parameters",
            "/properties/spec/properties/postgresVersion",
            "/properties/spec/properties/storage",
            "/properties/spec/properties/storage/properties/size",
        ]
    );
    assert_accepted::<database::celvalidate::Database>(7);
}

#[test]
fn database_objects() {
    type Db = database::celvalidate::Database;
    let ours = crd_of::<Db>();
    let theirs = crd_of::<database::jsonschema::Database>();
    let s = Shape::new(&ours, Some(&theirs));
    let spec = database_spec();
    assert_eq!(s.create::<Db>(&spec), "");
    assert_eq!(
        s.create::<Db>(&with(&spec, json!({"instances": 2}))),
        "spec: Invalid value: high availability needs at least 3 instances"
    );
    assert_eq!(
        s.create::<Db>(&with(
            &spec,
            json!({"bootstrap": {"recovery": {"source": "main"}}})
        )),
        "spec.bootstrap.recovery.source: Forbidden: a cluster cannot recover from itself"
    );
    assert_eq!(
        s.create::<Db>(&with(
            &spec,
            json!({"parameters": {"listen_addresses": "*"}})
        )),
        "spec.parameters: Invalid value: listen_addresses is managed by the operator"
    );
    assert_eq!(
        s.create::<Db>(&with(&spec, json!({"storage": {"size": "500Mi"}}))),
        "spec.storage.size: Invalid value: \"500Mi\": at least 1Gi"
    );
    assert_eq!(
        s.create::<Db>(&with(
            &spec,
            json!({"roles": [{"name": "app"}, {"name": "app"}]}),
        )),
        "spec.roles[1]: Duplicate value: {\"name\":\"app\"}"
    );
    // Transition rules.
    assert_eq!(
        s.update::<Db>(&with(&spec, json!({"instances": 5})), &spec),
        ""
    );
    assert_eq!(
        s.update::<Db>(&with(&spec, json!({"postgresVersion": 15})), &spec),
        "spec.postgresVersion: Invalid value: 15: postgresVersion cannot be downgraded"
    );
    assert_eq!(
        s.update::<Db>(&with(&spec, json!({"clusterName": "other"})), &spec),
        "spec.clusterName: Invalid value: \"other\": clusterName is immutable"
    );
    assert_eq!(
        s.update::<Db>(
            &with(
                &spec,
                json!({"storage": {"size": "20Gi", "storageClass": "slow"}})
            ),
            &spec
        ),
        "spec.storage: Invalid value: storageClass is immutable once set"
    );
    // The serde default that schemars writes as the schema's default.
    let db: Db =
        serde_json::from_value(s.object("x", &with(&spec, json!({"instances": null})))).unwrap();
    assert_eq!(db.spec.backup_schedule.as_deref(), Some("0 0 * * *"));
    assert_eq!(db.spec.instances, 1);
}

// ---------------------------------------------------------------------------------------------
// gateway: untagged enums of ports and addresses, `#[cel]` rules beside `extend` ones.

fn gateway_spec() -> Value {
    json!({
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
    })
}

#[test]
fn gateway_crd_is_upstreams_plus_rules_with_structural_untagged_enums() {
    assert_accepted::<gateway::celvalidate::Gateway>(6);
    let mut ours = crd_of::<gateway::celvalidate::Gateway>();
    let mut theirs = crd_of::<gateway::jsonschema::Gateway>();
    // Upstream's untagged enums of strings keep an `anyOf` without a type, which the apiserver
    // rejects as non-structural; crd-cel writes int-or-string for the port and a string for
    // the addresses.
    let report = check_crd(&theirs, &Options::default()).unwrap();
    let props = "spec.validation.openAPIV3Schema.properties[spec].properties";
    let listener = format!("{props}[listeners].items.properties");
    assert_eq!(
        report.text(),
        format!(
            "CustomResourceDefinition.apiextensions.k8s.io \"gateways.dropin.example.com\" is invalid: [\
             {props}[addresses].items.type: Required value: must not be empty for specified array items, \
             {listener}[backend].properties[target].type: Required value: must not be empty for specified object fields, \
             {listener}[port].type: Required value: must not be empty for specified object fields]"
        )
    );
    let spec = format!("{ROOT}/properties/spec/properties");
    let listener = format!("{spec}/listeners/items/properties");
    for (at, ours_is) in [
        (
            format!("{listener}/port"),
            json!({"x-kubernetes-int-or-string": true}),
        ),
        (format!("{spec}/addresses/items"), json!({"type": "string"})),
        (
            format!("{listener}/backend/properties/target"),
            json!({"type": "string"}),
        ),
    ] {
        let o = ours.pointer_mut(&at).unwrap().as_object_mut().unwrap();
        let t = theirs.pointer_mut(&at).unwrap().as_object_mut().unwrap();
        assert!(t.remove("anyOf").is_some(), "{at}");
        for (k, v) in ours_is.as_object().unwrap() {
            assert_eq!(o.remove(k).as_ref(), Some(v), "{at}");
        }
    }
    let paths = rule_paths(&ours);
    assert_eq!(
        paths,
        [
            "/properties/spec",
            "/properties/spec/properties/addresses",
            "/properties/spec/properties/gatewayClassName",
            "/properties/spec/properties/infrastructure/properties/labels",
            "/properties/spec/properties/listeners/items/properties/port",
            "/properties/spec/properties/listeners/items/properties/tls",
        ]
    );
    // Upstream's `extend` rules are there in both.
    assert_eq!(rule_paths(&theirs).len(), 2);
    without_rules(&mut ours);
    without_rules(&mut theirs);
    assert_eq!(ours, theirs);
}

#[test]
fn gateway_objects() {
    type Gw = gateway::celvalidate::Gateway;
    let s = Shape::new(&crd_of::<Gw>(), None);
    let spec = gateway_spec();
    let gw: Gw = serde_json::from_value(s.object("x", &spec)).unwrap();
    assert_eq!(
        gw.spec.listeners[1].port,
        gateway::celvalidate::Port::Name("https".into())
    );
    assert!(matches!(
        gw.spec.addresses[1],
        gateway::celvalidate::Address::V6(_)
    ));
    assert_eq!(s.create::<Gw>(&spec), "");
    assert_eq!(
        s.create::<Gw>(&at(&spec, "/listeners/1/tls", Value::Null)),
        "spec: Invalid value: HTTPS listeners need tls"
    );
    assert_eq!(
        s.create::<Gw>(&with(&spec, json!({"addresses": ["127.0.0.1"]}))),
        "spec.addresses: Invalid value: loopback addresses are not allowed"
    );
    assert_eq!(
        s.create::<Gw>(&at(
            &spec,
            "/listeners/1/port",
            json!("a-very-long-port-name")
        )),
        "spec.listeners[1].port: Invalid value: \"a-very-long-port-name\": a port name is at most 15 characters"
    );
    assert_eq!(
        s.create::<Gw>(&at(
            &spec,
            "/listeners/1/tls",
            json!({"terminate": {"certificateRefs": []}})
        )),
        "spec.listeners[1].tls: Invalid value: terminating TLS needs a certificate"
    );
    assert_eq!(
        s.create::<Gw>(&with(
            &spec,
            json!({"infrastructure": {"labels": {"gateway.dropin.example.com/owner": "me"}}})
        )),
        "spec.infrastructure.labels: Invalid value: gateway.dropin.example.com/ labels are reserved"
    );
    assert_eq!(
        s.create::<Gw>(&at(&spec, "/listeners/1/name", json!("http"))),
        "spec.listeners[1]: Duplicate value: {\"name\":\"http\"}"
    );
    assert_eq!(
        s.update::<Gw>(&with(&spec, json!({"gatewayClassName": "envoy"})), &spec),
        "spec.gatewayClassName: Invalid value: \"envoy\": gatewayClassName is immutable"
    );
}

// ---------------------------------------------------------------------------------------------
// certificate: kube's `#[x_kube(validation = ..)]` and `#[kube(validation = ..)]` spellings.

fn certificate_spec() -> Value {
    json!({
        "secretName": "web-tls",
        "dnsNames": ["example.com", "www.example.com"],
        "duration": "2160h",
        "renewBefore": "360h",
        "issuerRef": {"name": "letsencrypt"},
        "privateKey": {"algorithm": "RSA", "size": 4096, "rotationPolicy": "Always"},
        "usages": ["digital-signature", "server-auth"],
    })
}

#[test]
fn certificate_crd_is_upstreams_rules_included() {
    let ours = crd_of::<certificate::celvalidate::Certificate>();
    let theirs = crd_of::<certificate::jsonschema::Certificate>();
    assert_eq!(ours, theirs);
    let root = ours.pointer(ROOT).unwrap();
    assert_eq!(
        root["x-kubernetes-validations"],
        json!([
            {"rule": "self.metadata.name.size() <= 52", "message": "certificate names leave room for the secret's suffix"},
            {"rule": "!has(self.spec.commonName) || self.spec.commonName != ''"},
        ])
    );
    let key = &root["properties"]["spec"]["properties"]["privateKey"]["properties"];
    assert_eq!(
        key["rotationPolicy"]["x-kubernetes-validations"],
        json!([{
            "rule": "!oldSelf.hasValue() || oldSelf.value() == self",
            "message": "rotationPolicy is immutable once set",
            "reason": "FieldValueForbidden",
            "optionalOldSelf": true,
        }])
    );
    assert_eq!(
        root["properties"]["spec"]["properties"]["commonName"]["x-kubernetes-validations"],
        json!([{"rule": "self.size() <= 64", "message": "commonName is at most 64 characters"}])
    );
    assert_eq!(rule_paths(&ours).len(), 12);
    assert_accepted::<certificate::celvalidate::Certificate>(14);
}

#[test]
fn certificate_objects() {
    type Cert = certificate::celvalidate::Certificate;
    let s = Shape::new(
        &crd_of::<Cert>(),
        Some(&crd_of::<certificate::jsonschema::Certificate>()),
    );
    let spec = certificate_spec();
    assert_eq!(s.create::<Cert>(&spec), "");
    assert_eq!(
        s.create::<Cert>(&with(&spec, json!({"dnsNames": null}))),
        "spec: Required value: one of dnsNames or commonName is required"
    );
    assert_eq!(
        s.create::<Cert>(&with(&spec, json!({"commonName": "x".repeat(65)}))),
        format!(
            "spec.commonName: Invalid value: \"{}\": commonName is at most 64 characters",
            "x".repeat(65)
        )
    );
    assert_eq!(
        s.create::<Cert>(&with(&spec, json!({"commonName": ""}))),
        "<nil>: Invalid value: failed rule: !has(self.spec.commonName) || self.spec.commonName != ''"
    );
    assert_eq!(
        s.create::<Cert>(&with(
            &spec,
            json!({"duration": "30m", "renewBefore": "10m"})
        )),
        "spec.duration: Invalid value: \"30m\": duration 30m is shorter than 1h"
    );
    assert_eq!(
        s.create::<Cert>(&with(&spec, json!({"renewBefore": "3000h"}))),
        "spec.renewBefore: Invalid value: renewBefore must be shorter than duration"
    );
    assert_eq!(
        s.create::<Cert>(&with(
            &spec,
            json!({"issuerRef": {"name": "le", "kind": "Vault"}})
        )),
        "spec.issuerRef.kind: Forbidden: kind is Issuer or ClusterIssuer"
    );
    assert_eq!(
        s.create::<Cert>(&with(&spec, json!({"dnsNames": ["x".repeat(254)]}))),
        "spec.dnsNames: Invalid value: DNS names are at most 253 characters"
    );
    let long = "c".repeat(53);
    let e = s.verdict::<Cert>(&s.object(&long, &spec), None, Endpoint::Resource);
    assert_eq!(
        e,
        "<nil>: Invalid value: certificate names leave room for the secret's suffix"
    );
    // optionalOldSelf: the rule runs on create too; stored values are kept (ratcheting).
    let small = with(
        &spec,
        json!({"privateKey": {"algorithm": "RSA", "size": 1024}}),
    );
    assert_eq!(
        s.create::<Cert>(&small),
        "spec.privateKey.size: Invalid value: 1024: new keys are at least 2048 bits"
    );
    assert_eq!(
        s.update::<Cert>(
            &with(
                &spec,
                json!({"privateKey": {"algorithm": "RSA", "size": 1536}})
            ),
            &small
        ),
        ""
    );
    assert_eq!(
        s.update::<Cert>(
            &with(
                &spec,
                json!({"privateKey": {"algorithm": "RSA", "size": 4096, "rotationPolicy": "Never"}})
            ),
            &spec
        ),
        "spec.privateKey.rotationPolicy: Forbidden: rotationPolicy is immutable once set"
    );
    assert_eq!(
        s.update::<Cert>(
            &spec,
            &with(
                &spec,
                json!({"privateKey": {"algorithm": "RSA", "size": 4096}})
            )
        ),
        ""
    );
    assert_eq!(
        s.update::<Cert>(&with(&spec, json!({"secretName": "other"})), &spec),
        "spec.secretName: Invalid value: \"other\": secretName is immutable"
    );
}

#[test]
fn certificate_status_rules() {
    type Cert = certificate::celvalidate::Certificate;
    let s = Shape::new(
        &crd_of::<Cert>(),
        Some(&crd_of::<certificate::jsonschema::Certificate>()),
    );
    let mut new = s.object("x", &certificate_spec());
    let mut old = new.clone();
    new["status"] = json!({"revision": 2});
    old["status"] = json!({"revision": 3});
    assert_eq!(
        s.verdict::<Cert>(&new, Some(&old), Endpoint::Status),
        "status: Invalid value: revision never decreases"
    );
}

// ---------------------------------------------------------------------------------------------
// autoscaler: defaults of `Some(..)`, `schema_with` with `default`, externally tagged enums.

fn autoscaler_spec() -> Value {
    json!({
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
    })
}

#[test]
fn autoscaler_crd_is_upstreams_plus_rules() {
    assert_accepted::<autoscaler::celvalidate::Autoscaler>(9);
    let mut ours = crd_of::<autoscaler::celvalidate::Autoscaler>();
    let mut theirs = crd_of::<autoscaler::jsonschema::Autoscaler>();
    let spec = ours.pointer(&format!("{ROOT}/properties/spec")).unwrap();
    assert_eq!(spec["properties"]["minReplicas"]["default"], 1);
    assert_eq!(
        spec["properties"]["behavior"]["default"],
        json!({"scaleDown": {"stabilizationWindowSeconds": 300}})
    );
    assert_eq!(
        spec["properties"]["scaleDownLimit"]["x-kubernetes-int-or-string"],
        true
    );
    // A rule on a struct every variant of an enum holds is on each hoisted variant.
    let targets: Vec<String> = (rule_paths(&ours).into_iter())
        .filter(|p| p.ends_with("/target"))
        .collect();
    assert_eq!(targets.len(), 3, "{targets:?}");
    assert_eq!(rule_paths(&ours).len(), 6);
    assert!(rule_paths(&theirs).is_empty());
    without_rules(&mut ours);
    without_rules(&mut theirs);
    assert_eq!(ours, theirs);
}

#[test]
fn autoscaler_objects() {
    type As = autoscaler::celvalidate::Autoscaler;
    let s = Shape::new(&crd_of::<As>(), None);
    let spec = autoscaler_spec();
    assert_eq!(s.create::<As>(&spec), "");
    // serde's defaults, and an `Option` with a `schema_with` schema serialized as `null`.
    let bare = with(
        &spec,
        json!({"minReplicas": null, "scaleDownLimit": null, "metrics": null}),
    );
    let a: As = serde_json::from_value(s.object("x", &bare)).unwrap();
    assert_eq!(a.spec.min_replicas, Some(1));
    assert!(a.spec.behavior.is_some());
    assert!(a.spec.scale_down_limit.is_none());
    assert_eq!(
        serde_json::to_value(&a.spec).unwrap()["scaleDownLimit"],
        Value::Null
    );
    assert_eq!(s.create::<As>(&bare), "");
    assert_eq!(
        s.create::<As>(&with(&spec, json!({"minReplicas": 11}))),
        "spec: Invalid value: minReplicas must not exceed maxReplicas"
    );
    assert_eq!(
        s.create::<As>(&with(
            &spec,
            json!({"metrics": [{"resource": {"name": "gpu", "target": {"type": "Value", "value": "1"}}}]})
        )),
        "spec.metrics: Invalid value: resource metrics are cpu or memory"
    );
    assert_eq!(
        s.create::<As>(&with(
            &spec,
            json!({"metrics": [{"resource": {"name": "cpu", "target": {"type": "Utilization"}}}]})
        )),
        "spec.metrics[0].resource.target: Invalid value: Utilization targets need averageUtilization"
    );
    assert_eq!(
        s.create::<As>(&with(
            &spec,
            json!({"metrics": [{"pods": {"metricName": "rps", "target": {"type": "AverageValue", "averageValue": "0"}}}]})
        )),
        "spec.metrics[0].pods.target.averageValue: Invalid value: averageValue must be positive"
    );
    assert_eq!(
        s.create::<As>(&with(&spec, json!({"scaleDownLimit": 3}))),
        ""
    );
    assert_eq!(
        s.create::<As>(&with(&spec, json!({"scaleDownLimit": "25"}))),
        "spec.scaleDownLimit: Invalid value: \"25\": a count or a percentage"
    );
    // Status conditions: a map list keyed by `type` (two `extend`s) with a `length`.
    let cond = |t: &str| {
        json!({
            "type": t,
            "status": "True",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
            "reason": "Scaled",
            "message": "ok",
        })
    };
    let old = s.object("x", &spec);
    let mut new = old.clone();
    new["status"] = json!({"currentReplicas": 3, "conditions": [cond("Ready"), cond("Active")]});
    assert_eq!(s.verdict::<As>(&new, Some(&old), Endpoint::Status), "");
    new["status"]["conditions"][1] = cond("Ready");
    assert_eq!(
        s.verdict::<As>(&new, Some(&old), Endpoint::Status),
        "status.conditions[1]: Duplicate value: {\"type\":\"Ready\"}"
    );
    // The schema's bounds and the rules, both reported.
    assert_eq!(
        s.create::<As>(&with(&spec, json!({"maxReplicas": 0}))),
        "[spec.maxReplicas: Invalid value: 0: spec.maxReplicas in body should be greater than or equal to 1, \
         spec: Invalid value: minReplicas must not exceed maxReplicas]"
    );
}

// ---------------------------------------------------------------------------------------------
// backup: a pod template and rules reading into it, flatten, `Option<Vec<..>>`.

fn backup_spec() -> Value {
    json!({
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
    })
}

#[test]
fn backup_crd_is_upstreams_plus_rules() {
    assert_accepted::<backup::celvalidate::BackupJob>(7);
    let mut ours = crd_of::<backup::celvalidate::BackupJob>();
    let mut theirs = crd_of::<backup::jsonschema::BackupJob>();
    let paths = rule_paths(&ours);
    assert_eq!(
        paths,
        [
            "/properties/spec",
            "/properties/spec/properties/destination",
            "/properties/spec/properties/destination/properties/volume/properties/subPath",
            // The flattened struct's field rule lands on the spec's merged property.
            "/properties/spec/properties/keepLast",
            "/properties/spec/properties/schedule",
        ]
    );
    assert!(rule_paths(&theirs).is_empty());
    without_rules(&mut ours);
    without_rules(&mut theirs);
    assert_eq!(ours, theirs);
}

#[test]
fn backup_objects() {
    type Bj = backup::celvalidate::BackupJob;
    let s = Shape::new(&crd_of::<Bj>(), None);
    let spec = backup_spec();
    assert_eq!(s.create::<Bj>(&spec), "");
    let mut no_limits = spec.clone();
    no_limits["jobTemplate"]["spec"]["containers"][0]
        .as_object_mut()
        .unwrap()
        .remove("resources");
    assert_eq!(
        s.create::<Bj>(&no_limits),
        "spec: Invalid value: every backup container needs resource limits"
    );
    assert_eq!(
        s.create::<Bj>(&at(
            &spec,
            "/jobTemplate/spec/restartPolicy",
            json!("Always")
        )),
        "spec.jobTemplate.spec.restartPolicy: Invalid value: backup pods must not restart forever"
    );
    assert_eq!(
        s.create::<Bj>(&with(&spec, json!({"excludeNamespaces": ["kube-system"]}))),
        "spec: Invalid value: includeNamespaces and excludeNamespaces are mutually exclusive"
    );
    assert_eq!(
        s.create::<Bj>(&with(&spec, json!({"schedule": "@hourly * * * *"}))),
        "spec.schedule: Invalid value: \"@hourly * * * *\": cron macros are not supported"
    );
    let e = s.create::<Bj>(&with(&spec, json!({"schedule": "daily"})));
    assert!(
        e.starts_with("spec.schedule: Invalid value: \"daily\": "),
        "{e}"
    );
    assert_eq!(
        s.create::<Bj>(&with(&spec, json!({"keepLast": 0}))),
        "spec.keepLast: Invalid value: 0: keep at least one backup"
    );
    assert_eq!(
        s.create::<Bj>(&with(
            &spec,
            json!({"destination": {"s3": {"bucket": "ab", "region": "x"}}})
        )),
        "spec.destination: Invalid value: bucket names are at least 3 characters"
    );
    assert_eq!(
        s.create::<Bj>(&with(
            &spec,
            json!({"destination": {"volume": {"claimName": "backups", "subPath": "/abs"}}})
        )),
        "spec.destination.volume.subPath: Invalid value: \"/abs\": subPath is relative"
    );
    assert_eq!(
        s.create::<Bj>(&with(
            &spec,
            json!({"destination": {"gcs": {"bucket": "b"}}})
        )),
        ""
    );
}

// ---------------------------------------------------------------------------------------------
// mesh: everything in kube's `KubeSchema` style.

fn mesh_spec() -> Value {
    json!({
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
    })
}

#[test]
fn mesh_crd_is_upstreams_rules_included() {
    let ours = crd_of::<mesh::celvalidate::TrafficPolicy>();
    let theirs = crd_of::<mesh::jsonschema::TrafficPolicy>();
    assert_eq!(ours, theirs);
    let spec = ours.pointer(&format!("{ROOT}/properties/spec")).unwrap();
    assert_eq!(spec["properties"]["mtls"]["default"], "STRICT");
    assert_eq!(
        spec["properties"]["ipFamilies"]["x-kubernetes-list-type"],
        "atomic"
    );
    assert_eq!(
        ours.pointer(&format!("{ROOT}/x-kubernetes-validations"))
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert_accepted::<mesh::celvalidate::TrafficPolicy>(13);
}

#[test]
fn mesh_objects() {
    type Tp = mesh::celvalidate::TrafficPolicy;
    let s = Shape::new(
        &crd_of::<Tp>(),
        Some(&crd_of::<mesh::jsonschema::TrafficPolicy>()),
    );
    let spec = mesh_spec();
    assert_eq!(s.create::<Tp>(&spec), "");
    let tp: Tp = serde_json::from_value(s.object("x", &spec)).unwrap();
    assert_eq!(tp.spec.mtls, mesh::celvalidate::MtlsMode::Strict);
    assert_eq!(
        s.verdict::<Tp>(&s.object("default", &spec), None, Endpoint::Resource),
        "<nil>: Invalid value: failed rule: self.metadata.name != 'default'"
    );
    assert_eq!(
        s.create::<Tp>(&json!({})),
        "<nil>: Invalid value: a policy must route somewhere"
    );
    let mut zero = spec.clone();
    zero["routes"][0]["weight"] = json!(0);
    zero["routes"][1]["weight"] = json!(0);
    assert_eq!(
        s.create::<Tp>(&zero),
        "spec.routes: Invalid value: at least one route carries traffic"
    );
    assert_eq!(
        s.create::<Tp>(&with(&spec, json!({"ipFamilies": ["IPv4", "IPv4"]}))),
        "spec.ipFamilies: Invalid value: ipFamilies must not repeat"
    );
    assert_eq!(
        s.create::<Tp>(&with(&spec, json!({"timeout": "90s"}))),
        "spec.timeout: Invalid value: \"90s\": timeouts are at most 60s"
    );
    assert_eq!(
        s.create::<Tp>(&with(&spec, json!({"timeout": null}))),
        "spec: Invalid value: failed rule: !has(self.retries) || has(self.timeout)"
    );
    assert_eq!(
        s.create::<Tp>(&with(&spec, json!({"retries": {"attempts": 11}}))),
        "spec.retries.attempts: Forbidden: at most 10 attempts"
    );
    assert_eq!(
        s.create::<Tp>(&with(&spec, json!({"fallback": {"host": "reviews"}}))),
        "spec: Invalid value: the fallback is not one of the routes"
    );
    assert_eq!(
        s.create::<Tp>(&at(&spec, "/routes/0/name", json!("V1"))),
        "spec.routes[0].name: Invalid value: \"V1\": failed rule: self.matches('^[a-z0-9-]+$')"
    );
    assert_eq!(
        s.create::<Tp>(&at(&spec, "/routes/1/destination/port", json!(0))),
        "spec.routes[1].destination.port: Invalid value: port 0 is not a port"
    );
    assert_eq!(
        s.create::<Tp>(&at(&spec, "/routes/1/matches/0/pathPrefix", json!("api"))),
        "spec.routes[1].matches[0].pathPrefix: Invalid value: \"api\": pathPrefix starts with /"
    );
    assert_eq!(
        s.create::<Tp>(&at(&spec, "/routes/1/name", json!("v1"))),
        "spec.routes[1]: Duplicate value: {\"name\":\"v1\"}"
    );
}

// kube's merge strategies give the CRD upstream's list and map types.
#[test]
fn merge_strategies_are_upstreams_list_and_map_types() {
    use crd_cel_realworld::dropin::merge::{celvalidate, upstream};
    let ours = crd_cel::schema::generate::<celvalidate::Listeners>();
    let theirs = crd_cel::schema::generate::<upstream::Listeners>();
    assert_eq!(ours, theirs);
    assert_eq!(
        ours["properties"]["listeners"]["x-kubernetes-list-type"],
        "map"
    );
    assert_eq!(
        ours["properties"]["listeners"]["x-kubernetes-list-map-keys"],
        serde_json::json!(["name"])
    );
    assert_eq!(ours["properties"]["hosts"]["x-kubernetes-list-type"], "set");
    assert_eq!(
        ours["properties"]["labels"]["x-kubernetes-map-type"],
        "atomic"
    );
}

/// Random variations of `spec` through `T` and its manifest (`Shape::verdict` compares them):
/// creates, and updates from the previous variation; both verdicts must be reached.
fn random_variants<T>(spec: &Value, seed: u64)
where
    T: Typed + CustomResourceExt + schemars::JsonSchema + crd_cel::__private::CelView + 'static,
{
    let s = Shape::new(&crd_of::<T>(), None);
    let mut rng = variants::Rng(seed);
    let (mut valid, mut invalid, mut fast) = (0, 0, 0);
    // Every answer of the derive's code for a rule is checked against the interpreters.
    crd_cel::__private::cross_check_derived(true);
    let mut previous: Option<Value> = None;
    for _ in 0..300 {
        let mut spec = spec.clone();
        for _ in 0..1 + rng.below(3) {
            variants::mutate(&mut spec, &mut rng);
        }
        // Compared on what the type writes: what it cannot hold is the manifests' alone.
        let Ok(typed) = serde_json::from_value::<T>(s.object("x", &spec)) else {
            continue;
        };
        let object = serde_json::to_value(&typed).unwrap();
        for old in [None, previous.as_ref()] {
            match s.verdict::<T>(&object, old, Endpoint::Resource).is_empty() {
                true => valid += 1,
                false => invalid += 1,
            }
            let old: Option<T> = old.map(|o| serde_json::from_value(o.clone()).unwrap());
            fast += usize::from(crd_cel::__private::typed_fast_valid(
                &typed,
                old.as_ref(),
                true,
            ));
            if previous.is_none() {
                break;
            }
        }
        previous = Some(object);
    }
    let (derived, disagreements) = crd_cel::__private::cross_check_derived(true);
    eprintln!(
        "{}: {valid} valid, {invalid} invalid, {fast} answered by the fast path, \
         {derived} rule results by the derive's code",
        s.kind
    );
    assert_eq!(disagreements, Vec::<String>::new(), "{}", s.kind);
    assert!(
        valid >= 20 && invalid >= 20,
        "{}: {valid} valid, {invalid} invalid",
        s.kind
    );
    // The fast path answers only for valid objects (else the verdicts above would differ), and
    // for most of them: decoding changes nothing the types write in these shapes.
    assert!(
        fast <= valid && fast * 2 >= valid,
        "{}: {fast} of {valid} valid objects answered by the fast path",
        s.kind
    );
}

/// Every drop-in shape's typed path agrees with its manifests on random variations of its
/// valid object, on create and on update: both verdicts are reached in each, and the fast path
/// answers most valid objects. (`certificate` and `mesh` have whole models; the others have
/// fields whose schema only their `JsonSchema` knows, and are validated against their
/// generated schema, the fast path deferring where its decoding would change the object.)
#[test]
fn random_variants_agree_between_the_types_and_the_manifests() {
    random_variants::<database::celvalidate::Database>(&database_spec(), 1);
    random_variants::<gateway::celvalidate::Gateway>(&gateway_spec(), 2);
    random_variants::<certificate::celvalidate::Certificate>(&certificate_spec(), 3);
    random_variants::<autoscaler::celvalidate::Autoscaler>(&autoscaler_spec(), 4);
    random_variants::<backup::celvalidate::BackupJob>(&backup_spec(), 5);
    random_variants::<mesh::celvalidate::TrafficPolicy>(&mesh_spec(), 6);
}
