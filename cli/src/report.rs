//! The results of a run, and the formats they are written in: text, the versioned JSON
//! document, GitHub workflow commands, JUnit XML, SARIF 2.1.0, and the stored objects as YAML
//! (the oracle's JSON lines are written from each entry's line).

use std::io::Write;

use serde_json::{Map, Value, json};

use crate::input::{Document, InputError};

/// The version of the `--output json` document's shape; a change that could break a reader
/// (a key renamed, removed or given another meaning) increments it, new keys do not.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// What became of one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Valid object, accepted CRD.
    Passed,
    /// Invalid object, rejected CRD, refused request.
    Failed,
    /// Not checked (a built-in kind, `--skip`, `--ignore-missing-crds`).
    Skipped,
    /// Input that cannot be checked (exit code 2).
    Error,
}

impl Status {
    /// The word of the JSON document (kubeconform's `statusValid`, ... without the prefix).
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "valid",
            Status::Failed => "invalid",
            Status::Skipped => "skipped",
            Status::Error => "error",
        }
    }
}

/// One cause of a failure: a field error of the apiserver's Status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// The field path (`spec.replicas`), empty for the object as a whole.
    pub field: String,
    /// The Status cause type (`FieldValueInvalid`, ...), or what refused the request
    /// (`StrictDecoding`, `NotFound`, ...).
    pub reason: String,
    /// The message (`spec.replicas: Invalid value: ...`).
    pub message: String,
    /// The line of the field, when found (else the document's line is used).
    pub line: Option<usize>,
}

/// The outcome of one document, where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The file as named (`-` for stdin).
    pub file: String,
    /// The line the document (or list item) starts on, when known.
    pub line: Option<usize>,
    /// The 0-based index of the document in its file, when it is one.
    pub doc: Option<usize>,
    /// The index of the item when the document is an expanded `kind: List`.
    pub item: Option<usize>,
    /// What was checked: `Counter.example.com "c1"`, `widgets.example.com`.
    pub subject: String,
    /// The verdict.
    pub status: Status,
    /// The apiserver's text for a failure, the reason for a skip, the input error.
    pub message: String,
    /// The causes of a failure.
    pub causes: Vec<Cause>,
    /// The warnings the apiserver would send.
    pub warnings: Vec<String>,
    /// The text output's line after `FILE:LINE: ` (empty: not printed).
    pub text: String,
    /// Whether the text output's warning lines name the document (`Warning: FILE:LINE: ...`).
    pub locate_warnings: bool,
    /// What the JSON document adds for this entry (`apiVersion`, `kind`, `name`, `namespace`,
    /// `operation`, `apiStatus`, the oracle's `text`, `errors` and `rules`, ...).
    pub details: Map<String, Value>,
    /// The oracle's JSON line (`--output jsonl`), when there is one.
    pub jsonl: Option<String>,
    /// The object as stored (`--output yaml`), when valid and asked for.
    pub stored: Option<Value>,
}

impl Entry {
    /// An entry for `doc`.
    pub fn of(doc: &Document, subject: String, status: Status, message: String) -> Entry {
        let text = |p: &str| {
            doc.value
                .pointer(p)
                .and_then(Value::as_str)
                .map(|s| Value::String(s.to_owned()))
        };
        let mut details = Map::new();
        for (key, pointer) in [
            ("apiVersion", "/apiVersion"),
            ("kind", "/kind"),
            ("namespace", "/metadata/namespace"),
            ("name", "/metadata/name"),
        ] {
            if let Some(v) = text(pointer) {
                details.insert(key.to_owned(), v);
            }
        }
        Entry {
            file: doc.file.clone(),
            line: Some(doc.line),
            doc: Some(doc.index),
            item: doc.item,
            subject,
            status,
            message,
            causes: Vec::new(),
            warnings: Vec::new(),
            text: String::new(),
            locate_warnings: false,
            details,
            jsonl: None,
            stored: None,
        }
    }

    /// The entry of an input error.
    pub fn input_error(e: &InputError) -> Entry {
        Entry {
            file: e.file.clone(),
            line: e.line,
            doc: None,
            item: None,
            subject: String::new(),
            status: Status::Error,
            message: e.message.clone(),
            causes: Vec::new(),
            warnings: Vec::new(),
            text: String::new(),
            locate_warnings: false,
            details: Map::new(),
            jsonl: None,
            stored: None,
        }
    }

    fn display_file(&self) -> &str {
        if self.file == "-" {
            "<stdin>"
        } else {
            &self.file
        }
    }

    /// Where: `FILE:LINE`, with `: item N` for a list item.
    pub fn location(&self) -> String {
        let mut at = match self.line {
            Some(line) => format!("{}:{line}", self.display_file()),
            None => self.display_file().to_owned(),
        };
        if let Some(i) = self.item {
            at.push_str(&format!(": item {i}"));
        }
        at
    }

