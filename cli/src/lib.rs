//! The `crd-cel` command line tool.
//!
//! `crd-cel check [--output text|json] [--kubernetes-version 1.N] FILE...` reads CRD manifests
//! (multi-document YAML or JSON, `-` for stdin) and reports what the apiserver would report about
//! their validation rules at CRD creation: the rule field checks, compile errors from the same
//! checker the derive runs at `cargo build`, the `oldSelf` placement checks, with the
//! apiserver's paths and texts. Exit code 0: every CRD accepted; 1: some rejected; 2: bad
//! input or usage.
//!
//! `crd-cel validate --crd FILE [--version V] [--old FILE] [--subresource status] [--namespace NS] OBJECT...`
//! validates custom resources against their CRD's rules as the apiserver's create (update with
//! `--old`) path does; exit code 0: every object valid; 1: some invalid; 2: bad input.
//!
//! The work is in this library ([`run`]); `src/bin/crd-cel.rs` only calls it.

pub use crd_cel::crd;
use crd_cel::gojson;
use crd_cel::validate::{FieldValidation, Refusal};

pub mod input;
pub mod report;
pub mod validate;

use clap::{Args, Parser, Subcommand, ValueEnum};
use crd::{CrdReport, DEFAULT_KUBERNETES_MINOR, MIN_KUBERNETES_MINOR, Options};
use input::{Document, InputError};
use serde::Serialize;
use std::ffi::OsString;
use std::io::{Read, Write};

/// Exit code: every CRD accepted.
pub const EXIT_ACCEPTED: u8 = 0;
/// Exit code: at least one CRD rejected.
pub const EXIT_REJECTED: u8 = 1;
/// Exit code: bad input (unreadable file, syntax error, not a CRD, no schema) or usage.
pub const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "crd-cel",
    version,
    about = "Check Kubernetes CRD validation rules (x-kubernetes-validations) as the apiserver does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Report what the apiserver would say about the CRDs' rules at creation
    /// (`kubectl create -f CRD`): rule field errors, compile errors, oldSelf placement.
    Check(CheckArgs),
    /// Validate custom resources against their CRD's rules (x-kubernetes-validations) as the
    /// apiserver does on create, or on update with `--old`: pruning, defaults, OpenAPI schema
    /// checks, then the CEL rules.
    Validate(ValidateArgs),
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// The CRD manifests (files or directories; YAML or JSON, several documents allowed;
    /// repeatable); each object is checked against the CRD of its kind and group.
    #[arg(long, value_name = "FILE")]
    crd: Vec<String>,
    /// The CRD version to validate with (default: the object's apiVersion).
    #[arg(long, value_name = "V")]
    version: Option<String>,
    /// The stored object: validate an UPDATE from it (transition rules and ratcheting).
    #[arg(long, value_name = "FILE")]
    old: Option<String>,
    /// `status`: validate an update of the status subresource.
    #[arg(long, value_name = "status", value_parser = ["status"])]
    subresource: Option<String>,
    /// The namespace namespaced objects without `metadata.namespace` are sent to (as kubectl's
    /// context namespace); cluster-scoped objects lose their namespace, as on the apiserver.
    #[arg(long, value_name = "NS", default_value = "default")]
    namespace: String,
    /// Output format: `text` (the apiserver's message per object and a summary) or `json`
    /// (one JSON object per object document, one per line, as the apiserver oracle's `validate`).
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Text)]
    output: OutputFormat,
    /// The Kubernetes release whose messages to print (`1.33`, `v1.33` or `1.33.4`): up to 1.34
    /// a failed rule shows the schema type (`Invalid value: "object"`), up to 1.33 values print
    /// in Go syntax.
    #[arg(long, value_name = "1.N", default_value = "1.37", value_parser = parse_kubernetes_version)]
    kubernetes_version: u8,
    /// What unknown fields (pruned by the schema) and repeated keys do, as the request's
    /// `fieldValidation`: `strict` (kubectl's default) refuses the object with the apiserver's
    /// `strict decoding error`, `warn` (the apiserver's default) prints a warning per field,
    /// `ignore` says nothing.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = FieldValidationArg::Strict)]
    field_validation: FieldValidationArg,
    #[command(flatten)]
    inputs: InputArgs,
    /// Also write the results as FORMAT (`github`, `junit`, `sarif`) to FILE; repeatable.
    #[arg(long, value_name = "FORMAT=FILE", value_parser = parse_report)]
    report: Vec<ReportTo>,
    /// Kinds not to validate (reported as skipped): `Kind` or `group/version/Kind`
    /// (`apps/v1/Deployment`, `v1/ConfigMap`); repeatable, or comma-separated.
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    skip: Vec<String>,
    /// Skip objects whose kind no CRD defines, instead of kubectl's `no matches for kind`
    /// input error.
    #[arg(long)]
    ignore_missing_crds: bool,
    /// Exit 0 even when objects are invalid (input errors still exit 2).
    #[arg(long)]
    exit_zero: bool,
    /// Object files (YAML streams or JSON) or directories of them; `-` reads stdin, as does no
    /// file when stdin is not a terminal. CRDs among them are registered, as `--crd` ones.
    #[arg(value_name = "OBJECT")]
    objects: Vec<String>,
}

