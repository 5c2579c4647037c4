//! Prints the `Workload` CRD as YAML (for `crd-cel check` and the oracle in CI).

use kube::CustomResourceExt;

fn main() {
    let crd = crd_cel_realworld::crd::Workload::crd();
    print!(
        "{}",
        crd_cel::yaml::to_string(&crd).expect("a CRD serializes")
    );
}
