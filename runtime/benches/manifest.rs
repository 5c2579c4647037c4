//! crd-cel's manifest path on the inputs `oracle bench` (tests/oracle/bench.go) times with the
//! apiserver's own Go code: a [`Validator`] built once per CRD version with
//! [`Validator::from_crd`] (as the apiserver caches its validators per CRD), then, per request,
//! what the apiserver does with a JSON body: parse it ([`Body`], with the strict decoding's
//! repeated fields), and [`Validator::validate_body`]: pruning, defaults, the registry's
//! metadata and `status` handling, ObjectMeta, the OpenAPI schema, list types, CEL, and the
//! error's text (the `Status` message). An update parses and decodes the old object too.
//!
//! ```text
//! cargo bench -p crd-cel --bench manifest                # the example CRD and objects
//! CRD=crd.yaml OBJECT=obj.yaml [OLD=old.yaml] [SUBRESOURCE=status] cargo bench -p crd-cel --bench manifest
//! CORPUS_LIST=list.tsv cargo bench -p crd-cel --bench manifest
//! ```
//!
//! The first two run criterion and print `crd-cel manifest <x> ns/op` (criterion's median), after
//! checking the verdict against the oracle (`ORACLE`, default `tests/oracle/oracle` when built)
//! or, for the examples, against their known verdicts. `CORPUS_LIST` times each line's request
//! (`NAME<TAB>CRD<TAB>OBJECT[<TAB>OLD[<TAB>SUBRESOURCE[<TAB>VERDICT]]]`, `-` for none) with the
//! calibrated loop `oracle bench -list` runs (30 ms of warm-up, then the median of five batches of
//! about 20 ms) and prints `NAME VERDICT <x> ns/op`; a line whose `VERDICT` (the oracle's) is not
//! crd-cel's is printed as `NAME MISMATCH ...` and not timed. `tests/bench/manifest-vs-go.sh`
//! runs both sides over the examples and the corpus.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crd_cel::validate::{Body, Endpoint, Validator};
use criterion::Criterion;
use serde_json::Value as Json;

/// One request to time.
struct Case {
    name: String,
    validator: Arc<Validator>,
    /// The request body, JSON.
    object: Vec<u8>,
    /// The stored object, JSON (an update).
    old: Option<Vec<u8>>,
    endpoint: Endpoint,
    kind: String,
    group: String,
}

impl Case {
    /// One request: its verdict and the text of its error (empty when valid).
    fn request(&self) -> (bool, String) {
        let body: Body = match serde_json::from_slice(&self.object) {
            Ok(b) => b,
            Err(e) => return (false, e.to_string()),
        };
        let old: Option<Json> = match self.old.as_deref().map(serde_json::from_slice) {
            None => None,
            Some(Ok(o)) => Some(o),
            Some(Err(e)) => return (false, e.to_string()),
        };
        let out = self
            .validator
            .validate_body(&body, old.as_ref(), self.endpoint);
        if out.is_valid() {
            return (true, String::new());
        }
        let text = match &out.refusal {
            Some(refusal) => refusal.to_string(),
            None => out.errors.status_message(
                &self.kind,
                &self.group,
                out.name.as_deref().unwrap_or_default(),
            ),
        };
        (false, text)
    }

    fn verdict(&self) -> &'static str {
        if self.request().0 { "valid" } else { "invalid" }
    }

    /// Nanoseconds per request: 30 ms of warm-up (at least 3 requests), then five batches of
    /// about 20 ms; the median batch (`timeCase` in tests/oracle/bench.go).
    fn time(&self) -> f64 {
        let start = Instant::now();
        let mut iters = 0u32;
        while start.elapsed() < Duration::from_millis(30) || iters < 3 {
            black_box(self.request());
            iters += 1;
        }
        let per = start.elapsed().as_nanos() as f64 / f64::from(iters);
        let count = (20e6 / per) as u64 + 1;
        let mut samples: Vec<f64> = (0..5)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..count {
                    black_box(self.request());
                }
                start.elapsed().as_nanos() as f64 / count as f64
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        samples[samples.len() / 2]
    }
}

/// The workspace root (benches run in the package's directory).
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runtime/ has a parent")
        .to_path_buf()
}

/// A path as the user meant it: relative to the shell's directory (`PWD`, which cargo passes
/// on), else to the workspace root.
fn resolve(path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let candidates = [
        std::env::var_os("PWD").map(|d| PathBuf::from(d).join(p)),
        Some(workspace().join(p)),
        Some(p.to_path_buf()),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|c| c.exists())
        .unwrap_or_else(|| p.to_path_buf())
}