#[derive(Args, Debug)]
struct InputArgs {
    /// Leave out the files whose path matches this regular expression (repeatable), in
    /// directories and among the named files.
    #[arg(long, value_name = "REGEX", value_parser = parse_regex)]
    ignore_filename_pattern: Vec<regex::Regex>,
    /// Succeed when the inputs hold no document at all (by default exit 2: a pipeline that
    /// produced nothing is usually a broken one).
    #[arg(long)]
    allow_empty: bool,
}

fn parse_regex(s: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(s).map_err(|e| e.to_string())
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Output format: `text` (the apiserver's message per CRD and a summary) or `json`
    /// (one JSON object per CRD, one per line, as the apiserver oracle's `check-crd`).
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Text)]
    output: OutputFormat,
    /// The Kubernetes release to emulate (`1.31`, `v1.31` or `1.31.4`); new rules compile at
    /// the release before it, as the apiserver's compatibility version.
    #[arg(long, value_name = "1.N", default_value = "1.37", value_parser = parse_kubernetes_version)]
    kubernetes_version: u8,
    /// What repeated keys in a manifest do, as the request's `fieldValidation`: `strict`
    /// (kubectl's default) rejects the CRD with the apiserver's `strict decoding error`, `warn`
    /// prints a warning per key, `ignore` says nothing.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = FieldValidationArg::Strict)]
    field_validation: FieldValidationArg,
    #[command(flatten)]
    inputs: InputArgs,
    /// Also write the results as FORMAT (`github`, `junit`, `sarif`) to FILE; repeatable.
    #[arg(long, value_name = "FORMAT=FILE", value_parser = parse_report)]
    report: Vec<ReportTo>,
    /// Exit 0 even when CRDs are rejected (input errors still exit 2).
    #[arg(long)]
    exit_zero: bool,
    /// The stored CRDs (files or directories; repeatable): a CRD of the same name is checked
    /// as an update of the stored one, as the apiserver checks `kubectl apply` of a new
    /// version (expressions the stored CRD has keep the stored-expressions environment;
    /// versions whose schema is unchanged are not held to the per-rule cost limit).
    #[arg(long, value_name = "OLD_CRD")]
    old: Vec<String>,
    /// With `--old`: objects stored under the old CRDs (files or directories); those the old
    /// CRD accepts and the new one rejects are listed, and make the exit code 1.
    #[arg(long, value_name = "DIR", requires = "old")]
    objects: Vec<String>,
    /// Manifest files (YAML streams or JSON) or directories of them; `-` reads stdin, as does
    /// no file when stdin is not a terminal.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FieldValidationArg {
    Strict,
    Warn,
    Ignore,
}

