//! The promise to a user: replace `JsonSchema` with `CelValidate` and the CRD is the same plus
//! the rules, every rule is checked (at build time, or by the generated test when it reads
//! into a type known only by its `JsonSchema`), and `validate()` covers every field.

use crd_cel::CelValidate;
use crd_cel_realworld::{crd, twin};
use kube::CustomResourceExt;
use serde_json::{Value, json};

mod variants;
use variants::{Rng, mutate};

/// `x-kubernetes-validations` removed everywhere: what the twin has.
fn without_rules(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("x-kubernetes-validations");
            m.values_mut().for_each(without_rules);
        }
        Value::Array(a) => a.iter_mut().for_each(without_rules),
        _ => {}
    }
}

/// The spec type's listing with `maxItems` the `#[cel(max_items)]` adds.
fn without_cel_bounds(v: &mut Value) {
    if let Some(env) =
        v.pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/env")
    {
        env.as_object_mut().unwrap().remove("maxItems");
    }
}

#[test]
fn crd_is_the_plain_jsonschema_crd_plus_the_rules() {
    let mut ours = serde_json::to_value(crd::Workload::crd()).unwrap();
    let theirs = serde_json::to_value(twin::Workload::crd()).unwrap();
    let spec = &ours["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["x-kubernetes-validations"][0]["rule"],
        "self.replicas <= 10 || has(self.resources)"
    );
    assert_eq!(
        spec["properties"]["env"]["x-kubernetes-validations"][0]["message"],
        "reserved name"
    );
    assert_eq!(spec["properties"]["env"]["maxItems"], 64);
    // Better than kube alone: an untagged integer-or-string enum is `anyOf` without a type in
    // kube's CRD (its rewriting even leaves `{"format": "int32"}` there), which the apiserver
    // rejects as non-structural; crd-cel writes int-or-string, as k8s-openapi's IntOrString.
    let props = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties";
    let port = ours
        .pointer_mut(props)
        .unwrap()
        .as_object_mut()
        .unwrap()
        .remove("port");
    assert_eq!(
        port.unwrap(),
        json!({
            "description": "A port by number or name (an untagged enum).",
            "nullable": true,
            "x-kubernetes-int-or-string": true,
            "x-kubernetes-validations": [
                {"message": "port must be positive", "rule": "type(self) != int || self > 0"}
            ]
        })
    );
    let mut theirs = theirs;
    let port = theirs
        .pointer_mut(props)
        .unwrap()
        .as_object_mut()
        .unwrap()
        .remove("port");
    assert!(port.unwrap().get("anyOf").is_some());
    // A tuple struct: kube's `items: [..]` is not structural; crd-cel's one item schema is.
    let window = |v: &mut Value| {
        v.pointer_mut(&format!("{props}/window/items"))
            .unwrap()
            .take()
    };
    assert_eq!(
        window(&mut ours),
        // JSONSchemaProps holds bounds as f64.
        json!({"format": "uint8", "maximum": 255.0, "minimum": 0.0, "type": "integer"})
    );
    assert!(window(&mut theirs).is_array());
    // Internally and adjacently tagged enums: kube's own rewriting panics on them (kube-rs
    // issue 1279), so the twin has no schema for them to compare with; crd-cel's is one
    // structural object, the tag a required string enum.
    let spec_props = ours.pointer_mut(props).unwrap().as_object_mut().unwrap();
    let source = spec_props.remove("source").unwrap();
    assert_eq!(source["type"], "object");
    assert_eq!(
        source["properties"]["kind"],
        json!({"type": "string", "enum": ["git", "image"]})
    );
    assert_eq!(source["required"], json!(["kind"]));
    assert!(source.get("oneOf").is_none() && source.get("anyOf").is_none());
    let rollout = spec_props.remove("rollout").unwrap();
    assert_eq!(
        rollout["properties"]["strategy"],
        json!({"type": "string", "enum": ["canary", "blueGreen"]})
    );
    assert_eq!(rollout["properties"]["value"]["type"], "integer");
    assert!(rollout.get("oneOf").is_none());
    without_rules(&mut ours);
    without_cel_bounds(&mut ours);
    assert_eq!(ours, theirs);
}

