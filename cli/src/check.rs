//! `crd-cel check`: CRD manifests as the apiserver's CRD strategy sees them on create, or on
//! update of the stored CRDs (`--old`), and the stored objects a new CRD would reject
//! (`--objects`).

use serde::Serialize;
use serde_json::Value;

use crate::input::{Document, InputError};
use crate::report::{self, Entry, Status};
use crate::{
    CheckArgs, EXIT_BAD_INPUT, FieldValidationArg, Finish, Io, OutputFormat, check_not_empty, crd,
    document_error, exit_code, expand_inputs, gojson, jobs, named_or_stdin, plural,
    read_crd_documents, read_documents, status, subject, validate,
};
use crd::{CrdReport, Options};
use crd_cel::validate::Refusal;

/// One line of `--output jsonl`: the oracle's `check-crd` object, cost figures included.
#[derive(Serialize)]
struct JsonResult<'a> {
    file: &'a str,
    doc: usize,
    crd: &'a str,
    accepted: bool,
    errors: Vec<String>,
    text: String,
    warnings: Vec<String>,
    rules: &'a [crd::RuleReport],
}

/// What checking one CRD document came to.
enum Checked {
    /// Refused by the strict decoding (repeated keys).
    Refused(Refusal),
    /// Checked, with the strict decoding's warnings.
    Report(Box<CrdReport>, Vec<String>),
    /// Not a CRD that can be checked.
    Bad(String),
}

