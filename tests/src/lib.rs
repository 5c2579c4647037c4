//! Shared helpers of crd-cel's cross-crate tests.

use schemars::JsonSchema;

/// The JSON schema of `T` exactly as kube's `CustomResource` generates CRD schemas (OpenAPI v3,
/// subschemas inlined, kube's structural transforms).
pub fn kube_schema<T: JsonSchema>() -> serde_json::Value {
    crd_cel::schema::generate::<T>()
}

/// The path of `../shared` (read-only test data beside the checkout), or `None` with a message
/// on stderr saying which test is skipped.
pub fn shared_dir(what: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED {what}: {} is missing (the shared test data sits beside the checkout)",
            dir.display()
        );
        None
    }
}

pub mod mirror;
