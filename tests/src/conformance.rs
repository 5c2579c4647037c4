//! crd-cel's `validate` beside the oracle (the apiserver's own code) and beside the answers the
//! suites recorded, on corpus vectors (`../shared/corpus/vectors/SET/*.json`): the measurement
//! issue 16 describes, runnable on any vector set (the `conformance` binary).
//!
//! Each vector runs once per CRD it names (`crdPaths`), as `oracle corpus` runs it: a request
//! to the object's namespace or `default`, field validation `Warn` (the server's default), the
//! status subresource when the vector says so, an update when it has an old object (created
//! under the CRD with the vector's `initialCRDPatches` applied, when it has some). crd-cel
//! runs through its command line (`crd-cel validate -o jsonl`, in process), so what is measured
//! is what users run.
//!
//! Compared per vector:
//! - with the oracle: the verdict, and the whole text (`Kind.group "name" is invalid: [...]`),
//!   names made from `generateName` normalized (a real apiserver's suffix is random);
//! - with the recorded answer: the verdict (`expect`), and each `errorsContain` string (or one
//!   of `errorsContainAny`) in the text, with crd-cel at the Kubernetes version the suite was
//!   recorded at (`--recorded-version SET=1.N`).

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A way crd-cel's answer to a vector differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Difference {
    /// crd-cel could not answer (exit 2: a CRD or object it could not read).
    Error,
    /// Another verdict than the oracle's.
    OracleVerdict,
    /// The oracle's verdict, another text.
    OracleText,
    /// Another verdict than the recorded one.
    RecordedVerdict,
    /// The recorded verdict, but an expected substring is not in the text.
    RecordedText,
}

impl Difference {
    /// The name used in the known-differences file.
    pub fn name(self) -> &'static str {
        match self {
            Difference::Error => "error",
            Difference::OracleVerdict => "oracle-verdict",
            Difference::OracleText => "oracle-text",
            Difference::RecordedVerdict => "recorded-verdict",
            Difference::RecordedText => "recorded-text",
        }
    }

    fn parse(s: &str) -> Option<Difference> {
        [
            Difference::Error,
            Difference::OracleVerdict,
            Difference::OracleText,
            Difference::RecordedVerdict,
            Difference::RecordedText,
        ]
        .into_iter()
        .find(|d| d.name() == s)
    }
}

/// One answer: valid or not, and the apiserver's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// Accepted.
    pub valid: bool,
    /// The apiserver's error text (`""` when valid).
    pub text: String,
}

/// One vector's run against one of its CRDs.
#[derive(Debug)]
pub struct Run {
    /// The CRD file, relative to the corpus.
    pub crd_path: String,
    /// crd-cel's answer at the version compared with the oracle (an error: it could not run).
    pub ours: Result<Answer, String>,
    /// `None` when the oracle could not run it.
    pub oracle: Option<Answer>,
    /// crd-cel at the recorded version (the same as `ours` when that is the default version).
    pub ours_recorded: Result<Answer, String>,
}

/// A vector's result.
#[derive(Debug)]
pub struct VectorResult {
    /// `set/file` (the file without `.json`).
    pub id: String,
    /// The vector set.
    pub set: String,
    /// One run per CRD the vector names.
    pub runs: Vec<Run>,
    /// How crd-cel differs, over all runs.
    pub differences: BTreeSet<Difference>,
    /// The oracle's verdict is the recorded one.
    pub oracle_verdict_recorded: bool,
    /// The oracle's text has the recorded substrings.
    pub oracle_text_recorded: bool,
}

/// What to run.
pub struct Config {
    /// The oracle binary (`tests/oracle`).
    pub oracle: PathBuf,
    /// The corpus folder (`../shared/corpus`).
    pub corpus: PathBuf,
    /// The sets under `vectors/` to run.
    pub sets: Vec<String>,
    /// crd-cel's `--kubernetes-version` against the oracle (the oracle's own release).
    pub version: String,
    /// Per set, the version its answers were recorded at.
    pub recorded_versions: BTreeMap<String, String>,
}

fn contains_allowing_wording(text: &str, want: &str) -> bool {
    text.contains(want)
        || text.contains(&want.replace("more", "longer"))
        || text.contains(&want.replace("longer", "more"))
}

