//! Prints the `Database` CRD manifest: `cargo run --bin crdgen > crds/database.yaml`.

use database_operator::Database;
use kube::CustomResourceExt;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Not `serde_yaml::to_string`: kubectl reads YAML 1.1, and this quotes the strings it
    // would take for booleans or numbers (`on`, `no`, `0777`).
    print!("{}", crd_cel::yaml::to_string(&Database::crd())?);
    Ok(())
}
