//! crd-cel against kube-rs 5's client-side `validate_cel()`, side by side, on the anchor workload
//! of ARCHITECTURE.md: a `Workload` custom resource with a 10-field spec, a map-list of 20 ports
//! and 11 rules.
//!
//! Where the 49 evaluations come from (each rule runs once per node of its schema that is present
//! in the object):
//!
//! | rules | node | nodes | evaluations |
//! | --- | --- | --- | --- |
//! | R1 min <= max, R2 replicas in range, R3 a port named `http` | `spec` | 1 | 3 |
//! | R4 image tag, R5 tier immutable (transition), R6 label keys, R7 hostname, R8 timeout, R9 replicas cap | one field each | 1 each | 6 |
//! | R10 port range (messageExpression) | `spec.ports[*]` | 20 | 20 |
//! | R11 port name | `spec.ports[*].name` | 20 | 20 |
//!
//! 9 + 20 + 20 = 49 on update; on create the transition rule R5 does not run (no `oldSelf`), so 48.
//! `check_verdicts` confirms the count: an object on which every rule fails gets 48 errors on
//! create and 49 on update from each implementation.
//!
//! Run: `cargo bench -p crd-cel --bench workload` (ratios are printed at the end, from criterion's
//! `estimates.json`, with the allocations of each call beside them, counted by `crd_cel_alloc_count`, and
//! the memory a [`crd_cel::Validator`] holds for the largest CRD of `../shared/corpus`).

use std::hint::black_box;
use std::path::PathBuf;

use crd_cel_alloc_count::measure;

use criterion::Criterion;
use serde_json::{Value, json};

#[path = "workload/handwritten.rs"]
mod handwritten;
#[path = "workload/pod.rs"]
mod pod;
#[path = "workload/second.rs"]
mod second;

/// The system allocator, counting allocations only while [`measure`] runs (the timings are of
/// the plain system allocator).
#[global_allocator]
static ALLOCATOR: crd_cel_alloc_count::Counting = crd_cel_alloc_count::Counting;

/// The allocations of one call of `f`, as the mean over `n` calls after a first one (which may
/// fill caches: thread-local buffers, compiled regular expressions).
fn per_call<R>(n: u64, mut f: impl FnMut() -> R) -> (f64, f64) {
    black_box(f());
    let ((), c) = measure(|| {
        for _ in 0..n {
            black_box(f());
        }
    });
    #[allow(clippy::cast_precision_loss)]
    (c.allocations as f64 / n as f64, c.bytes as f64 / n as f64)
}

/// The allocations per call of each path (typed `validate()` and `validate_update()`, the
/// manifest path's `Validator::validate`, kube-rs' two), as `(group, id, allocations, bytes)`.
fn allocations_per_call() -> Vec<(&'static str, &'static str, f64, f64)> {
    use crd_cel::CelValidate;
    let o = objects();
    let manifest = crd_cel::Validator::from_crd(&crd_manifest(), None).expect("manifest");
    let options = crd_cel::Options::default();
    let compiled = kube::core::cel::compile_schema(&kube_schema());
    let kube_validator = kube::core::cel::Validator::new();
    let n = 200;
    let mut out = Vec::new();
    let mut add = |group, id, (count, bytes)| out.push((group, id, count, bytes));
    add(
        "create",
        "crd-cel",
        per_call(n, || o.crd.validate().is_ok()),
    );
    add(
        "create",
        "crd-cel-manifest",
        per_call(n, || manifest.validate(&o.json, None, &options).is_valid()),
    );
    add(
        "create",
        "kube-validate_cel",
        per_call(n, || o.kube.validate_cel().is_ok()),
    );
    add(
        "create",
        "kube-cel-compiled",
        per_call(n, || {
            kube_validator
                .validate_compiled(&compiled, &o.json, None)
                .is_ok()
        }),
    );
    add(
        "create",
        "hand-written",
        per_call(n, || handwritten::validate(&o.crd, None).is_ok()),
    );
    add(
        "update",
        "crd-cel",
        per_call(n, || o.crd.validate_update(&o.crd_old).is_ok()),
    );
    add(
        "update",
        "crd-cel-manifest",
        per_call(n, || {
            manifest
                .validate(&o.json, Some(&o.old_json), &options)
                .is_valid()
        }),
    );
    add(
        "update",
        "kube-validate_cel",
        per_call(n, || o.kube.validate_cel_update(&o.kube_old).is_ok()),
    );
    add(
        "update",
        "kube-cel-compiled",
        per_call(n, || {
            kube_validator
                .validate_compiled(&compiled, &o.json, Some(&o.old_json))
                .is_ok()
        }),
    );
    add(
        "update",
        "hand-written",
        per_call(n, || {
            handwritten::validate(&o.crd, Some(&o.crd_old)).is_ok()
        }),
    );
    out
}