    /// The causes, or the message as the one cause when there are none.
    fn causes_or_message(&self, reason: &str) -> Vec<Cause> {
        if self.causes.is_empty() {
            vec![Cause {
                field: String::new(),
                reason: reason.to_owned(),
                message: self.message.clone(),
                line: None,
            }]
        } else {
            self.causes.clone()
        }
    }
}

/// The counts of a run, as the summary line and the JSON document's `summary` give them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Documents (objects or CRDs) found, list items counted one by one.
    pub resources: usize,
    /// Files read (stdin counts as one).
    pub files: usize,
    /// Valid objects, accepted CRDs.
    pub valid: usize,
    /// Invalid objects, rejected CRDs (and stored objects the new CRD rejects).
    pub invalid: usize,
    /// Input errors (exit code 2).
    pub errors: usize,
    /// Documents not checked.
    pub skipped: usize,
}

impl Summary {
    /// The counts of `entries`, read from `files` files.
    pub fn of(entries: &[Entry], files: usize) -> Summary {
        let count = |s: Status| entries.iter().filter(|e| e.status == s).count();
        Summary {
            resources: entries.iter().filter(|e| e.doc.is_some()).count(),
            files,
            valid: count(Status::Passed),
            invalid: count(Status::Failed),
            errors: count(Status::Error),
            skipped: count(Status::Skipped),
        }
    }
}

/// ANSI colours for the text output, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paint(pub bool);

impl Paint {
    fn wrap(self, code: &str, s: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    /// A document's location, coloured by its verdict (red, green, yellow).
    pub fn location(self, status: Status, at: &str) -> String {
        let code = match status {
            Status::Passed => "32",
            Status::Failed | Status::Error => "1;31",
            Status::Skipped => "33",
        };
        self.wrap(code, at)
    }

    /// A warning's `Warning:` word.
    pub fn warning(self) -> String {
        self.wrap("33", "Warning:")
    }

    /// A line in bold (the summary).
    pub fn bold(self, s: &str) -> String {
        self.wrap("1", s)
    }
}

/// The text output: per entry its warnings (on `stderr`) and its line after `FILE:LINE: `.
pub fn text(entries: &[Entry], paint: Paint, stdout: &mut dyn Write, stderr: &mut dyn Write) {
    for e in entries {
        let at = e.location();
        for w in &e.warnings {
            let _ = if e.locate_warnings {
                writeln!(stderr, "{} {at}: {w}", paint.warning())
            } else {
                writeln!(stderr, "{} {w}", paint.warning())
            };
        }
        if !e.text.is_empty() {
            let _ = writeln!(stdout, "{}: {}", paint.location(e.status, &at), e.text);
        }
    }
}

/// The `--output json` document: `schemaVersion`, the command, the Kubernetes version
/// emulated, a result per document (valid ones included) and per input error, and the summary.
pub fn json(command: &str, kubernetes_minor: u8, entries: &[Entry], summary: &Summary) -> String {
    let results: Vec<Value> = entries.iter().map(json_result).collect();
    let doc = json!({
        "schemaVersion": JSON_SCHEMA_VERSION,
        "command": command,
        "kubernetesVersion": format!("1.{kubernetes_minor}"),
        "results": results,
        "summary": {
            "resources": summary.resources,
            "files": summary.files,
            "valid": summary.valid,
            "invalid": summary.invalid,
            "errors": summary.errors,
            "skipped": summary.skipped,
        },
    });
    crd_cel::gojson::to_string(&doc) + "\n"
}

fn json_result(e: &Entry) -> Value {
    let mut out = e.details.clone();
    out.insert("file".into(), Value::String(e.file.clone()));
    if let Some(line) = e.line {
        out.insert("line".into(), line.into());
    }
    if let Some(doc) = e.doc {
        out.insert("doc".into(), doc.into());
    }
    if let Some(item) = e.item {
        out.insert("item".into(), item.into());
    }
    out.insert("status".into(), e.status.as_str().into());
    if matches!(e.status, Status::Skipped | Status::Error) {
        out.insert("reason".into(), Value::String(e.message.clone()));
    }
    let causes: Vec<Value> = e
        .causes
        .iter()
        .map(|c| {
            let mut cause = json!({"field": c.field, "reason": c.reason, "message": c.message});
            if let Some(line) = c.line {
                cause["line"] = line.into();
            }
            cause
        })
        .collect();
    out.insert("causes".into(), Value::Array(causes));
    out.insert(
        "warnings".into(),
        Value::Array(e.warnings.iter().cloned().map(Value::String).collect()),
    );
    Value::Object(out)
}

/// `--output yaml`: the stored objects of the valid documents, as a YAML stream (what
/// `kubectl apply --dry-run=server -o yaml` prints, keys sorted as it sorts them).
pub fn yaml(entries: &[Entry]) -> String {
    let mut out = String::new();
    for stored in entries.iter().filter_map(|e| e.stored.as_ref()) {
        out.push_str("---\n");
        match crd_cel::yaml::to_string(stored) {
            Ok(y) => out.push_str(&y),
            // A JSON value always serialises; say so rather than drop it.
            Err(e) => out.push_str(&format!("# cannot be written as YAML: {e}\n")),
        }
    }
    out
}

/// GitHub Actions workflow commands: an `::error` per cause of each failure and per input
/// error, a `::warning` per warning, on the document's line (skips are not annotated).
pub fn github(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        let title = if e.subject.is_empty() {
            "crd-cel".to_owned()
        } else {
            format!("crd-cel: {}", e.subject)
        };
        let props = |line: Option<usize>| {
            let mut p = format!("file={}", property(e.display_file()));
            if let Some(line) = line.or(e.line) {
                p.push_str(&format!(",line={line}"));
            }
            format!("{p},title={}", property(&title))
        };
        match e.status {
            Status::Failed => {
                for c in e.causes_or_message("Invalid") {
                    let p = props(c.line);
                    out.push_str(&format!("::error {p}::{}\n", data(&c.message)));
                }
            }
            Status::Error => {
                out.push_str(&format!("::error {}::{}\n", props(None), data(&e.message)));
            }
            Status::Passed | Status::Skipped => {}
        }
        for w in &e.warnings {
            out.push_str(&format!("::warning {}::{}\n", props(None), data(w)));
        }
    }
    out
}

