//! Shared helpers of crd-cel's cross-crate tests.

use schemars::JsonSchema;

/// The JSON schema of `T` exactly as kube's `CustomResource` generates CRD schemas (OpenAPI v3,
/// subschemas inlined, kube's structural transforms).
pub fn kube_schema<T: JsonSchema>() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .with_transform(schemars::transform::AddNullable::default())
        .with_transform(kube::core::schema::StructuralSchemaRewriter)
        .with_transform(kube::core::schema::OptionalEnum)
        .with_transform(kube::core::schema::OptionalIntOrString)
        .into_generator();
    serde_json::to_value(generator.into_root_schema_for::<T>()).expect("schemas serialize")
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
