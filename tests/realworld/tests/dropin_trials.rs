//! Shapes found by trying the derive on public kube-rs projects' CRD modules
//! (`tests/realworld/DROPIN-TRIALS.md`): each CRD is upstream's plus the `#[cel(..)]` rules, the
//! build's model describes the generated schema, and objects validate as the apiserver would.

use crd_cel::CelValidate;
use crd_cel::crd::{Options, check_crd};
use crd_cel::validate::Validator;
use crd_cel_realworld::dropin::{pipeline, platform, route};
use kube::CustomResourceExt;
use serde_json::{Value, json};

fn crd_of<T: CustomResourceExt>() -> Value {
    serde_json::to_value(T::crd()).unwrap()
}

/// `x-kubernetes-validations` removed everywhere.
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

/// The typed path's and the CRD manifest's verdict on `object`, which must agree.
fn verdict<T: CelValidate + serde::de::DeserializeOwned>(crd: &Value, object: Value) -> String {
    let typed: T = serde_json::from_value(object.clone()).unwrap();
    let ours = typed.validate();
    let out = Validator::from_crd(crd, None).unwrap().validate_request(
        &object,
        None,
        crd_cel::validate::Endpoint::Resource,
    );
    assert_eq!(
        ours,
        out.is_valid().then_some(()).ok_or(out.errors),
        "{object}"
    );
    ours.err().map(|e| e.to_string()).unwrap_or_default()
}

#[test]
fn a_flattened_option_requires_none_of_its_properties() {
    type R = route::celvalidate::Route;
    assert!(
        crd_cel::__private::model_disagreement::<R>(false)
            .unwrap()
            .is_empty()
    );
    let mut ours = crd_of::<R>();
    let report = check_crd(&ours, &Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    assert_eq!(report.rules.len(), 1);
    let item = ours
        .pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/rules/items/properties/backendRefs/items")
        .unwrap()
        .clone();
    assert!(item.get("required").is_none(), "{item}");
    assert_eq!(item["properties"]["name"]["type"], "string");
    let crd = ours.clone();
    without_rules(&mut ours);
    assert_eq!(ours, crd_of::<route::jsonschema::Route>());

    let object = |backend: Value| {
        json!({
            "apiVersion": "dropin.example.com/v1",
            "kind": "Route",
            "metadata": {"name": "r"},
            "spec": {"rules": [{"backendRefs": [backend]}]},
        })
    };
    // A filter-only backend entry: no name, and none is required.
    assert_eq!(verdict::<R>(&crd, object(json!({"filters": ["log"]}))), "");
    assert_eq!(
        verdict::<R>(
            &crd,
            object(json!({"name": "web", "port": 80, "weight": 1}))
        ),
        ""
    );
    // A port without a name: the rule sees the merged properties. (Through the Rust type the
    // object is another one: serde reads a flattened `Option` that fails as `None`.)
    let out = Validator::from_crd(&crd, None).unwrap().validate_request(
        &object(json!({"port": 80})),
        None,
        crd_cel::validate::Endpoint::Resource,
    );
    assert_eq!(
        out.errors.to_string(),
        "spec.rules[0].backendRefs: Invalid value: a backend port needs a backend name"
    );
}

/// The same types derived both ways.
mod shapes {
    macro_rules! shapes {
        ($schema:path) => {
            use kube::CustomResource;
            use serde::{Deserialize, Serialize};

            /// A spec that is an enum: kube makes the `spec` property the enum's schema.
            #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
            #[kube(group = "dropin.example.com", version = "v1", kind = "Source")]
            #[serde(rename_all = "camelCase")]
            pub enum SourceSpec {
                /// A git repository.
                Git { url: String, branch: Option<String> },
                /// An OCI artifact.
                Oci(String),
            }

            /// A unit enum with only some variants documented: schemars lists the others
            /// first.
            #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
            #[kube(group = "dropin.example.com", version = "v1", kind = "Tier")]
            pub struct TierSpec {
                pub tier: Level,
            }

            /// kube's `no_spec`: the fields sit at the root of the object, beside `status`.
            #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
            #[kube(
                group = "dropin.example.com",
                version = "v1",
                kind = "Bucket",
                no_spec,
                status = "BucketStatus"
            )]
            pub struct BucketFields {
                pub name: String,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub region: Option<String>,
            }

            #[derive($schema, Serialize, Deserialize, Clone, Debug)]
            pub struct BucketStatus {
                pub ready: bool,
            }

            #[derive($schema, Serialize, Deserialize, Clone, Debug)]
            pub enum Level {
                /// The cheapest.
                Bronze,
                Silver,
                /// The most expensive.
                #[serde(rename = "gold")]
                Gold,
                Platinum,
            }
        };
    }

    pub mod celvalidate {
        shapes!(crd_cel::CelValidate);
    }

    pub mod jsonschema {
        shapes!(schemars::JsonSchema);
    }
}

