//! The `crd-cel` command line tool.
//!
//! `crd-cel check [OPTIONS] [PATH|-]...` reads CRD manifests (files, directories, `-` for stdin;
//! YAML streams, JSON documents included) and reports what the apiserver would say about them
//! at creation (`kubectl create -f CRD`), or as an update of the stored CRDs with `--old`: the
//! structural and rule field checks, compile errors from the same checker the derive runs at
//! `cargo build`, the cost limits, with the apiserver's paths and texts.
//!
//! `crd-cel validate [--crd PATH]... [--old FILE] [OPTIONS] [PATH|-]...` validates custom
//! resources against their CRD as the apiserver's create (update with `--old`) path does:
//! pruning, defaults, the OpenAPI schema, list types, then the CEL rules.
//!
//! Both write `text` (kubectl's message after `FILE:LINE:`, and a summary), a versioned `json`
//! document, the oracle's `jsonl`, `github` workflow commands, `junit` or `sarif`, and
//! `validate` the stored objects as `yaml`. Exit codes, for both: [`EXIT_ACCEPTED`] (0) every
//! document valid or skipped, [`EXIT_REJECTED`] (1) some rejected, [`EXIT_BAD_INPUT`] (2) usage
//! or input error.
//!
//! The work is in this library ([`run`]); `src/bin/crd-cel.rs` only calls it.

pub use crd_cel::crd;
use crd_cel::gojson;
use crd_cel::validate::FieldValidation;

mod check;
pub mod input;
mod jobs;
pub mod report;
mod status;
mod test;
pub mod validate;

use clap::{Args, Parser, Subcommand, ValueEnum};
use crd::{DEFAULT_KUBERNETES_MINOR, MIN_KUBERNETES_MINOR};
use input::{Document, InputError};
use report::{Entry, Paint, Status};
use serde_json::Value;
use std::ffi::OsString;
use std::io::{Read, Write};

/// Exit code: every document valid (objects) or accepted (CRDs), or skipped; also the code of
/// `--exit-zero` runs without input errors.
pub const EXIT_ACCEPTED: u8 = 0;
/// Exit code: at least one object invalid or CRD rejected (or, with `check --objects`, one
/// stored object the new CRD rejects).
pub const EXIT_REJECTED: u8 = 1;
/// Exit code: usage or input error: a bad flag, an unreadable or unparsable file, no documents,
/// a kind no CRD defines, an unsupported `--kubernetes-version`, a report that cannot be written.
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
    /// Report what the apiserver would say about the CRDs' schemas and rules at creation
    /// (`kubectl create -f CRD`): structural-schema errors, rule field errors, compile errors,
    /// costs, oldSelf placement.
    Check(CheckArgs),
    /// Validate custom resources against their CRD's rules (x-kubernetes-validations) as the
    /// apiserver does on create, or on update with `--old`: pruning, defaults, OpenAPI schema
    /// checks, then the CEL rules.
    Validate(ValidateArgs),
    /// Run CRD validation test suites (OpenShift API's `*.testsuite.yaml`: `onCreate` and
    /// `onUpdate` cases with `expected` objects or `expectedError` substrings) offline against
    /// CRD manifests, each case answered as the apiserver would answer it. Exit 0 when every
    /// case passes, 1 when one fails, 2 on a malformed suite or input error.
    Test(TestArgs),
}

