//! The named inputs as files: a directory stands for the manifests under it (`.yaml`, `.yml`,
//! `.json`, recursively, in path order, not entering dot-directories such as `.git` and
//! `.github`), less those `--ignore-filename-pattern` matches.

use std::path::Path;

use regex::Regex;

use super::InputError;

/// The file extensions a directory's manifests have.
pub const MANIFEST_EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Directories nested deeper than this are not entered (a guard against link loops and
/// pathological trees; symbolic links to directories are not followed at all).
const MAX_DIRECTORY_DEPTH: usize = 64;

/// The files `names` stand for: `-` and files as given, directories expanded. A path that
/// matches one of `ignore` is left out, whether named or found.
pub fn expand(names: &[String], ignore: &[Regex]) -> Result<Vec<String>, InputError> {
    let ignored = |p: &str| ignore.iter().any(|r| r.is_match(p));
    let mut out = Vec::new();
    for name in names {
        if name == "-" || !Path::new(name).is_dir() {
            if !ignored(name) {
                out.push(name.clone());
            }
            continue;
        }
        let mut found = Vec::new();
        walk(Path::new(name), 0, &mut found)?;
        found.sort();
        out.extend(found.into_iter().filter(|p| !ignored(p)));
    }
    Ok(out)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<String>) -> Result<(), InputError> {
    let name = dir.display().to_string();
    let fail =
        |e: std::io::Error| InputError::in_file(&name, format!("cannot read the directory: {e}"));
    if depth > MAX_DIRECTORY_DEPTH {
        return Err(InputError::in_file(
            &name,
            format!("directories nested more than {MAX_DIRECTORY_DEPTH} deep"),
        ));
    }
    for entry in std::fs::read_dir(dir).map_err(fail)? {
        let entry = entry.map_err(fail)?;
        let path = entry.path();
        let kind = entry.file_type().map_err(fail)?;
        if kind.is_dir() {
            // `.git`, `.github` (workflows are YAML), editor and tool state.
            if !entry.file_name().to_string_lossy().starts_with('.') {
                walk(&path, depth + 1, out)?;
            }
        } else if (kind.is_file() || (kind.is_symlink() && path.is_file()))
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| MANIFEST_EXTENSIONS.contains(&e))
        {
            out.push(path.display().to_string());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_expand_to_their_manifests_in_path_order_less_the_ignored() {
        let root = std::env::temp_dir().join(format!("crd-cel-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("b/nested")).unwrap();
        std::fs::create_dir_all(root.join(".github/workflows")).unwrap();
        for f in [
            ".github/workflows/ci.yaml",
            "a.yaml",
            "b/nested/c.json",
            "b/d.yml",
            "b/README.md",
            "b/skip.yaml",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        let r = root.display().to_string();
        let ignore = [Regex::new("skip").unwrap()];
        let got = expand(&[r.clone(), "-".to_owned()], &ignore).unwrap();
        let want: Vec<String> = ["a.yaml", "b/d.yml", "b/nested/c.json"]
            .iter()
            .map(|f| root.join(f).display().to_string())
            .chain(["-".to_owned()])
            .collect();
        assert_eq!(got, want);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
