//! Objects for the tests.

use crd_cel::validate::Body;
use crd_cel_e2e::Subject;
use serde_json::{Value, json};

/// A file of the workspace read as kubectl reads YAML (`Body::from_yaml`: YAML 1.1 scalars).
pub fn yaml(path: &str) -> Value {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../..")
        .join(path);
    let text = std::fs::read_to_string(&full)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", full.display()));
    Body::from_yaml(serde_yaml::Deserializer::from_str(&text), &text)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .object
}

/// An object of the subject's kind named `name` with `spec`.
pub fn object(subject: &Subject, name: &str, spec: &Value) -> Value {
    json!({
        "apiVersion": subject.api_version(),
        "kind": subject.kind(),
        "metadata": {"name": name},
        "spec": spec,
    })
}

/// `base` with `patch`'s top-level keys replaced (`null` removes one).
pub fn with(base: &Value, patch: Value) -> Value {
    let mut v = base.clone();
    for (k, x) in patch.as_object().expect("a patch is an object") {
        if x.is_null() {
            v.as_object_mut().expect("an object").remove(k);
        } else {
            v[k] = x.clone();
        }
    }
    v
}

/// `base` with the value at the JSON pointer replaced (`null` removes it).
pub fn at(base: &Value, pointer: &str, value: Value) -> Value {
    let mut v = base.clone();
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    match (v.pointer_mut(parent).expect("the parent exists"), value) {
        (Value::Object(m), Value::Null) => drop(m.remove(key)),
        (Value::Object(m), x) => drop(m.insert(key.to_owned(), x)),
        (Value::Array(a), x) => a[key.parse::<usize>().expect("an index")] = x,
        _ => panic!("{pointer}"),
    }
    v
}