/// The documents of a YAML (or JSON) file, read as kubectl reads YAML.
fn documents(path: &Path) -> Vec<Json> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if text.trim_start().starts_with('{') {
        return vec![
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        ];
    }
    serde_yaml::Deserializer::from_str(&text)
        .map(|d| {
            Body::from_yaml(d, &text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .object
        })
        .filter(|o| !o.is_null())
        .collect()
}

/// The one object of a file, as the JSON body a client sends.
fn body(path: &Path) -> Vec<u8> {
    let docs = documents(path);
    assert!(
        docs.len() == 1,
        "{}: expected one document, found {}",
        path.display(),
        docs.len()
    );
    let raw = std::fs::read(path).unwrap();
    // A JSON file is sent as written; YAML as the JSON kubectl makes of it.
    if raw.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        raw
    } else {
        serde_json::to_vec(&docs[0]).unwrap()
    }
}

/// Validators built once per (CRD file, kind, version), as the apiserver caches them.
#[derive(Default)]
struct Validators(HashMap<(PathBuf, String, String), Arc<Validator>>);

impl Validators {
    fn case(
        &mut self,
        name: &str,
        crd: &Path,
        object: &Path,
        old: Option<&Path>,
        subresource: Option<&str>,
    ) -> Case {
        let object = body(object);
        let value: Json = serde_json::from_slice(&object).unwrap();
        let text = |key: &str| value.get(key).and_then(Json::as_str).unwrap_or_default();
        let (kind, api_version) = (text("kind").to_owned(), text("apiVersion"));
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let (group, version) = (group.to_owned(), version.to_owned());
        let key = (crd.to_path_buf(), kind.clone(), version.clone());
        let validator = self
            .0
            .entry(key)
            .or_insert_with(|| {
                let manifest = documents(crd)
                    .into_iter()
                    .find(|d| {
                        d.get("kind").and_then(Json::as_str) == Some("CustomResourceDefinition")
                            && d.pointer("/spec/names/kind").and_then(Json::as_str)
                                == Some(kind.as_str())
                    })
                    .unwrap_or_else(|| panic!("{}: no CRD of kind {kind}", crd.display()));
                Arc::new(
                    Validator::from_crd(&manifest, Some(&version))
                        .unwrap_or_else(|e| panic!("{}: {e}", crd.display())),
                )
            })
            .clone();
        let endpoint = match subresource {
            None => Endpoint::Resource,
            Some("status") if old.is_some() => Endpoint::Status,
            Some(other) => {
                panic!("{name}: subresource {other:?}: only an update of status is timed")
            }
        };
        Case {
            name: name.to_owned(),
            validator,
            object,
            old: old.map(body),
            endpoint,
            kind,
            group,
        }
    }
}

/// The oracle's verdict on a request (`oracle validate`), when the oracle is built.
fn oracle_verdict(
    crd: &Path,
    object: &Path,
    old: Option<&Path>,
    subresource: Option<&str>,
) -> Option<&'static str> {
    let oracle = std::env::var_os("ORACLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("tests/oracle/oracle"));
    if !oracle.exists() {
        return None;
    }
    let mut cmd = std::process::Command::new(&oracle);
    cmd.arg("validate").arg("--crd").arg(crd);
    if let Some(old) = old {
        cmd.arg("--old").arg(old);
    }
    if let Some(s) = subresource {
        cmd.arg("--subresource").arg(s);
    }
    let out = cmd.arg(object).output().ok()?;
    let answer: Json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: no answer ({e}): {}",
            oracle.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Some(if answer["valid"].as_bool() == Some(true) {
        "valid"
    } else {
        "invalid"
    })
}

/// Where criterion writes its estimates (`CRITERION_HOME`, else `CARGO_TARGET_DIR`, else the
/// workspace's `target`).
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return home.into();
    }
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
        .join("criterion")
}

/// Criterion's median of one benchmark of this run, in nanoseconds.
fn criterion_median(id: &str, since: std::time::SystemTime) -> Option<f64> {
    let path = criterion_home()
        .join("manifest")
        .join(id)
        .join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let v: Json = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    v.pointer("/median/point_estimate")?.as_f64()
}

