//! The CEL part of the real-world corpus verdicts (`../shared/corpus/vectors`, written by Gateway
//! API and Istio against real apiservers): every valid vector, and every invalid vector whose
//! expected errors all come from CEL rules (`errorSources` only `cel`), must get the apiserver's
//! verdict from crd-cel's manifest path, with each expected substring in its error text.
//!
//! The other vectors (errors from OpenAPI schema validation or other registry checks) run through
//! the same path (`Validator::validate_request`: decoding, schema and list-type checks, CEL) and
//! are counted apart. A vector that disagrees fails the test unless
//! `tests/corpus-known-differences.txt` lists it with a reason; a listed vector that starts to
//! agree fails it too.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crd_cel::validate::{Endpoint, Validator};
use crd_cel_cli::input::split_documents;
use serde_json::Value;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn known() -> BTreeSet<String> {
    fs::read_to_string(manifest_dir().join("corpus-known-differences.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(" -- ").next())
        .map(|s| s.trim().to_owned())
        .collect()
}

#[derive(Default)]
struct Crds {
    docs: HashMap<PathBuf, Vec<Value>>,
    validators: HashMap<(PathBuf, String, String), Arc<Validator>>,
}

impl Crds {
    /// The validator of the CRD (in `path`) for `kind`, at `version`, and whether that version
    /// has the status subresource.
    fn validator(
        &mut self,
        path: &Path,
        kind: &str,
        version: &str,
    ) -> Result<Arc<Validator>, String> {
        if !self.docs.contains_key(path) {
            let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let docs = split_documents(&path.display().to_string(), &text)
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|d| d.value)
                .collect();
            self.docs.insert(path.to_owned(), docs);
        }
        let crd = self.docs[path]
            .iter()
            .find(|d| d.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind))
            .ok_or_else(|| format!("no CRD for {kind} in {}", path.display()))?
            .clone();
        let key = (path.to_owned(), kind.to_owned(), version.to_owned());
        if let Some(v) = self.validators.get(&key) {
            return Ok(v.clone());
        }
        let v = Arc::new(Validator::from_crd(&crd, Some(version)).map_err(|e| e.to_string())?);
        self.validators.insert(key, v.clone());
        Ok(v)
    }
}

/// The apiserver's text for the object, "" when valid.
fn run(crds: &mut Crds, corpus: &Path, vector: &Value) -> Result<Vec<String>, String> {
    let object = &vector["object"];
    let old = vector.get("oldObject").filter(|o| !o.is_null());
    let kind = object["kind"].as_str().ok_or("object without kind")?;
    let version = vector["version"].as_str().unwrap_or("v1");
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let group = object["apiVersion"]
        .as_str()
        .and_then(|a| a.rsplit_once('/'))
        .map_or("", |(g, _)| g);
    let mut texts = Vec::new();
    for p in vector["crdPaths"].as_array().ok_or("no crdPaths")? {
        let path = corpus.join(p.as_str().unwrap_or_default());
        let validator = crds.validator(&path, kind, version)?;
        // The CRD version's status subresource is read from the manifest by `from_crd`.
        let endpoint = if vector["subresource"].as_str() == Some("status") {
            Endpoint::Status
        } else {
            Endpoint::Resource
        };
        let out = validator.validate_request(object, old, endpoint);
        let mut errors = out.errors.clone();
        errors.errors.sort_by(|a, b| a.path.cmp(&b.path));
        texts.push(if errors.is_empty() {
            String::new()
        } else {
            errors.status_message(kind, group, name)
        });
    }
    Ok(texts)
}

/// Substring match, accepting the pre-1.32 wording (`more` / `longer`).
fn contains(text: &str, want: &str) -> bool {
    text.contains(want)
        || text.contains(&want.replace(" longer ", " more "))
        || text.contains(&want.replace(" more ", " longer "))
}

#[derive(Default)]
struct Row {
    cel_scope: usize,
    agree: usize,
    all: usize,
    all_agree: usize,
    out_of_scope: BTreeMap<String, usize>,
}

#[test]
fn corpus_cel_verdicts_agree() {
    let Some(shared) = crd_cel_tests::shared_dir("the corpus vectors") else {
        return;
    };
    let corpus = shared.join("corpus");
    let known = known();
    let mut crds = Crds::default();
    let mut rows = BTreeMap::<String, Row>::new();
    let mut failures = Vec::new();
    let mut differing = BTreeSet::new();
    for set in ["gateway-api", "gateway-api-examples", "istio-api"] {
        let row = rows.entry(set.to_owned()).or_default();
        let mut files: Vec<PathBuf> = fs::read_dir(corpus.join("vectors").join(set))
            .expect("the corpus set exists")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.ends_with("_index.json"))
            .collect();
        files.sort();
        for file in files {
            let v: Value =
                serde_json::from_str(&fs::read_to_string(&file).expect("readable")).expect("JSON");
            let sources: BTreeSet<&str> = v["errorSources"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let valid = v["expect"].as_str() == Some("valid");
            let cel_only = valid || (!sources.is_empty() && sources.iter().all(|s| *s == "cel"));
            if !cel_only {
                let why = if sources.is_empty() {
                    "invalid, sources not recorded".to_owned()
                } else {
                    sources.iter().copied().collect::<Vec<_>>().join("+")
                };
                *row.out_of_scope.entry(why).or_default() += 1;
            } else {
                row.cel_scope += 1;
            }
            row.all += 1;
            let id = format!(
                "{set}/{}",
                file.file_stem().unwrap_or_default().to_string_lossy()
            );
            let problem = match run(&mut crds, &corpus, &v) {
                Err(e) => Some(format!("could not run: {e}")),
                Ok(texts) => texts.iter().find_map(|text| {
                    if valid {
                        (!text.is_empty()).then(|| format!("rejected: {text}"))
                    } else if text.is_empty() {
                        Some("accepted".to_owned())
                    } else if let Some(any) = v["errorsContainAny"].as_array() {
                        let wants: Vec<&str> = any.iter().filter_map(Value::as_str).collect();
                        (!wants.is_empty() && !wants.iter().any(|w| contains(text, w)))
                            .then(|| format!("none of {wants:?} in: {text}"))
                    } else {
                        v["errorsContain"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .find(|want| !contains(text, want))
                            .map(|want| format!("{want:?} not in: {text}"))
                    }
                }),
            };
            match problem {
                None if cel_only => {
                    row.agree += 1;
                    row.all_agree += 1;
                }
                None => row.all_agree += 1,
                Some(p) => {
                    differing.insert(id.clone());
                    let listed = known.contains(&id);
                    println!("  {} {id}: {p}", if listed { "known" } else { "DIFFERS" });
                    if !listed {
                        failures.push(id);
                    }
                }
            }
        }
    }
    for (set, r) in &rows {
        let out: Vec<String> = r
            .out_of_scope
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        println!(
            "{set}: all vectors {} of which {} agree; CEL-only scope {} of which {} agree; outside the CEL-only scope: {}",
            r.all,
            r.all_agree,
            r.cel_scope,
            r.agree,
            if out.is_empty() {
                "none".to_owned()
            } else {
                out.join(", ")
            }
        );
    }
    let stale: Vec<&String> = known.iter().filter(|k| !differing.contains(*k)).collect();
    assert!(
        stale.is_empty(),
        "listed as known differences but now agree (remove them): {stale:?}"
    );
    assert!(
        failures.is_empty(),
        "corpus vectors that differ: {failures:#?}"
    );
}