/// The largest CRD of `../shared/corpus` (by the size of its storage version's schema), as
/// `(file, name, schema bytes, manifest)`; `None` without the corpus.
fn largest_corpus_crd() -> Option<(PathBuf, String, usize, Value)> {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut files = Vec::new();
    let mut dirs = vec![corpus];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml")
                && path.components().any(|c| c.as_os_str() == "crd")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut best: Option<(PathBuf, String, usize, Value)> = None;
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let Ok(crd) = <Value as serde::Deserialize>::deserialize(doc) else {
                continue;
            };
            if crd.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
                continue;
            }
            let Some(versions) = crd.pointer("/spec/versions").and_then(Value::as_array) else {
                continue;
            };
            let storage = versions
                .iter()
                .find(|v| v.get("storage").and_then(Value::as_bool) == Some(true))
                .or(versions.first());
            let size = storage
                .and_then(|v| v.pointer("/schema/openAPIV3Schema"))
                .map_or(0, |s| s.to_string().len());
            if best.as_ref().is_none_or(|b| size > b.2) {
                let name = crd
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                best = Some((file.clone(), name, size, crd));
            }
        }
    }
    best
}

/// The memory a [`crd_cel::Validator`] holds for the largest corpus CRD: the bytes still
/// allocated after building it (its tree, compiled rules, OpenAPI checks and schema copy), and
/// what building it allocated in all. Built twice: the first build also fills the process's
/// memo of parsed rule texts, the second is the validator alone.
fn validator_size() {
    let Some((file, name, schema_bytes, crd)) = largest_corpus_crd() else {
        println!("\nvalidator size: ../shared/corpus is missing, not measured");
        return;
    };
    println!(
        "\nvalidator size, largest corpus CRD: {name} ({}; storage version's schema {schema_bytes} bytes as JSON)",
        file.display()
    );
    for build in ["first build", "second build"] {
        let (validator, c) =
            measure(|| crd_cel::Validator::from_crd(&crd, None).expect("the corpus CRD builds"));
        println!(
            "  {build:<12}: {} bytes held after it ({:.1} MiB), {} allocations of {} bytes while building",
            c.live,
            c.live as f64 / (1 << 20) as f64,
            c.allocations,
            c.bytes
        );
        // Dropped outside the count: what it held is what the next build holds again.
        drop(validator);
    }
}

/// The CR written with crd-cel's derive.
mod crdcel {
    use crd_cel::CelValidate;
    use kube::CustomResource;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    /// The workload's desired state.
    #[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[kube(
        group = "bench.example.com",
        version = "v1",
        kind = "Workload",
        namespaced
    )]
    #[cel(
        rule = "self.minReplicas <= self.maxReplicas",
        message = "minReplicas must not exceed maxReplicas"
    )]
    #[cel(
        rule = "self.replicas >= self.minReplicas && self.replicas <= self.maxReplicas",
        message = "replicas must lie within [minReplicas, maxReplicas]"
    )]
    #[cel(
        rule = "self.ports.exists(p, p.name == 'http')",
        message = "a port named http is required"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct WorkloadSpec {
        #[schemars(length(max = 256))]
        #[cel(rule = "self.contains(':')", message = "image must carry a tag")]
        pub image: String,
        #[cel(rule = "self <= 1000", message = "at most 1000 replicas")]
        pub replicas: i32,
        pub min_replicas: i32,
        pub max_replicas: i32,
        #[schemars(length(max = 16))]
        #[cel(rule = "self == oldSelf", message = "tier is immutable")]
        pub tier: String,
        #[cel(list_type = "map", list_map_keys = ["name"], max_items = 32)]
        pub ports: Vec<Port>,
        #[cel(max_properties = 64)]
        #[cel(
            rule = "self.all(k, k.size() <= 63)",
            message = "label keys are at most 63 characters"
        )]
        pub labels: BTreeMap<String, String>,
        #[schemars(length(max = 253))]
        #[cel(
            rule = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",
            message = "hostname must be a DNS name"
        )]
        pub hostname: String,
        #[cel(
            rule = "self >= 1 && self <= 3600",
            message = "timeout is 1 to 3600 seconds"
        )]
        pub timeout_seconds: i32,
        pub paused: bool,
    }

    /// A named port.
    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[cel(
        rule = "self.port >= 1 && self.port <= 65535",
        message_expression = "'port ' + self.name + ' is out of range'"
    )]
    pub struct Port {
        #[schemars(length(max = 15))]
        #[cel(
            rule = "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
            message = "port names are lowercase alphanumerics and '-'"
        )]
        pub name: String,
        pub port: i32,
        #[schemars(length(max = 3))]
        pub protocol: String,
    }
}