/// Escapes a workflow command's message.
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// JUnit XML: one test suite per file, one test case per document (`failure` for a failure,
/// `error` for input that cannot be checked, `skipped` for a skip).
pub fn junit(command: &str, entries: &[Entry]) -> String {
    let count = |s: Status| entries.iter().filter(|e| e.status == s).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"crd-cel {command}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
        entries.len(),
        count(Status::Failed),
        count(Status::Error),
        count(Status::Skipped),
    ));
    let mut files: Vec<&str> = Vec::new();
    for e in entries {
        if !files.contains(&e.display_file()) {
            files.push(e.display_file());
        }
    }
    for file in files {
        let cases: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.display_file() == file)
            .collect();
        let in_file = |s: Status| cases.iter().filter(|e| e.status == s).count();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
            xml(file),
            cases.len(),
            in_file(Status::Failed),
            in_file(Status::Error),
            in_file(Status::Skipped),
        ));
        for e in cases {
            let at = e.location();
            let name = if e.subject.is_empty() {
                at
            } else {
                format!("{at} {}", e.subject)
            };
            out.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(file),
                xml(&name)
            ));
            let body = match e.status {
                Status::Passed => None,
                Status::Failed => {
                    let text: Vec<String> = e.causes.iter().map(|c| c.message.clone()).collect();
                    Some(format!(
                        "<failure message=\"{}\" type=\"invalid\">{}</failure>",
                        xml(&e.message),
                        xml(&text.join("\n"))
                    ))
                }
                Status::Error => Some(format!(
                    "<error message=\"{}\" type=\"input\"/>",
                    xml(&e.message)
                )),
                Status::Skipped => Some(format!("<skipped message=\"{}\"/>", xml(&e.message))),
            };
            let mut inner: Vec<String> = body.into_iter().collect();
            if !e.warnings.is_empty() {
                inner.push(format!(
                    "<system-err>{}</system-err>",
                    xml(&e.warnings.join("\n"))
                ));
            }
            if inner.is_empty() {
                out.push_str("/>\n");
            } else {
                out.push_str(&format!(">{}</testcase>\n", inner.join("")));
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Escapes text for XML attributes and content; characters XML 1.0 cannot hold are dropped.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push_str(&format!("&#{};", u32::from(c))),
            c if u32::from(c) < 0x20 || matches!(c, '\u{fffe}' | '\u{ffff}') => {}
            c => out.push(c),
        }
    }
    out
}