#[test]
fn crd_passes_the_apiservers_crd_checks() {
    let crd = serde_json::to_value(crd::Workload::crd()).unwrap();
    let report = crd_cel::crd::check_crd(&crd, &crd_cel::crd::Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    // Every rule was compiled there, including those the build left to the generated schema.
    assert_eq!(report.rules.len(), 16, "{:#?}", report.rules);
}

fn object(spec: Value) -> crd::Workload {
    serde_json::from_value(json!({
        "apiVersion": "realworld.example.com/v1",
        "kind": "Workload",
        "metadata": {"name": "w"},
        "spec": spec,
    }))
    .unwrap()
}

fn valid_spec() -> Value {
    json!({
        "replicas": 3,
        "port": "http",
        "window": [9, 17],
        "template": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}},
        "env": [{"name": "LOG", "value": "debug"}],
        "version": "1.2.3",
        "storage": {"volume": {"size": "10Gi"}},
        "paused": false,
        "owner": "team-a",
        "team": "platform",
        "timeout": "30s",
        "notBefore": "2026-01-01T00:00:00Z",
        "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "homepage": "https://example.com/",
        "source": {"kind": "git", "url": "https://example.com/repo.git"},
        "rollout": {"strategy": "canary", "value": 10},
        "resources": {"limits": {"memory": "1Gi"}},
        "podMetadata": {"labels": {"app": "web"}, "annotations": {"a": "b"}},
        "containerResources": {"main": {"limits": {"cpu": "1"}}},
    })
}

#[test]
fn valid_objects_pass() {
    object(valid_spec()).validate().unwrap();
}

