//! A suite's cases through crd-cel's request path, with the steps and checks of the suite runner
//! (OpenShift API's `tests/generator.go` over envtest): the CRD version under test alone,
//! served and stored; each object named `test-<suffix>` in `default`; an update's `initial`
//! created under the patched CRD and its status set through `/status`, the CRD restored, then
//! `updated` sent with the stored name, namespace and resourceVersion, then its status.

use serde_json::{Value as Json, json};

use super::suite::{Case, CaseKind, Object, Suite};
use super::{CaseResult, SuiteError, compare, patch};
use crate::validate::{Endpoint, FieldValidation, Validator};

/// One CRD document a suite may run against, and the file it came from.
#[derive(Debug, Clone)]
pub(super) struct Crd {
    pub(super) file: String,
    pub(super) value: Json,
}

/// The CRDs of `crds` a suite runs against: those named `crdName` that its feature gates
/// select (`gates.rs`; `manifests`: OpenShift's FeatureGate manifests, when known), each
/// reduced to the version under test.
pub(super) fn targets(
    suite: &Suite,
    crds: &[Crd],
    manifests: Option<&[Json]>,
) -> Result<Vec<(Crd, String)>, SuiteError> {
    let named: Vec<&Crd> = crds
        .iter()
        .filter(|c| suite.crd_name.is_empty() || name_of(&c.value) == suite.crd_name)
        .collect();
    if named.is_empty() {
        let known: Vec<String> = crds.iter().map(|c| name_of(&c.value).to_owned()).collect();
        return Err(SuiteError {
            file: suite.file.clone(),
            line: Some(1),
            message: format!(
                "no CRD named {:?} among the CRDs given ({})",
                suite.crd_name,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        });
    }
    let mut selected = Vec::new();
    for crd in &named {
        match super::gates::selects(&crd.value, &suite.feature_gates, manifests) {
            Ok(true) => selected.push(*crd),
            Ok(false) => {}
            Err(why) => {
                return Err(SuiteError {
                    file: suite.file.clone(),
                    line: Some(1),
                    message: format!(
                        "featureGates {:?}, the CRD in {}: {why}",
                        suite.feature_gates, crd.file
                    ),
                });
            }
        }
    }
    if selected.is_empty() {
        return Err(SuiteError {
            file: suite.file.clone(),
            line: Some(1),
            message: format!(
                "featureGates {:?} select none of the CRDs named {:?} ({}), as the suite runner would not run it{}",
                suite.feature_gates,
                suite.crd_name,
                named
                    .iter()
                    .map(|c| c.file.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                if manifests.is_none() {
                    " (the gates' states guessed from the files' feature sets: no FeatureGate manifests)"
                } else {
                    ""
                }
            ),
        });
    }
    let mut out = Vec::new();
    for crd in selected {
        let versions: Vec<&str> = crd.value["spec"]["versions"]
            .as_array()
            .map(|v| v.iter().filter_map(|v| v["name"].as_str()).collect())
            .unwrap_or_default();
        let version = match (&suite.version, versions.as_slice()) {
            (Some(v), _) => v.clone(),
            (None, [only]) => (*only).to_owned(),
            (None, _) => {
                return Err(SuiteError {
                    file: suite.file.clone(),
                    line: Some(1),
                    message: format!(
                        "the CRD in {} has several versions ({}): say which one the suite tests with `version`",
                        crd.file,
                        versions.join(", ")
                    ),
                });
            }
        };
        if !versions.contains(&version.as_str()) {
            return Err(SuiteError {
                file: suite.file.clone(),
                line: Some(1),
                message: format!(
                    "the CRD in {} has no version {version:?} (it has {})",
                    crd.file,
                    versions.join(", ")
                ),
            });
        }
        out.push(((*crd).clone(), version));
    }
    Ok(out)
}

fn name_of(crd: &Json) -> &str {
    crd["metadata"]["name"].as_str().unwrap_or_default()
}

/// The CRD as the runner installs it: `version` alone, served and stored.
fn installed(crd: &Json, version: &str) -> Json {
    let mut crd = crd.clone();
    if let Some(versions) = crd["spec"]["versions"].as_array_mut() {
        versions.retain(|v| v["name"] == version);
        for v in versions {
            v["served"] = Json::Bool(true);
            v["storage"] = Json::Bool(true);
        }
    }
    crd
}

/// What one CRD of a suite needs for its cases.
pub(super) struct Target<'a> {
    crd: &'a Crd,
    version: &'a str,
    kubernetes_minor: u8,
    /// The CRD's validator, built once for every case of the suite (building one compiles
    /// every rule of the CRD: most of a case's time for a large CRD).
    base: std::cell::OnceCell<Result<Validator, String>>,
}

impl<'a> Target<'a> {
    pub(super) fn new(crd: &'a Crd, version: &'a str, kubernetes_minor: u8) -> Target<'a> {
        Target {
            crd,
            version,
            kubernetes_minor,
            base: std::cell::OnceCell::new(),
        }
    }

    fn base_validator(&self) -> Result<&Validator, String> {
        self.base
            .get_or_init(|| self.validator(&self.crd.value))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn validator(&self, crd: &Json) -> Result<Validator, String> {
        let crd = installed(crd, self.version);
        Validator::from_crd(&crd, Some(self.version))
            .map(|v| {
                v.with_kubernetes_version(self.kubernetes_minor)
                    // A client that sends no fieldValidation gets the server's default.
                    .with_field_validation(FieldValidation::Warn)
                    .with_default_namespace("default")
            })
            .map_err(|e| format!("the CRD in {}: {e}", self.crd.file))
    }

    fn has_status_subresource(&self, crd: &Json) -> bool {
        crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|v| v["name"] == self.version)
            .is_some_and(|v| v.pointer("/subresources/status").is_some())
            || crd.pointer("/spec/subresources/status").is_some()
    }

    /// The case's result: `None` when it passes, else why it fails.
    pub(super) fn run(&self, case: &Case) -> CaseResult {
        let failure = self.steps(case).err();
        CaseResult {
            crd_file: self.crd.file.clone(),
            name: case.name.clone(),
            kind: case.kind,
            line: case.line,
            failure,
        }
    }

    fn steps(&self, case: &Case) -> Result<(), String> {
        let base = &self.crd.value;
        let validator = self.base_validator()?;
        match case.kind {
            CaseKind::OnCreate => {
                let object = self.prepare(&case.initial, case);
                match (
                    send(validator, base, &object, None, Endpoint::Resource),
                    &case.expected_error,
                ) {
                    (Err(got), Some(want)) => expect_error(want, &got),
                    (Err(got), None) => Err(format!("the create failed: {got}")),
                    (Ok(_), Some(want)) => Err(format!(
                        "expected an error containing:\n  {want}\nbut the object was created"
                    )),
                    (Ok(stored), None) => {
                        let expected = case.expected.as_ref().unwrap_or(&case.initial);
                        check_stored(expected, &stored)
                    }
                }
            }
            CaseKind::OnUpdate => self.update(case, validator),
        }
    }

    fn update(&self, case: &Case, validator: &Validator) -> Result<(), String> {
        let base = &self.crd.value;
        // `initial` under the patched CRD (when there are patches), its status through /status.
        let patched = if case.initial_crd_patches.is_empty() {
            None
        } else {
            Some(patch::apply(base, &case.initial_crd_patches)?)
        };
        let patched_validator = patched
            .as_ref()
            .map(|crd| self.validator(crd))
            .transpose()?;
        let first = patched_validator.as_ref().unwrap_or(validator);
        let first_crd = patched.as_ref().unwrap_or(base);
        let object = self.prepare(&case.initial, case);
        let mut stored = send(first, first_crd, &object, None, Endpoint::Resource)
            .map_err(|e| format!("`initial` should be created, but: {e}"))?;
        if let Some(status) = object.value.get("status") {
            stored["status"] = status.clone();
            let with_status = Object {
                value: stored.clone(),
                duplicate_fields: Vec::new(),
            };
            stored = self
                .status_update(first, first_crd, &with_status, &stored)
                .map_err(|e| format!("`initial`'s status should be set, but: {e}"))?;
        }
        // `updated`, under the CRD restored, with the stored object's name and namespace.
        let mut updated = self.prepare(case.updated.as_ref().unwrap_or(&case.initial), case);
        for key in ["name", "namespace", "resourceVersion"] {
            match stored["metadata"].get(key) {
                Some(v) => updated.value["metadata"][key] = v.clone(),
                None => {
                    if let Some(m) = updated.value["metadata"].as_object_mut() {
                        m.remove(key);
                    }
                }
            }
        }
        let result = send(validator, base, &updated, Some(&stored), Endpoint::Resource);
        let mut stored = match (result, &case.expected_error) {
            (Err(got), Some(want)) => return expect_error(want, &got),
            (Err(got), None) => return Err(format!("the update failed: {got}")),
            (Ok(_), Some(want)) => {
                return Err(format!(
                    "expected an error containing:\n  {want}\nbut the update succeeded"
                ));
            }
            (Ok(s), None) => s,
        };
        if let Some(status) = updated.value.get("status") {
            let old = stored.clone();
            stored["status"] = status.clone();
            let with_status = Object {
                value: stored,
                duplicate_fields: Vec::new(),
            };
            stored = match (
                self.status_update(validator, base, &with_status, &old),
                &case.expected_status_error,
            ) {
                (Err(got), Some(want)) => return expect_error(want, &got),
                (Err(got), None) => return Err(format!("the status update failed: {got}")),
                (Ok(_), Some(want)) => {
                    return Err(format!(
                        "expected a status error containing:\n  {want}\nbut the status update succeeded"
                    ));
                }
                (Ok(s), None) => s,
            };
        }
        let expected = case
            .expected
            .as_ref()
            .or(case.updated.as_ref())
            .unwrap_or(&case.initial);
        check_stored(expected, &stored)
    }

    /// An update of `/status`, which answers 404 when the version has no status subresource.
    fn status_update(
        &self,
        validator: &Validator,
        crd: &Json,
        object: &Object,
        old: &Json,
    ) -> Result<Json, String> {
        if !self.has_status_subresource(crd) {
            return Err("the server could not find the requested resource (the CRD version has no status subresource)".into());
        }
        send(validator, crd, object, Some(old), Endpoint::Status)
    }

    /// The object as the runner sends it: named `test-<suffix>` (or `resourceName`) in
    /// `default`.
    fn prepare(&self, object: &Object, case: &Case) -> Object {
        let mut value = object.value.clone();
        if !value["metadata"].is_object() {
            value["metadata"] = json!({});
        }
        let meta = &mut value["metadata"];
        match (&case.resource_name, case.use_generate_name) {
            (Some(name), true) => meta["generateName"] = Json::String(name.clone()),
            (Some(name), false) => meta["name"] = Json::String(name.clone()),
            (None, _) => meta["generateName"] = Json::String("test-".into()),
        }
        meta["namespace"] = Json::String("default".into());
        Object {
            value,
            duplicate_fields: object.duplicate_fields.clone(),
        }
    }
}

