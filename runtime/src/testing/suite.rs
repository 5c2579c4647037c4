//! The suite format (OpenShift API's `*.testsuite.yaml`, the format envtest-based runners read):
//! read as strictly as the runners allow (a field the format does not have, which they ignore, is
//! a warning), every case with the line it starts on, every error with its file and line.

use serde_json::{Map, Value as Json};

use super::SuiteError;
use crate::validate::Body;

/// A validation test suite: the cases of one CRD, as OpenShift API's `*.testsuite.yaml` files
/// write them.
///
/// ```yaml
/// name: "[Stable] Widget"
/// crdName: widgets.example.com
/// tests:
///   onCreate:
///   - name: Should be able to create a minimal Widget
///     initial: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: 1}
///     expected: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: 1, mode: fast}   # a default
///   onUpdate:
///   - name: replicas may not go down
///     initial: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: 3}
///     updated: |
///       apiVersion: example.com/v1
///       kind: Widget
///       spec: {replicas: 2}
///     expectedError: "replicas may not decrease"
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// The file the suite was read from (as given).
    pub file: String,
    /// `name`.
    pub name: String,
    /// `crdName`: the `metadata.name` of the CRD the cases run against.
    pub crd_name: String,
    /// `crd`: the older format's CRD file, relative to the suite's folder.
    pub crd_file: Option<String>,
    /// `version`: the CRD version under test (else the CRD's only version).
    pub version: Option<String>,
    /// `featureGates`: the OpenShift feature gates the suite needs on (`Gate`) or off (`-Gate`).
    pub feature_gates: Vec<String>,
    /// The cases, `onCreate` first, each in file order.
    pub cases: Vec<Case>,
    /// What is wrong in the file but does not stop it: fields the format does not have (a
    /// misspelt or misplaced key), which OpenShift API's runner ignores, as crd-cel then does.
    /// Each has the file and line, as a [`SuiteError`] has.
    pub warnings: Vec<SuiteError>,
}

/// One case of a [`Suite`].
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// `name`.
    pub name: String,
    /// The line the case starts on in the suite file.
    pub line: usize,
    /// `onCreate` or `onUpdate`.
    pub kind: CaseKind,
    /// `initial`: the object created first.
    pub initial: Object,
    /// `updated` (`onUpdate`): the object the stored one is updated to.
    pub updated: Option<Object>,
    /// `expected`: the object as stored at the end (default: `updated`, else `initial`), when
    /// no error is expected.
    pub expected: Option<Object>,
    /// `expectedError`: a substring of the create's (or the update's) error.
    pub expected_error: Option<String>,
    /// `expectedStatusError` (`onUpdate`): a substring of the status update's error.
    pub expected_status_error: Option<String>,
    /// `initialCRDPatches` (`onUpdate`): JSON patch operations on the CRD under which
    /// `initial` is created (the CRD is then restored before the update).
    pub initial_crd_patches: Vec<Json>,
    /// `resourceName` (a runner extension): the object's name instead of a generated one.
    pub resource_name: Option<String>,
    /// `useGenerateName`: with `resourceName`, the name is generated from it.
    pub use_generate_name: bool,
}

impl Case {
    /// An `onCreate` case written in Rust: `initial` is created and must be stored as it is
    /// (add [`Case::expect`] or [`Case::expect_error`]).
    ///
    /// ```
    /// use crd_cel::testing::Case;
    /// use serde_json::json;
    ///
    /// let case = Case::on_create("negative replicas", json!({
    ///     "apiVersion": "example.com/v1", "kind": "Widget", "spec": {"replicas": -1}}))
    ///     .expect_error("replicas must not be negative");
    /// assert_eq!(case.expected_error.as_deref(), Some("replicas must not be negative"));
    /// ```
    pub fn on_create(name: impl Into<String>, initial: Json) -> Case {
        Case {
            name: name.into(),
            line: 0,
            kind: CaseKind::OnCreate,
            initial: Object::from(initial),
            updated: None,
            expected: None,
            expected_error: None,
            expected_status_error: None,
            initial_crd_patches: Vec::new(),
            resource_name: None,
            use_generate_name: false,
        }
    }

