//! The disagreements between crd-cel and the kube-apiserver these tests found, listed by the
//! requests that show them (`Session::known_difference`). Each is in `README.md`.

/// `validate_update()` on values that do not hold the stored JSON exactly.
pub const TYPED_ROUNDTRIP: &str = "typed validate_update() compares Rust values: the stored \
    rawTemplate `{spec: {}}` read into k8s-openapi's PodTemplateSpec is written back as \
    `{spec: {containers: []}}` in both the new and the old value, so `self == oldSelf` holds \
    for crd-cel; Api<Workload> sends the rewritten value, which the server compares with the \
    stored JSON (`the raw template is immutable`)";

/// Server-side apply of a value of the wrong type.
pub const APPLY_TYPE_ERROR: &str = "server-side apply converts the apply configuration to a \
    typed object before validation: a value of the wrong type fails there (500 `failed to \
    create typed patch object ... expected numeric (int or float), got string`); crd-cel's \
    Validator, given the object the apply would make, answers the schema's 422";
