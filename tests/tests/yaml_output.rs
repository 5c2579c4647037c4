//! `crd_cel::yaml::to_string` writes YAML that kubectl (YAML 1.1, read here as the validator
//! reads YAML: `Body::from_yaml`) and a YAML 1.2 reader (`serde_yaml`) both read back as the
//! value written, whatever the strings hold.

use crd_cel::validate::Body;
use crd_cel_tests::yaml_pieces::{PIECES, pairs};
use proptest::prelude::*;
use serde_json::{Value as Json, json};

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..6).prop_map(|p| p.concat())
}

fn value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        text().prop_map(Json::String),
        any::<i64>().prop_map(Json::from),
        (-1e6f64..1e6).prop_map(Json::from),
        any::<bool>().prop_map(Json::Bool),
        Just(Json::Null),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Json::Array),
            prop::collection::btree_map(text(), inner, 0..5)
                .prop_map(|m| Json::Object(m.into_iter().collect())),
        ]
    })
}

/// The value as the apiserver receives it from kubectl: a whole float arrives as an integer.
fn as_kubectl_sends(v: &Json) -> Json {
    match v {
        Json::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or_default();
            // Go's encoding/json writes a whole float under 1e21 without a fraction, and the
            // apiserver decodes it as an integer when it fits an int64.
            if f.fract() == 0.0 && f.abs() < 1e21 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
                json!(f as i64)
            } else {
                v.clone()
            }
        }
        Json::Array(items) => Json::Array(items.iter().map(as_kubectl_sends).collect()),
        Json::Object(m) => Json::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), as_kubectl_sends(v)))
                .collect(),
        ),
        _ => v.clone(),
    }
}

fn read_as_kubectl(text: &str) -> Json {
    Body::from_yaml(serde_yaml::Deserializer::from_str(text), text)
        .unwrap_or_else(|e| panic!("kubectl's reading failed: {e}\n{text}"))
        .object
}

fn read_as_yaml_1_2(text: &str) -> Json {
    serde_yaml::from_str(text).unwrap_or_else(|e| panic!("YAML 1.2 reading failed: {e}\n{text}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn written_yaml_reads_back_as_the_value(v in value()) {
        let text = crd_cel::yaml::to_string(&v).unwrap();
        prop_assert_eq!(read_as_yaml_1_2(&text), v.clone(), "{}", text);
        prop_assert_eq!(read_as_kubectl(&text), as_kubectl_sends(&v), "{}", text);
    }
}

/// Every pair of pieces, as a key at the root (where `...` and `---` end a document), as a
/// value, in a list and in a nested map (`.ci/run` has Go's `sigs.k8s.io/yaml` read the same).
#[test]
fn every_pair_of_pieces_reads_back() {
    let v = pairs();
    let text = crd_cel::yaml::to_string(&v).unwrap();
    assert_eq!(read_as_yaml_1_2(&text), v);
    assert_eq!(read_as_kubectl(&text), v);
}

/// The example CRD printed with it reaches the apiserver as the CRD itself.
#[test]
fn the_example_crd_reads_back_as_itself() {
    use kube::CustomResourceExt;
    let crd = serde_json::to_value(crd_cel_examples::WebApp::crd()).unwrap();
    let text = crd_cel::yaml::to_string(&crd).unwrap();
    assert_eq!(read_as_kubectl(&text), as_kubectl_sends(&crd));
}