    /// An `onUpdate` case written in Rust: `initial` is created, then updated to `updated`.
    pub fn on_update(name: impl Into<String>, initial: Json, updated: Json) -> Case {
        Case {
            kind: CaseKind::OnUpdate,
            updated: Some(Object::from(updated)),
            ..Case::on_create(name, initial)
        }
    }

    /// The object as stored at the end (`expected`).
    #[must_use]
    pub fn expect(mut self, stored: Json) -> Case {
        self.expected = Some(Object::from(stored));
        self
    }

    /// A substring of the create's (or the update's) error (`expectedError`).
    #[must_use]
    pub fn expect_error(mut self, substring: impl Into<String>) -> Case {
        self.expected_error = Some(substring.into());
        self
    }

    /// A substring of the status update's error (`expectedStatusError`).
    #[must_use]
    pub fn expect_status_error(mut self, substring: impl Into<String>) -> Case {
        self.expected_status_error = Some(substring.into());
        self
    }

    /// JSON patch operations on the CRD `initial` is created under (`initialCRDPatches`).
    #[must_use]
    pub fn with_crd_patches(mut self, operations: Vec<Json>) -> Case {
        self.initial_crd_patches = operations;
        self
    }
}

impl From<Json> for Object {
    fn from(value: Json) -> Object {
        Object {
            value,
            duplicate_fields: Vec::new(),
        }
    }
}

/// Whether a [`Case`] is an `onCreate` or an `onUpdate` case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseKind {
    /// `tests.onCreate[]`.
    OnCreate,
    /// `tests.onUpdate[]`.
    OnUpdate,
}

impl CaseKind {
    /// The key of the format: `onCreate` or `onUpdate`.
    pub const fn key(self) -> &'static str {
        match self {
            CaseKind::OnCreate => "onCreate",
            CaseKind::OnUpdate => "onUpdate",
        }
    }
}

/// An object of a case (`initial`, `updated`, `expected`): its YAML read as kubectl reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// The object.
    pub value: Json,
    /// Repeated keys (the strict decoding's `duplicate field` errors).
    pub duplicate_fields: Vec<String>,
}

const TOP_KEYS: &[&str] = &[
    "apiVersion",
    "name",
    "crdName",
    "crd",
    "version",
    "featureGates",
    "tests",
];
const CREATE_KEYS: &[&str] = &[
    "name",
    "initial",
    "expected",
    "expectedError",
    "resourceName",
    "useGenerateName",
];
const UPDATE_KEYS: &[&str] = &[
    "name",
    "initial",
    "updated",
    "expected",
    "expectedError",
    "expectedStatusError",
    "initialCRDPatches",
    "resourceName",
    "useGenerateName",
];