#[derive(Args, Debug)]
struct TestArgs {
    /// The CRD manifests (files or directories; repeatable): a suite runs against the CRDs
    /// named by its `crdName` (each file of that name, as envtest runners do).
    #[arg(long, value_name = "FILE")]
    crd: Vec<String>,
    /// Output format: `text` (each failing case after `FILE:LINE:` with expected and actual,
    /// and a summary), `json`, `github`, `junit` or `sarif`.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Text)]
    output: OutputFormat,
    /// The Kubernetes release whose apiserver answers (`1.33`, `v1.33` or `1.33.4`). Default:
    /// the one the suites' own envtest runs, `ENVTEST_K8S_VERSION` of the nearest `Makefile` or
    /// `tests/Makefile` above the first suite (a version, or kubebuilder's `k8s.io/api` version
    /// read from `go.mod`), said on stderr; else 1.37.
    #[arg(long, value_name = "1.N", value_parser = parse_kubernetes_version)]
    kubernetes_version: Option<u8>,
    /// Write a starting suite for the CRD in FILE to stdout instead of running suites: a
    /// minimal object that passes, with the stored object crd-cel answers for it, and a
    /// commented-out case per rule to fill in.
    #[arg(long, value_name = "FILE", conflicts_with = "suites")]
    init: Option<String>,
    /// With `--init`: the CRD version to write the suite for (default: its only or storage
    /// version).
    #[arg(long, value_name = "V", requires = "init")]
    version: Option<String>,
    /// With `--init`: the CRD to write the suite for, when FILE holds several.
    #[arg(long, value_name = "NAME", requires = "init")]
    crd_name: Option<String>,
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    run: RunArgs,
    /// Suite files, or directories searched for `*.testsuite.yaml` files and, in OpenShift API's
    /// layout, the `.yaml` files of `<group>/<version>/tests/<crdName>/` (their CRDs taken from
    /// `<group>/<version>/zz_generated.crd-manifests` when --crd has none of that name).
    #[arg(value_name = "SUITE")]
    suites: Vec<String>,
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
    /// The stored object (a file, or `-`): validate an UPDATE from it (transition rules and
    /// ratcheting).
    #[arg(long, value_name = "FILE")]
    old: Option<String>,
    /// The CRD the old object was created under, when the CRD has changed since (ratcheting
    /// across a CRD change): the old object is first stored as that CRD stored it (its
    /// pruning and defaults), then read under the new CRD, as the apiserver reads it from
    /// storage.
    #[arg(long, value_name = "FILE", requires = "old")]
    old_crd: Option<String>,
    /// `status`: validate an update of the status subresource (with `--old`: the status
    /// subresource is only ever updated).
    #[arg(long, value_name = "status", value_parser = ["status"], requires = "old")]
    subresource: Option<String>,
    /// The namespace namespaced objects without `metadata.namespace` are sent to (as kubectl's
    /// context namespace); cluster-scoped objects lose their namespace, as on the apiserver.
    #[arg(short, long, value_name = "NS", default_value = "default")]
    namespace: String,
    /// Output format: `text` (kubectl's message per object after `FILE:LINE:`, and a
    /// summary), `json` (one versioned document), `jsonl` (the oracle's line per object),
    /// `yaml` (the valid objects as the apiserver would store them, failures on stderr),
    /// `github`, `junit` or `sarif`.
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
    /// With `--old`, how the update is sent: `patch` (`kubectl apply`, `edit`, `patch`: the
    /// server applies it to the stored object, so an object without
    /// `metadata.resourceVersion` carries the stored one) or `put` (`kubectl replace`: without
    /// `metadata.resourceVersion` the apiserver refuses it, `must be specified for an
    /// update`).
    #[arg(long, value_enum, value_name = "METHOD", default_value_t = UpdateMethodArg::Patch, requires = "old")]
    update_method: UpdateMethodArg,
    #[command(flatten)]
    inputs: InputArgs,
    #[command(flatten)]
    run: RunArgs,
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

/// How a run goes, for both commands.
#[derive(Args, Debug)]
struct RunArgs {
    /// Check N documents at a time (0: one per CPU); the output keeps the input order.
    #[arg(short, long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Colour the text output: `auto` when stdout is a terminal and `NO_COLOR` is unset or
    /// empty, `always`, `never`.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    /// Also write the results as FORMAT (`json`, `github`, `junit`, `sarif`) to FILE;
    /// repeatable.
    #[arg(long, value_name = "FORMAT=FILE", value_parser = parse_report)]
    report: Vec<ReportTo>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl RunArgs {
    fn paint(&self, io: &Io<'_>) -> Paint {
        Paint(match self.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => io.stdout_is_terminal && !io.no_color,
        })
    }
}

fn parse_regex(s: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(s).map_err(|e| e.to_string())
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// Output format: `text` (the apiserver's message per CRD after `FILE:LINE:`, and a
    /// summary), `json` (one versioned document), `jsonl` (the oracle's line per CRD, cost
    /// figures included), `github`, `junit` or `sarif`.
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
    #[command(flatten)]
    run: RunArgs,
    /// Exit 0 even when CRDs are rejected (input errors still exit 2).
    #[arg(long)]
    exit_zero: bool,
    /// The CRDs are applied server-side (`kubectl apply --server-side`, Flux, Argo CD's
    /// server-side apply): no warning for a CRD too large for client-side `kubectl apply`.
    #[arg(long)]
    server_side: bool,
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
enum UpdateMethodArg {
    Patch,
    Put,
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
    /// kubectl's message per document after `FILE:LINE: `, and a summary.
    Text,
    /// One document: `schemaVersion`, a result per document with its causes and the
    /// apiserver's `Status`, and the summary.
    Json,
    /// One JSON object per document, one per line (the apiserver oracle's shape, which the
    /// conformance scripts compare).
    Jsonl,
    /// `validate`: the valid objects as the apiserver would store them (pruned, defaulted),
    /// as `kubectl apply --dry-run=server -o yaml` prints them; failures on stderr.
    Yaml,
    /// GitHub Actions workflow commands: an annotation per error on its file and line.
    Github,
    /// JUnit XML: a test case per document.
    Junit,
    /// SARIF 2.1.0: a result per error, with its file and line.
    Sarif,
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
    if matches!(
        format,
        OutputFormat::Text | OutputFormat::Jsonl | OutputFormat::Yaml
    ) {
        return Err(
            "--report writes json, github, junit or sarif; text, jsonl and yaml go to stdout with --output"
                .to_owned(),
        );
    }
    Ok(ReportTo {
        format,
        file: file.into(),
    })
}

/// What a run writes at its end.
struct Finish<'a> {
    command: &'static str,
    output: OutputFormat,
    reports: &'a [ReportTo],
    kubernetes_minor: u8,
    /// Files read.
    files: usize,
    paint: Paint,
    /// The text output's last lines (the summary).
    trailer: Vec<String>,
}

impl<'a> Finish<'a> {
    fn new(
        command: &'static str,
        output: OutputFormat,
        kubernetes_minor: u8,
        run: &'a RunArgs,
        io: &Io<'_>,
    ) -> Self {
        Finish {
            command,
            output,
            reports: &run.report,
            kubernetes_minor,
            files: 0,
            paint: run.paint(io),
            trailer: Vec::new(),
        }
    }