/// One request: the object the server answers with, or the error the client would see (the
/// Status message). The answer is the stored object as read back from storage, which the
/// storage's codec prunes and defaults again (KEP 1002: defaults apply when reading from etcd
/// too): a status dropped on create (the status subresource) comes back as its default.
fn send(
    validator: &Validator,
    crd: &Json,
    object: &Object,
    old: Option<&Json>,
    endpoint: Endpoint,
) -> Result<Json, String> {
    let (out, stored) = validator.dry_run(&object.value, &object.duplicate_fields, old, endpoint);
    if let Some(refusal) = &out.refusal {
        return Err(refusal.to_string());
    }
    if !out.errors.is_empty() {
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap_or_default();
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let name = out.name.clone().unwrap_or_default();
        return Err(out.errors.status_message(kind, group, &name));
    }
    stored
        .map(|stored| validator.decode(&stored).0)
        .ok_or_else(|| "the request was refused".to_owned())
}

fn expect_error(want: &str, got: &str) -> Result<(), String> {
    if got.contains(want) {
        Ok(())
    } else {
        Err(format!(
            "expected an error containing:\n  {want}\ngot:\n  {got}"
        ))
    }
}

/// The stored object against `expected` (its name and namespace the stored ones).
fn check_stored(expected: &Object, stored: &Json) -> Result<(), String> {
    let mut want = expected.value.clone();
    if !want["metadata"].is_object() {
        want["metadata"] = json!({});
    }
    for key in ["name", "namespace"] {
        match stored["metadata"].get(key) {
            Some(v) => want["metadata"][key] = v.clone(),
            None => {
                if let Some(m) = want["metadata"].as_object_mut() {
                    m.remove(key);
                }
            }
        }
    }
    let paths = compare::differences(&want, stored);
    if paths.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the stored object is not `expected`; it differs at {}:\n{}",
        paths.join(", "),
        compare::diff(
            &compare::without_ignored(&want),
            &compare::without_ignored(stored)
        )
    ))
}
