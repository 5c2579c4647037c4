//! Reading manifests: files or stdin, YAML streams (JSON is YAML), `kind: List` expanded.

use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::io::Read;

/// One document of an input stream, as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The file name as given (`-` for stdin).
    pub file: String,
    /// 0-based index of the document in the stream (empty documents count, as in the
    /// apiserver's YAML reader).
    pub index: usize,
    /// The item index when the document is a `kind: List` that was expanded.
    pub item: Option<usize>,
    /// The document.
    pub value: Value,
}

impl Document {
    /// Where the document is, for messages: `crd.yaml: document 2` (`, item 0` in a list).
    pub fn location(&self) -> String {
        match self.item {
            Some(i) => format!("{}: document {}, item {i}", self.file, self.index),
            None => format!("{}: document {}", self.file, self.index),
        }
    }
}

/// Input that cannot be checked: an unreadable file, a syntax error, a document that is not a
/// CRD, a CRD without a schema. The CLI exits with 2 on these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// Where (`crd.yaml`, `crd.yaml: document 1`).
    pub location: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

impl std::error::Error for InputError {}

/// Reads a file, or `stdin` for `-`.
pub fn read_source(name: &str, stdin: &mut dyn Read) -> Result<String, InputError> {
    let bytes = if name == "-" {
        let mut buf = Vec::new();
        stdin.read_to_end(&mut buf).map(|_| buf)
    } else {
        std::fs::read(name)
    }
    .map_err(|e| InputError {
        location: name.to_owned(),
        message: format!("cannot read: {e}"),
    })?;
    String::from_utf8(bytes).map_err(|e| InputError {
        location: name.to_owned(),
        message: format!("not UTF-8 text: {e}"),
    })
}

/// Splits a stream into documents: a JSON text (one or more values) when it starts with `{` or
/// `[`, else a YAML stream. Empty documents are dropped (but counted); lists are expanded.
pub fn split_documents(file: &str, text: &str) -> Result<Vec<Document>, InputError> {
    let trimmed = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let raw = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        json_documents(file, text)?
    } else {
        yaml_documents(file, text)?
    };
    let mut out = Vec::new();
    for (index, value) in raw {
        if value.is_null() {
            continue;
        }
        match list_items(&value) {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    out.push(Document {
                        file: file.to_owned(),
                        index,
                        item: Some(i),
                        value: item.clone(),
                    });
                }
            }
            None => out.push(Document {
                file: file.to_owned(),
                index,
                item: None,
                value,
            }),
        }
    }
    Ok(out)
}

fn json_documents(file: &str, text: &str) -> Result<Vec<(usize, Value)>, InputError> {
    let mut out = Vec::new();
    for (i, v) in serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .enumerate()
    {
        let v = v.map_err(|e| InputError {
            location: format!("{file}: document {i}"),
            message: format!("JSON error: {e}"),
        })?;
        out.push((i, v));
    }
    Ok(out)
}

fn yaml_documents(file: &str, text: &str) -> Result<Vec<(usize, Value)>, InputError> {
    let mut out = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let v = Value::deserialize(doc).map_err(|e| InputError {
            location: format!("{file}: document {i}"),
            message: format!("YAML error: {e}"),
        })?;
        out.push((i, v));
    }
    Ok(out)
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
    fn yaml_stream_counts_empty_documents() {
        let docs =
            split_documents("f", "a: 1\n---\n---\n# only a comment\n---\nb: 2\n").expect("parses");
        let idx: Vec<_> = docs.iter().map(|d| d.index).collect();
        assert_eq!(idx, [0, 3]);
        assert_eq!(docs[1].value["b"], 2);
    }

    #[test]
    fn json_stream() {
        let docs = split_documents("f", " {\"a\": 1}\n{\"b\": [1]}").expect("parses");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].index, 1);
    }

    #[test]
    fn lists_are_expanded() {
        let docs = split_documents("f", "kind: List\nitems:\n- a: 1\n- a: 2\n").expect("parses");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].location(), "f: document 0, item 1");
    }

    #[test]
    fn yaml_errors_name_the_document_line_and_column() {
        let e = split_documents("crd.yaml", "a: 1\n---\nb: [1\nc: 2\n").expect_err("bad");
        assert_eq!(e.location, "crd.yaml: document 1");
        assert!(e.message.starts_with("YAML error: "), "{e}");
        assert!(e.message.contains("line "), "{e}");
        assert!(e.message.contains("column "), "{e}");
    }

    #[test]
    fn json_errors_name_line_and_column() {
        let e = split_documents("crd.json", "{\"a\": }").expect_err("bad");
        assert!(e.to_string().contains("line 1 column"), "{e}");
    }
}
