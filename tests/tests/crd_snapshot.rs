//! The example CRD manifest, as YAML, against a snapshot reviewed by hand
//! (`tests/snapshots/webapp-crd.yaml`). Rewrite it with `UPDATE_SNAPSHOTS=1 cargo test` and
//! review the diff: rules at `properties.x`, `items`, `additionalProperties`, list types, keys and
//! bounds.

use crd_cel_examples::WebApp;
use kube::CustomResourceExt;

#[test]
fn webapp_crd_matches_snapshot() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/webapp-crd.yaml");
    let yaml = crd_cel::yaml::to_string(&WebApp::crd()).unwrap();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &yaml).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with UPDATE_SNAPSHOTS=1 to create it",
            path.display()
        )
    });
    assert!(
        yaml == want,
        "the WebApp CRD changed; run UPDATE_SNAPSHOTS=1 cargo test and review the diff"
    );
}

/// Rules land at the nodes they are written on (checked structurally, not only by snapshot).
#[test]
fn rules_land_at_the_right_nodes() {
    let crd = serde_json::to_value(WebApp::crd()).unwrap();
    let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let rules = |node: &serde_json::Value| -> Vec<String> {
        node["x-kubernetes-validations"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| r["rule"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let spec = &root["properties"]["spec"];
    assert_eq!(rules(root), ["self.metadata.name.size() <= 40"]);
    assert_eq!(
        rules(spec),
        ["self.replicas <= 100 || self.tier == 'premium'"]
    );
    assert_eq!(rules(&spec["properties"]["image"]), ["self.contains(':')"]);
    assert_eq!(rules(&spec["properties"]["tier"]), ["self == oldSelf"]);
    assert_eq!(
        rules(&spec["properties"]["labels"]),
        ["self.all(k, k.size() <= 63)"]
    );
    assert_eq!(
        rules(&spec["properties"]["ports"]["items"]),
        ["self.port >= 1 && self.port <= 65535"]
    );
    let ports = &spec["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-list-type"], "map");
    assert_eq!(
        ports["x-kubernetes-list-map-keys"],
        serde_json::json!(["name"])
    );
    assert_eq!(ports["maxItems"], 16);
    let hostnames = &spec["properties"]["hostnames"];
    assert_eq!(hostnames["x-kubernetes-list-type"], "set");
    assert!(hostnames.get("uniqueItems").is_none());
    assert_eq!(spec["properties"]["labels"]["maxProperties"], 64);
    assert_eq!(
        root["properties"]["status"]["properties"]["conditions"]["x-kubernetes-list-map-keys"],
        serde_json::json!(["type"])
    );
    assert_eq!(
        crd["spec"]["versions"][0]["subresources"]["status"],
        serde_json::json!({})
    );
}