#[test]
fn an_enum_spec_is_upstreams() {
    use shapes::{celvalidate, jsonschema};
    assert_eq!(
        crd_of::<celvalidate::Source>(),
        crd_of::<jsonschema::Source>()
    );
    assert!(
        crd_cel::__private::model_disagreement::<celvalidate::Source>(false)
            .unwrap()
            .is_empty()
    );
    let spec = celvalidate::SourceSpec::Oci("oci://registry/app".into());
    spec.validate().unwrap();
}

#[test]
fn unit_variants_without_docs_come_first_as_schemars_lists_them() {
    use shapes::{celvalidate, jsonschema};
    let ours = crd_of::<celvalidate::Tier>();
    assert_eq!(ours, crd_of::<jsonschema::Tier>());
    assert_eq!(
        ours.pointer(
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/tier/enum"
        )
        .unwrap(),
        &json!(["Silver", "Platinum", "Bronze", "gold"])
    );
    assert!(
        crd_cel::__private::model_disagreement::<celvalidate::Tier>(false)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_no_spec_root_is_described_by_the_model() {
    use shapes::{celvalidate, jsonschema};
    assert_eq!(
        crd_of::<celvalidate::Bucket>(),
        crd_of::<jsonschema::Bucket>()
    );
    assert_eq!(
        crd_cel::__private::model_disagreement::<celvalidate::Bucket>(true).unwrap(),
        Vec::<String>::new()
    );
}

/// Operator libraries' "commons" shapes (the `platform` shape): a generic struct flattening a
/// parameter that defaults to `()`, used through another generic struct; a type without
/// `Serialize`; validator's `regex(path = "NAME")`. Each built (the first three did not), and
/// the CRD is upstream's plus the rule.
#[test]
fn commons_shapes_build_and_keep_upstreams_crd() {
    use platform::{celvalidate, jsonschema};
    type W = celvalidate::Warehouse;
    let mut ours = crd_of::<W>();
    let crd = ours.clone();
    without_rules(&mut ours);
    assert_eq!(ours, crd_of::<jsonschema::Warehouse>());
    let report = check_crd(&crd, &Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    assert_eq!(report.rules.len(), 1);
    assert_eq!(
        crd_cel::__private::model_disagreement::<W>(true).unwrap(),
        Vec::<String>::new()
    );
    for disagreement in [
        crd_cel::__private::model_disagreement::<celvalidate::ClientDetails>(false),
        crd_cel::__private::model_disagreement::<
            celvalidate::ClientDetails<celvalidate::ProductOidcExtras>,
        >(false),
        crd_cel::__private::model_disagreement::<celvalidate::OidcOptions>(false),
    ] {
        assert_eq!(disagreement.unwrap(), Vec::<String>::new());
    }
    // The flattened `()` adds nothing; the product's struct adds its field.
    let spec = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties";
    let oidc = |field: &str| {
        crd.pointer(&format!("{spec}/{field}/items/properties/oidc/properties"))
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(oidc("clients"), ["clientCredentialsSecret", "extraScopes"]);
    assert_eq!(
        oidc("productClients"),
        ["clientCredentialsSecret", "extraScopes", "prompt"]
    );
    // `Bounds<u16>` has a model; `Bounds<NonZeroI32>` (no model for the argument) has
    // schemars' schema and an unknown model, as any type known only by its schema.
    use crd_cel::CelSchema;
    let model = <celvalidate::WarehouseSpec as CelSchema>::MODEL;
    let ty = |name: &str| model.property(name).unwrap().schema.ty;
    assert_eq!(ty("workers"), crd_cel::model::Type::Object);
    assert_eq!(ty("replicas"), crd_cel::model::Type::Unknown);
    // The type without `Serialize` has upstream's schema (and no `validate`).
    assert_eq!(
        serde_json::to_value(schemars::schema_for!(celvalidate::ResolvedImage)).unwrap(),
        serde_json::to_value(schemars::schema_for!(jsonschema::ResolvedImage)).unwrap()
    );
}

/// `#[validate(regex(path = "NAME"))]` names a regex: schemars writes the regex `NAME` holds,
/// and the derive read the string itself as the pattern, so `validate()` (built from the model)
/// rejected every valid release.
#[test]
fn a_validator_regex_path_is_the_regex_it_names() {
    type W = platform::celvalidate::Warehouse;
    let crd = crd_of::<W>();
    let pattern = crd
        .pointer(
            "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/release/pattern",
        )
        .unwrap();
    assert_eq!(pattern, platform::RELEASE_VERSION);
    let object = |release: &str| {
        json!({
            "apiVersion": "dropin.example.com/v1",
            "kind": "Warehouse",
            "metadata": {"name": "w"},
            "spec": {
                "image": {"productVersion": "4.1.0"},
                "productClients": [{"authenticationClass": "oidc", "oidc": {"clientCredentialsSecret": "s", "prompt": "login"}}],
                "release": release,
            },
        })
    };
    assert_eq!(verdict::<W>(&crd, object("4.1.0")), "");
    assert_eq!(
        verdict::<W>(&crd, object("latest")),
        format!(
            "spec.release: Invalid value: \"latest\": spec.release in body should match '{}'",
            platform::RELEASE_VERSION
        )
    );
    let mut empty_prompt = object("4.1.0");
    empty_prompt["spec"]["productClients"][0]["oidc"]["prompt"] = json!("");
    assert_eq!(
        verdict::<W>(&crd, empty_prompt),
        "spec.productClients: Invalid value: a prompt is not empty"
    );
}

/// A generic task (the `pipeline` shape): `#[schemars(bound = "Spec: Default + JsonSchema")]`
/// did not build (the derive's `JsonSchema` bounded the parameter by its own bounds, not the
/// shadow's), its default `Map<String, Value>` had no model, and once it had one the model
/// said the `#[serde(default)]` spec had a `default`, which schemars writes only where it can
/// serialize the parameter.
#[test]
fn a_generic_tasks_bounds_and_defaults_are_schemars() {
    use pipeline::{celvalidate, jsonschema};
    type P = celvalidate::PipelineCrd;
    let mut ours = crd_of::<P>();
    let crd = ours.clone();
    without_rules(&mut ours);
    assert_eq!(ours, crd_of::<jsonschema::PipelineCrd>());
    let report = check_crd(&crd, &Options::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    assert_eq!(
        crd_cel::__private::model_disagreement::<P>(true).unwrap(),
        Vec::<String>::new()
    );
    for disagreement in [
        crd_cel::__private::model_disagreement::<celvalidate::Task>(false),
        crd_cel::__private::model_disagreement::<celvalidate::Task<celvalidate::Step>>(false),
    ] {
        assert_eq!(disagreement.unwrap(), Vec::<String>::new());
    }
    let spec = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties";
    for list in ["tasks", "steps"] {
        let task_spec = crd
            .pointer(&format!("{spec}/{list}/items/properties/spec"))
            .unwrap();
        assert!(task_spec.get("default").is_none(), "{task_spec}");
    }
    let object = |name: &str| {
        json!({
            "apiVersion": "dropin.example.com/v1",
            "kind": "Pipeline",
            "metadata": {"name": "p"},
            "spec": {
                "tasks": [{"name": name, "kind": "fetch", "spec": {"url": "https://example.com"}}],
                "steps": [{"name": "build", "kind": "exec", "spec": {"command": "make"}}],
            },
        })
    };
    assert_eq!(verdict::<P>(&crd, object("get")), "");
    assert_eq!(
        verdict::<P>(&crd, object("Get")),
        "spec.tasks[0].name: Invalid value: \"Get\": spec.tasks[0].name in body should match '^[a-z][a-z0-9-]*$'"
    );
    assert_eq!(
        verdict::<P>(&crd, object("fetch")),
        "spec.tasks: Invalid value: a task is not named after its kind"
    );
}