/// `CORPUS_LIST`: every line's request, timed with the calibrated loop.
fn run_list(list: &Path) {
    let text = std::fs::read_to_string(list).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
    let mut validators = Validators::default();
    let mut mismatches = 0;
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f: Vec<Option<&str>> = line
            .split('\t')
            .map(|s| (s != "-" && !s.is_empty()).then_some(s))
            .collect();
        f.resize(6, None);
        let (Some(name), Some(crd), Some(object)) = (f[0], f[1], f[2]) else {
            panic!(
                "{}: a line needs NAME, CRD and OBJECT: {line}",
                list.display()
            );
        };
        let old = f[3].map(resolve);
        let case = validators.case(name, &resolve(crd), &resolve(object), old.as_deref(), f[4]);
        let verdict = case.verdict();
        if let Some(want) = f[5]
            && want != verdict
        {
            mismatches += 1;
            println!("{name} MISMATCH crd-cel={verdict} oracle={want}");
            continue;
        }
        println!("{name} {verdict} {:.0} ns/op", case.time());
    }
    if mismatches > 0 {
        eprintln!(
            "manifest: {mismatches} requests where crd-cel's verdict is not the oracle's (not timed)"
        );
        std::process::exit(1);
    }
}

fn main() {
    if let Some(list) = std::env::var_os("CORPUS_LIST") {
        run_list(&resolve(&list.to_string_lossy()));
        return;
    }
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let mut validators = Validators::default();
    // (case, the verdict it must have when no oracle is built)
    let mut cases: Vec<(Case, Option<&str>, Option<&str>)> = Vec::new();
    match (env("CRD"), env("OBJECT")) {
        (Some(crd), Some(object)) => {
            let (crd, object) = (resolve(&crd), resolve(&object));
            let old = env("OLD").map(|o| resolve(&o));
            let sub = env("SUBRESOURCE");
            let stem = object.file_stem().unwrap().to_string_lossy().into_owned();
            let name = if old.is_some() {
                format!("{stem}-update")
            } else {
                format!("{stem}-create")
            };
            let oracle = oracle_verdict(&crd, &object, old.as_deref(), sub.as_deref());
            let case = validators.case(&name, &crd, &object, old.as_deref(), sub.as_deref());
            cases.push((case, oracle, None));
        }
        (None, None) => {
            // The example CRD (`cargo run -p crd-cel-examples --bin crdgen`, which
            // tests/tests/crd_snapshot.rs keeps equal to this snapshot) and objects.
            let crd = workspace().join("tests/snapshots/webapp-crd.yaml");
            let objects = workspace().join("examples/objects");
            for (name, object, old, known) in [
                ("shop-create", "shop.yaml", None, "valid"),
                ("shop-broken-create", "shop-broken.yaml", None, "invalid"),
                ("shop-premium-create", "shop-premium.yaml", None, "valid"),
                (
                    "shop-premium-update",
                    "shop-premium.yaml",
                    Some("shop.yaml"),
                    "invalid",
                ),
            ] {
                let object = objects.join(object);
                let old = old.map(|o| objects.join(o));
                let oracle = oracle_verdict(&crd, &object, old.as_deref(), None);
                let case = validators.case(name, &crd, &object, old.as_deref(), None);
                cases.push((case, oracle, Some(known)));
            }
        }
        _ => panic!("set both CRD and OBJECT (or neither, for the examples)"),
    }
    for (case, oracle, known) in &cases {
        let verdict = case.verdict();
        match (oracle, known) {
            (Some(want), _) | (None, Some(want)) => assert_eq!(
                verdict,
                *want,
                "{}: crd-cel says {verdict}, the {} says {want}: not timed",
                case.name,
                if oracle.is_some() {
                    "oracle"
                } else {
                    "example's known verdict"
                }
            ),
            (None, None) => eprintln!(
                "{}: verdict {verdict} not checked (no oracle: build tests/oracle or set ORACLE)",
                case.name
            ),
        }
    }
    let since = std::time::SystemTime::now();
    let mut c = Criterion::default().configure_from_args();
    {
        let mut g = c.benchmark_group("manifest");
        for (case, _, _) in &cases {
            g.bench_function(&case.name, |b| b.iter(|| case.request()));
        }
        g.finish();
    }
    c.final_summary();
    for (case, _, _) in &cases {
        match criterion_median(&case.name, since) {
            Some(ns) => println!(
                "crd-cel manifest {ns:.0} ns/op {} ({})",
                case.name,
                case.verdict()
            ),
            None => println!(
                "crd-cel manifest {:.0} ns/op {} ({}, calibrated loop)",
                case.time(),
                case.name,
                case.verdict()
            ),
        }
    }
}