/// The identical CR written for kube-rs 5 (`KubeSchema` with `#[x_kube(validation)]`).
mod kubers {
    use kube::{CustomResource, KubeSchema};
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    /// The workload's desired state.
    #[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug)]
    #[kube(
        group = "bench.example.com",
        version = "v1",
        kind = "Workload",
        namespaced,
        cel
    )]
    #[x_kube(validation = Rule::new("self.minReplicas <= self.maxReplicas")
        .message("minReplicas must not exceed maxReplicas"))]
    #[x_kube(validation = Rule::new("self.replicas >= self.minReplicas && self.replicas <= self.maxReplicas")
        .message("replicas must lie within [minReplicas, maxReplicas]"))]
    #[x_kube(validation = Rule::new("self.ports.exists(p, p.name == 'http')")
        .message("a port named http is required"))]
    #[serde(rename_all = "camelCase")]
    pub struct WorkloadSpec {
        #[schemars(length(max = 256))]
        #[x_kube(validation = Rule::new("self.contains(':')").message("image must carry a tag"))]
        pub image: String,
        #[x_kube(validation = Rule::new("self <= 1000").message("at most 1000 replicas"))]
        pub replicas: i32,
        pub min_replicas: i32,
        pub max_replicas: i32,
        #[schemars(length(max = 16))]
        #[x_kube(validation = Rule::new("self == oldSelf").message("tier is immutable"))]
        pub tier: String,
        #[schemars(length(max = 32))]
        #[x_kube(merge_strategy = ListMerge::Map(vec!["name".into()]))]
        pub ports: Vec<Port>,
        #[schemars(extend("maxProperties" = 64))]
        #[x_kube(validation = Rule::new("self.all(k, k.size() <= 63)")
            .message("label keys are at most 63 characters"))]
        pub labels: BTreeMap<String, String>,
        #[schemars(length(max = 253))]
        #[x_kube(validation = Rule::new(
            "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')"
        ).message("hostname must be a DNS name"))]
        pub hostname: String,
        #[x_kube(validation = Rule::new("self >= 1 && self <= 3600")
            .message("timeout is 1 to 3600 seconds"))]
        pub timeout_seconds: i32,
        pub paused: bool,
    }

    /// A named port.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
    #[x_kube(validation = Rule::new("self.port >= 1 && self.port <= 65535")
        .message(Message::Expression("'port ' + self.name + ' is out of range'".into())))]
    pub struct Port {
        #[schemars(length(max = 15))]
        #[x_kube(validation = Rule::new("self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')")
            .message("port names are lowercase alphanumerics and '-'"))]
        pub name: String,
        pub port: i32,
        #[schemars(length(max = 3))]
        pub protocol: String,
    }
}

/// The benchmark object as JSON: both implementations deserialize their typed object from it, so
/// they validate the same data.
fn object(replicas: i32, port_shift: i32) -> Value {
    let mut ports = vec![json!({"name": "http", "port": 8080, "protocol": "TCP"})];
    for i in 1..20 {
        ports.push(json!({
            "name": format!("port-{i}"),
            "port": 9000 + i + port_shift,
            "protocol": if i % 2 == 0 { "TCP" } else { "UDP" },
        }));
    }
    json!({
        "apiVersion": "bench.example.com/v1",
        "kind": "Workload",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "image": "registry.example.com/web:1.2.3",
            "replicas": replicas,
            "minReplicas": 1,
            "maxReplicas": 10,
            "tier": "standard",
            "ports": ports,
            "labels": {"app": "web", "team": "platform", "env": "prod"},
            "hostname": "web.example.com",
            "timeoutSeconds": 30,
            "paused": false,
        }
    })
}

/// An object on which every one of the 11 rules fails at every node (R5 only against `valid_old`).
fn all_failing() -> Value {
    let mut o = object(2000, 0);
    let spec = &mut o["spec"];
    spec["image"] = json!("registry.example.com/web");
    spec["minReplicas"] = json!(20);
    spec["tier"] = json!("premium");
    spec["labels"] = json!({ "k".repeat(64): "v" });
    spec["hostname"] = json!("Web_Example");
    spec["timeoutSeconds"] = json!(0);
    // Renamed ports (no `http`, names the pattern rejects) correlate with no old item, so
    // ratcheting leaves them alone.
    spec["ports"] = Value::Array(
        (0..20)
            .map(|i| json!({"name": format!("P{i}"), "port": 70000 + i, "protocol": "TCP"}))
            .collect(),
    );
    o
}

