//! Number bounds as the apiserver (kube-openapi) compares and prints them, on the cases of
//! `tests/validate/number-bounds`: `expected.tsv` is what the oracle printed for each (`.ci/run`
//! compares crd-cel with the live oracle on the same files).

use crd_cel::validate::{Endpoint, Validator};
use serde_json::Value;
use std::path::Path;

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn bounds_compare_and_print_as_kube_openapi_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("validate/number-bounds");
    let v = Validator::from_crd(&yaml(&dir.join("crd.yaml")), None).unwrap();
    let expected = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    let mut checked = 0;
    for line in expected.lines() {
        let (file, want) = line.split_once('\t').unwrap();
        let object = yaml(&dir.join(file));
        let out = v.validate_request(&object, None, Endpoint::Resource);
        let mut errors = out.errors.clone();
        // The oracle's order: stable by field.
        errors.errors.sort_by(|a, b| a.path.cmp(&b.path));
        let got = if errors.is_empty() {
            String::new()
        } else {
            errors.status_message("Num", "example.com", "num")
        };
        assert_eq!(got, want, "{file}");
        checked += 1;
    }
    assert_eq!(checked, 15, "every case of expected.tsv");
}
