//! `featureGates`: which CRD files a gated suite runs against, as OpenShift API's runner picks
//! them (`tests/crd_filter.go` there, `perTestRuntimeInfo`). The gates belong to the suite;
//! the format has no per-case gates (the runner's table entries carry a `featureGate` field
//! that nothing sets, and unknown case fields are ignored by its YAML reader).
//!
//! For each CRD file named `crdName`:
//!
//! 1. a suite without gates runs against it;
//! 2. a file whose `release.openshift.io/feature-set` annotation lists `CustomNoUpgrade` (which
//!    enables every gate) is kept unless the suite needs a gate off (`-Gate`);
//! 3. a file without a cluster-profile annotation (`include.release.openshift.io/<profile>:
//!    "true"`) is kept;
//! 4. otherwise the gates' states come from the payload's FeatureGate manifest
//!    (`payload-manifests/featuregates/*`) of the file's first cluster profile (sorted), of one
//!    of its feature sets (`Default` when it has none; a manifest's own is its feature-set
//!    annotation, else its `spec.featureSet`, `Default` when empty) and of one of its
//!    `release.openshift.io/major-version`s (any when it has none), the first such manifest in
//!    file-name order; the file is kept when every `Gate` is enabled there and every `-Gate`
//!    disabled; a gate the manifest does not list is an error.
//!
//! A suite that selects no file is an error. crd-cel reads the manifests when the suite lies in
//! an OpenShift API checkout (`payload-manifests/featuregates` in a folder above the suite) or
//! when they are given ([`super::Runner::with_feature_gates`]); without them, step 4 assumes a
//! gate is enabled in `TechPreviewNoUpgrade` and `DevPreviewNoUpgrade` files and disabled in the
//! others (`Default`, `OKD`, no feature set): what holds for a gate that has not reached
//! `Default` yet, the usual reason to gate a suite.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value as Json;

const FEATURE_SET: &str = "release.openshift.io/feature-set";
const PROFILE_PREFIX: &str = "include.release.openshift.io/";
const MAJOR_VERSION: &str = "release.openshift.io/major-version";