    /// Writes the results in the `--output` format and each `--report`; the input errors of
    /// whole files (those of documents are entries already) come last. `Err` when a report
    /// cannot be written.
    fn write(
        &self,
        mut entries: Vec<Entry>,
        file_errors: &[InputError],
        io: &mut Io<'_>,
    ) -> Result<(), ()> {
        entries.extend(file_errors.iter().map(Entry::input_error));
        let summary = report::Summary::of(&entries, self.files);
        let render = |format: OutputFormat| match format {
            OutputFormat::Json => {
                report::json(self.command, self.kubernetes_minor, &entries, &summary)
            }
            OutputFormat::Github => report::github(&entries),
            OutputFormat::Junit => report::junit(self.command, &entries),
            OutputFormat::Sarif => report::sarif(&entries),
            OutputFormat::Jsonl => entries
                .iter()
                .filter_map(|e| e.jsonl.as_ref())
                .map(|l| format!("{l}\n"))
                .collect(),
            OutputFormat::Yaml => report::yaml(&entries),
            OutputFormat::Text => String::new(),
        };
        match self.output {
            OutputFormat::Text => {
                report::text(&entries, self.paint, io.stdout, io.stderr);
                for line in &self.trailer {
                    let _ = writeln!(io.stdout, "{}", self.paint.bold(line));
                }
            }
            OutputFormat::Yaml => {
                let _ = write!(io.stdout, "{}", render(OutputFormat::Yaml));
                // As kubectl: the objects on stdout, what went wrong on stderr.
                for e in &entries {
                    for w in &e.warnings {
                        let _ = writeln!(io.stderr, "Warning: {}: {w}", e.location());
                    }
                    if e.status != Status::Passed && !e.text.is_empty() {
                        let _ = writeln!(io.stderr, "{}: {}", e.location(), e.text);
                    }
                }
                for line in &self.trailer {
                    let _ = writeln!(io.stderr, "{line}");
                }
            }
            other => {
                let _ = write!(io.stdout, "{}", render(other));
            }
        }
        let mut ok = Ok(());
        for r in self.reports {
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
    /// Whether standard output is a terminal (`--color auto` colours only then).
    pub stdout_is_terminal: bool,
    /// Whether `NO_COLOR` is set to something (`--color auto` never colours then).
    pub no_color: bool,
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
        Command::Check(args) => check::check(args, io),
        Command::Validate(args) => validate_objects(args, io),
        Command::Test(args) => test::test(args, io),
    }
}

/// The inputs to read: those named, or stdin when none is and stdin is not a terminal (`None`
/// after a usage error). `-` may stand only once among `others` (the other inputs) and them.
fn named_or_stdin(
    names: &[String],
    others: &[&String],
    command: &str,
    what: &str,
    io: &mut Io<'_>,
) -> Option<Vec<String>> {
    let mut names = names.to_vec();
    if names.is_empty() {
        if io.stdin_is_terminal {
            let _ = writeln!(
                io.stderr,
                "crd-cel: no {what} given and stdin is a terminal: name files or directories, or `-` to read stdin (see `crd-cel {command} --help`)"
            );
            return None;
        }
        names.push("-".to_owned());
    }
    let stdin_uses = names
        .iter()
        .chain(others.iter().copied())
        .filter(|f| *f == "-")
        .count();
    if stdin_uses > 1 {
        let _ = writeln!(io.stderr, "crd-cel: `-` (stdin) may be given only once");
        return None;
    }
    Some(names)
}

/// Reads every document of `files`, reporting unreadable ones.
fn read_documents(files: &[String], io: &mut Io<'_>, bad: &mut Vec<InputError>) -> Vec<Document> {
    read_documents_with(files, 1, io, bad)
}

/// [`read_documents`], the documents of all the files parsed `jobs` at a time (`-j`); what
/// is reported and returned is in the order of `files` whatever the threads.
fn read_documents_with(
    files: &[String],
    jobs: usize,
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Vec<Document> {
    let read: Vec<Result<Vec<Document>, InputError>> = if jobs::threads(jobs) <= 1 {
        files
            .iter()
            .map(|file| {
                input::read_source(file, io.stdin).and_then(|t| input::split_documents(file, &t))
            })
            .collect()
    } else {
        let texts: Vec<Result<String, InputError>> = files
            .iter()
            .map(|file| input::read_source(file, io.stdin))
            .collect();
        let sources: Vec<(&str, &str)> = files
            .iter()
            .zip(&texts)
            .filter_map(|(file, text)| Some((file.as_str(), text.as_ref().ok()?.as_str())))
            .collect();
        let mut split = input::split_many(&sources, jobs).into_iter();
        texts
            .into_iter()
            .map(|text| match text {
                Ok(_) => split.next().unwrap_or_else(|| Ok(Vec::new())),
                Err(e) => Err(e),
            })
            .collect()
    };
    let mut out = Vec::new();
    for result in read {
        match result {
            Ok(docs) => {
                for doc in &docs {
                    for note in &doc.yaml11_booleans {
                        let _ = writeln!(io.stderr, "Warning: {}: {note}", doc.location());
                    }
                }
                out.extend(docs);
            }
            Err(e) => report_input_error(e, io, bad),
        }
    }
    out
}

/// How a result names its object: `Kind.group "name"`, kubectl's words.
fn subject(doc: &Document, qualified_kind: &str) -> String {
    let name = doc
        .value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    format!("{qualified_kind} {name:?}")
}

/// `old` as the CRD in `file` (`--old-crd`) stored it: decoded (pruned, defaulted) by that
/// CRD's version of its kind. `None`, with the input error recorded, when it has none.
fn stored_under(
    old: Value,
    file: &str,
    args: &ValidateArgs,
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Option<Value> {
    let docs = read_crd_documents(&[file.to_owned()], io, bad);
    let mut crds = validate::Crds::new(docs).with_kubernetes_version(args.kubernetes_version);
    match crds.target(&old, args.version.as_deref()) {
        Ok(target) => Some(target.validator.decode(&old).0),
        Err(e) => {
            let e = InputError::in_file(file, format!("--old-crd: {e}"));
            report_input_error(e, io, bad);
            None
        }
    }
}

/// The CRD documents of `files` (`--crd`, `--old`); any other document is an input error.
fn read_crd_documents(
    files: &[String],
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Vec<Document> {
    read_crd_documents_with(files, 1, io, bad)
}

/// [`read_crd_documents`], `jobs` files at a time.
fn read_crd_documents_with(
    files: &[String],
    jobs: usize,
    io: &mut Io<'_>,
    bad: &mut Vec<InputError>,
) -> Vec<Document> {
    let mut out = Vec::new();
    for d in read_documents_with(files, jobs, io, bad) {
        match crd::crd_kind_problem(&d.value) {
            None => out.push(d),
            Some(message) => report_input_error(validate::input_error(&d, message), io, bad),
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
            InputError::of_input(format!(
                "no {what} in the input (pass --allow-empty if that is expected)"
            )),
            io,
            bad,
        );
    }
}

/// A document's input error, which is also its result: reported on stderr at once, counted
/// for the exit code, and written in input order by the other formats.
fn document_error(doc: &Document, message: String, io: &mut Io<'_>, errors: &mut usize) -> Entry {
    let e = validate::input_error(doc, message);
    let _ = writeln!(io.stderr, "crd-cel: {e}");
    *errors += 1;
    Entry::of(doc, String::new(), Status::Error, e.message)
}

fn validate_objects(args: ValidateArgs, io: &mut Io<'_>) -> u8 {
    let others: Vec<&String> = args
        .crd
        .iter()
        .chain(&args.old)
        .chain(&args.old_crd)
        .collect();
    let Some(objects) = named_or_stdin(&args.objects, &others, "validate", "OBJECT", io) else {
        return EXIT_BAD_INPUT;
    };
    let mut finish = Finish::new(
        "validate",
        args.output,
        args.kubernetes_version,
        &args.run,
        io,
    );
    let mut bad = Vec::<InputError>::new();
    let crd_files = expand_inputs(&args.crd, &args.inputs, io, &mut bad);
    let mut crd_docs = read_crd_documents_with(&crd_files, args.run.jobs, io, &mut bad);
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
    let old = match (old, &args.old_crd) {
        (Some(old), Some(file)) => stored_under(old, file, &args, io, &mut bad),
        (old, _) => old,
    };
    // Without every CRD and the old object no verdict can be trusted; an unreadable object
    // file is reported and the others are validated.
    if !bad.is_empty() {
        let _ = finish.write(Vec::new(), &bad, io);
        return EXIT_BAD_INPUT;
    }
    let object_files = expand_inputs(&objects, &args.inputs, io, &mut bad);
    finish.files = object_files.len();
    // CRDs among the objects are registered too (what `helm template` writes first).
    let (registered, object_docs): (Vec<Document>, Vec<Document>) =
        read_documents_with(&object_files, args.run.jobs, io, &mut bad)
            .into_iter()
            .partition(|d| crd::crd_kind_problem(&d.value).is_none());
    let registered_count = registered.len();
    crd_docs.extend(registered);
    check_not_empty("objects", object_docs.len(), &args.inputs, io, &mut bad);
    let mut crds = validate::Crds::new(crd_docs)
        .with_kubernetes_version(args.kubernetes_version)
        .with_default_namespace(&args.namespace)
        .with_field_validation(args.field_validation.into())
        .with_update_method(match args.update_method {
            UpdateMethodArg::Patch => crd_cel::validate::UpdateMethod::Patch,
            UpdateMethodArg::Put => crd_cel::validate::UpdateMethod::Put,
        });
    // With -j, the validators the objects need are built side by side first (one per CRD
    // version, as below).
    crds.prepare(
        object_docs
            .iter()
            .filter(|d| validate::skip_reason(&d.value, &args.skip).is_none())
            .map(|d| &d.value),
        args.version.as_deref(),
        args.run.jobs,
    );
    let mut document_errors = 0usize;
    // Per object in input order its result, or `None`: the next of `pending`.
    let mut slots: Vec<Option<Entry>> = Vec::with_capacity(object_docs.len());
    let mut pending: Vec<(Document, validate::Target)> = Vec::new();
    for doc in object_docs {
        let skip = validate::skip_reason(&doc.value, &args.skip);
        let slot = match skip.map_or_else(|| crds.target(&doc.value, args.version.as_deref()), Err)
        {
            Ok(target) => {
                pending.push((doc, target));
                None
            }
            Err(validate::NoTarget::Invalid(message)) => {
                Some(document_error(&doc, message, io, &mut document_errors))
            }
            Err(validate::NoTarget::NoMatch(message)) if !args.ignore_missing_crds => {
                Some(document_error(&doc, message, io, &mut document_errors))
            }
            Err(validate::NoTarget::Skipped(reason) | validate::NoTarget::NoMatch(reason)) => {
                let skip = validate::Skipped::new(&doc, reason.clone());
                let mut entry = Entry::of(&doc, skip.subject(), Status::Skipped, reason);
                entry.text = skip.text();
                entry.jsonl = Some(gojson::to_string(&skip));
                Some(entry)
            }
        };
        slots.push(slot);
    }
    let status_subresource = args.subresource.as_deref() == Some("status");
    let verdicts = jobs::map_in_order(&pending, args.run.jobs, |(doc, target)| {
        validate::validate_one(doc, old.as_ref(), target, status_subresource)
    });
    let keep_stored = args.output == OutputFormat::Yaml;
    let operation = if old.is_some() { "UPDATE" } else { "CREATE" };
    let mut entries = Vec::with_capacity(slots.len());
    let (mut checked, mut invalid, mut skipped) = (0usize, 0usize, 0usize);
    let mut validated = pending.into_iter().zip(verdicts);
    for slot in slots {
        if let Some(entry) = slot {
            if entry.status == Status::Skipped {
                skipped += 1;
            }
            entries.push(entry);
            continue;
        }
        // As many `None` slots as pending objects, and a verdict for each.
        let Some(((doc, target), verdict)) = validated.next() else {
            break;
        };
        checked += 1;
        if !verdict.valid {
            invalid += 1;
        }
        let subject = subject(&doc, &target.qualified_kind);
        let status = if verdict.valid {
            Status::Passed
        } else {
            Status::Failed
        };
        let mut entry = Entry::of(&doc, subject.clone(), status, verdict.text.clone());
        entry.text = if verdict.valid {
            format!("{subject} is valid")
        } else {
            verdict.text.clone()
        };
        entry.details.insert("operation".into(), operation.into());
        // The namespace of the request: the object's, else `--namespace` for a namespaced
        // kind (a cluster-scoped object has none).
        let namespaced = target
            .validator
            .resource()
            .is_some_and(|r| r.scope == crd_cel::validate::Scope::Namespaced);
        if !namespaced {
            entry.details.remove("namespace");
        } else if !entry.details.contains_key("namespace") {
            entry
                .details
                .insert("namespace".into(), args.namespace.clone().into());
        }
        entry.details.insert("text".into(), verdict.text.into());
        if let Some(s) = verdict.api_status {
            entry.details.insert("apiStatus".into(), s);
        }
        entry.jsonl = Some(gojson::to_string(&verdict.json));
        entry.causes = verdict.causes;
        entry.warnings = verdict.warnings;
        if keep_stored {
            entry.stored = verdict.stored;
        }
        entries.push(entry);
    }
    let crds_note = if registered_count > 0 {
        format!(", CRDs among them: {registered_count}")
    } else {
        String::new()
    };
    finish.trailer.push(format!(
        "Summary: {checked} object{} - valid: {}, invalid: {invalid}, skipped: {skipped}, input errors: {}{crds_note} (Kubernetes 1.{})",
        plural(checked),
        checked - invalid,
        bad.len() + document_errors,
        args.kubernetes_version,
    ));
    if finish.write(entries, &bad, io).is_err() {
        return EXIT_BAD_INPUT;
    }
    exit_code(bad.len() + document_errors, invalid, args.exit_zero)
}

/// The exit code of a run with `input_errors`, `rejected` documents, and `--exit-zero`.
fn exit_code(input_errors: usize, rejected: usize, exit_zero: bool) -> u8 {
    if input_errors > 0 {
        EXIT_BAD_INPUT
    } else if rejected > 0 && !exit_zero {
        EXIT_REJECTED
    } else {
        EXIT_ACCEPTED
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
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
