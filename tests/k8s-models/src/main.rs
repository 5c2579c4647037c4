//! Generates crd-cel-core's `CelSchema` models of the k8s-openapi types.
//!
//! `dump FILE`: writes the schemas of every type of the enabled Kubernetes version (as
//! k8s-openapi's build picks it, e.g. with `K8S_OPENAPI_ENABLED_VERSION=1.33`) under kube's CRD
//! settings, inlined and with `$ref`s, to FILE. `emit DIR CORE_DIR TEST_FILE`: reads the dumps
//! of every version from DIR and writes the Rust models and the comparison test.
//! `generate.sh` runs both for k8s-openapi's versions.

mod emit;

use schemars::JsonSchema;
use serde_json::{Value, json};

/// A generator with kube's CRD settings (as `crd_cel_tests::kube_schema`), subschemas inlined
/// or not.
fn generator(inline: bool) -> schemars::SchemaGenerator {
    schemars::generate::SchemaSettings::openapi3()
        .with(|s| {
            s.inline_subschemas = inline;
            s.meta_schema = None;
        })
        .with_transform(schemars::transform::AddNullable::default())
        .with_transform(kube::core::schema::StructuralSchemaRewriter)
        .with_transform(kube::core::schema::OptionalEnum)
        .with_transform(kube::core::schema::OptionalIntOrString)
        .into_generator()
}

fn schemas<T: JsonSchema>(path: &str, generic: bool) -> Value {
    let inline = serde_json::to_value(generator(true).into_root_schema_for::<T>()).unwrap();
    let refs = serde_json::to_value(generator(false).into_root_schema_for::<T>()).unwrap();
    json!({
        "path": path,
        "schemaName": T::schema_name(),
        "generic": generic,
        "inline": inline,
        "refs": refs,
    })
}

macro_rules! types {
    ($($kind:ident $path:literal => $ty:ty,)*) => {
        /// Every type of the enabled version with its schemas.
        fn all() -> Vec<Value> {
            vec![$(schemas::<$ty>($path, types!(@generic $kind))),*]
        }
    };
    (@generic plain) => { false };
    (@generic generic) => { true };
}

include!(concat!(env!("OUT_DIR"), "/types.rs"));

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["dump", file] => {
            let types = all();
            let out = json!({ "minor": MINOR, "types": types });
            std::fs::write(file, serde_json::to_string(&out).unwrap()).unwrap();
            eprintln!("1.{MINOR}: {} types written to {file}", types.len());
        }
        ["emit", dir, core_dir, test_file] => emit::run(dir, core_dir, test_file),
        _ => {
            eprintln!("usage: crd-cel-k8s-models dump FILE | emit DUMP_DIR CORE_K8S_DIR TEST_FILE");
            std::process::exit(2);
        }
    }
}