/// Runs `crd-cel check`; returns the exit code.
pub(crate) fn check(args: CheckArgs, io: &mut Io<'_>) -> u8 {
    let others: Vec<&String> = args.old.iter().chain(&args.objects).collect();
    let Some(names) = named_or_stdin(&args.files, &others, "check", "FILE", io) else {
        return EXIT_BAD_INPUT;
    };
    let opts = Options {
        kubernetes_minor: args.kubernetes_version,
    };
    let mut finish = Finish::new("check", args.output, args.kubernetes_version, &args.run, io);
    if args.output == OutputFormat::Yaml {
        let _ = writeln!(
            io.stderr,
            "crd-cel: --output yaml is for validate (the stored objects); check writes text, json, jsonl, github, junit or sarif"
        );
        return EXIT_BAD_INPUT;
    }
    let mut bad = Vec::<InputError>::new();
    let old_files = expand_inputs(&args.old, &args.inputs, io, &mut bad);
    let stored = read_crd_documents(&old_files, io, &mut bad);
    let files = expand_inputs(&names, &args.inputs, io, &mut bad);
    finish.files = files.len();
    let docs = read_documents(&files, io, &mut bad);
    check_not_empty("documents", docs.len(), &args.inputs, io, &mut bad);
    let strict = args.field_validation == FieldValidationArg::Strict;
    let warn = args.field_validation == FieldValidationArg::Warn;
    let checked = jobs::map_in_order(&docs, args.run.jobs, |doc| {
        let duplicates: Vec<String> = doc
            .duplicate_fields
            .iter()
            .map(|p| crd_cel::validate::duplicate_field_error(p))
            .collect();
        if strict && !duplicates.is_empty() {
            // The handler's strict decoding refuses the manifest before any check.
            return Checked::Refused(strict_decoding_refusal(&doc.value, duplicates));
        }
        let name = doc
            .value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let old = stored
            .iter()
            .find(|d| d.value.pointer("/metadata/name").and_then(Value::as_str) == Some(name));
        let report = match old {
            Some(old) => crd::check_crd_update(&doc.value, &old.value, &opts),
            None => crd::check_crd(&doc.value, &opts),
        };
        match report {
            Ok(r) => Checked::Report(Box::new(r), if warn { duplicates } else { Vec::new() }),
            Err(message) => Checked::Bad(message),
        }
    });
    let mut entries = Vec::with_capacity(docs.len());
    let (mut crds, mut rejected, mut rules, mut document_errors) = (0usize, 0usize, 0usize, 0usize);
    let mut new_crds: Vec<Document> = Vec::new();
    for (doc, checked) in docs.iter().zip(checked) {
        let name = doc
            .value
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match checked {
            Checked::Refused(refusal) => {
                crds += 1;
                rejected += 1;
                let mut entry = Entry::of(doc, name.clone(), Status::Failed, refusal.to_string());
                entry.text = refusal.to_string();
                entry.jsonl = Some(gojson::to_string(&JsonResult {
                    file: &doc.file,
                    doc: doc.index,
                    crd: &name,
                    accepted: false,
                    errors: Vec::new(),
                    text: refusal.to_string(),
                    warnings: Vec::new(),
                    rules: &[],
                }));
                entry
                    .details
                    .insert("text".into(), refusal.to_string().into());
                entry
                    .details
                    .insert("apiStatus".into(), status::of_refusal(&refusal));
                entry.causes = vec![report::Cause {
                    field: String::new(),
                    reason: refusal.reason().to_owned(),
                    message: refusal.to_string(),
                    line: None,
                }];
                entries.push(entry);
            }
            Checked::Bad(message) => {
                entries.push(document_error(doc, message, io, &mut document_errors));
            }
            Checked::Report(report, warnings) => {
                new_crds.push(doc.clone());
                crds += 1;
                rules += report.rules.len();
                let status = if report.accepted() {
                    Status::Passed
                } else {
                    rejected += 1;
                    Status::Failed
                };
                let mut entry = Entry::of(doc, name.clone(), status, report.text());
                entry.text = if report.accepted() {
                    format!(
                        "{} accepted ({} rule{})",
                        report.name,
                        report.rules.len(),
                        plural(report.rules.len())
                    )
                } else {
                    report.text()
                };
                entry.locate_warnings = true;
                entry.jsonl = Some(gojson::to_string(&JsonResult {
                    file: &doc.file,
                    doc: doc.index,
                    crd: &report.name,
                    accepted: report.accepted(),
                    errors: report.errors.iter().map(ToString::to_string).collect(),
                    text: report.text(),
                    warnings: warnings.clone(),
                    rules: &report.rules,
                }));
                entry.details.insert(
                    "operation".into(),
                    if stored.iter().any(|d| {
                        d.value.pointer("/metadata/name").and_then(Value::as_str)
                            == Some(name.as_str())
                    }) {
                        "UPDATE"
                    } else {
                        "CREATE"
                    }
                    .into(),
                );
                entry.details.insert("text".into(), report.text().into());
                if !report.accepted() {
                    entry
                        .details
                        .insert("apiStatus".into(), status::of_crd(&report));
                }
                entry.details.insert(
                    "rules".into(),
                    serde_json::to_value(&report.rules).unwrap_or_default(),
                );
                entry.causes = report
                    .errors
                    .iter()
                    .map(|e| report::Cause {
                        field: e.field.clone(),
                        reason: e.kind.reason().to_owned(),
                        message: e.to_string(),
                        line: Some(doc.line_of(&manifest_path(&e.field))),
                    })
                    .collect();
                entry.warnings = warnings;
                // crd-cel's own, not the apiserver's: kept out of `jsonl`, the oracle's shape.
                if let Some(w) = (!args.server_side)
                    .then(|| client_side_apply_warning(&doc.value))
                    .flatten()
                {
                    entry.warnings.push(w);
                }
                entries.push(entry);
            }
        }
    }
    let mut newly_rejected = 0usize;
    if !args.objects.is_empty() && bad.is_empty() && document_errors == 0 {
        let object_files = expand_inputs(&args.objects, &args.inputs, io, &mut bad);
        let objects = read_documents(&object_files, io, &mut bad);
        let counts = upgrade_safety(stored, new_crds, &objects, &args, &mut entries);
        newly_rejected = counts.newly_rejected;
        let both = match counts.rejected_by_both {
            0 => String::new(),
            n => format!(" ({n} rejected by both, not listed: invalid before the upgrade)"),
        };
        finish.trailer.push(format!(
            "Stored objects: {} checked, {newly_rejected} accepted by the stored CRD and rejected by the new one{both}",
            counts.checked
        ));
    }
    finish.trailer.push(format!(
        "Summary: {crds} CRD{} with {rules} rule{} in {} file{} - accepted: {}, rejected: {rejected}, input errors: {} (Kubernetes 1.{})",
        plural(crds),
        plural(rules),
        files.len(),
        plural(files.len()),
        crds - rejected,
        bad.len() + document_errors,
        opts.kubernetes_minor,
    ));
    if finish.write(entries, &bad, io).is_err() {
        return EXIT_BAD_INPUT;
    }
    exit_code(
        bad.len() + document_errors,
        rejected + newly_rejected,
        args.exit_zero,
    )
}

/// What `--objects` found: how many objects were checked under both CRDs, how many the stored
/// CRD accepts and the new one rejects (each an entry), and how many both reject.
struct UpgradeCounts {
    checked: usize,
    newly_rejected: usize,
    rejected_by_both: usize,
}

/// A stored object as it would be created again (restored from a backup, re-applied by a GitOps
/// tool): `kubectl get -o yaml` exports carry the stored `metadata.resourceVersion`, which a
/// create refuses before any validation; the other fields the server sets (uid,
/// creationTimestamp, generation) a create overwrites.
fn as_recreated(doc: &Document) -> std::borrow::Cow<'_, Document> {
    let has_version = doc.value.pointer("/metadata/resourceVersion").is_some();
    if !has_version {
        return std::borrow::Cow::Borrowed(doc);
    }
    let mut doc = doc.clone();
    if let Some(meta) = doc.value.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
    }
    std::borrow::Cow::Owned(doc)
}

