//! Compiles every UI pass case (`tests/ui/pass/*.rs`, trybuild files with their own `main`) into
//! this crate as a module, so that the e2e tests apply each CustomResource type's CRD exactly as
//! `Foo::crd()` generates it, and each spec type's CRD as the pass case's own
//! `crd_cel_tests::assert_cli_accepts_type::<T>()` builds it.
//!
//! Each file is copied unchanged into `OUT_DIR/ui_pass/` with one function appended,
//! `e2e_subjects()`, which names the file's types from inside its module (they are private
//! there); `OUT_DIR/ui_pass.rs` declares the copies as modules (`#[path]`) and lists them. The
//! types are found in the text: `kind = "X"` (or `struct = "Y"`) in a `#[kube(..)]` attribute
//! and the type arguments of `assert_cli_accepts_resource::<K>()` are kube roots, those of
//! `assert_cli_accepts_type::<T>()` spec types (every pass case calls one of them:
//! `tests/tests/ui.rs` checks it). A file where none is found is not compiled here and is
//! listed in `NOT_INCLUDED` with the reason, which a test reports as a failure.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    let pass = manifest.join("../../ui/pass");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", pass.display());

    let mut files: Vec<PathBuf> = std::fs::read_dir(&pass)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", pass.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();

    let copies = out.join("ui_pass");
    std::fs::create_dir_all(&copies).expect("OUT_DIR is writable");
    let mut mods = String::new();
    let mut all = String::new();
    let mut not_included = String::new();
    let mut names = String::new();
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let origin = format!("tests/ui/pass/{file}");
        writeln!(names, "    {origin:?},").unwrap();
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let (roots, specs) = types_of(&text);
        if roots.is_empty() && specs.is_empty() {
            writeln!(
                not_included,
                "    ({origin:?}, \"no CustomResource type (`#[kube(kind = ..)]`) and no \
                 `assert_cli_accepts_type::<T>()` / `assert_cli_accepts_resource::<K>()` call \
                 naming a type\"),"
            )
            .unwrap();
            continue;
        }
        let ident = ident_of(&stem);
        // A DNS label of the file's name: the group of its spec types' CRDs.
        let group = format!(
            "{}.ui.example.com",
            stem.to_ascii_lowercase().replace(['_', '.'], "-")
        );
        let mut appended = String::from(
            "\n\n/// The CRDs of this UI pass case, for `crd-cel-e2e` (appended by its build \
             script).\npub fn e2e_subjects() -> Vec<crate::Subject> {\n    vec![\n",
        );
        for k in &roots {
            writeln!(
                appended,
                "        crate::Subject::resource::<{k}>({origin:?}),"
            )
            .unwrap();
        }
        for t in &specs {
            writeln!(
                appended,
                "        crate::Subject::spec_type::<{t}>({origin:?}, {group:?}),"
            )
            .unwrap();
        }
        appended.push_str("    ]\n}\n");
        let copy = copies.join(format!("{ident}.rs"));
        write_if_changed(&copy, &format!("{text}{appended}"));
        let listed: Vec<String> = roots
            .iter()
            .map(|k| format!("`{k}`"))
            .chain(specs.iter().map(|t| format!("`{t}` (spec type)")))
            .collect();
        writeln!(
            mods,
            "/// `{origin}`, as a module: {}.\n#[allow(dead_code, unused_imports, clippy::all)]\n\
             #[path = {:?}]\npub mod {ident};\n",
            listed.join(", "),
            copy.display().to_string()
        )
        .unwrap();
        writeln!(all, "    subjects.extend({ident}::e2e_subjects());").unwrap();
    }
    let generated = format!(
        "{mods}\
         /// The CRDs of every UI pass case compiled here, in file order.\n\
         pub fn subjects() -> Vec<crate::Subject> {{\n    \
         let mut subjects = Vec::new();\n{all}    subjects\n}}\n\n\
         /// Every UI pass case file.\n\
         pub const FILES: &[&str] = &[\n{names}];\n\n\
         /// The UI pass cases not compiled here, with why.\n\
         pub const NOT_INCLUDED: &[(&str, &str)] = &[\n{not_included}];\n"
    );
    write_if_changed(&out.join("ui_pass.rs"), &generated);
}

/// A Rust identifier for a file stem (`all-attributes` → `all_attributes`).
fn ident_of(stem: &str) -> String {
    let mut s: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The kube root types and the spec types a pass case names, each once, in order.
fn types_of(text: &str) -> (Vec<String>, Vec<String>) {
    let mut roots = Vec::new();
    let mut specs = Vec::new();
    let push = |list: &mut Vec<String>, t: String| {
        if !t.is_empty() && !list.contains(&t) {
            list.push(t);
        }
    };
    // `#[kube(..)]` attributes up to the struct they decorate.
    let mut rest = text;
    while let Some(at) = rest.find("#[kube(") {
        let attr = &rest[at..];
        let end = attr.find("struct ").unwrap_or(attr.len());
        let attr = &attr[..end];
        if let Some(kind) = string_value(attr, "kind") {
            let name = string_value(attr, "struct").unwrap_or(kind);
            push(&mut roots, name);
        }
        rest = &rest[at + 7..];
    }
    for (call, list) in [
        ("assert_cli_accepts_resource::<", &mut roots),
        ("assert_cli_accepts_type::<", &mut specs),
    ] {
        let mut rest = text;
        while let Some(at) = rest.find(call) {
            let after = &rest[at + call.len()..];
            if let Some(end) = after.find(">()") {
                push(list, after[..end].trim().to_owned());
            }
            rest = after;
        }
    }
    (roots, specs)
}

/// The string of `key = "value"` in an attribute's text (the key standing alone: `kind`, not
/// `listKind`).
fn string_value(attr: &str, key: &str) -> Option<String> {
    let mut rest = attr;
    while let Some(at) = rest.find(key) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + key.len()..].trim_start();
        if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && let Some(value) = after.strip_prefix('=')
            && let Some(value) = value.trim_start().strip_prefix('"')
            && let Some(end) = value.find('"')
        {
            return Some(value[..end].to_owned());
        }
        rest = &rest[at + key.len()..];
    }
    None
}

/// Writes `text` to `path` unless it is there already (no rebuild of the test crate when the
/// pass cases did not change).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