/// Whether `text` has what the vector recorded: every `errorsContain`, one of `errorsContainAny`.
fn recorded_text_agrees(vector: &Value, text: &str) -> bool {
    let strings = |k: &str| -> Vec<&str> {
        vector[k]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    let all = strings("errorsContain");
    let any = strings("errorsContainAny");
    all.iter().all(|s| contains_allowing_wording(text, s))
        && (any.is_empty() || any.iter().any(|s| contains_allowing_wording(text, s)))
}

/// The characters `names.SimpleNameGenerator` draws its suffix from.
const NAME_ALPHABET: &str = "bcdfghjklmnpqrstvwxz2456789";

/// `text` with every name made from `generate_name` (the prefix and a 5-character suffix)
/// written as `PREFIX#####`.
pub fn normalize_generated_names(text: &str, generate_name: &str) -> String {
    if generate_name.is_empty() {
        return text.to_owned();
    }
    // The generator cuts the prefix to 58 characters.
    let prefix: String = generate_name.chars().take(58).collect();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&prefix) {
        out.push_str(&rest[..at + prefix.len()]);
        rest = &rest[at + prefix.len()..];
        let suffix: String = rest.chars().take(5).collect();
        if suffix.chars().count() == 5 && suffix.chars().all(|c| NAME_ALPHABET.contains(c)) {
            out.push_str("#####");
            rest = &rest[suffix.len()..];
        }
    }
    out.push_str(rest);
    out
}