/// The objects the stored CRDs accept and the new ones reject, each an entry, each object
/// validated as it would be created again ([`as_recreated`]).
fn upgrade_safety(
    stored: Vec<Document>,
    new: Vec<Document>,
    objects: &[Document],
    args: &CheckArgs,
    entries: &mut Vec<Entry>,
) -> UpgradeCounts {
    let minor = args.kubernetes_version;
    let mut before = validate::Crds::new(stored).with_kubernetes_version(minor);
    let mut after = validate::Crds::new(new).with_kubernetes_version(minor);
    let mut pairs = Vec::new();
    for doc in objects {
        if let (Ok(b), Ok(a)) = (
            before.target(&doc.value, None),
            after.target(&doc.value, None),
        ) {
            pairs.push((doc, b, a));
        }
    }
    // Some(Ok(verdict)): accepted before, rejected now; Some(Err(())): rejected by both.
    let verdicts = jobs::map_in_order(&pairs, args.run.jobs, |(doc, b, a)| {
        let doc = as_recreated(doc);
        let now = validate::validate_one(&doc, None, a, false);
        match (
            validate::validate_one(&doc, None, b, false).valid,
            now.valid,
        ) {
            (true, false) => Some(Ok(now)),
            (false, false) => Some(Err(())),
            _ => None,
        }
    });
    let mut counts = UpgradeCounts {
        checked: pairs.len(),
        newly_rejected: 0,
        rejected_by_both: 0,
    };
    for ((doc, _, a), verdict) in pairs.iter().zip(verdicts) {
        let verdict = match verdict {
            Some(Ok(verdict)) => verdict,
            Some(Err(())) => {
                counts.rejected_by_both += 1;
                continue;
            }
            None => continue,
        };
        counts.newly_rejected += 1;
        let subject = subject(doc, &a.qualified_kind);
        let message = format!(
            "accepted by the stored CRD, rejected by the new one: {}",
            verdict.text
        );
        let mut entry = Entry::of(doc, subject.clone(), Status::Failed, message.clone());
        entry.text = format!("{subject} is {message}");
        entry.details.insert("text".into(), verdict.text.into());
        entry
            .details
            .insert("storedObject".into(), Value::Bool(true));
        if let Some(s) = verdict.api_status {
            entry.details.insert("apiStatus".into(), s);
        }
        entry.causes = verdict.causes;
        entries.push(entry);
    }
    counts
}

/// The annotation client-side `kubectl apply` stores the applied manifest in.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The most bytes an object's annotations may have, keys and values together (apimachinery's
/// `TotalAnnotationSizeLimitB`, checked by `ValidateAnnotationsSize` on every object).
const ANNOTATIONS_LIMIT: usize = 256 * (1 << 10);

/// A warning when client-side `kubectl apply` cannot apply the manifest: it stores the
/// manifest as JSON in the last-applied-configuration annotation (kubectl's
/// `GetModifiedConfiguration`: the object with that annotation removed, encoded as Go's
/// `encoding/json` encodes, with a final newline), and the apiserver refuses annotations over
/// [`ANNOTATIONS_LIMIT`] bytes with `metadata.annotations: Too long`. Large CRDs (an inlined pod
/// template is about 350 KB) hit it; `kubectl apply --server-side`, `kubectl create` and
/// `kubectl replace` store no such annotation.
fn client_side_apply_warning(manifest: &Value) -> Option<String> {
    let mut applied = manifest.clone();
    let meta = applied.get_mut("metadata")?.as_object_mut()?;
    // None (or null) becomes an empty map, which kubectl sets before encoding.
    let annotations = meta.entry("annotations").or_insert(Value::Null);
    if annotations.is_null() {
        *annotations = Value::Object(serde_json::Map::new());
    }
    let annotations = annotations.as_object_mut()?;
    annotations.remove(LAST_APPLIED);
    let others: usize = annotations
        .iter()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    let json = gojson::to_string(&applied).len() + 1;
    let total = others + LAST_APPLIED.len() + json;
    (total > ANNOTATIONS_LIMIT).then(|| {
        format!(
            "client-side `kubectl apply` cannot apply this CRD: it would store the CRD as JSON ({json} bytes) in the {LAST_APPLIED} annotation, and the apiserver refuses annotations over {ANNOTATIONS_LIMIT} bytes (`metadata.annotations: Too long`); use `kubectl apply --server-side`, or `kubectl create` and `kubectl replace`"
        )
    })
}

/// Where a CRD error's field is in the manifest: the apiserver reports a schema all versions
/// share under the internal `spec.validation`, which a v1 manifest holds in each version
/// (the first is where to look).
fn manifest_path(field: &str) -> String {
    match field.strip_prefix("spec.validation.") {
        Some(rest) => format!("spec.versions[0].schema.{rest}"),
        None => field.to_owned(),
    }
}

/// The strict decoding refusal of a CRD manifest (`transformDecodeError`).
fn strict_decoding_refusal(manifest: &serde_json::Value, errors: Vec<String>) -> Refusal {
    let text = |key: &str| {
        manifest
            .get(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
    };
    Refusal::StrictDecoding {
        kind: text("kind").to_owned(),
        version: text("apiVersion")
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned(),
        resource_kind: "CustomResourceDefinition".to_owned(),
        errors,
    }
}