/// The objects of the benchmark, in each implementation's types and as JSON.
struct Objects {
    json: Value,
    old_json: Value,
    crd: crdcel::Workload,
    crd_old: crdcel::Workload,
    kube: kubers::Workload,
    kube_old: kubers::Workload,
}

fn objects() -> Objects {
    // The update scales 2 -> 3 replicas and moves every port but `http` by one.
    let json = object(3, 0);
    let old_json = object(2, 1);
    Objects {
        crd: serde_json::from_value(json.clone()).expect("crd-cel object"),
        crd_old: serde_json::from_value(old_json.clone()).expect("crd-cel old object"),
        kube: serde_json::from_value(json.clone()).expect("kube object"),
        kube_old: serde_json::from_value(old_json.clone()).expect("kube old object"),
        json,
        old_json,
    }
}

/// The CRD manifest of the crd-cel type, as the manifest path reads it.
fn crd_manifest() -> Value {
    use kube::CustomResourceExt;
    serde_json::to_value(crdcel::Workload::crd()).expect("CRD serializes")
}

/// The `openAPIV3Schema` kube's `validate_cel()` validates against (it regenerates it per call).
fn kube_schema() -> Value {
    use kube::CustomResourceExt;
    let crd = serde_json::to_value(kubers::Workload::crd()).expect("CRD serializes");
    crd.pointer("/spec/versions/0/schema/openAPIV3Schema")
        .cloned()
        .expect("kube's CRD has a schema")
}

/// Error counts of one object by every path: crd-cel typed, crd-cel manifest, kube `validate_cel`,
/// kube-cel compiled, hand-written.
fn error_counts(new: &Value, old: Option<&Value>) -> [usize; 5] {
    use crd_cel::CelValidate;
    let manifest = crd_cel::Validator::from_crd(&crd_manifest(), None).expect("manifest");
    let compiled = kube::core::cel::compile_schema(&kube_schema());
    let kube_validator = kube::core::cel::Validator::new();
    let crd: crdcel::Workload = serde_json::from_value(new.clone()).expect("crd-cel object");
    let kube: kubers::Workload = serde_json::from_value(new.clone()).expect("kube object");
    let (typed, via_kube, by_hand) = match old {
        None => (
            crd.validate(),
            kube.validate_cel(),
            handwritten::validate(&crd, None),
        ),
        Some(old) => {
            let crd_old: crdcel::Workload = serde_json::from_value(old.clone()).expect("old");
            let kube_old: kubers::Workload = serde_json::from_value(old.clone()).expect("old");
            (
                crd.validate_update(&crd_old),
                kube.validate_cel_update(&kube_old),
                handwritten::validate(&crd, Some(&crd_old)),
            )
        }
    };
    let by_manifest = manifest.validate(new, old, &crd_cel::Options::default());
    let by_compiled = kube_validator.validate_compiled(&compiled, new, old);
    [
        typed.err().map_or(0, |e| e.errors.len()),
        by_manifest.errors.errors.len(),
        via_kube.err().map_or(0, |e| e.len()),
        by_compiled.err().map_or(0, |e| e.len()),
        by_hand.err().map_or(0, |e| e.len()),
    ]
}

/// Before timing: every path must give the same verdict on the benchmark objects, on one invalid
/// object each for create and update, and on the all-failing object (which also counts the
/// evaluations), so the benchmark cannot compare a no-op.
fn check_verdicts() {
    let o = objects();
    let cases: Vec<(&str, Value, Option<Value>, usize)> = vec![
        ("create, valid", o.json.clone(), None, 0),
        ("update, valid", o.json.clone(), Some(o.old_json.clone()), 0),
        (
            "create, port out of range",
            {
                let mut bad = o.json.clone();
                bad["spec"]["ports"][7]["port"] = json!(70000);
                bad
            },
            None,
            1,
        ),
        (
            "update, tier changed",
            {
                let mut bad = o.json.clone();
                bad["spec"]["tier"] = json!("premium");
                bad
            },
            Some(o.old_json.clone()),
            1,
        ),
        ("create, every rule fails", all_failing(), None, 48),
        (
            "update, every rule fails",
            all_failing(),
            Some(o.old_json.clone()),
            49,
        ),
    ];
    println!(
        "verdicts (errors from: crd-cel, crd-cel manifest, kube validate_cel, kube-cel compiled, hand-written):"
    );
    for (name, new, old, want) in &cases {
        let counts = error_counts(new, old.as_ref());
        println!("  {name:<28} {counts:?} (expected {want} each)");
        assert!(
            counts.iter().all(|c| c == want),
            "{name}: the implementations disagree: {counts:?}, expected {want} errors each"
        );
    }
    // The texts, for the reader: crd-cel's are the apiserver's.
    let mut bad = o.json.clone();
    bad["spec"]["ports"][7]["port"] = json!(70000);
    let crd: crdcel::Workload = serde_json::from_value(bad.clone()).expect("object");
    let kube: kubers::Workload = serde_json::from_value(bad).expect("object");
    if let Err(e) = crd_cel::CelValidate::validate(&crd) {
        println!("  crd-cel:            {e}");
    }
    if let Err(e) = kube.validate_cel() {
        for e in e.iter() {
            println!("  kube validate_cel:  {e}");
        }
    }
}

