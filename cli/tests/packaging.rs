//! The published crates package and verify: `cargo install crd-cel-cli` builds what
//! `cargo package` verified. The full verification builds every crate from its `.crate` (minutes):
//! `cargo test -p crd-cel-cli --test packaging -- --ignored`. The metadata it relies on is
//! checked every time.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// The published crates, in publishing order, with their manifests.
const PUBLISHED: [(&str, &str); 4] = [
    ("crd-cel-core", "core/Cargo.toml"),
    ("crd-cel-macros", "macros/Cargo.toml"),
    ("crd-cel", "runtime/Cargo.toml"),
    ("crd-cel-cli", "cli/Cargo.toml"),
];

/// The Kubernetes version the verification builds k8s-openapi for (libraries leave the
/// choice to the binary; `cargo package` builds them without dev-dependencies).
const K8S_OPENAPI_ENABLED_VERSION: &str = "1.37";

#[test]
fn published_crates_have_docs_rs_metadata_and_choose_a_kubernetes_version_for_it() {
    for (name, manifest) in PUBLISHED {
        let text = std::fs::read_to_string(root().join(manifest)).expect("readable");
        assert!(!text.contains("publish = false"), "{name} is published");
        assert!(
            text.contains("[package.metadata.docs.rs]"),
            "{name}: docs.rs metadata"
        );
        for key in ["description =", "license.workspace", "repository.workspace"] {
            assert!(text.contains(key), "{name}: {key}");
        }
    }
    // crd-cel's documentation is the README, included from the package root, where the
    // packaged crate has it (in the workspace, a link to the workspace's).
    let lib = std::fs::read_to_string(root().join("runtime/src/lib.rs")).expect("readable");
    assert!(lib.starts_with("#![doc = include_str!(\"../README.md\")]"));
    assert_eq!(
        std::fs::read_to_string(root().join("runtime/README.md")).expect("runtime/README.md"),
        std::fs::read_to_string(root().join("README.md")).expect("README.md")
    );
    // The libraries that build k8s-openapi (directly, or through kube-core) pick its version
    // for docs.rs through a direct (optional) dependency, and enable none by default.
    for manifest in ["core/Cargo.toml", "runtime/Cargo.toml"] {
        let text = std::fs::read_to_string(root().join(manifest)).expect("readable");
        assert!(text.contains("\"k8s-openapi/latest\"]"), "{manifest}");
        let deps = text.split("[dependencies]").nth(1).expect("dependencies");
        let deps = deps.split("\n[").next().unwrap_or_default();
        let line = deps
            .lines()
            .find(|l| l.starts_with("k8s-openapi"))
            .unwrap_or_else(|| panic!("{manifest}: a k8s-openapi dependency"));
        assert!(
            line.contains("optional = true") && !line.contains("features"),
            "{line}"
        );
    }
}

#[test]
#[ignore = "builds every published crate from its package (minutes, needs the crates.io index)"]
fn every_published_crate_packages_and_verifies() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root())
        .env("K8S_OPENAPI_ENABLED_VERSION", K8S_OPENAPI_ENABLED_VERSION)
        .args(["package", "--allow-dirty", "--target-dir"])
        .arg(root().join("target/package-verify"));
    for (name, _) in PUBLISHED {
        cmd.args(["-p", name]);
    }
    let out = cmd.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for (name, _) in PUBLISHED {
        assert!(
            stderr.contains(&format!("Verifying {name} v")),
            "{name}: {stderr}"
        );
    }
}