/// Whether a suite with `gates` runs against the CRD file `crd` (`manifests`: the payload's
/// FeatureGate documents, in file-name order, when known), or why that cannot be told.
pub(super) fn selects(
    crd: &Json,
    gates: &[String],
    manifests: Option<&[Json]>,
) -> Result<bool, String> {
    if gates.is_empty() {
        return Ok(true);
    }
    let annotations = &crd["metadata"]["annotations"];
    let sets: BTreeSet<&str> = annotations[FEATURE_SET]
        .as_str()
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .collect();
    let needs_off = gates.iter().any(|g| g.starts_with('-'));
    if sets.contains("CustomNoUpgrade") {
        return Ok(!needs_off);
    }
    let profiles: BTreeSet<&str> = annotations
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| k.starts_with(PROFILE_PREFIX) && v.as_str() == Some("true"))
        .map(|(k, _)| k.as_str())
        .collect();
    let Some(profile) = profiles.first() else {
        return Ok(true);
    };
    let sets = if sets.is_empty() {
        BTreeSet::from(["Default"])
    } else {
        sets
    };
    let states = match manifests {
        Some(manifests) => {
            let versions = major_versions(annotations);
            let manifest = manifests
                .iter()
                .find(|m| {
                    let a = &m["metadata"]["annotations"];
                    a.get(*profile).is_some()
                        && sets.contains(manifest_feature_set(m))
                        && (versions.is_empty() || !versions.is_disjoint(&major_versions(a)))
                })
                .ok_or_else(|| {
                    format!(
                        "no FeatureGate manifest for cluster profile {profile:?}, feature set {:?} and major versions {versions:?}",
                        sets.iter().copied().collect::<Vec<_>>().join(",")
                    )
                })?;
            let list = |key: &str| -> Vec<String> {
                manifest["status"]["featureGates"][0][key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|g| g["name"].as_str().map(str::to_owned))
                    .collect()
            };
            States::Manifest {
                enabled: list("enabled"),
                disabled: list("disabled"),
            }
        }
        None => States::Guessed(
            sets.iter()
                .any(|s| matches!(*s, "TechPreviewNoUpgrade" | "DevPreviewNoUpgrade")),
        ),
    };
    for gate in gates {
        let (name, want) = match gate.strip_prefix('-') {
            Some(name) => (name, false),
            None => (gate.as_str(), true),
        };
        if states.enabled(name)? != want {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The gates' states for one CRD file: from its FeatureGate manifest, or guessed (the same
/// for every gate).
enum States {
    Manifest {
        enabled: Vec<String>,
        disabled: Vec<String>,
    },
    Guessed(bool),
}

impl States {
    fn enabled(&self, gate: &str) -> Result<bool, String> {
        match self {
            States::Guessed(on) => Ok(*on),
            States::Manifest { enabled, .. } if enabled.iter().any(|g| g == gate) => Ok(true),
            States::Manifest { disabled, .. } if disabled.iter().any(|g| g == gate) => Ok(false),
            States::Manifest { .. } => Err(format!(
                "feature gate {gate:?} is not in the FeatureGate manifest"
            )),
        }
    }
}

/// The feature set a FeatureGate manifest is for: its `release.openshift.io/feature-set`
/// annotation where it has one (older payloads), else its `spec.featureSet` (the payload's own
/// field, which newer OpenShift API checkouts alone carry), `Default` when empty.
fn manifest_feature_set(manifest: &Json) -> &str {
    match manifest["metadata"]["annotations"][FEATURE_SET].as_str() {
        Some(set) => set,
        None => match manifest["spec"]["featureSet"].as_str() {
            Some(set) if !set.is_empty() => set,
            _ => "Default",
        },
    }
}

/// The major versions an annotation lists (`4,5`), those that read as numbers.
fn major_versions(annotations: &Json) -> BTreeSet<u64> {
    annotations
        .as_object()
        .into_iter()
        .flatten()
        .find(|(k, _)| k.starts_with(MAJOR_VERSION))
        .and_then(|(_, v)| v.as_str())
        .unwrap_or_default()
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

/// The FeatureGate documents of the OpenShift API checkout `suite` lies in: the files of the
/// first `payload-manifests/featuregates` folder above it, in file-name order; `None` when
/// there is none.
pub(super) fn find_manifests(suite: &Path) -> Option<Vec<Json>> {
    let dir = suite
        .ancestors()
        .skip(1)
        .map(|a| a.join("payload-manifests").join("featuregates"))
        .find(|d| d.is_dir())?;
    // A folder that cannot be read counts as none, as before.
    std::fs::read_dir(&dir).ok()?;
    Some(
        super::files_in(&dir, &["yaml", "yml", "json"])
            .iter()
            .filter_map(|f| super::read_documents_of_kind(f, "FeatureGate").ok())
            .flatten()
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(annotations: Json) -> Json {
        json!({"metadata": {"name": "x.config.openshift.io", "annotations": annotations}})
    }

    fn manifest(set: &str, versions: &str, enabled: &[&str], disabled: &[&str]) -> Json {
        let names = |l: &[&str]| l.iter().map(|n| json!({"name": n})).collect::<Vec<_>>();
        json!({"kind": "FeatureGate", "metadata": {"annotations": {
            "include.release.openshift.io/self-managed-high-availability": "false-except-for-the-config-operator",
            FEATURE_SET: set, MAJOR_VERSION: versions}},
            "status": {"featureGates": [{"enabled": names(enabled), "disabled": names(disabled)}]}})
    }

    // The runner's four steps, with the payload's manifests and without them.
    #[test]
    fn files_are_selected_as_the_runner_selects_them() {
        let gates = |g: &[&str]| g.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let ha = "include.release.openshift.io/self-managed-high-availability";
        let tech = crd(json!({ha: "true", FEATURE_SET: "TechPreviewNoUpgrade"}));
        let default = crd(json!({ha: "true", FEATURE_SET: "Default"}));
        let custom = crd(json!({ha: "true", FEATURE_SET: "CustomNoUpgrade"}));
        let no_profile = crd(json!({FEATURE_SET: "Default"}));
        let ungated = crd(json!({ha: "true"}));
        let manifests = [
            manifest("Default", "4,5", &["Promoted"], &["Example", "Other"]),
            manifest(
                "TechPreviewNoUpgrade",
                "4,5",
                &["Example", "Promoted"],
                &["Other"],
            ),
        ];
        let on = |c: &Json, g: &[&str]| selects(c, &gates(g), Some(&manifests));
        let guess = |c: &Json, g: &[&str]| selects(c, &gates(g), None).unwrap();
        assert_eq!(on(&tech, &[]), Ok(true));
        assert_eq!(on(&custom, &["Example"]), Ok(true));
        assert_eq!(on(&custom, &["-Example"]), Ok(false));
        assert_eq!(on(&no_profile, &["-Example"]), Ok(true));
        assert_eq!(on(&tech, &["Example"]), Ok(true));
        assert_eq!(on(&default, &["Example"]), Ok(false));
        assert_eq!(on(&default, &["-Example"]), Ok(true));
        // A gate promoted to Default selects the Default file too; one disabled everywhere
        // selects the TechPreview file for a suite that needs it off.
        assert_eq!(on(&default, &["Promoted"]), Ok(true));
        assert_eq!(on(&tech, &["-Other"]), Ok(true));
        // Newer payloads: the manifest's feature set in `spec.featureSet` alone (empty or
        // absent: Default), as OpenShift API's own payload-manifests are written.
        let spec_only = |set: &str, enabled: &[&str], disabled: &[&str]| {
            let mut m = manifest("", "", enabled, disabled);
            m["metadata"]["annotations"] = json!({ha: "false-except-for-the-config-operator"});
            m["spec"] = if set.is_empty() {
                json!({})
            } else {
                json!({"featureSet": set})
            };
            m
        };
        let newer = [
            spec_only("", &["Promoted"], &["Example"]),
            spec_only("TechPreviewNoUpgrade", &["Example", "Promoted"], &[]),
        ];
        let on_newer = |c: &Json, g: &[&str]| selects(c, &gates(g), Some(&newer));
        assert_eq!(on_newer(&default, &["Example"]), Ok(false));
        assert_eq!(on_newer(&default, &["Promoted"]), Ok(true));
        assert_eq!(on_newer(&tech, &["Example"]), Ok(true));
        assert_eq!(on_newer(&ungated, &["-Example"]), Ok(true));
        // No feature-set annotation: the Default manifest.
        assert_eq!(on(&ungated, &["Promoted"]), Ok(true));
        assert_eq!(on(&ungated, &["Example"]), Ok(false));
        assert!(
            on(&tech, &["Unknown"])
                .unwrap_err()
                .contains("\"Unknown\" is not in")
        );
        let dev = crd(json!({ha: "true", FEATURE_SET: "DevPreviewNoUpgrade"}));
        assert!(
            on(&dev, &["Example"])
                .unwrap_err()
                .contains("no FeatureGate manifest")
        );
        // Without the manifests: gates on in the preview sets only.
        assert!(guess(&tech, &["Example"]) && !guess(&tech, &["-Example"]));
        assert!(!guess(&default, &["Promoted"]) && guess(&default, &["-Example"]));
        assert!(guess(&no_profile, &["Example"]) && !guess(&custom, &["-Example"]));
    }
}