/// SARIF 2.1.0: a result per cause of each failure, per input error and per warning, with the
/// document's file and line; rule ids are the cause types (`FieldValueInvalid`, ...).
pub fn sarif(entries: &[Entry]) -> String {
    let mut rules: Vec<String> = Vec::new();
    let mut results = Vec::new();
    let mut add = |rule: &str, level: &str, message: &str, e: &Entry, line: Option<usize>| {
        if !rules.iter().any(|r| r == rule) {
            rules.push(rule.to_owned());
        }
        let mut location = json!({"artifactLocation": {"uri": uri(&e.file)}});
        if let Some(line) = line.or(e.line) {
            location["region"] = json!({"startLine": line});
        }
        let mut result = json!({
            "ruleId": rule,
            "level": level,
            "message": {"text": message},
            "locations": [{"physicalLocation": location}],
        });
        if let Some(doc) = e.doc {
            result["properties"] = json!({"doc": doc});
            if let Some(item) = e.item {
                result["properties"]["item"] = item.into();
            }
        }
        results.push(result);
    };
    for e in entries {
        match e.status {
            Status::Failed => {
                for c in e.causes_or_message("Invalid") {
                    add(&c.reason, "error", &c.message, e, c.line);
                }
            }
            Status::Error => add("InputError", "error", &e.message, e, None),
            Status::Passed | Status::Skipped => {}
        }
        for w in &e.warnings {
            add("Warning", "warning", w, e, None);
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|r| json!({"id": r, "shortDescription": {"text": rule_description(r)}}))
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "crd-cel",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// A file name as a SARIF artifact URI: relative paths stay relative (SARIF viewers resolve
/// them against the checkout), characters outside URI syntax percent-encoded.
fn uri(file: &str) -> String {
    let file = if file == "-" { "stdin" } else { file };
    let mut out = String::with_capacity(file.len());
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn rule_description(rule: &str) -> &'static str {
    match rule {
        "FieldValueInvalid" => "Invalid value",
        "FieldValueRequired" => "Required value",
        "FieldValueNotSupported" => "Unsupported value",
        "FieldValueForbidden" => "Forbidden",
        "FieldValueDuplicate" => "Duplicate value",
        "FieldValueTooLong" => "Too long",
        "FieldValueTooMany" => "Too many",
        "FieldValueNotFound" => "Not found",
        "FieldValueTypeInvalid" => "Invalid type",
        "InternalError" => "Internal error",
        "InputError" => "Input that cannot be checked",
        "Warning" => "A warning the apiserver would send",
        _ => "The request is refused",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed() -> Entry {
        Entry {
            file: "deploy/app.yaml".into(),
            line: Some(12),
            doc: Some(0),
            item: None,
            text: String::new(),
            locate_warnings: false,
            details: Map::new(),
            jsonl: None,
            stored: None,
            subject: "Counter.example.com \"c2\"".into(),
            status: Status::Failed,
            message: "Counter.example.com \"c2\" is invalid: spec: Invalid value: a, b".into(),
            causes: vec![Cause {
                field: "spec".into(),
                reason: "FieldValueInvalid".into(),
                message: "spec: Invalid value: a, b\n100%".into(),
                line: Some(14),
            }],
            warnings: vec!["unknown field \"spec.x\"".into()],
        }
    }

    #[test]
    fn github_annotations_are_on_the_line_and_escaped() {
        assert_eq!(
            github(&[failed()]),
            "::error file=deploy/app.yaml,line=14,title=crd-cel%3A Counter.example.com \"c2\"::spec: Invalid value: a, b%0A100%25\n\
             ::warning file=deploy/app.yaml,line=12,title=crd-cel%3A Counter.example.com \"c2\"::unknown field \"spec.x\"\n"
        );
    }

    #[test]
    fn junit_counts_and_escapes() {
        let mut skipped = failed();
        skipped.status = Status::Skipped;
        skipped.message = "a built-in kind".into();
        let out = junit("validate", &[failed(), skipped]);
        assert!(out.contains("<testsuites name=\"crd-cel validate\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">"), "{out}");
        assert!(out.contains("<testcase classname=\"deploy/app.yaml\" name=\"deploy/app.yaml:12 Counter.example.com &quot;c2&quot;\"><failure message=\"Counter.example.com &quot;c2&quot; is invalid: spec: Invalid value: a, b\" type=\"invalid\">spec: Invalid value: a, b&#10;100%</failure>"), "{out}");
        assert!(
            out.contains("<skipped message=\"a built-in kind\"/>"),
            "{out}"
        );
    }

    #[test]
    fn sarif_has_a_result_per_cause_with_its_location_and_rule() {
        let log: Value = serde_json::from_str(&sarif(&[failed()])).expect("JSON");
        assert_eq!(log["version"], "2.1.0");
        let results = log["runs"][0]["results"].as_array().expect("results");
        assert_eq!(results.len(), 2);
        assert_eq!(results[0]["ruleId"], "FieldValueInvalid");
        // The cause on its field's line, the warning on the document's.
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
            14
        );
        assert_eq!(
            results[1]["locations"][0]["physicalLocation"]["region"]["startLine"],
            12
        );
        assert_eq!(
            results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "deploy/app.yaml"
        );
        assert_eq!(results[1]["level"], "warning");
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][0]["id"],
            "FieldValueInvalid"
        );
    }
}
