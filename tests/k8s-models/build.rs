//! Lists the k8s-openapi types of the enabled Kubernetes version that implement
//! `schemars::JsonSchema`, from k8s-openapi's own source tree, into `$OUT_DIR/types.rs`.

use std::path::{Path, PathBuf};

fn main() {
    // k8s-openapi (`links = "k8s-openapi-0.29.0"`) publishes the enabled version as 0x0001_MM00.
    let key = std::env::vars()
        .map(|(k, _)| k)
        .find(|k| k.starts_with("DEP_K8S_OPENAPI_") && k.ends_with("_VERSION"))
        .expect("k8s-openapi publishes its enabled version to dependents' build scripts");
    let encoded: u32 = std::env::var(&key).unwrap().parse().unwrap();
    let minor = (encoded >> 8) & 0xff;
    let src = k8s_openapi_src().join(format!("v1_{minor}"));
    println!("cargo::rerun-if-changed={}", src.display());

    let mut types = Vec::new();
    scan(&src, &src, &mut types);
    types.sort();
    let mut out = format!(
        "/// The enabled Kubernetes minor version.\npub const MINOR: u32 = {minor};\n\ntypes! {{\n"
    );
    for (module, name, generic) in &types {
        let path = if module.is_empty() {
            name.clone()
        } else {
            format!("{module}::{name}")
        };
        if *generic {
            // A generic type's schema does not depend on its parameter (WatchEvent<T>).
            out.push_str(&format!(
                "    generic \"{path}\" => k8s_openapi::{path}<serde_json::Value>,\n"
            ));
        } else {
            out.push_str(&format!("    plain \"{path}\" => k8s_openapi::{path},\n"));
        }
    }
    out.push_str("}\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("types.rs");
    std::fs::write(dest, out).unwrap();
}

/// `(module path, type name, generic)` of every `impl crate::schemars::JsonSchema for X` below `dir`.
fn scan(root: &Path, dir: &Path, out: &mut Vec<(String, String, bool)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            scan(root, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let module: Vec<String> = path
            .parent()
            .unwrap()
            .strip_prefix(root)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        for line in text.lines() {
            let line = line.trim();
            let (generic, rest) = if let Some(r) =
                line.strip_prefix("impl crate::schemars::JsonSchema for ")
            {
                (false, r)
            } else if let Some(r) = line.strip_prefix("impl<T> crate::schemars::JsonSchema for ") {
                (true, r)
            } else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push((module.join("::"), name, generic));
        }
    }
}

/// The `src` directory of the k8s-openapi package this build uses, from `cargo metadata`.
fn k8s_openapi_src() -> PathBuf {
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
        ])
        .arg(std::env::var("TARGET").unwrap())
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let pkg = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "k8s-openapi")
        .expect("k8s-openapi is a dependency");
    PathBuf::from(pkg["manifest_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .join("src")
}