/// The 48 evaluations of a create, outside the walk: each rule's program with the node value it
/// binds to `self`, taken from the converted object.
fn create_evaluations(
    root: &crd_cel::eval::Value,
) -> Vec<(crd_cel::eval::Program, crd_cel::eval::Value)> {
    use crd_cel::eval::Program;
    use crd_cel::eval::Value as Cel;
    fn field(v: &Cel, name: &str) -> Cel {
        match v {
            Cel::Map(m) => m.get_str(name).cloned().expect("field present"),
            other => panic!("not an object: {other:?}"),
        }
    }
    let program = |src: &str| Program::compile(src).expect("rule compiles");
    let spec = field(root, "spec");
    let mut out = Vec::new();
    for rule in [
        "self.minReplicas <= self.maxReplicas",
        "self.replicas >= self.minReplicas && self.replicas <= self.maxReplicas",
        "self.ports.exists(p, p.name == 'http')",
    ] {
        out.push((program(rule), spec.clone()));
    }
    for (name, rule) in [
        ("image", "self.contains(':')"),
        ("replicas", "self <= 1000"),
        ("labels", "self.all(k, k.size() <= 63)"),
        (
            "hostname",
            "self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",
        ),
        ("timeoutSeconds", "self >= 1 && self <= 3600"),
    ] {
        out.push((program(rule), field(&spec, name)));
    }
    let Cel::List(ports) = field(&spec, "ports") else {
        panic!("ports is not a list");
    };
    for port in &ports.items {
        out.push((
            program("self.port >= 1 && self.port <= 65535"),
            port.clone(),
        ));
        out.push((
            program("self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')"),
            field(port, "name"),
        ));
    }
    out
}

/// Stages of a create, for the profile in the report: serializing the typed object to JSON (the
/// JSON path's first step; the typed fast path does not take it), converting the whole JSON
/// object to CEL values (the walk converts only what rules read), and the 48 evaluations alone.
/// The pod-template shape ([`pod`]): its checks on views (the template serialized alone)
/// beside the same spec whose checks all go through the serde pass, and beside the same spec
/// with two rules the views cannot run (evaluated on the spec's value).
fn bench_pod(c: &mut Criterion) {
    use crd_cel::CelValidate;
    let (v, s, m) = (pod::viewed(), pod::serialized(), pod::mixed());
    assert!(v.validate().is_ok() && s.validate().is_ok() && m.validate().is_ok());
    // Past the misses after which a type's checks stay with the serde pass.
    for _ in 0..20 {
        assert!(s.validate().is_ok());
    }
    let mut g = c.benchmark_group("pod-template");
    g.bench_function("checks-on-views", |b| {
        b.iter(|| black_box(&v).validate().is_ok())
    });
    g.bench_function("checks-by-serde", |b| {
        b.iter(|| black_box(&s).validate().is_ok())
    });
    g.bench_function("two-rules-on-values", |b| {
        b.iter(|| black_box(&m).validate().is_ok())
    });
    g.finish();
}