impl Suite {
    /// Reads a suite from its YAML `text` (`file` names it in errors).
    ///
    /// ```
    /// use crd_cel::testing::Suite;
    ///
    /// let text = "name: widgets\ncrdName: widgets.example.com\ntests:\n  onCreate:\n  - name: minimal\n    initial: |\n      apiVersion: example.com/v1\n      kind: Widget\n";
    /// let suite = Suite::from_yaml(text, "widgets.testsuite.yaml").unwrap();
    /// assert_eq!(suite.cases[0].line, 5);
    ///
    /// let err = Suite::from_yaml("name: x\ntests: {}\n", "bad.yaml").unwrap_err();
    /// assert_eq!(err.to_string(), "bad.yaml:1: missing required field `crdName` (the metadata.name of the CRD the cases run against)");
    /// ```
    pub fn from_yaml(text: &str, file: &str) -> Result<Suite, SuiteError> {
        let at = |line: usize, message: String| SuiteError {
            file: file.to_owned(),
            line: Some(line),
            message,
        };
        let body = read_yaml(text).map_err(|(line, m)| at(line, m))?;
        let line_of = |path: &str| crate::yaml::line_of(text, 1, path).unwrap_or(1);
        let Json::Object(top) = body.object else {
            return Err(at(
                1,
                "a suite is a YAML mapping (name, crdName, tests)".into(),
            ));
        };
        let mut warnings = Vec::new();
        let mut warn = |(line, message): (usize, String)| warnings.push(at(line, message));
        unknown_keys(&top, TOP_KEYS, "", &line_of).for_each(&mut warn);
        let text_field = |map: &Map<String, Json>,
                          key: &str,
                          path: &str|
         -> Result<Option<String>, SuiteError> {
            match map.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(at(
                    line_of(path),
                    format!("`{path}` must be a string, not {}", kind_of(other)),
                )),
            }
        };
        let crd_name = text_field(&top, "crdName", "crdName")?;
        let crd_file = text_field(&top, "crd", "crd")?;
        let crd_name = match (crd_name, &crd_file) {
            (Some(n), _) if !n.is_empty() => n,
            (_, Some(_)) => String::new(),
            _ => {
                return Err(at(
                    1,
                    "missing required field `crdName` (the metadata.name of the CRD the cases run against)".into(),
                ));
            }
        };
        let feature_gates = match top.get("featureGates") {
            None | Some(Json::Null) => Vec::new(),
            Some(Json::Array(gates)) => gates
                .iter()
                .map(|g| {
                    g.as_str().map(str::to_owned).ok_or_else(|| {
                        at(
                            line_of("featureGates"),
                            "`featureGates` must be a list of strings".into(),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(at(
                    line_of("featureGates"),
                    "`featureGates` must be a list of strings".into(),
                ));
            }
        };
        let mut cases = Vec::new();
        match top.get("tests") {
            None | Some(Json::Null) => {}
            Some(Json::Object(tests)) => {
                unknown_keys(tests, &["onCreate", "onUpdate"], "tests", &line_of)
                    .for_each(&mut warn);
                for kind in [CaseKind::OnCreate, CaseKind::OnUpdate] {
                    let path = format!("tests.{}", kind.key());
                    match tests.get(kind.key()) {
                        None | Some(Json::Null) => {}
                        Some(Json::Array(items)) => {
                            for (i, item) in items.iter().enumerate() {
                                let path = format!("{path}[{i}]");
                                cases.push(read_case(
                                    item, kind, &path, text, &line_of, file, &mut warn,
                                )?);
                            }
                        }
                        Some(other) => {
                            return Err(at(
                                line_of(&path),
                                format!("`{path}` must be a list of cases, not {}", kind_of(other)),
                            ));
                        }
                    }
                }
            }
            Some(other) => {
                return Err(at(
                    line_of("tests"),
                    format!(
                        "`tests` must be a mapping (onCreate, onUpdate), not {}",
                        kind_of(other)
                    ),
                ));
            }
        }
        Ok(Suite {
            file: file.to_owned(),
            name: text_field(&top, "name", "name")?.unwrap_or_default(),
            crd_name,
            crd_file,
            version: text_field(&top, "version", "version")?.filter(|v| !v.is_empty()),
            feature_gates,
            cases,
            warnings,
        })
    }
}

/// One case at `path` (`tests.onCreate[2]`).
fn read_case(
    item: &Json,
    kind: CaseKind,
    path: &str,
    text: &str,
    line_of: &dyn Fn(&str) -> usize,
    file: &str,
    warn: &mut dyn FnMut((usize, String)),
) -> Result<Case, SuiteError> {
    let line = line_of(path);
    let at = |line: usize, message: String| SuiteError {
        file: file.to_owned(),
        line: Some(line),
        message,
    };
    let Json::Object(map) = item else {
        return Err(at(
            line,
            format!("`{path}` must be a mapping (name, initial, ...)"),
        ));
    };
    let keys = match kind {
        CaseKind::OnCreate => CREATE_KEYS,
        CaseKind::OnUpdate => UPDATE_KEYS,
    };
    unknown_keys(map, keys, path, line_of).for_each(warn);
    // A required object missing beside an unknown field is most likely that field misspelt.
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !keys.contains(&k.as_str()))
        .map(|k| format!("`{k}`"))
        .collect();
    let missing = |what: &str| {
        let name = map.get("name").and_then(Json::as_str).unwrap_or_default();
        let mut message = format!("`{path}` ({name:?}) has no `{what}` object");
        if !unknown.is_empty() {
            message.push_str(&format!(
                " (it has {}, which the format does not have)",
                unknown.join(", ")
            ));
        }
        at(line, message)
    };
    let string = |key: &str| -> Result<Option<String>, SuiteError> {
        match map.get(key) {
            None | Some(Json::Null) => Ok(None),
            Some(Json::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(at(
                line_of(&format!("{path}.{key}")),
                format!("`{path}.{key}` must be a string, not {}", kind_of(other)),
            )),
        }
    };
    // An object field: its YAML text read as kubectl reads it, errors at their line in the suite.
    let object = |key: &str| -> Result<Option<Object>, SuiteError> {
        let Some(source) = string(key)?.filter(|s| !s.trim().is_empty()) else {
            return Ok(None);
        };
        let key_line = line_of(&format!("{path}.{key}"));
        let first = first_line_of(text, key_line, &source);
        let body = read_yaml(&source)
            .map_err(|(l, m)| at(first + l - 1, format!("`{path}.{key}`: {m}")))?;
        if !body.object.is_object() {
            return Err(at(
                key_line,
                format!("`{path}.{key}` must be an object (apiVersion, kind, ...)"),
            ));
        }
        Ok(Some(Object {
            value: body.object,
            duplicate_fields: body.duplicate_fields,
        }))
    };
    let name = string("name")?.unwrap_or_default();
    let initial = object("initial")?.ok_or_else(|| missing("initial"))?;
    let updated = object("updated")?;
    if kind == CaseKind::OnUpdate && updated.is_none() {
        return Err(missing("updated"));
    }
    let initial_crd_patches = match map.get("initialCRDPatches") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(ops)) => ops.clone(),
        Some(_) => {
            return Err(at(
                line_of(&format!("{path}.initialCRDPatches")),
                "`initialCRDPatches` must be a list of JSON patch operations (op, path, value)"
                    .into(),
            ));
        }
    };
    for (i, op) in initial_crd_patches.iter().enumerate() {
        super::patch::check(op).map_err(|m| {
            at(
                line_of(&format!("{path}.initialCRDPatches[{i}]")),
                format!("`{path}.initialCRDPatches[{i}]`: {m}"),
            )
        })?;
    }
    let use_generate_name = match map.get("useGenerateName") {
        None | Some(Json::Null) => false,
        Some(Json::Bool(b)) => *b,
        Some(_) => {
            return Err(at(
                line_of(&format!("{path}.useGenerateName")),
                "`useGenerateName` must be true or false".into(),
            ));
        }
    };
    Ok(Case {
        line,
        kind,
        initial,
        updated,
        expected: object("expected")?,
        expected_error: string("expectedError")?.filter(|s| !s.is_empty()),
        expected_status_error: string("expectedStatusError")?.filter(|s| !s.is_empty()),
        initial_crd_patches,
        resource_name: string("resourceName")?.filter(|s| !s.is_empty()),
        use_generate_name,
        name,
    })
}

/// YAML `text` as kubectl reads it, or the line (1-based, in `text`) and message of its error.
fn read_yaml(text: &str) -> Result<Body, (usize, String)> {
    Body::from_yaml(serde_yaml::Deserializer::from_str(text), text).map_err(|e| {
        let line = e.location().map_or(1, |l| l.line());
        (line, format!("YAML: {e}"))
    })
}

/// The suite line of the first line of a block scalar whose key is on `key_line`: the first
/// line after it that holds the scalar's first line.
fn first_line_of(text: &str, key_line: usize, source: &str) -> usize {
    let first = source.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    text.lines()
        .enumerate()
        .skip(key_line.saturating_sub(1))
        .find(|(_, l)| !first.trim().is_empty() && l.trim_end().ends_with(first.trim()))
        .map_or(key_line, |(i, _)| i + 1)
        .saturating_sub(source.lines().take_while(|l| l.trim().is_empty()).count())
}

/// Each key of `map` not in `known`, as a warning at its line: OpenShift API's runner reads
/// suites with Go's YAML decoder, which ignores fields a struct does not have, so a suite with
/// one still runs there (and does here), without them.
fn unknown_keys<'a>(
    map: &'a Map<String, Json>,
    known: &'a [&str],
    path: &'a str,
    line_of: &'a dyn Fn(&str) -> usize,
) -> impl Iterator<Item = (usize, String)> + 'a {
    map.keys()
        .filter(|key| !known.contains(&key.as_str()))
        .map(move |key| {
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            let message = format!(
                "unknown field `{at}` ignored, as the suite runner ignores it; {} has {}",
                if path.is_empty() { "a suite" } else { "this" },
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            (line_of(&at), message)
        })
}

fn kind_of(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "a mapping",
    }
}