impl From<FieldValidationArg> for FieldValidation {
    fn from(a: FieldValidationArg) -> FieldValidation {
        match a {
            FieldValidationArg::Strict => FieldValidation::Strict,
            FieldValidationArg::Warn => FieldValidation::Warn,
            FieldValidationArg::Ignore => FieldValidation::Ignore,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// The apiserver's message per document, `FILE:LINE: ` first, and a summary.
    Text,
    /// One JSON object per document, one per line (the oracle's shape).
    Json,
    /// GitHub Actions workflow commands: an annotation per error on its file and line.
    Github,
    /// JUnit XML: a test case per document.
    Junit,
    /// SARIF 2.1.0: a result per error, with its file and line.
    Sarif,
}

impl OutputFormat {
    /// Whether results are written as they come (else all at the end).
    fn streams(self) -> bool {
        matches!(self, OutputFormat::Text | OutputFormat::Json)
    }
}

/// `--report FORMAT=FILE`.
#[derive(Clone, Debug)]
struct ReportTo {
    format: OutputFormat,
    file: std::path::PathBuf,
}

fn parse_report(s: &str) -> Result<ReportTo, String> {
    let (format, file) = s
        .split_once('=')
        .ok_or_else(|| format!("expected FORMAT=FILE (junit=report.xml), got {s:?}"))?;
    let format = OutputFormat::from_str(format, true)?;
    if format.streams() {
        return Err(
            "--report writes github, junit or sarif; text and json go to stdout with --output"
                .to_owned(),
        );
    }
    Ok(ReportTo {
        format,
        file: file.into(),
    })
}

/// The formats written at the end of a run: `--output` when it is one of them, and each
/// `--report`.
fn write_reports(
    command: &str,
    output: OutputFormat,
    reports: &[ReportTo],
    mut entries: Vec<report::Entry>,
    bad: &[InputError],
    io: &mut Io<'_>,
) -> Result<(), ()> {
    if output.streams() && reports.is_empty() {
        return Ok(());
    }
    entries.extend(bad.iter().map(report::Entry::input_error));
    let render = |format: OutputFormat| match format {
        OutputFormat::Github => report::github(&entries),
        OutputFormat::Junit => report::junit(command, &entries),
        OutputFormat::Sarif => report::sarif(&entries),
        OutputFormat::Text | OutputFormat::Json => String::new(),
    };
    if !output.streams() {
        let _ = write!(io.stdout, "{}", render(output));
    }
    let mut ok = Ok(());
    for r in reports {
        if let Err(e) = std::fs::write(&r.file, render(r.format)) {
            let _ = writeln!(
                io.stderr,
                "crd-cel: {}: cannot write the report: {e}",
                r.file.display()
            );
            ok = Err(());
        }
    }
    ok
}

/// Parses `1.N`, `v1.N` or `1.N.P` into the minor version, within the supported range.
fn parse_kubernetes_version(s: &str) -> Result<u8, String> {
    let v = s.strip_prefix('v').unwrap_or(s);
    let mut parts = v.split('.');
    let (major, minor, patch) = (parts.next(), parts.next(), parts.next());
    let ok_patch = patch.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    match (major, minor.and_then(|m| m.parse::<u8>().ok())) {
        (Some("1"), Some(minor)) if ok_patch && parts.next().is_none() => {
            if (MIN_KUBERNETES_MINOR..=DEFAULT_KUBERNETES_MINOR).contains(&minor) {
                Ok(minor)
            } else {
                Err(format!(
                    "Kubernetes 1.{minor} is not supported: crd-cel emulates 1.{MIN_KUBERNETES_MINOR} to 1.{DEFAULT_KUBERNETES_MINOR}"
                ))
            }
        }
        _ => Err(format!(
            "expected a Kubernetes version such as 1.{DEFAULT_KUBERNETES_MINOR}, got {s:?}"
        )),
    }
}

/// What the process has to talk to.
pub struct Io<'a> {
    /// Standard input (read for `-`).
    pub stdin: &'a mut dyn Read,
    /// Whether standard input is a terminal (then no file is a usage error, not a read).
    pub stdin_is_terminal: bool,
    /// Results.
    pub stdout: &'a mut dyn Write,
    /// Diagnostics.
    pub stderr: &'a mut dyn Write,
}

/// Runs the tool with `args` (the program name first) and returns the exit code.
pub fn run<I, T>(args: I, io: &mut Io<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let text = e.render().to_string();
            let code = u8::try_from(e.exit_code()).unwrap_or(EXIT_BAD_INPUT);
            let out: &mut dyn Write = if e.use_stderr() {
                &mut *io.stderr
            } else {
                &mut *io.stdout
            };
            let _ = write!(out, "{text}");
            return code;
        }
    };
    match cli.command {
        Command::Check(args) => check(args, io),
        Command::Validate(args) => validate_objects(args, io),
    }
}