/// The second workload ([`second`]): the same verdicts from crd-cel's typed and manifest paths
/// and kube-rs on its objects, then crd-cel's typed path beside kube's `validate_cel()`.
fn bench_second(c: &mut Criterion) {
    use crd_cel::CelValidate;
    use kube::CustomResourceExt;
    let crd = serde_json::to_value(second::crdcel::Pipeline::crd()).expect("CRD serializes");
    let manifest = crd_cel::Validator::from_crd(&crd, None).expect("manifest");
    let counts = |new: &Value, old: Option<&Value>| -> [usize; 4] {
        let c: second::crdcel::Pipeline = serde_json::from_value(new.clone()).expect("object");
        let k: second::kubers::Pipeline = serde_json::from_value(new.clone()).expect("object");
        let (typed, kube, by_hand) = match old {
            None => (
                c.validate(),
                k.validate_cel(),
                second::handwritten::validate(&c, None),
            ),
            Some(old) => {
                let co: second::crdcel::Pipeline =
                    serde_json::from_value(old.clone()).expect("old");
                let ko: second::kubers::Pipeline =
                    serde_json::from_value(old.clone()).expect("old");
                (
                    c.validate_update(&co),
                    k.validate_cel_update(&ko),
                    second::handwritten::validate(&c, Some(&co)),
                )
            }
        };
        let by_manifest = manifest.validate(new, old, &crd_cel::Options::default());
        [
            typed.err().map_or(0, |e| e.errors.len()),
            by_manifest.errors.errors.len(),
            kube.err().map_or(0, |e| e.len()),
            by_hand.err().map_or(0, |e| e.len()),
        ]
    };
    let (new, old) = (second::object(0), second::object(5));
    println!(
        "second workload (errors from: crd-cel, crd-cel manifest, kube validate_cel, hand-written):"
    );
    for (name, new, old, want) in [
        ("create, valid", &new, None, 0),
        ("update, valid", &new, Some(&old), 0),
        ("create, every rule fails", &second::all_failing(), None, 68),
        (
            "update, every rule fails",
            &second::all_failing(),
            Some(&new),
            69,
        ),
    ] {
        let got = counts(new, old);
        println!("  {name:<28} {got:?} (expected {want} each)");
        assert!(
            got.iter().all(|c| *c == want),
            "{name}: the implementations disagree: {got:?}, expected {want} each"
        );
    }
    let c_new: second::crdcel::Pipeline = serde_json::from_value(new.clone()).expect("object");
    let c_old: second::crdcel::Pipeline = serde_json::from_value(old.clone()).expect("object");
    let k_new: second::kubers::Pipeline = serde_json::from_value(new).expect("object");
    let k_old: second::kubers::Pipeline = serde_json::from_value(old).expect("object");
    let mut g = c.benchmark_group("second-create");
    g.bench_function("crd-cel", |b| {
        b.iter(|| black_box(&c_new).validate().is_ok())
    });
    g.bench_function("kube-validate_cel", |b| {
        b.iter(|| black_box(&k_new).validate_cel().is_ok())
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| second::handwritten::validate(black_box(&c_new), None).is_ok())
    });
    g.finish();
    let mut g = c.benchmark_group("second-update");
    g.bench_function("crd-cel", |b| {
        b.iter(|| black_box(&c_new).validate_update(black_box(&c_old)).is_ok())
    });
    g.bench_function("kube-validate_cel", |b| {
        b.iter(|| {
            black_box(&k_new)
                .validate_cel_update(black_box(&k_old))
                .is_ok()
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| second::handwritten::validate(black_box(&c_new), Some(black_box(&c_old))).is_ok())
    });
    g.finish();
}

