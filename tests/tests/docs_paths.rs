//! The maps of the code stay true: every path `CONTRIBUTING.md`, `README.md`,
//! `examples/README.md` and `examples/starter/README.md` name exists.
//!
//! A code span that starts with a folder of the repository (`runtime/src/tree.rs`,
//! `tests/e2e/`) must exist from the repository root (or from the document's folder); in
//! `CONTRIBUTING.md` and `README.md`, one that names a source file or folder relative to a folder
//! named earlier in the sentence (`attr/extend.rs`, `decode.rs`) must end some path in the
//! repository. Markdown links to relative paths must exist from the document's folder. Globs
//! (`*`), variables (`$`) and commands (a span with a space) are not paths. (The READMEs of
//! `tests/` also name other projects' files and caches, so they are not checked.)

use std::path::{Path, PathBuf};

/// The documents, and whether their bare file names are checked too.
const DOCS: [(&str, bool); 4] = [
    ("CONTRIBUTING.md", true),
    ("README.md", true),
    ("examples/README.md", false),
    ("examples/starter/README.md", false),
];

const TOP: [&str; 9] = [
    "core/",
    "macros/",
    "runtime/",
    "cli/",
    "tests/",
    "examples/",
    "fuzz/",
    ".cargo/",
    ".ci/",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// Every file and folder under `dir`, relative to the root, `/`-separated (build outputs and
/// hidden folders left out).
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "target" || name.starts_with('.') {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            out.push(format!("{rel}/"));
            walk(root, &path, out);
        } else {
            out.push(rel);
        }
    }
}

/// The code spans of a Markdown text (single backticks; fenced blocks skipped).
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let parts: Vec<&str> = line.split('`').collect();
        spans.extend(parts.iter().skip(1).step_by(2).map(|s| s.to_string()));
    }
    spans
}

/// The targets of relative Markdown links (`[text](path)`, no scheme, anchors dropped).
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or_default();
        if !target.is_empty() && !target.contains("://") && !target.contains(' ') {
            out.push(target.to_owned());
        }
        rest = &rest[end..];
    }
    out
}

fn looks_like_source(span: &str) -> bool {
    [
        ".rs", ".md", ".toml", ".sh", ".py", ".go", ".yaml", ".txt", ".json",
    ]
    .iter()
    .any(|ext| span.ends_with(ext))
        || (span.ends_with('/') && span.len() > 1)
}

#[test]
fn every_path_the_contributor_maps_name_exists() {
    let root = root();
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    let mut missing = Vec::new();
    let mut checked = 0;
    for (doc, bare_names) in DOCS {
        let text = std::fs::read_to_string(root.join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let base = Path::new(doc).parent().unwrap_or(Path::new(""));
        for span in code_spans(&text) {
            if span.contains(' ')
                || span.contains('*')
                || span.contains('$')
                || span.contains("://")
            {
                continue;
            }
            let span = span.trim_start_matches("./");
            let exists_from = |dir: &Path| root.join(dir).join(span.trim_end_matches('/')).exists();
            if TOP.iter().any(|t| span.starts_with(t)) {
                checked += 1;
                if !exists_from(Path::new("")) && !exists_from(base) {
                    missing.push(format!("{doc}: `{span}`"));
                }
            } else if bare_names
                && looks_like_source(span)
                && !span.starts_with('/')
                && !span.starts_with('-')
            {
                checked += 1;
                let suffix = format!("/{span}");
                if !exists_from(base)
                    && !exists_from(Path::new(""))
                    && !files.iter().any(|f| f.ends_with(&suffix))
                {
                    missing.push(format!("{doc}: `{span}`"));
                }
            }
        }
        for target in link_targets(&text) {
            checked += 1;
            if !root.join(base).join(&target).exists() {
                missing.push(format!("{doc}: link ({target})"));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found: is the parser broken?"
    );
    assert!(
        missing.is_empty(),
        "paths named in the documentation that do not exist:\n{}",
        missing.join("\n")
    );
}
