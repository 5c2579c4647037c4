//! Checking a CRD upgrade: the new CRD as an update of the one in the cluster, the stored
//! objects it would reject, and ratcheting of those objects across the change.
//!
//! `cargo run -p crd-cel-examples --example crd_upgrade`
//!
//! A new release of an operator applies its CRD over the one in the cluster. Two questions:
//! does the apiserver accept the new CRD as an update of the stored one, and what happens to
//! the objects already stored? They stay as they are, but their next write is judged by the new
//! CRD, where ratcheting forgives only what the write leaves unchanged. The command line does
//! the same: `crd-cel check --old OLD_CRD NEW_CRD --objects STORED/` and
//! `crd-cel validate --old-crd OLD_CRD --crd NEW_CRD --old STORED UPDATED`.

use crd_cel::Validator;
use crd_cel::crd::{Options, check_crd_update};
use crd_cel::validate::Endpoint;
use kube::CustomResourceExt;
use serde_json::{Value, json};

/// The release in the cluster.
mod release_1_4 {
    use crd_cel::CelValidate;
    use kube::CustomResource;
    use serde::{Deserialize, Serialize};

    /// A web site.
    #[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[kube(group = "web.example.com", version = "v1", kind = "Site", namespaced)]
    pub struct SiteSpec {
        /// The host name.
        #[schemars(length(max = 253))]
        pub host: String,
        /// Pods.
        pub replicas: i32,
    }
}

/// The release being rolled out: two new rules.
mod release_1_5 {
    use crd_cel::CelValidate;
    use kube::CustomResource;
    use serde::{Deserialize, Serialize};

    /// A web site.
    #[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[kube(group = "web.example.com", version = "v1", kind = "Site", namespaced)]
    pub struct SiteSpec {
        /// The host name: now a single DNS label.
        #[cel(
            rule = "!format.dns1123Label().validate(self).hasValue()",
            message = "host must be a DNS label"
        )]
        #[schemars(length(max = 253))]
        pub host: String,
        /// Pods: now at most 10.
        #[cel(rule = "self <= 10", message = "at most 10 replicas")]
        pub replicas: i32,
    }
}

/// A Site as `kubectl get site NAME -o yaml` exports it from the cluster.
fn site(name: &str, host: &str, replicas: i32) -> Value {
    json!({
        "apiVersion": "web.example.com/v1", "kind": "Site",
        "metadata": {"name": name, "namespace": "default", "resourceVersion": "42"},
        "spec": {"host": host, "replicas": replicas},
    })
}

fn main() {
    let old_crd = serde_json::to_value(release_1_4::Site::crd()).expect("serializes");
    let new_crd = serde_json::to_value(release_1_5::Site::crd()).expect("serializes");

    // 1. The new CRD as an update of the stored one (`crd-cel check --old OLD NEW`).
    let report = check_crd_update(&new_crd, &old_crd, &Options::default()).expect("two CRDs");
    println!(
        "1.5's CRD over 1.4's: {}",
        if report.accepted() {
            "accepted"
        } else {
            "refused"
        }
    );
    assert!(report.accepted(), "{}", report.text());

    // A CRD that no build checked (a rule added by hand, or by a kustomize patch) is refused
    // as the apiserver refuses it, before it reaches a cluster.
    let mut patched = new_crd.clone();
    patched["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.replicas <= self.maxReplicas"}]);
    let refused = check_crd_update(&patched, &old_crd, &Options::default()).expect("two CRDs");
    println!("a hand-patched CRD: {}", refused.text());
    assert!(!refused.accepted());
    assert!(
        refused.text().contains("undefined field 'maxReplicas'"),
        "{}",
        refused.text()
    );

    // 2. The stored objects the new CRD rejects (`crd-cel check ... --objects STORED/`): each
    //    is validated as a create under both CRDs.
    let before = Validator::from_crd(&old_crd, None).expect("a CRD");
    let after = Validator::from_crd(&new_crd, None).expect("a CRD");
    let stored = [
        site("shop", "shop", 3),
        site("blog", "blog.example.com", 3),
        site("search", "search", 20),
    ];
    let mut newly_rejected = Vec::new();
    for exported in &stored {
        let name = exported["metadata"]["name"].as_str().unwrap_or_default();
        // Validated as a create, without the metadata the server set: the apiserver refuses a
        // create that carries `metadata.resourceVersion` (under either CRD).
        let mut object = exported.clone();
        object["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("resourceVersion");
        assert!(
            before
                .validate_request(&object, None, Endpoint::Resource)
                .is_valid()
        );
        let out = after.validate_request(&object, None, Endpoint::Resource);
        if !out.is_valid() {
            let text = out.errors.status_message("Site", "web.example.com", name);
            println!("stored {name}: accepted by 1.4, rejected by 1.5: {text}");
            newly_rejected.push(text);
        }
    }
    assert_eq!(
        newly_rejected,
        [
            "Site.web.example.com \"blog\" is invalid: spec.host: Invalid value: \
             \"blog.example.com\": host must be a DNS label",
            "Site.web.example.com \"search\" is invalid: spec.replicas: Invalid value: 20: \
             at most 10 replicas",
        ]
    );

    // 3. After the upgrade, `blog` is updated (`crd-cel validate --old-crd OLD --crd NEW
    //    --old STORED UPDATED`). The stored object is read as the old CRD stored it (pruned and
    //    defaulted by it), then the update is validated under the new CRD. Ratcheting: the
    //    host was not changed, so its error is only a warning.
    let (stored_blog, _) = before.decode(&stored[1]);
    let scaled = site("blog", "blog.example.com", 4);
    let out = after.validate_request(&scaled, Some(&stored_blog), Endpoint::Resource);
    println!(
        "update blog to 4 replicas: valid: {}, warnings: {:?}",
        out.is_valid(),
        out.warnings
    );
    assert!(out.is_valid(), "{}", out.errors);
    assert_eq!(
        out.warnings,
        ["spec.host: Invalid value: \"blog.example.com\": host must be a DNS label"]
    );
    // Changing the host is judged in full.
    let renamed = site("blog", "www.blog.example.com", 3);
    let out = after.validate_request(&renamed, Some(&stored_blog), Endpoint::Resource);
    let text = out.errors.status_message("Site", "web.example.com", "blog");
    println!("update blog's host: {text}");
    assert_eq!(
        text,
        "Site.web.example.com \"blog\" is invalid: spec.host: Invalid value: \
         \"www.blog.example.com\": host must be a DNS label"
    );
    println!("crd_upgrade: every verdict is as expected");
}