/// Reads every document of `files`, reporting unreadable ones.
fn read_documents(files: &[String], io: &mut Io<'_>, bad: &mut Vec<InputError>) -> Vec<Document> {
    let mut out = Vec::new();
    for file in files {
        match input::read_source(file, io.stdin).and_then(|t| input::split_documents(file, &t)) {
            Ok(docs) => out.extend(docs),
            Err(e) => report_input_error(e, io, bad),
        }
    }
    out
}

fn report_input_error(e: InputError, io: &mut Io<'_>, bad: &mut Vec<InputError>) {
    let _ = writeln!(io.stderr, "crd-cel: {e}");
    bad.push(e);
}

/// The files of the named inputs (directories expanded), or the input error.
fn expand_inputs(
    names: &[String],
    inputs: &InputArgs,
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Vec<String> {
    match input::files::expand(names, &inputs.ignore_filename_pattern) {
        Ok(files) => files,
        Err(e) => {
            report_input_error(e, io, bad);
            Vec::new()
        }
    }
}

/// The "nothing to check" input error, unless `--allow-empty`.
fn check_not_empty(
    what: &str,
    found: usize,
    inputs: &InputArgs,
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) {
    if found == 0 && !inputs.allow_empty && bad.is_empty() {
        report_input_error(
            InputError::in_file(
                "crd-cel",
                format!("no {what} in the input (pass --allow-empty if that is expected)"),
            ),
            io,
            bad,
        );
    }
}

fn validate_objects(args: ValidateArgs, io: &mut Io<'_>) -> u8 {
    let mut objects = args.objects;
    if objects.is_empty() {
        if io.stdin_is_terminal {
            let _ = writeln!(
                io.stderr,
                "crd-cel: no OBJECT given and stdin is a terminal: name object files, or `-` to read stdin (see `crd-cel validate --help`)"
            );
            return EXIT_BAD_INPUT;
        }
        objects.push("-".to_owned());
    }
    let stdin_uses = objects
        .iter()
        .chain(&args.crd)
        .chain(&args.old)
        .filter(|f| *f == "-")
        .count();
    if stdin_uses > 1 {
        let _ = writeln!(io.stderr, "crd-cel: `-` (stdin) may be given only once");
        return EXIT_BAD_INPUT;
    }
    let mut bad = Vec::<InputError>::new();
    let crd_files = expand_inputs(&args.crd, &args.inputs, io, &mut bad);
    let mut crd_docs: Vec<Document> = Vec::new();
    for d in read_documents(&crd_files, io, &mut bad) {
        match crd::crd_kind_problem(&d.value) {
            None => crd_docs.push(d),
            Some(message) => report_input_error(validate::input_error(&d, message), io, &mut bad),
        }
    }
    let old = match &args.old {
        None => None,
        Some(f) => {
            let docs = read_documents(std::slice::from_ref(f), io, &mut bad);
            match docs.as_slice() {
                [one] => Some(one.value.clone()),
                _ => {
                    let e = InputError::in_file(
                        f,
                        format!(
                            "--old must hold exactly one object, it holds {}",
                            docs.len()
                        ),
                    );
                    report_input_error(e, io, &mut bad);
                    None
                }
            }
        }
    };
    // Without every CRD and the old object no verdict can be trusted; an unreadable object
    // file is reported and the others are validated.
    if !bad.is_empty() {
        let _ = write_reports("validate", args.output, &args.report, Vec::new(), &bad, io);
        return EXIT_BAD_INPUT;
    }
    let object_files = expand_inputs(&objects, &args.inputs, io, &mut bad);
    // CRDs among the objects are registered too (what `helm template` writes first).
    let (registered, object_docs): (Vec<Document>, Vec<Document>) =
        read_documents(&object_files, io, &mut bad)
            .into_iter()
            .partition(|d| crd::crd_kind_problem(&d.value).is_none());
    let registered_count = registered.len();
    crd_docs.extend(registered);
    check_not_empty("objects", object_docs.len(), &args.inputs, io, &mut bad);
    let mut entries = Vec::new();
    let mut crds = validate::Crds::new(crd_docs)
        .with_kubernetes_version(args.kubernetes_version)
        .with_default_namespace(&args.namespace)
        .with_field_validation(args.field_validation.into());
    let (mut checked, mut invalid, mut skipped) = (0usize, 0usize, 0usize);
    for doc in object_docs {
        let skip = validate::skip_reason(&doc.value, &args.skip);
        let target =
            match skip.map_or_else(|| crds.target(&doc.value, args.version.as_deref()), Err) {
                Ok(t) => t,
                Err(validate::NoTarget::Invalid(message)) => {
                    report_input_error(validate::input_error(&doc, message), io, &mut bad);
                    continue;
                }
                Err(validate::NoTarget::NoMatch(message)) if !args.ignore_missing_crds => {
                    report_input_error(validate::input_error(&doc, message), io, &mut bad);
                    continue;
                }
                Err(validate::NoTarget::Skipped(reason) | validate::NoTarget::NoMatch(reason)) => {
                    skipped += 1;
                    let skip = validate::Skipped::new(&doc, reason.clone());
                    match args.output {
                        OutputFormat::Json => {
                            let _ = writeln!(io.stdout, "{}", gojson::to_string(&skip));
                        }
                        OutputFormat::Text => {
                            let _ = writeln!(io.stdout, "{}: {}", doc.location(), skip.text());
                        }
                        _ => {}
                    }
                    entries.push(report::Entry::of(
                        &doc,
                        skip.subject(),
                        report::Status::Skipped,
                        reason,
                    ));
                    continue;
                }
            };
        let verdict = validate::validate_one(
            &doc,
            old.as_ref(),
            &target,
            args.subresource.as_deref() == Some("status"),
        );
        checked += 1;
        if !verdict.valid {
            invalid += 1;
        }
        let name = doc
            .value
            .pointer("/metadata/name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let subject = format!("{} {name:?}", target.qualified_kind);
        match args.output {
            OutputFormat::Json => {
                let _ = writeln!(io.stdout, "{}", gojson::to_string(&verdict.json));
            }
            OutputFormat::Text => {
                for w in &verdict.warnings {
                    let _ = writeln!(io.stderr, "Warning: {w}");
                }
                if verdict.valid {
                    let _ = writeln!(io.stdout, "{}: {subject} is valid", doc.location());
                } else {
                    let _ = writeln!(io.stdout, "{}: {}", doc.location(), verdict.text);
                }
            }
            _ => {}
        }
        let status = if verdict.valid {
            report::Status::Passed
        } else {
            report::Status::Failed
        };
        let mut entry = report::Entry::of(&doc, subject, status, verdict.text);
        entry.causes = verdict.causes;
        entry.warnings = verdict.warnings;
        entries.push(entry);
    }
    if args.output == OutputFormat::Text {
        let crds_note = if registered_count > 0 {
            format!(", CRDs among them: {registered_count}")
        } else {
            String::new()
        };
        let _ = writeln!(
            io.stdout,
            "Summary: {checked} object{} - valid: {}, invalid: {invalid}, skipped: {skipped}, input errors: {}{crds_note}",
            plural(checked),
            checked - invalid,
            bad.len(),
        );
    }
    if write_reports("validate", args.output, &args.report, entries, &bad, io).is_err() {
        return EXIT_BAD_INPUT;
    }
    if args.exit_zero && bad.is_empty() {
        return EXIT_ACCEPTED;
    }
    if !bad.is_empty() {
        EXIT_BAD_INPUT
    } else if invalid > 0 {
        EXIT_REJECTED
    } else {
        EXIT_ACCEPTED
    }
}

/// One line of `--output json`: the oracle's `check-crd` object, cost figures included.
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

fn check(mut args: CheckArgs, io: &mut Io<'_>) -> u8 {
    let mut files = std::mem::take(&mut args.files);
    if files.is_empty() {
        if io.stdin_is_terminal {
            let _ = writeln!(
                io.stderr,
                "crd-cel: no FILE given and stdin is a terminal: name manifests, or `-` to read stdin (see `crd-cel check --help`)"
            );
            return EXIT_BAD_INPUT;
        }
        files.push("-".to_owned());
    }
    if files.iter().filter(|f| *f == "-").count() > 1 {
        let _ = writeln!(io.stderr, "crd-cel: `-` (stdin) may be given only once");
        return EXIT_BAD_INPUT;
    }
    let opts = Options {
        kubernetes_minor: args.kubernetes_version,
    };
    let mut bad = Vec::<InputError>::new();
    let mut entries = Vec::new();
    let (mut crds, mut rejected, mut rules) = (0usize, 0usize, 0usize);
    let names = files;
    let old_files = expand_inputs(&args.old, &args.inputs, io, &mut bad);
    let mut stored: Vec<Document> = Vec::new();
    for d in read_documents(&old_files, io, &mut bad) {
        match crd::crd_kind_problem(&d.value) {
            None => stored.push(d),
            Some(message) => report_input_error(validate::input_error(&d, message), io, &mut bad),
        }
    }
    let stored_named = |name: &str| {
        stored.iter().find(|d| {
            d.value
                .pointer("/metadata/name")
                .and_then(serde_json::Value::as_str)
                == Some(name)
        })
    };
    let mut new_crds: Vec<Document> = Vec::new();
    let files = expand_inputs(&names, &args.inputs, io, &mut bad);
    let mut documents = 0usize;
    for file in &files {
        let docs = read_documents(std::slice::from_ref(file), io, &mut bad);
        documents += docs.len();
        for doc in &docs {
            let duplicates: Vec<String> = doc
                .duplicate_fields
                .iter()
                .map(|p| crd_cel::validate::duplicate_field_error(p))
                .collect();
            let name = doc
                .value
                .pointer("/metadata/name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if args.field_validation == FieldValidationArg::Strict && !duplicates.is_empty() {
                // The handler's strict decoding refuses the manifest before any check.
                crds += 1;
                rejected += 1;
                let refusal = strict_decoding_refusal(&doc.value, duplicates);
                print_refusal(args.output, doc, &refusal, io);
                let mut entry =
                    report::Entry::of(doc, name, report::Status::Failed, refusal.to_string());
                entry.causes = vec![report::Cause {
                    field: String::new(),
                    reason: refusal.reason().to_owned(),
                    message: refusal.to_string(),
                    line: None,
                }];
                entries.push(entry);
                continue;
            }
            let checked = match stored_named(&name) {
                Some(old) => crd::check_crd_update(&doc.value, &old.value, &opts),
                None => crd::check_crd(&doc.value, &opts),
            };
            if crd::crd_kind_problem(&doc.value).is_none() {
                new_crds.push(doc.clone());
            }
            match checked {
                Ok(report) => {
                    crds += 1;
                    rules += report.rules.len();
                    if !report.accepted() {
                        rejected += 1;
                    }
                    let warnings = if args.field_validation == FieldValidationArg::Warn {
                        duplicates
                    } else {
                        Vec::new()
                    };
                    print_report(args.output, doc, &report, &warnings, io);
                    let status = if report.accepted() {
                        report::Status::Passed
                    } else {
                        report::Status::Failed
                    };
                    let mut entry = report::Entry::of(doc, name, status, report.text());
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
                    entries.push(entry);
                }
                Err(message) => {
                    report_input_error(validate::input_error(doc, message), io, &mut bad);
                }
            }
        }
    }
    check_not_empty("documents", documents, &args.inputs, io, &mut bad);
    let mut newly_rejected = 0usize;
    if !args.objects.is_empty() && bad.is_empty() {
        let object_files = expand_inputs(&args.objects, &args.inputs, io, &mut bad);
        let objects = read_documents(&object_files, io, &mut bad);
        let checked;
        (newly_rejected, checked) =
            upgrade_safety(stored, new_crds, &objects, &args, io, &mut entries);
        if args.output == OutputFormat::Text {
            let _ = writeln!(
                io.stdout,
                "Stored objects: {checked} checked, {newly_rejected} accepted by the stored CRD and rejected by the new one"
            );
        }
    }
    if args.output == OutputFormat::Text {
        let _ = writeln!(
            io.stdout,
            "Summary: {crds} CRD{} with {rules} rule{} in {} file{} - accepted: {}, rejected: {rejected}, input errors: {} (Kubernetes 1.{})",
            plural(crds),
            plural(rules),
            files.len(),
            plural(files.len()),
            crds - rejected,
            bad.len(),
            opts.kubernetes_minor,
        );
    }
    if write_reports("check", args.output, &args.report, entries, &bad, io).is_err() {
        return EXIT_BAD_INPUT;
    }
    if !bad.is_empty() {
        EXIT_BAD_INPUT
    } else if rejected + newly_rejected > 0 && !args.exit_zero {
        EXIT_REJECTED
    } else {
        EXIT_ACCEPTED
    }
}

/// The objects the stored CRDs accept and the new ones reject, each reported; returns how many
/// there are and how many objects were checked under both.
fn upgrade_safety(
    stored: Vec<Document>,
    new: Vec<Document>,
    objects: &[Document],
    args: &CheckArgs,
    io: &mut Io<'_>,
    entries: &mut Vec<report::Entry>,
) -> (usize, usize) {
    let minor = args.kubernetes_version;
    let mut before = validate::Crds::new(stored).with_kubernetes_version(minor);
    let mut after = validate::Crds::new(new).with_kubernetes_version(minor);
    let (mut newly_rejected, mut checked) = (0usize, 0usize);
    for doc in objects {
        let (Ok(b), Ok(a)) = (
            before.target(&doc.value, None),
            after.target(&doc.value, None),
        ) else {
            continue;
        };
        checked += 1;
        if !validate::validate_one(doc, None, &b, false).valid {
            continue;
        }
        let verdict = validate::validate_one(doc, None, &a, false);
        if verdict.valid {
            continue;
        }
        newly_rejected += 1;
        let name = doc
            .value
            .pointer("/metadata/name")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let subject = format!("{} {name:?}", a.qualified_kind);
        let message = format!(
            "accepted by the stored CRD, rejected by the new one: {}",
            verdict.text
        );
        if args.output == OutputFormat::Text {
            let _ = writeln!(io.stdout, "{}: {subject} is {message}", doc.location());
        }
        let mut entry = report::Entry::of(doc, subject, report::Status::Failed, message);
        entry.causes = verdict.causes;
        entries.push(entry);
    }
    (newly_rejected, checked)
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
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

fn print_refusal(format: OutputFormat, doc: &Document, refusal: &Refusal, io: &mut Io<'_>) {
    match format {
        OutputFormat::Github | OutputFormat::Junit | OutputFormat::Sarif => {}
        OutputFormat::Text => {
            let _ = writeln!(io.stdout, "{}: {refusal}", doc.location());
        }
        OutputFormat::Json => {
            let line = gojson::to_string(&JsonResult {
                file: &doc.file,
                doc: doc.index,
                crd: doc
                    .value
                    .pointer("/metadata/name")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default(),
                accepted: false,
                errors: Vec::new(),
                text: refusal.to_string(),
                warnings: Vec::new(),
                rules: &[],
            });
            let _ = writeln!(io.stdout, "{line}");
        }
    }
}

fn print_report(
    format: OutputFormat,
    doc: &Document,
    report: &CrdReport,
    warnings: &[String],
    io: &mut Io<'_>,
) {
    match format {
        OutputFormat::Github | OutputFormat::Junit | OutputFormat::Sarif => {}
        OutputFormat::Text => {
            for w in warnings {
                let _ = writeln!(io.stderr, "Warning: {}: {w}", doc.location());
            }
            if report.accepted() {
                let _ = writeln!(
                    io.stdout,
                    "{}: {} accepted ({} rule{})",
                    doc.location(),
                    report.name,
                    report.rules.len(),
                    plural(report.rules.len())
                );
            } else {
                let _ = writeln!(io.stdout, "{}: {}", doc.location(), report.text());
            }
        }
        OutputFormat::Json => {
            let line = gojson::to_string(&JsonResult {
                file: &doc.file,
                doc: doc.index,
                crd: &report.name,
                accepted: report.accepted(),
                errors: report.errors.iter().map(ToString::to_string).collect(),
                text: report.text(),
                warnings: warnings.to_vec(),
                rules: &report.rules,
            });
            let _ = writeln!(io.stdout, "{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_versions() {
        assert_eq!(parse_kubernetes_version("1.37"), Ok(37));
        assert_eq!(parse_kubernetes_version("v1.31"), Ok(31));
        assert_eq!(parse_kubernetes_version("1.30.4"), Ok(30));
        assert!(parse_kubernetes_version("1.38").is_err());
        assert!(parse_kubernetes_version("1.24").is_err());
        assert!(parse_kubernetes_version("2.1").is_err());
        assert!(parse_kubernetes_version("1.30.x").is_err());
        assert!(parse_kubernetes_version("1").is_err());
    }
}
