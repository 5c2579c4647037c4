//! Reading manifests: files or stdin, split into documents as kubectl splits a YAML stream
//! (JSON documents included), each decoded with its repeated keys recorded, and `kind: List`
//! expanded. Input is bounded: per source ([`MAX_SOURCE_BYTES`]), per document (the
//! apiserver's request limit, [`MAX_DOCUMENT_BYTES`]) and in nesting depth, refused in linear
//! time before a parser could take long.

mod depth;
pub mod files;
mod stream;

use crd_cel::validate::Body;
use serde_json::Value;
use std::fmt;
use std::io::Read;
use std::ops::Range;
use std::sync::Arc;

/// The largest document: the apiserver's request body limit (`MaxRequestBodyBytes`, 3 MiB),
/// which it answers with `413 Request entity too large`.
pub const MAX_DOCUMENT_BYTES: usize = 3 * 1024 * 1024;

/// The largest source (file or stdin) read.
pub const MAX_SOURCE_BYTES: u64 = 512 * 1024 * 1024;

/// One document of an input stream, as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The file name as given (`-` for stdin).
    pub file: String,
    /// 0-based index of the document in the stream, as kubectl's YAML reader counts them
    /// (the stretch between two separator lines that follow each other is not a document;
    /// one holding only comments is, though nothing is checked in it).
    pub index: usize,
    /// The item index when the document is a `kind: List` that was expanded.
    pub item: Option<usize>,
    /// The line (1-based) where the document's content starts.
    pub line: usize,
    /// The document (the last value of a repeated key).
    pub value: Value,
    /// The paths of repeated keys (`spec.ports[0].name`), which the apiserver's strict
    /// decoding reports as `duplicate field "..."`.
    pub duplicate_fields: Vec<String>,
    /// Plain YAML scalars read as booleans that a YAML 1.2 reader takes for strings (`y`,
    /// `no`, `On`), as `PATH: NOTE`: the command line warns about each.
    pub yaml11_booleans: Vec<String>,
    /// The text the document was read from.
    pub source: Source,
}

/// The text of a document, kept to find the line of a field ([`Document::line_of`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Source {
    text: Arc<str>,
    span: Range<usize>,
    first_line: usize,
}

impl Document {
    /// The line of the field `path` (an apiserver field path, `spec.ports[0].name`) in the
    /// document's text: where it is in block YAML, else the nearest enclosing field found (a
    /// field in flow style or JSON), else the document's line.
    pub fn line_of(&self, path: &str) -> usize {
        let path = match self.item {
            Some(i) if path.is_empty() => format!("items[{i}]"),
            Some(i) => format!("items[{i}].{path}"),
            None => path.to_owned(),
        };
        let text = self
            .source
            .text
            .get(self.source.span.clone())
            .unwrap_or_default();
        crd_cel::yaml::line_of(text, self.source.first_line, &path).unwrap_or(self.line)
    }

    /// Where the document is, for messages: `crds.yaml:12` (`: item 0` in a list).
    pub fn location(&self) -> String {
        let at = at_line(&self.file, self.line);
        match self.item {
            Some(i) => format!("{at}: item {i}"),
            None => at,
        }
    }
}

/// `FILE:LINE`, stdin as `<stdin>`.
fn at_line(file: &str, line: usize) -> String {
    format!("{}:{line}", display_name(file))
}

fn display_name(file: &str) -> &str {
    if file == "-" { "<stdin>" } else { file }
}

/// Input that cannot be checked: an unreadable file, a syntax error, a document that is not a
/// CRD, a CRD without a schema. The CLI exits with 2 on these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file (as named; `-` for stdin), or `crd-cel` for what concerns no file.
    pub file: String,
    /// The line (1-based), when the error is in a document.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The error concerns the input as a whole, no file ([`InputError::of_input`]).
    pub whole_input: bool,
}

impl InputError {
    /// An error about the input as a whole (`no documents in the input`): its `file` is
    /// `crd-cel` in the reports, and its text (`crd-cel: MESSAGE` on stderr) names no file.
    pub fn of_input(message: String) -> InputError {
        InputError {
            file: "crd-cel".to_owned(),
            line: None,
            message,
            whole_input: true,
        }
    }

    /// An error about a file as a whole.
    pub fn in_file(file: &str, message: String) -> InputError {
        InputError {
            file: file.to_owned(),
            line: None,
            message,
            whole_input: false,
        }
    }

