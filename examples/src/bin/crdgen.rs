//! Prints the `WebApp` CRD manifest as YAML: `cargo run -p crd-cel-examples --bin crdgen`.

use crd_cel_examples::WebApp;
use kube::CustomResourceExt;

fn main() {
    match crd_cel::yaml::to_string(&WebApp::crd()) {
        Ok(yaml) => print!("{yaml}"),
        Err(e) => {
            eprintln!("crdgen: cannot render the CRD as YAML: {e}");
            std::process::exit(1);
        }
    }
}