fn errors_of(patch: Value) -> String {
    let mut spec = valid_spec();
    for (k, v) in patch.as_object().unwrap() {
        spec[k] = v.clone();
    }
    match object(spec).validate() {
        Ok(()) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn rules_reading_into_k8s_enum_and_hand_written_types_are_enforced() {
    // A rule reading into k8s-openapi's EnvVar.
    let e = errors_of(json!({"env": [{"name": "FORBIDDEN_X"}]}));
    assert!(e.contains("spec.env: Invalid value: reserved name"), "{e}");
    // A root-level rule reading into the pod template.
    let containers: Vec<Value> = (0..6)
        .map(|i| json!({"name": format!("c{i}"), "image": "x"}))
        .collect();
    let e = errors_of(json!({"template": {"spec": {"containers": containers}}}));
    assert!(e.contains("at most 5 containers"), "{e}");
    // A rule on a variant's struct of a data-carrying enum.
    let e = errors_of(json!({"storage": {"volume": {"size": "2Ti"}}}));
    assert!(e.contains("at most 1Ti"), "{e}");
    // A rule on a hand-written JsonSchema type.
    let e = errors_of(json!({"timeout": "30d"}));
    assert!(e.contains("spec.timeout"), "{e}");
    // A rule reading into ResourceRequirements' quantity map.
    let e = errors_of(json!({"resources": {"limits": {"memory": "65Gi"}}}));
    assert!(e.contains("spec.resources: Invalid value: "), "{e}");
    assert!(e.contains("at most 64Gi of memory"), "{e}");
    // A rule reading into an embedded ObjectMeta's labels (not the resource root's metadata).
    let e = errors_of(json!({"podMetadata": {"labels": {"tier": "web"}}}));
    assert!(e.contains("pod metadata needs an app label"), "{e}");
    // A rule on a map keyed by an enum.
    let e = errors_of(json!({"containerResources": {"sidecar": {"requests": {"cpu": "1"}}}}));
    assert!(e.contains("the sidecar needs limits"), "{e}");
    // Rules on internally and adjacently tagged enums.
    let e = errors_of(json!({"source": {"kind": "git", "url": "http://example.com"}}));
    assert!(e.contains("spec.source: Invalid value: "), "{e}");
    assert!(e.contains("git over https"), "{e}");
    assert_eq!(
        errors_of(json!({"source": {"kind": "image", "image": "x"}})),
        ""
    );
    let e = errors_of(json!({"rollout": {"strategy": "blueGreen", "value": 101}}));
    assert!(e.contains("a percentage"), "{e}");
}

#[test]
fn rules_over_modeled_fields_and_schema_bounds_are_enforced() {
    let e = errors_of(json!({"replicas": -1}));
    assert!(e.contains("spec.replicas: Invalid value"), "{e}");
    let e = errors_of(json!({"replicas": 11, "resources": null}));
    assert!(e.contains("more than 10 replicas need resources"), "{e}");
    // `#[validate(length(max = 63))]`, as schemars renders it.
    let e = errors_of(json!({"team": "x".repeat(64)}));
    assert!(e.contains("spec.team: Too long"), "{e}");
    // The hand-written schema's pattern.
    let e = errors_of(json!({"timeout": "5x"}));
    assert!(e.contains("spec.timeout: Invalid value: \"5x\""), "{e}");
    // A chrono field, typed as a timestamp at build time (crd-cel's `chrono` feature).
    let e = errors_of(json!({"notBefore": "1999-01-01T00:00:00Z"}));
    assert!(
        e.contains("spec.notBefore: Invalid value: \"1999-01-01T00:00:00Z\": too early"),
        "{e}"
    );
    let e = errors_of(json!({"port": -1}));
    assert!(e.contains("port must be positive"), "{e}");
    assert_eq!(errors_of(json!({"port": 8080})), "");
    let e = errors_of(json!({"owner": "o".repeat(64)}));
    assert!(e.contains("owner too long"), "{e}");
}

/// The objects CI also gives the oracle (`tests/realworld/objects`): the typed path
/// (`validate`, `validate_update` from `workload.yaml`) and a `Validator` built from the CRD
/// manifest reach the same verdict and errors; `workload.yaml` is the one valid object. An
/// object the Rust types cannot hold (`workload-broken.yaml`'s version `1.2` is no semver) is
/// checked through the manifest alone.
#[test]
fn objects_agree_between_the_types_and_the_manifest() {
    use crd_cel::Validator;
    use crd_cel::validate::Endpoint;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("objects");
    let read = |name: &str| -> Value {
        serde_yaml::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
    };
    let crd = serde_json::to_value(crd::Workload::crd()).unwrap();
    let manifest = Validator::from_crd(&crd, Some("v1")).unwrap();
    let stored_json = read("workload.yaml");
    let stored: crd::Workload = serde_json::from_value(stored_json.clone()).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    assert!(names.len() >= 3, "{names:?}");
    let mut typed_objects = 0;
    for name in names {
        let json = read(&name);
        let typed = serde_json::from_value::<crd::Workload>(json.clone()).ok();
        typed_objects += usize::from(typed.is_some());
        for old in [None, Some((&stored, &stored_json))] {
            let out = manifest.validate_request(&json, old.map(|o| o.1), Endpoint::Resource);
            let theirs = if out.is_valid() {
                Ok(())
            } else {
                Err(out.errors)
            };
            assert_eq!(
                theirs.is_ok(),
                name == "workload.yaml",
                "{name}: {theirs:?}"
            );
            let Some(typed) = &typed else { continue };
            let ours = match old {
                None => typed.validate(),
                Some((o, _)) => typed.validate_update(o),
            };
            assert_eq!(ours, theirs, "{name}, update: {}", old.is_some());
        }
    }
    assert!(typed_objects >= 2, "{typed_objects}");
}

/// The typed path and the manifest path give the same verdict and errors on random variations
/// of the valid object, on create and on update (the type has hand-written `JsonSchema`s: its
/// validator is its generated schema's, whose decoding the fast path must not miss).
#[test]
fn random_objects_agree_between_the_types_and_the_manifest() {
    use crd_cel::Validator;
    use crd_cel::validate::Endpoint;
    let crd = serde_json::to_value(crd::Workload::crd()).unwrap();
    let manifest = Validator::from_crd(&crd, Some("v1")).unwrap();
    let base = serde_json::to_value(object(valid_spec())).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut valid, mut invalid, mut fast) = ([0; 2], [0; 2], [0; 2]);
    let mut previous: Option<(crd::Workload, Value)> = None;
    // Every answer of the derive's code for a rule is checked against the interpreters.
    crd_cel::__private::cross_check_derived(true);
    for case in 0..600 {
        let mut json = base.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(json.pointer_mut("/spec").unwrap(), &mut rng);
        }
        // What the types cannot hold is the manifest's alone; the typed path is compared on
        // what the types write.
        let Ok(typed) = serde_json::from_value::<crd::Workload>(json) else {
            continue;
        };
        let json = serde_json::to_value(&typed).unwrap();
        for (i, old) in [None, previous.as_ref()].into_iter().enumerate() {
            if i == 1 && old.is_none() {
                continue;
            }
            let out = manifest.validate_request(&json, old.map(|o| &o.1), Endpoint::Resource);
            let theirs = if out.is_valid() {
                Ok(())
            } else {
                Err(out.errors)
            };
            let ours = match old {
                None => typed.validate(),
                Some((o, _)) => typed.validate_update(o),
            };
            assert_eq!(
                ours,
                theirs,
                "case {case}, update: {}\n{json:#}",
                old.is_some()
            );
            if theirs.is_ok() {
                valid[i] += 1;
            } else {
                invalid[i] += 1;
            }
            let old = old.map(|o| &o.0);
            fast[i] += usize::from(crd_cel::__private::typed_fast_valid(&typed, old, true));
        }
        previous = Some((typed, json));
    }
    let (derived, disagreements) = crd_cel::__private::cross_check_derived(true);
    assert_eq!(disagreements, Vec::<String>::new());
    eprintln!("{derived} rule results by the derive's code");
    // Both verdicts, on create and on update, or the comparison proves little; and the typed
    // fast path answers for most valid objects (the verdicts agreeing, for no invalid one).
    for i in 0..2 {
        assert!(
            valid[i] >= 30 && invalid[i] >= 30,
            "{valid:?} valid, {invalid:?} invalid"
        );
        assert!(
            fast[i] <= valid[i] && fast[i] * 2 >= valid[i],
            "{fast:?} of {valid:?} valid objects answered by the fast path"
        );
    }
}