    /// An error at a line of a file.
    pub fn at(file: &str, line: usize, message: String) -> InputError {
        InputError {
            file: file.to_owned(),
            line: Some(line),
            message,
            whole_input: false,
        }
    }

    /// Where: `crd.yaml`, `crd.yaml:12`, `<stdin>:3`.
    pub fn location(&self) -> String {
        match self.line {
            Some(line) => at_line(&self.file, line),
            None => display_name(&self.file).to_owned(),
        }
    }
}

impl fmt::Display for InputError {
    /// `FILE[:LINE]: MESSAGE`, or the message alone for an error of the whole input (the CLI
    /// prints each as `crd-cel: {error}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.whole_input {
            return f.write_str(&self.message);
        }
        write!(f, "{}: {}", self.location(), self.message)
    }
}

impl std::error::Error for InputError {}

/// Reads a file, or `stdin` for `-`, up to [`MAX_SOURCE_BYTES`].
pub fn read_source(name: &str, stdin: &mut dyn Read) -> Result<String, InputError> {
    let fail = |message: String| InputError::in_file(name, message);
    let mut bytes = Vec::new();
    let read = if name == "-" {
        stdin.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(name).and_then(|f| f.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| fail(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(fail(format!(
            "larger than {} MiB, the most crd-cel reads from one source",
            MAX_SOURCE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
        InputError::at(name, line, format!("not UTF-8 text: {}", e.utf8_error()))
    })
}

/// Splits a stream into documents at kubectl's separator lines; a document whose text starts
/// with `{` is read as JSON (several JSON values in a row are several documents), else as
/// YAML. Empty documents are dropped (but counted); lists are expanded.
pub fn split_documents(file: &str, text: &str) -> Result<Vec<Document>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let chunks = stream::chunks(text).map_err(|e| InputError::at(file, e.line, e.message))?;
    assemble(file, text, &chunks, chunks.iter().map(|c| decode_sized(*c)))
}

/// [`split_documents`] of several sources (file name and text), the documents of all of them
/// decoded `jobs` at a time (`-j`: a file of many CRDs is shared out by document), each
/// source's result as [`split_documents`] gives it, in the order of `sources`.
pub fn split_many(sources: &[(&str, &str)], jobs: usize) -> Vec<Result<Vec<Document>, InputError>> {
    let cut: Vec<Result<(&str, Vec<stream::Chunk<'_>>), InputError>> = sources
        .iter()
        .map(|&(file, text)| {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            stream::chunks(text)
                .map(|chunks| (text, chunks))
                .map_err(|e| InputError::at(file, e.line, e.message))
        })
        .collect();
    let work: Vec<stream::Chunk<'_>> = cut
        .iter()
        .flatten()
        .flat_map(|(_, chunks)| chunks.iter().copied())
        .collect();
    let mut decoded = crate::jobs::map_in_order(&work, jobs, |c| decode_sized(*c)).into_iter();
    cut.into_iter()
        .zip(sources)
        .map(|(cut, &(file, _))| {
            let (text, chunks) = cut?;
            let mine: Vec<_> = decoded.by_ref().take(chunks.len()).collect();
            assemble(file, text, &chunks, mine.into_iter())
        })
        .collect()
}

/// A chunk's values ([`decode_chunk`]), after the size limit.
fn decode_sized(chunk: stream::Chunk<'_>) -> Result<Vec<(usize, Body)>, String> {
    if chunk.text.len() > MAX_DOCUMENT_BYTES {
        return Err(format!(
            "the document is {} bytes, more than the apiserver accepts in a request (Request entity too large: limit is {MAX_DOCUMENT_BYTES})",
            chunk.text.len()
        ));
    }
    decode_chunk(chunk)
}

/// The documents of `text` (its BOM removed), cut into `chunks`, from each chunk's values in
/// turn (`decoded`, in the order of `chunks`): the first chunk that does not decode is the
/// source's error.
fn assemble(
    file: &str,
    text: &str,
    chunks: &[stream::Chunk<'_>],
    decoded: impl Iterator<Item = Result<Vec<(usize, Body)>, String>>,
) -> Result<Vec<Document>, InputError> {
    let shared: Arc<str> = Arc::from(text);
    let mut out = Vec::new();
    let mut index = 0usize;
    for (chunk, values) in chunks.iter().zip(decoded) {
        let values =
            values.map_err(|message| InputError::at(file, chunk.content_line(), message))?;
        if values.is_empty() {
            // Comments only: still a document of kubectl's reader, with nothing to check.
            index += 1;
        }
        let source = Source {
            text: shared.clone(),
            span: chunk.start..chunk.start + chunk.text.len(),
            first_line: chunk.first_line,
        };
        for (line, body) in values {
            push_document(&mut out, file, index, line, body, &source);
            index += 1;
        }
    }
    Ok(out)
}

/// A non-null document, or the items of a `kind: List`, each with its repeated keys.
fn push_document(
    out: &mut Vec<Document>,
    file: &str,
    index: usize,
    line: usize,
    body: Body,
    source: &Source,
) {
    if body.object.is_null() {
        return;
    }
    let document = |item, value, duplicate_fields, yaml11_booleans| Document {
        file: file.to_owned(),
        index,
        item,
        line,
        value,
        duplicate_fields,
        yaml11_booleans,
        source: source.clone(),
    };
    match list_items(&body.object) {
        Some(items) => {
            let text = source.text.get(source.span.clone()).unwrap_or_default();
            for (i, item) in items.iter().enumerate() {
                let at = format!("items[{i}]");
                let duplicates = body.duplicates_under(&at);
                let booleans = body.yaml11_booleans_under(&at);
                let mut d = document(Some(i), item.clone(), duplicates, booleans);
                // The item's own line (its `- ` in block YAML; the list's in flow style).
                d.line = crd_cel::yaml::line_of(text, source.first_line, &at)
                    .filter(|&l| l >= line)
                    .unwrap_or(line);
                out.push(d);
            }
        }
        None => out.push(document(
            None,
            body.object,
            body.duplicate_fields,
            body.yaml11_booleans,
        )),
    }
}

/// The values of one document's text, each with the line it starts on: JSON values when the
/// text starts with `{` (falling back to YAML when the first is not JSON, as kubectl's decoder
/// does: `{a: 1}` is YAML), else the YAML document.
fn decode_chunk(chunk: stream::Chunk<'_>) -> Result<Vec<(usize, Body)>, String> {
    if chunk.text.trim_start().starts_with('{') {
        match json_values(chunk) {
            Ok(values) => return Ok(values),
            Err((0, json_error)) => {
                return yaml_value(chunk).map_err(|_| json_error);
            }
            Err((_, json_error)) => return Err(json_error),
        }
    }
    yaml_value(chunk)
}

/// The JSON values of a text, or the number read before an error and the error.
fn json_values(chunk: stream::Chunk<'_>) -> Result<Vec<(usize, Body)>, (usize, String)> {
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(chunk.text).into_iter::<Body>();
    let mut end = 0usize;
    loop {
        let start = end + (chunk.text[end..].len() - chunk.text[end..].trim_start().len());
        let Some(next) = stream.next() else { break };
        let body = next.map_err(|e| {
            (
                out.len(),
                shift_lines(&format!("JSON error: {e}"), chunk.first_line),
            )
        })?;
        let line = chunk.first_line + chunk.text[..start].matches('\n').count();
        out.push((line, body));
        end = stream.byte_offset();
    }
    Ok(out)
}

/// The YAML document of a text (none when it holds only comments), after the nesting check.
fn yaml_value(chunk: stream::Chunk<'_>) -> Result<Vec<(usize, Body)>, String> {
    if let Err(e) = depth::check_flow_depth(chunk.text) {
        return Err(format!(
            "YAML error: recursion limit exceeded at line {} column {} (more than {} levels of nesting)",
            chunk.first_line + e.line - 1,
            e.column,
            depth::MAX_DEPTH
        ));
    }
    let mut documents = serde_yaml::Deserializer::from_str(chunk.text);
    let Some(first) = documents.next() else {
        return Ok(Vec::new());
    };
    let yaml_error =
        |e: serde_yaml::Error| shift_lines(&format!("YAML error: {e}"), chunk.first_line);
    // YAML 1.1 scalars, as kubectl reads the file (`yes` is true, `017` is 15).
    let body = Body::from_yaml(first, chunk.text).map_err(yaml_error)?;
    if documents.next().is_some() {
        return Err(
            "more than one YAML document between two `---` lines (kubectl reads only the first): \
             separate them with a `---` line"
                .to_owned(),
        );
    }
    Ok(vec![(chunk.content_line(), body)])
}

/// A parser's message with its `line N` positions, which count from the document's first line,
/// made lines of the file.
fn shift_lines(message: &str, first_line: usize) -> String {
    if first_line == 1 {
        return message.to_owned();
    }
    let mut out = String::with_capacity(message.len() + 8);
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        let (before, after) = rest.split_at(at + "line ".len());
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits].parse::<usize>() {
            Ok(n) if after[digits..].starts_with(" column ") => {
                out.push_str(&(n + first_line - 1).to_string());
            }
            _ => out.push_str(&after[..digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The items of a `kind: List` (or `*List`) document.
fn list_items(v: &Value) -> Option<&Vec<Value>> {
    let kind = v.get("kind")?.as_str()?;
    if !kind.ends_with("List") {
        return None;
    }
    v.get("items")?.as_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_counted_as_kubectl_counts_them_and_keep_their_line() {
        let docs = split_documents("f", "a: 1\n---\n---\n# only a comment\n---\n\nb: 2\n")
            .expect("parses");
        let at: Vec<_> = docs.iter().map(|d| (d.index, d.line)).collect();
        assert_eq!(at, [(0, 1), (2, 7)]);
        assert_eq!(docs[1].value["b"], 2);
        assert_eq!(docs[1].location(), "f:7");
    }

    #[test]
    fn documents_split_on_several_threads_are_those_of_one() {
        let sources = [
            ("a", "a: 1\n---\n---\n# only a comment\n---\n\nb: 2\n"),
            ("b", "kind: List\nitems:\n- a: 1\n- a: 2\n  a: 3\n"),
            ("c", "a: 1\n---\nb: [1\nc: 2\n---\nd: 4\n"),
            ("d", "a: 1\n--- b: 2\n"),
            ("e", "\u{feff}{\"a\": 1}\n{\"b\": [1]}\n---\nx: y\n"),
        ];
        for jobs in [1, 2, 3] {
            let many = split_many(&sources, jobs);
            assert_eq!(many.len(), sources.len());
            for ((file, text), got) in sources.iter().zip(many) {
                assert_eq!(got, split_documents(file, text), "{file}, -j {jobs}");
            }
        }
    }

    #[test]
    fn json_documents_between_separators_are_documents() {
        // What `helm template` of JSON manifests writes.
        let docs = split_documents("f", "{\n  \"a\": 1\n}\n---\n{\"b\": [1]}\n").expect("parses");
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[1].index, docs[1].line), (1, 5));
    }

    #[test]
    fn json_values_in_a_row_are_documents_each_with_its_line() {
        let docs = split_documents("f", " {\"a\": 1}\n\n{\"b\": [1]}").expect("parses");
        let at: Vec<_> = docs.iter().map(|d| (d.index, d.line)).collect();
        assert_eq!(at, [(0, 1), (1, 3)]);
    }

    #[test]
    fn a_flow_mapping_that_is_not_json_is_read_as_yaml() {
        let docs = split_documents("f", "{a: 1, b: [x]}\n").expect("parses");
        assert_eq!(docs[0].value, serde_json::json!({"a": 1, "b": ["x"]}));
    }

    /// YAML is read as kubectl reads it (`sigs.k8s.io/yaml`, YAML 1.1 scalars; the values
    /// recorded with Go): plain `yes`/`on`/`n` are booleans, also as keys; quoted and block
    /// scalars stay strings; a whole float arrives as an integer. JSON keeps JSON's types.
    #[test]
    fn yaml_scalars_are_read_as_kubectl_reads_them() {
        let text = "a: yes\nb: 'yes'\nc: \"on\"\nd: |\n  no\ne: 017\nf: 1_000\ng: 1.0\nh: 1e3\n\
                    i: 0.5\nn: 1\nj: [Off, y, 'n']\nk: {Y: 1}\nl: 2001-12-14\n";
        let docs = split_documents("f", text).expect("parses");
        assert_eq!(
            docs[0].value,
            serde_json::json!({
                "a": true, "b": "yes", "c": "on", "d": "no\n", "e": 15, "f": 1000, "g": 1,
                "h": 1000, "i": 0.5, "false": 1, "j": [false, true, "n"], "k": {"true": 1},
                "l": "2001-12-14"
            })
        );
        let docs = split_documents("f", r#"{"a": 1.0, "b": "yes"}"#).expect("parses");
        assert!(docs[0].value["a"].is_f64());
        assert_eq!(docs[0].value["b"], "yes");
        // kubectl's conversion cannot write these.
        let e = split_documents("f", "a: .inf\n").expect_err("no JSON form");
        assert!(
            e.to_string().contains("json: unsupported value: +Inf"),
            "{e}"
        );
    }

    #[test]
    fn lists_are_expanded_with_the_duplicates_of_each_item() {
        let docs =
            split_documents("f", "kind: List\nitems:\n- a: 1\n- a: 2\n  a: 3\n").expect("parses");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].location(), "f:3: item 0");
        assert_eq!(docs[1].location(), "f:4: item 1");
        assert_eq!(docs[1].value["a"], 3);
        assert_eq!(docs[1].duplicate_fields, ["a"]);
        assert!(docs[0].duplicate_fields.is_empty());
    }

    #[test]
    fn repeated_keys_keep_the_last_value_and_are_recorded_in_yaml_and_json() {
        for text in [
            "spec:\n  a: 1\n  list:\n  - {k: 1, k: 2}\n  a: 2\n",
            r#"{"spec": {"a": 1, "list": [{"k": 1, "k": 2}], "a": 2}}"#,
        ] {
            let docs = split_documents("f", text).expect("parses");
            assert_eq!(docs[0].value["spec"]["a"], 2, "{text}");
            assert_eq!(
                docs[0].duplicate_fields,
                ["spec.list[0].k", "spec.a"],
                "{text}"
            );
        }
    }

    #[test]
    fn yaml_errors_give_the_line_of_the_file() {
        let e = split_documents("crd.yaml", "a: 1\n---\nb: [1\nc: 2\n").expect_err("bad");
        assert_eq!(e.location(), "crd.yaml:3");
        assert!(e.message.starts_with("YAML error: "), "{e}");
        assert!(e.message.contains("line 4 column "), "{e}");
    }

    #[test]
    fn json_errors_give_the_line_of_the_file() {
        // Not YAML either (`{"a": }` would be: YAML reads it as `{"a": null}`, as kubectl does).
        let e = split_documents("crd.json", "a: 1\n---\n{\"a\": [1}").expect_err("bad");
        assert!(
            e.to_string()
                .contains("JSON error: expected `,` or `]` at line 3 column"),
            "{e}"
        );
    }

    #[test]
    fn deep_flow_nesting_is_refused_with_its_place() {
        let text = format!(
            "a: 1\n---\nspec: {}{}",
            "{a: ".repeat(100_000),
            "}".repeat(100_000)
        );
        let e = split_documents("deep.yaml", &text).expect_err("too deep");
        assert_eq!(e.location(), "deep.yaml:3");
        assert_eq!(
            e.message,
            "YAML error: recursion limit exceeded at line 3 column 519 (more than 128 levels of nesting)"
        );
    }

    #[test]
    fn a_document_larger_than_a_request_is_refused() {
        let text = format!("a: 1\n---\nb: \"{}\"\n", "x".repeat(MAX_DOCUMENT_BYTES));
        let e = split_documents("big.yaml", &text).expect_err("too big");
        assert_eq!(e.location(), "big.yaml:3");
        assert!(
            e.message
                .ends_with("(Request entity too large: limit is 3145728)"),
            "{e}"
        );
    }

    #[test]
    fn a_separator_with_content_is_refused_where_it_is() {
        let e = split_documents("f", "a: 1\n--- b: 2\n").expect_err("refused");
        assert_eq!(e.to_string(), "f:2: invalid Yaml document separator: b: 2");
    }

    #[test]
    fn two_yaml_documents_without_a_separator_line_are_refused() {
        let e = split_documents("f", "a: 1\n...\nb: 2\n").expect_err("refused");
        assert!(e.message.starts_with("more than one YAML document"), "{e}");
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_at_its_line() {
        let e = read_source("-", &mut &b"a: 1\nb: \"\xff\"\n"[..]).expect_err("not UTF-8");
        assert_eq!(
            e.to_string(),
            "<stdin>:2: not UTF-8 text: invalid utf-8 sequence of 1 bytes from index 9"
        );
    }

    #[test]
    fn stdin_is_named_in_locations() {
        let docs = split_documents("-", "a: 1\n").expect("parses");
        assert_eq!(docs[0].location(), "<stdin>:1");
    }
}