/// Runs the oracle on the sets: per `set/file`, per CRD path, its answer.
fn oracle_answers(cfg: &Config) -> Result<BTreeMap<(String, String), Answer>, String> {
    let out = std::process::Command::new(&cfg.oracle)
        .arg("corpus")
        .arg("--json")
        .arg(&cfg.corpus)
        .args(&cfg.sets)
        .output()
        .map_err(|e| format!("{}: {e}", cfg.oracle.display()))?;
    if out.status.code() == Some(2) {
        return Err(format!(
            "oracle corpus failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let doc: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("oracle corpus printed no JSON: {e}"))?;
    let mut answers = BTreeMap::new();
    for r in doc["results"].as_array().into_iter().flatten() {
        let id = format!(
            "{}/{}",
            r["set"].as_str().unwrap_or_default(),
            r["file"]
                .as_str()
                .unwrap_or_default()
                .trim_end_matches(".json")
        );
        for run in r["runs"].as_array().into_iter().flatten() {
            if run.get("toolError").is_some() {
                continue;
            }
            answers.insert(
                (
                    id.clone(),
                    run["crdPath"].as_str().unwrap_or_default().to_owned(),
                ),
                Answer {
                    valid: run["valid"].as_bool().unwrap_or(false),
                    text: run["text"].as_str().unwrap_or_default().to_owned(),
                },
            );
        }
    }
    Ok(answers)
}

/// crd-cel's answer to one request, through its command line.
fn ours(
    crd: &Path,
    object: &Value,
    old: Option<(&Path, Option<&Path>)>,
    status: bool,
    version: &str,
) -> Result<Answer, String> {
    let text = serde_json::to_string(object).map_err(|e| e.to_string())?;
    let crd = crd.display().to_string();
    let mut args = vec![
        "crd-cel".to_owned(),
        "validate".into(),
        "--crd".into(),
        crd,
        "--field-validation".into(),
        "warn".into(),
        "--kubernetes-version".into(),
        version.into(),
        "-o".into(),
        "jsonl".into(),
    ];
    if let Some((old, old_crd)) = old {
        args.push("--old".into());
        args.push(old.display().to_string());
        if let Some(old_crd) = old_crd {
            args.push("--old-crd".into());
            args.push(old_crd.display().to_string());
        }
    }
    if status {
        args.push("--subresource".into());
        args.push("status".into());
    }
    args.push("-".into());
    let (code, line, stderr) = crate::run_cli(args, &text);
    let parsed: Option<Value> = line
        .lines()
        .next()
        .and_then(|l| serde_json::from_str(l).ok());
    match (code, parsed) {
        (0 | 1, Some(v)) => Ok(Answer {
            valid: v["valid"].as_bool().unwrap_or(false),
            text: v["text"].as_str().unwrap_or_default().to_owned(),
        }),
        _ => Err(format!("exit {code}: {}{}", line.trim(), stderr.trim())),
    }
}

/// The CRD of `kind` in `crd` with the JSON Patch `patch` applied (`initialCRDPatches`: the CRD
/// an old object was created under), written to `out`.
fn patched_crd(crd: &Path, kind: &str, patch: &Value, out: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(crd).map_err(|e| format!("{}: {e}", crd.display()))?;
    let docs = crd_cel_cli::input::split_documents(&crd.display().to_string(), &text)
        .map_err(|e| e.to_string())?;
    let mut doc = docs
        .into_iter()
        .map(|d| d.value)
        .find(|d| d.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind))
        .ok_or_else(|| format!("no CRD for {kind} in {}", crd.display()))?;
    let patch: json_patch::Patch =
        serde_json::from_value(patch.clone()).map_err(|e| format!("initialCRDPatches: {e}"))?;
    json_patch::patch(&mut doc, &patch).map_err(|e| format!("initialCRDPatches: {e}"))?;
    std::fs::write(out, doc.to_string()).map_err(|e| e.to_string())
}

fn vector_files(corpus: &Path, set: &str) -> Result<Vec<PathBuf>, String> {
    let dir = corpus.join("vectors").join(set);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.ends_with("_index.json"))
        .collect();
    files.sort();
    Ok(files)
}

/// Runs every vector of the sets through crd-cel and the oracle.
pub fn run(cfg: &Config) -> Result<Vec<VectorResult>, String> {
    let oracle = oracle_answers(cfg)?;
    let scratch = std::env::temp_dir().join(format!("crd-cel-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let old_file = scratch.join("old.json");
    let old_crd_file = scratch.join("old-crd.json");
    let mut results = Vec::new();
    for set in &cfg.sets {
        let recorded_version = cfg.recorded_versions.get(set).unwrap_or(&cfg.version);
        for file in vector_files(&cfg.corpus, set)? {
            let stem = file.file_stem().unwrap_or_default().to_string_lossy();
            let id = format!("{set}/{stem}");
            let vector: Value = std::fs::read_to_string(&file)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
                .map_err(|e| format!("{}: {e}", file.display()))?;
            let object = &vector["object"];
            let update = vector["operation"]
                .as_str()
                .is_some_and(|o| o.eq_ignore_ascii_case("UPDATE"));
            let old = vector.get("oldObject").filter(|o| update && !o.is_null());
            if let Some(old) = old {
                std::fs::write(&old_file, old.to_string()).map_err(|e| e.to_string())?;
            }
            let status = vector["subresource"].as_str() == Some("status");
            let generate_name = if object.pointer("/metadata/name").is_none() {
                object
                    .pointer("/metadata/generateName")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            } else {
                ""
            };
            let normalize = |a: Result<Answer, String>| {
                a.map(|a| Answer {
                    text: normalize_generated_names(&a.text, generate_name),
                    ..a
                })
            };
            let expect_valid = vector["expect"].as_str() == Some("valid");
            let mut r = VectorResult {
                id: id.clone(),
                set: set.clone(),
                runs: Vec::new(),
                differences: BTreeSet::new(),
                oracle_verdict_recorded: true,
                oracle_text_recorded: true,
            };
            for crd_path in vector["crdPaths"].as_array().into_iter().flatten() {
                let crd_path = crd_path.as_str().unwrap_or_default().to_owned();
                let crd = cfg.corpus.join(&crd_path);
                // A CRD change between the old object and the update: the old object was
                // created under the CRD with the vector's patches applied.
                let patches = vector
                    .get("initialCRDPatches")
                    .filter(|p| p.as_array().is_some_and(|a| !a.is_empty()));
                let old_crd = match (old, patches) {
                    (Some(_), Some(patch)) => {
                        let kind = object["kind"].as_str().unwrap_or_default();
                        match patched_crd(&crd, kind, patch, &old_crd_file) {
                            Ok(()) => Ok(Some(old_crd_file.as_path())),
                            Err(e) => Err(e),
                        }
                    }
                    _ => Ok(None),
                };
                let old_crd = match old_crd {
                    Ok(o) => o,
                    Err(e) => {
                        r.differences.insert(Difference::Error);
                        r.runs.push(Run {
                            crd_path,
                            ours: Err(e.clone()),
                            oracle: None,
                            ours_recorded: Err(e),
                        });
                        continue;
                    }
                };
                let old = old.map(|_| (old_file.as_path(), old_crd));
                let ours_now = normalize(ours(&crd, object, old, status, &cfg.version));
                let ours_recorded = if *recorded_version == cfg.version {
                    ours_now.clone()
                } else {
                    normalize(ours(&crd, object, old, status, recorded_version))
                };
                let oracle = oracle.get(&(id.clone(), crd_path.clone())).map(|a| Answer {
                    text: normalize_generated_names(&a.text, generate_name),
                    ..a.clone()
                });
                match (&ours_now, &oracle) {
                    (Err(_), _) => {
                        r.differences.insert(Difference::Error);
                    }
                    (Ok(o), Some(or)) if o.valid != or.valid => {
                        r.differences.insert(Difference::OracleVerdict);
                    }
                    (Ok(o), Some(or)) if o.text != or.text => {
                        r.differences.insert(Difference::OracleText);
                    }
                    _ => {}
                }
                match &ours_recorded {
                    Ok(o) if o.valid != expect_valid => {
                        r.differences.insert(Difference::RecordedVerdict);
                    }
                    Ok(o) if !recorded_text_agrees(&vector, &o.text) => {
                        r.differences.insert(Difference::RecordedText);
                    }
                    Ok(_) => {}
                    Err(_) => {
                        r.differences.insert(Difference::Error);
                    }
                }
                match &oracle {
                    Some(or) => {
                        r.oracle_verdict_recorded &= or.valid == expect_valid;
                        r.oracle_text_recorded &= recorded_text_agrees(&vector, &or.text);
                    }
                    None => {
                        r.oracle_verdict_recorded = false;
                        r.oracle_text_recorded = false;
                    }
                }
                r.runs.push(Run {
                    crd_path,
                    ours: ours_now,
                    oracle,
                    ours_recorded,
                });
            }
            results.push(r);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(results)
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        return "-".to_owned();
    }
    format!("{n}/{of} {:.1}%", 100.0 * n as f64 / of as f64)
}

/// The agreement table, one row per set and a total.
pub fn table(results: &[VectorResult], cfg: &Config) -> String {
    let mut rows: Vec<(String, Vec<&VectorResult>)> = cfg
        .sets
        .iter()
        .map(|s| (s.clone(), results.iter().filter(|r| &r.set == s).collect()))
        .collect();
    rows.push(("all".to_owned(), results.iter().collect()));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "crd-cel at 1.{v} against the oracle (the apiserver's code at its release); \
         crd-cel and the oracle against the recorded answers (crd-cel at each set's recorded version)",
        v = cfg.version.trim_start_matches("1.")
    );
    let _ = writeln!(
        out,
        "{:<22} {:>7} | {:>18} {:>18} | {:>18} {:>18} | {:>18} {:>18}",
        "set",
        "vectors",
        "verdict = oracle",
        "text = oracle",
        "verdict = recorded",
        "text has recorded",
        "oracle verdict=rec",
        "oracle text has rec"
    );
    for (set, rs) in rows {
        let n = rs.len();
        let has = |d: Difference| rs.iter().filter(|r| !r.differences.contains(&d)).count();
        let err = rs
            .iter()
            .filter(|r| r.differences.contains(&Difference::Error))
            .count();
        let verdict = has(Difference::OracleVerdict) - err;
        let text = rs
            .iter()
            .filter(|r| {
                !r.differences.contains(&Difference::Error)
                    && !r.differences.contains(&Difference::OracleVerdict)
                    && !r.differences.contains(&Difference::OracleText)
            })
            .count();
        let rec_verdict = has(Difference::RecordedVerdict) - err;
        let rec_text = rs
            .iter()
            .filter(|r| {
                !r.differences.contains(&Difference::Error)
                    && !r.differences.contains(&Difference::RecordedVerdict)
                    && !r.differences.contains(&Difference::RecordedText)
            })
            .count();
        let o_verdict = rs.iter().filter(|r| r.oracle_verdict_recorded).count();
        let o_text = rs
            .iter()
            .filter(|r| r.oracle_verdict_recorded && r.oracle_text_recorded)
            .count();
        let _ = writeln!(
            out,
            "{set:<22} {n:>7} | {:>18} {:>18} | {:>18} {:>18} | {:>18} {:>18}",
            pct(verdict, n),
            pct(text, n),
            pct(rec_verdict, n),
            pct(rec_text, n),
            pct(o_verdict, n),
            pct(o_text, n),
        );
    }
    out
}

/// Every difference of every vector, with both answers.
pub fn details(results: &[VectorResult]) -> String {
    let mut out = String::new();
    for r in results.iter().filter(|r| !r.differences.is_empty()) {
        let kinds: Vec<&str> = r.differences.iter().map(|d| d.name()).collect();
        let _ = writeln!(out, "\n{} {}", r.id, kinds.join(" "));
        for run in &r.runs {
            let show = |a: &Result<Answer, String>| match a {
                Ok(a) if a.valid => "valid".to_owned(),
                Ok(a) => format!("invalid: {}", a.text),
                Err(e) => format!("ERROR {e}"),
            };
            let _ = writeln!(out, "  {}", run.crd_path);
            let _ = writeln!(out, "    crd-cel: {}", show(&run.ours));
            match &run.oracle {
                Some(o) => {
                    let _ = writeln!(out, "    oracle:  {}", show(&Ok(o.clone())));
                }
                None => {
                    let _ = writeln!(out, "    oracle:  (could not run)");
                }
            }
            if run.ours_recorded != run.ours {
                let _ = writeln!(
                    out,
                    "    crd-cel at the recorded version: {}",
                    show(&run.ours_recorded)
                );
            }
        }
    }
    out
}

/// The known differences: `set/file kind -- reason` per line (`#` comments), as (id, kind).
pub fn read_known(text: &str) -> Result<BTreeSet<(String, Difference)>, String> {
    let mut known = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let head = line.split(" -- ").next().unwrap_or_default();
        let mut words = head.split_whitespace();
        let (Some(id), Some(kind), None) = (words.next(), words.next(), words.next()) else {
            return Err(format!(
                "line {}: expected `set/file kind -- reason`",
                i + 1
            ));
        };
        let kind = Difference::parse(kind)
            .ok_or_else(|| format!("line {}: unknown difference `{kind}`", i + 1))?;
        if !line.contains(" -- ") {
            return Err(format!(
                "line {}: `{id} {}` has no reason",
                i + 1,
                kind.name()
            ));
        }
        known.insert((id.to_owned(), kind));
    }
    Ok(known)
}

/// The differences found that are not listed, and the listed ones not found (for the sets run).
pub fn compare_known(
    results: &[VectorResult],
    known: &BTreeSet<(String, Difference)>,
    sets: &[String],
) -> (Vec<String>, Vec<String>) {
    let found: BTreeSet<(String, Difference)> = results
        .iter()
        .flat_map(|r| r.differences.iter().map(|d| (r.id.clone(), *d)))
        .collect();
    let in_sets = |id: &str| sets.iter().any(|s| id.starts_with(&format!("{s}/")));
    let new = found
        .difference(known)
        .map(|(id, d)| format!("{id} {}", d.name()))
        .collect();
    let gone = known
        .iter()
        .filter(|(id, _)| in_sets(id))
        .filter(|k| !found.contains(*k))
        .map(|(id, d)| format!("{id} {}", d.name()))
        .collect();
    (new, gone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_are_normalized() {
        assert_eq!(
            normalize_generated_names(r#"Widget.x "web-7bx9q" is invalid: web-7bx9q"#, "web-"),
            r#"Widget.x "web-#####" is invalid: web-#####"#
        );
        // Not a generated suffix (a vowel), and no prefix at all.
        assert_eq!(normalize_generated_names("web-aaaaa", "web-"), "web-aaaaa");
        assert_eq!(normalize_generated_names("text", ""), "text");
    }

    #[test]
    fn known_differences_are_read_strictly() {
        let k = read_known("# c\nset/a oracle-text -- why\n\n").expect("reads");
        assert!(k.contains(&("set/a".to_owned(), Difference::OracleText)));
        assert!(
            read_known("set/a oracle-text").is_err(),
            "a reason is required"
        );
        assert!(read_known("set/a nonsense -- x").is_err());
    }
}