fn bench_stages(c: &mut Criterion) {
    use crd_cel::CelSchema;
    use crd_cel::eval::SchemaNode;
    use crd_cel::eval::to_value;
    let o = objects();
    let tree = SchemaNode::from_model_with(
        &<crdcel::Workload as CelSchema>::MODEL,
        true,
        &mut |_, _, _| {},
    );
    let root = to_value(&o.json, &tree, true);
    let evaluations = create_evaluations(&root);
    assert_eq!(evaluations.len(), 48);
    for (p, v) in &evaluations {
        let ev = p.eval(v, None, crd_cel::validate::PER_CALL_LIMIT);
        assert!(
            matches!(ev.result, Ok(crd_cel::eval::Value::Bool(true))),
            "{ev:?}"
        );
    }

    let mut g = c.benchmark_group("stages");
    g.bench_function("serialize", |b| {
        b.iter(|| serde_json::to_value(black_box(&o.crd)).is_ok())
    });
    g.bench_function("convert", |b| {
        b.iter(|| to_value(black_box(&o.json), &tree, true))
    });
    g.bench_function("evaluate-48", |b| {
        b.iter(|| {
            evaluations
                .iter()
                .map(|(p, v)| {
                    p.eval(black_box(v), None, crd_cel::validate::PER_CALL_LIMIT)
                        .cost
                })
                .sum::<u64>()
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    use crd_cel::CelValidate;
    let o = objects();
    let manifest = crd_cel::Validator::from_crd(&crd_manifest(), None).expect("manifest");
    let options = crd_cel::Options::default();
    let compiled = kube::core::cel::compile_schema(&kube_schema());
    let kube_validator = kube::core::cel::Validator::new();

    let mut g = c.benchmark_group("create");
    g.bench_function("crd-cel", |b| {
        b.iter(|| black_box(&o.crd).validate().is_ok())
    });
    g.bench_function("crd-cel-manifest", |b| {
        b.iter(|| {
            manifest
                .validate(black_box(&o.json), None, &options)
                .is_valid()
        })
    });
    g.bench_function("kube-validate_cel", |b| {
        b.iter(|| black_box(&o.kube).validate_cel().is_ok())
    });
    g.bench_function("kube-cel-compiled", |b| {
        b.iter(|| {
            kube_validator
                .validate_compiled(&compiled, black_box(&o.json), None)
                .is_ok()
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| handwritten::validate(black_box(&o.crd), None).is_ok())
    });
    g.finish();

    let mut g = c.benchmark_group("update");
    g.bench_function("crd-cel", |b| {
        b.iter(|| {
            black_box(&o.crd)
                .validate_update(black_box(&o.crd_old))
                .is_ok()
        })
    });
    g.bench_function("crd-cel-manifest", |b| {
        b.iter(|| {
            manifest
                .validate(black_box(&o.json), Some(black_box(&o.old_json)), &options)
                .is_valid()
        })
    });
    g.bench_function("kube-validate_cel", |b| {
        b.iter(|| {
            black_box(&o.kube)
                .validate_cel_update(black_box(&o.kube_old))
                .is_ok()
        })
    });
    g.bench_function("kube-cel-compiled", |b| {
        b.iter(|| {
            kube_validator
                .validate_compiled(&compiled, black_box(&o.json), Some(black_box(&o.old_json)))
                .is_ok()
        })
    });
    g.bench_function("hand-written", |b| {
        b.iter(|| handwritten::validate(black_box(&o.crd), Some(black_box(&o.crd_old))).is_ok())
    });
    g.finish();
}

/// Where criterion writes its estimates, by criterion's own rule: `CRITERION_HOME`, else
/// `CARGO_TARGET_DIR`, else the target directory `cargo metadata` reports (under `cargo bench`),
/// else `./target`.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    let from_metadata = std::env::var_os("CARGO").and_then(|cargo| {
        let out = std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()?;
        let v: Value = serde_json::from_slice(&out.stdout).ok()?;
        Some(PathBuf::from(v.get("target_directory")?.as_str()?))
    });
    from_metadata
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("criterion")
}

/// When this run started: estimates written before it are an earlier run's and are not shown.
static STARTED: std::sync::OnceLock<std::time::SystemTime> = std::sync::OnceLock::new();

/// The median and mean of one benchmark, in nanoseconds, from its `estimates.json` of this run.
fn estimate(group: &str, id: &str) -> Option<(f64, f64)> {
    let path = criterion_home()
        .join(group)
        .join(id)
        .join("new/estimates.json");
    let written = std::fs::metadata(&path).ok()?.modified().ok()?;
    if written < *STARTED.get()? {
        return None;
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    Some((
        v.pointer("/median/point_estimate")?.as_f64()?,
        v.pointer("/mean/point_estimate")?.as_f64()?,
    ))
}

fn print_ratios(allocations: &[(&str, &str, f64, f64)]) {
    println!(
        "\nper call (median; mean), time / crd-cel's typed time, and allocations per call (count, bytes):"
    );
    for group in ["create", "update"] {
        let Some((base_median, base_mean)) = estimate(group, "crd-cel") else {
            println!("  {group}: no estimates for crd-cel from this run (filtered out?)");
            continue;
        };
        for id in [
            "crd-cel",
            "crd-cel-manifest",
            "kube-validate_cel",
            "kube-cel-compiled",
            "hand-written",
        ] {
            let Some((median, mean)) = estimate(group, id) else {
                continue;
            };
            let (count, bytes) = allocations
                .iter()
                .find(|(g, i, ..)| *g == group && *i == id)
                .map_or((f64::NAN, f64::NAN), |&(.., c, b)| (c, b));
            println!(
                "  {group:<6} {id:<18} {:>10.2} us; {:>10.2} us   x{:.1} (median) x{:.1} (mean)   {count:>8.1} allocations, {bytes:>10.0} bytes",
                median / 1e3,
                mean / 1e3,
                median / base_median,
                mean / base_mean,
            );
        }
    }
    for group in ["create", "update"] {
        if let (Some((typed, _)), Some((kube, _)), Some((hand, _))) = (
            estimate(group, "crd-cel"),
            estimate(group, "kube-validate_cel"),
            estimate(group, "hand-written"),
        ) {
            println!(
                "  {group}: crd-cel's typed path is {:.0}x faster than kube's validate_cel() and {:.0}x slower than hand-written Rust",
                kube / typed,
                typed / hand
            );
        }
    }
    for group in ["second-create", "second-update"] {
        if let (Some((typed, _)), Some((kube, _)), Some((hand, _))) = (
            estimate(group, "crd-cel"),
            estimate(group, "kube-validate_cel"),
            estimate(group, "hand-written"),
        ) {
            println!(
                "  {group}: crd-cel's typed path {:.2} us, kube's validate_cel() {:.0} us \
                 ({:.0}x faster), hand-written {:.2} us ({:.1}x slower)",
                typed / 1e3,
                kube / 1e3,
                kube / typed,
                hand / 1e3,
                typed / hand
            );
        }
    }
    let stage = |id| estimate("stages", id).map(|(median, _)| median / 1e3);
    if let (Some(ser), Some(conv), Some(eval), Some((manifest, _))) = (
        stage("serialize"),
        stage("convert"),
        stage("evaluate-48"),
        estimate("create", "crd-cel-manifest"),
    ) {
        let manifest = manifest / 1e3;
        println!(
            "  stages (medians): serde_json serialization of the typed object {ser:.2} us, \
             whole-object conversion to CEL values {conv:.2} us, the 48 evaluations {eval:.2} us \
             (manifest path create {manifest:.2} us: it converts only what rules read)"
        );
    }
}

fn main() {
    // For a profiler (`valgrind --tool=callgrind`): only N typed `validate()` calls, after one.
    if let Some(n) = std::env::var("WORKLOAD_PROFILE_TYPED")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
    {
        use crd_cel::CelValidate;
        let o = objects();
        assert!(o.crd.validate().is_ok());
        for _ in 0..n {
            black_box(black_box(&o.crd).validate().is_ok());
        }
        return;
    }
    // `WORKLOAD_PROFILE_TYPED_UPDATE=N`: the same with N typed `validate_update()` calls.
    if let Some(n) = std::env::var("WORKLOAD_PROFILE_TYPED_UPDATE")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
    {
        use crd_cel::CelValidate;
        let o = objects();
        assert!(o.crd.validate_update(&o.crd_old).is_ok());
        for _ in 0..n {
            black_box(
                black_box(&o.crd)
                    .validate_update(black_box(&o.crd_old))
                    .is_ok(),
            );
        }
        return;
    }
    // `WORKLOAD_PROFILE_SECOND=create|update:N`: only N typed calls on the second workload.
    if let Some((which, n)) = std::env::var("WORKLOAD_PROFILE_SECOND").ok().and_then(|v| {
        let (which, n) = v.split_once(':')?;
        Some((which.to_owned(), n.parse::<u64>().ok()?))
    }) {
        use crd_cel::CelValidate;
        let new: second::crdcel::Pipeline =
            serde_json::from_value(second::object(0)).expect("object");
        let old: second::crdcel::Pipeline =
            serde_json::from_value(second::object(5)).expect("object");
        assert!(new.validate().is_ok() && new.validate_update(&old).is_ok());
        for _ in 0..n {
            match which.as_str() {
                "update" => black_box(black_box(&new).validate_update(black_box(&old)).is_ok()),
                _ => black_box(black_box(&new).validate().is_ok()),
            };
        }
        return;
    }
    // `WORKLOAD_PROFILE_POD=views|serde|mixed:N`: only N typed calls on the pod-template shape.
    if let Some((which, n)) = std::env::var("WORKLOAD_PROFILE_POD").ok().and_then(|v| {
        Some((
            v.split_once(':')?.0.to_owned(),
            v.split_once(':')?.1.parse::<u64>().ok()?,
        ))
    }) {
        use crd_cel::CelValidate;
        let (v, s, m) = (pod::viewed(), pod::serialized(), pod::mixed());
        assert!(v.validate().is_ok() && s.validate().is_ok() && m.validate().is_ok());
        for _ in 0..n {
            match which.as_str() {
                "views" => black_box(black_box(&v).validate().is_ok()),
                "mixed" => black_box(black_box(&m).validate().is_ok()),
                _ => black_box(black_box(&s).validate().is_ok()),
            };
        }
        return;
    }
    STARTED.get_or_init(std::time::SystemTime::now);
    check_verdicts();
    let allocations = allocations_per_call();
    println!("\nallocations per call (mean of 200 calls after a first):");
    for (group, id, count, bytes) in &allocations {
        println!("  {group:<6} {id:<18} {count:>8.1} allocations, {bytes:>10.0} bytes");
    }
    validator_size();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    bench_stages(&mut c);
    bench_pod(&mut c);
    bench_second(&mut c);
    c.final_summary();
    print_ratios(&allocations);
}
