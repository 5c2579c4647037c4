//! Swapping `JsonSchema` (or kube's `KubeSchema`) for `CelValidate` on code as real operators
//! write it: every form below compiles with the upstream derive, and must compile, produce the
//! same CRD plus the rules, and have every rule checked with `CelValidate`.
#![allow(unnameable_test_items)]

use crd_cel::CelValidate;
use kube::CustomResourceExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::num::NonZeroU16;

/// The schema of a type as kube's `CustomResource` generates it.
fn schema<T: JsonSchema>() -> Value {
    crd_cel::schema::generate::<T>()
}

// schemars' JSON-literal `extend`, on a field and on the container, next to `#[cel(..)]`.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "self.min <= self.max", "message": "min must not exceed max"},
    {"rule": "self.min >= 0", "reason": "FieldValueForbidden", "fieldPath": ".min"},
]))]
#[cel(rule = "self.max < 100")]
struct Range {
    min: i32,
    max: i32,
    #[schemars(extend("x-kubernetes-validations" = [{"rule": "self.size() > 0", "messageExpression": "'name is empty'"}]))]
    name: String,
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["name"],
        "maxItems" = 8,
        "description" = "the ports"
    ))]
    ports: Vec<Port>,
}

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.port > 0", message = "port must be positive")]
struct Port {
    name: String,
    port: i32,
}

#[derive(JsonSchema, Serialize, Deserialize)]
struct Untouched {
    #[schemars(extend("x-kubernetes-validations" = [{"rule": "self.port > 0"}]))]
    port: Port,
}

#[test]
fn json_literal_extend_rules_are_in_the_schema_once_and_enforced() {
    let s = schema::<Range>();
    assert_eq!(
        s["x-kubernetes-validations"],
        json!([
            {"rule": "self.min <= self.max", "message": "min must not exceed max"},
            {"rule": "self.min >= 0", "reason": "FieldValueForbidden", "fieldPath": ".min"},
            {"rule": "self.max < 100"},
        ])
    );
    assert_eq!(
        s["properties"]["name"]["x-kubernetes-validations"],
        json!([{"rule": "self.size() > 0", "messageExpression": "'name is empty'"}])
    );
    let ports = &s["properties"]["ports"];
    assert_eq!(ports["x-kubernetes-list-type"], "map");
    assert_eq!(ports["x-kubernetes-list-map-keys"], json!(["name"]));
    assert_eq!(ports["maxItems"], 8);
    assert_eq!(ports["description"], "the ports");
    // The item type's own rule is still there (the extend is on the list, not its items).
    assert_eq!(
        ports["items"]["x-kubernetes-validations"],
        json!([{"rule": "self.port > 0", "message": "port must be positive"}])
    );
    let ok = Range {
        min: 1,
        max: 2,
        name: "a".into(),
        ports: vec![],
    };
    ok.validate().unwrap();
    let bad = Range {
        min: -3,
        max: -4,
        name: String::new(),
        ports: vec![
            Port {
                name: "a".into(),
                port: 1,
            },
            Port {
                name: "a".into(),
                port: 0,
            },
        ],
    };
    let e = bad.validate().unwrap_err().to_string();
    for want in [
        "<nil>: Invalid value: min must not exceed max",
        "min: Forbidden: failed rule: self.min >= 0",
        "name: Invalid value: \"\": name is empty",
        "ports[1]: Duplicate value",
        "ports[1]: Invalid value: port must be positive",
    ] {
        assert!(e.contains(want), "missing {want:?} in {e}");
    }
}

// An extend on a field replaces the rules of the field's type, as schemars' extend replaces
// the key; the model follows (the generated test proves it against the schema).
#[test]
fn a_field_extend_replaces_the_type_rules_as_schemars_does() {
    #[derive(CelValidate, Serialize, Deserialize)]
    struct Holder {
        #[schemars(extend("x-kubernetes-validations" = [{"rule": "self.port < 10"}]))]
        port: Port,
    }
    // schemars replaces the key: the item type's own rule is gone upstream too.
    let upstream = schema::<Untouched>();
    assert_eq!(
        upstream["properties"]["port"]["x-kubernetes-validations"],
        json!([{"rule": "self.port > 0"}])
    );
    assert_eq!(
        schema::<Holder>()["properties"]["port"]["x-kubernetes-validations"],
        json!([{"rule": "self.port < 10"}])
    );
    crd_cel::crd::check_type::<Holder>(&Default::default()).unwrap();
    let e = Holder {
        port: Port {
            name: "a".into(),
            port: 0,
        },
    }
    .validate();
    assert!(e.is_ok(), "the replaced rule (port > 0) still ran: {e:?}");
    let e = Holder {
        port: Port {
            name: "a".into(),
            port: 11,
        },
    }
    .validate()
    .unwrap_err()
    .to_string();
    assert!(e.contains("failed rule: self.port < 10"), "{e}");
}

// A container-level extend on a kube spec struct.
#[derive(kube::CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "dropin.example.com",
    version = "v1",
    kind = "Cache",
    namespaced
)]
#[schemars(extend("x-kubernetes-validations" = [{"rule": "self.replicas <= 5", "message": "at most 5"}]))]
struct CacheSpec {
    replicas: i32,
}

#[test]
fn a_spec_with_a_container_extend_is_a_spec() {
    let crd = serde_json::to_value(Cache::crd()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(
        spec["x-kubernetes-validations"],
        json!([{"rule": "self.replicas <= 5", "message": "at most 5"}])
    );
    let e = Cache::new("c", CacheSpec { replicas: 6 })
        .validate()
        .unwrap_err();
    assert_eq!(e.to_string(), "spec: Invalid value: at most 5");
}

// Every form of kube-core's `Rule` a `KubeSchema` type may write.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[x_kube(validation = ("self.a <= self.b", "a must not exceed b"))]
#[x_kube(validation = Rule::new("self.b < 1000").reason(Reason::FieldValueForbidden).message(Message::Message("b too big".into())).field_path(".b"))]
#[x_kube(validation = Rule { rule: "self.a >= 0".into(), message: Some("a is negative".into()), ..Default::default() })]
struct Kubeish {
    a: i32,
    b: i32,
    #[x_kube(validation = Rule::new("oldSelf.optMap(o, o == self).orValue(true)").optional_old_self(true).message("immutable"))]
    tier: String,
}

#[test]
fn kube_rule_forms_are_read_and_enforced() {
    let s = schema::<Kubeish>();
    assert_eq!(
        s["x-kubernetes-validations"],
        json!([
            {"rule": "self.a <= self.b", "message": "a must not exceed b"},
            {"rule": "self.b < 1000", "message": "b too big", "fieldPath": ".b", "reason": "FieldValueForbidden"},
            {"rule": "self.a >= 0", "message": "a is negative"},
        ])
    );
    assert_eq!(
        s["properties"]["tier"]["x-kubernetes-validations"],
        json!([{"rule": "oldSelf.optMap(o, o == self).orValue(true)", "message": "immutable", "optionalOldSelf": true}])
    );
    let old = Kubeish {
        a: 1,
        b: 2,
        tier: "gold".into(),
    };
    old.validate().unwrap();
    let new = Kubeish {
        a: 5000,
        b: 2000,
        tier: "silver".into(),
    };
    let e = new.validate_update(&old).unwrap_err().to_string();
    for want in [
        "<nil>: Invalid value: a must not exceed b",
        "b: Forbidden: b too big",
        "tier: Invalid value: \"silver\": immutable",
    ] {
        assert!(e.contains(want), "missing {want:?} in {e}");
    }
    let e = Kubeish { a: -5, ..old }.validate().unwrap_err().to_string();
    assert_eq!(e, "<nil>: Invalid value: a is negative");
}

// `#[x_kube(cel)]`: the `validate_cel` kube's `KubeSchema` generates, with kube's error type.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[x_kube(cel, validation = "self.max >= self.min")]
struct Window {
    min: i32,
    max: i32,
}

#[test]
fn x_kube_cel_generates_validate_cel_with_kube_errors() {
    let ok = json!({"min": 1, "max": 5});
    assert!(Window::validate_cel(&ok, None).is_ok());
    let bad = json!({"min": 5, "max": 1});
    let errors: kube::core::cel::ValidationErrors = Window::validate_cel(&bad, None).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].message, "failed rule: self.max >= self.min");
    assert_eq!(errors[0].reason.as_deref(), Some("FieldValueInvalid"));
}

// Defaults schemars writes only as running code decides: the node is read from the schema.
fn some_port() -> Option<i32> {
    Some(8080)
}
fn is_default_port(p: &Option<i32>) -> bool {
    *p == Some(80)
}
fn no_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "x-kubernetes-preserve-unknown-fields": true})
}

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "!has(self.port) || self.port > 0")]
#[serde(rename_all = "camelCase")]
struct Defaults {
    #[serde(default = "some_port", skip_serializing_if = "is_default_port")]
    port: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[schemars(schema_with = "no_schema", default)]
    raw: Option<String>,
}

#[test]
fn defaults_and_required_follow_schemars() {
    let s = schema::<Defaults>();
    assert_eq!(s["properties"]["port"]["default"], 8080);
    assert!(s["properties"]["name"].get("default").is_none());
    assert!(
        s.get("required").is_none(),
        "{}",
        s.get("required").unwrap_or(&Value::Null)
    );
    // The build's model and the schema agree, so the generated test has nothing to report.
    crd_cel::__private::assert_rules::<Defaults>(false);
    let d = Defaults {
        port: Some(1),
        name: None,
        raw: Some("x".into()),
    };
    d.validate().unwrap();
    let e = Defaults {
        port: Some(-1),
        ..d
    }
    .validate()
    .unwrap_err();
    assert!(e.to_string().contains("failed rule"), "{e}");
}

// Untagged enums of scalar newtypes: what they mean to the apiserver.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
enum PortRef {
    Number(NonZeroU16),
    Name(String),
}

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
enum Address {
    V4(std::net::Ipv4Addr),
    V6(std::net::Ipv6Addr),
}

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct Endpoint {
    port: PortRef,
    address: Address,
}

#[test]
fn untagged_scalar_enums_are_int_or_string_or_string() {
    let s = schema::<Endpoint>();
    assert_eq!(
        s["properties"]["port"],
        json!({"x-kubernetes-int-or-string": true})
    );
    assert_eq!(s["properties"]["address"]["type"], "string");
    assert!(
        s["properties"]["address"]
            .get("x-kubernetes-preserve-unknown-fields")
            .is_none()
    );
    let e = Endpoint {
        port: PortRef::Number(NonZeroU16::new(80).unwrap()),
        address: Address::V4(std::net::Ipv4Addr::LOCALHOST),
    };
    e.validate().unwrap();
    crd_cel_tests::assert_cli_accepts_type::<Endpoint>();
}

// A rule into a type known only by its JsonSchema, rejected by the generated test with the
// build's hints.
#[test]
fn rules_into_json_schema_only_types_get_the_build_hints() {
    #[derive(JsonSchema, Serialize, Deserialize)]
    struct Container {
        image: String,
    }
    #[derive(CelValidate, Serialize, Deserialize)]
    struct Pod {
        #[cel(rule = "self.imgae != ''")]
        container: Container,
    }
    let r = crd_cel::crd::check_type::<Pod>(&Default::default()).unwrap();
    assert!(!r.accepted());
    let help = r.errors[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("did you mean 'image'?"), "{help:?}");
    let panic =
        std::panic::catch_unwind(|| crd_cel::__private::assert_rules::<Pod>(false)).unwrap_err();
    let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(text.contains("undefined field 'imgae'"), "{text}");
    assert!(text.contains("did you mean 'image'?"), "{text}");
}

// A model that disagrees with the schema the type generates (a crd-cel bug, simulated here with
// hand-written impls) never changes a verdict: validation uses the generated schema.
#[test]
fn a_model_that_disagrees_with_the_schema_is_not_validated_against() {
    use crd_cel::model::{CelSchema, Property, Schema, Type};
    #[derive(Serialize)]
    struct Liar {
        size: i64,
    }
    impl CelSchema for Liar {
        // Says `size` has no bounds and no rules.
        const MODEL: Schema<'static> = Schema {
            properties: &[Property {
                name: "size",
                required: true,
                schema: &Schema::of(Type::Integer),
            }],
            ..Schema::of(Type::Object)
        };
    }
    impl JsonSchema for Liar {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Liar".into()
        }
        fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::json_schema!({
                "type": "object",
                "required": ["size"],
                "properties": {"size": {"type": "integer", "maximum": 10}},
                "x-kubernetes-validations": [{"rule": "self.size != 5", "message": "not five"}],
            })
        }
    }
    impl CelValidate for Liar {
        fn validate(&self) -> Result<(), crd_cel::validate::ValidationErrors> {
            crd_cel::__private::validate(self, "Liar", crd_cel::__private::ViewRef::Opaque)
        }
        fn validate_update(&self, old: &Self) -> Result<(), crd_cel::validate::ValidationErrors> {
            let views = (
                crd_cel::__private::ViewRef::Opaque,
                crd_cel::__private::ViewRef::Opaque,
            );
            crd_cel::__private::validate_update(self, old, "Liar", views)
        }
    }
    assert!(
        !crd_cel::__private::model_disagreement::<Liar>(false)
            .unwrap()
            .is_empty()
    );
    Liar { size: 3 }.validate().unwrap();
    let e = Liar { size: 5 }.validate().unwrap_err().to_string();
    assert_eq!(e, "<nil>: Invalid value: not five");
    let e = Liar { size: 11 }.validate().unwrap_err().to_string();
    assert!(
        e.contains("size: Invalid value: 11: size in body should be less than or equal to 10"),
        "{e}"
    );
}

// What the model-vs-schemars differential (tests/difftypes) found, one case each: the CRD is
// upstream's and the build's model describes it (the generated tests of these types run under
// CRD_CEL_STRICT_MODEL=1 in this workspace, so a model difference fails them).
mod found_by_difftypes {
    use super::*;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    /// The same type derived both ways.
    macro_rules! twin {
        ($name:ident { $($body:tt)* }) => {
            pub mod $name {
                #![allow(dead_code)]
                use super::*;
                pub mod cel {
                    use super::*;
                    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
                    pub struct T { $($body)* }
                }
                pub mod js {
                    use super::*;
                    #[derive(JsonSchema, Serialize, Deserialize, Clone, Debug)]
                    pub struct T { $($body)* }
                }
            }
        };
    }

    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug, Default)]
    #[serde(transparent)]
    pub struct MaybeName {
        pub inner: Option<String>,
    }

    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[cel(rule = "self.a >= 0")]
    pub struct First {
        pub a: i32,
    }

    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[cel(rule = "self.b >= 0")]
    pub struct Second {
        pub b: i32,
    }

    twin!(int_or_string {
        // kube's OptionalIntOrString: not required, so nullable.
        #[serde(default)]
        pub port: IntOrString,
        // An Option of one in a list is not nullable.
        pub ports: Vec<Option<IntOrString>>,
        // schemars leaves an optional `true` schema as it is.
        pub raw: Option<serde_json::Value>,
        // A transparent newtype of an Option is optional.
        pub maybe: MaybeName,
        // An extend's bound is applied after length(..).
        #[schemars(length(max = 16))]
        #[schemars(extend("maxItems" = 32))]
        pub names: Vec<String>,
    });

    #[test]
    fn each_finding_gives_upstreams_schema() {
        let ours = schema::<int_or_string::cel::T>();
        let theirs = schema::<int_or_string::js::T>();
        assert_eq!(ours, theirs);
        assert_eq!(ours["properties"]["port"]["nullable"], true);
        assert!(
            ours["properties"]["ports"]["items"]
                .get("nullable")
                .is_none()
        );
        assert!(ours["properties"]["raw"].get("nullable").is_none());
        assert_eq!(ours["properties"]["names"]["maxItems"], 32);
        let required = ours["required"].as_array().unwrap();
        assert!(!required.contains(&json!("maybe")), "{required:?}");
        assert!(!required.contains(&json!("port")), "{required:?}");
        crd_cel::__private::assert_rules::<int_or_string::cel::T>(false);
        assert!(
            crd_cel::__private::model_disagreement::<int_or_string::cel::T>(false)
                .unwrap()
                .is_empty()
        );
    }

    // schemars copies only the first flattened struct's rules into the object.
    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
    pub struct Flattened {
        #[serde(flatten)]
        pub first: First,
        #[serde(flatten)]
        pub second: Second,
    }

    #[test]
    fn only_the_first_flattened_structs_rules_reach_the_object() {
        let s = schema::<Flattened>();
        assert_eq!(
            s["x-kubernetes-validations"],
            json!([{"rule": "self.a >= 0"}])
        );
        assert!(
            crd_cel::__private::model_disagreement::<Flattened>(false)
                .unwrap()
                .is_empty()
        );
        // Validation follows the CRD the apiserver gets: `b`'s rule is not in it.
        let v = Flattened {
            first: First { a: 1 },
            second: Second { b: -1 },
        };
        v.validate().unwrap();
        let v = Flattened {
            first: First { a: -1 },
            second: Second { b: 1 },
        };
        assert!(v.validate().is_err());
    }
}

/// Sets as kube 5's `CustomResource` writes them (its schema transform drops schemars'
/// `uniqueItems` and says nothing: a set of objects cannot be a `set` list), and as a set when
/// `#[cel(list_type = "set")]` says so.
mod sets {
    use super::*;
    use std::collections::{BTreeSet, HashSet};

    /// An item of a set.
    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub struct Selector {
        /// The key.
        pub key: String,
    }

    /// With `CelValidate`.
    #[derive(kube::CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[kube(group = "example.com", version = "v1", kind = "Bag", namespaced)]
    pub struct BagSpec {
        /// Strings.
        pub names: BTreeSet<String>,
        /// Numbers.
        pub ids: HashSet<i64>,
        /// Objects.
        pub selectors: BTreeSet<Selector>,
        /// A set the apiserver enforces.
        #[cel(list_type = "set")]
        pub tags: BTreeSet<String>,
    }

    /// An item of a set.
    #[derive(JsonSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
    pub struct UpSelector {
        /// The key.
        pub key: String,
    }

    /// With `JsonSchema`, as upstream writes it.
    #[derive(kube::CustomResource, JsonSchema, Serialize, Deserialize, Clone, Debug)]
    #[kube(group = "example.com", version = "v1", kind = "UpBag", namespaced)]
    pub struct UpBagSpec {
        /// Strings.
        pub names: BTreeSet<String>,
        /// Numbers.
        pub ids: HashSet<i64>,
        /// Objects.
        pub selectors: BTreeSet<UpSelector>,
    }

    #[test]
    fn sets_are_plain_lists_as_kube_writes_them() {
        let ours = serde_json::to_value(Bag::crd()).unwrap();
        let theirs = serde_json::to_value(UpBag::crd()).unwrap();
        let spec = |crd: &Value| {
            crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"].clone()
        };
        let (ours, theirs) = (spec(&ours), spec(&theirs));
        for field in ["names", "ids", "selectors"] {
            assert_eq!(ours[field], theirs[field], "{field}");
            assert!(
                ours[field].get("x-kubernetes-list-type").is_none(),
                "{field}"
            );
            assert!(ours[field].get("uniqueItems").is_none(), "{field}");
        }
        assert_eq!(ours["tags"]["x-kubernetes-list-type"], "set");
        // A duplicate is refused only where the schema says set.
        let v =
            crd_cel::Validator::from_crd(&serde_json::to_value(Bag::crd()).unwrap(), None).unwrap();
        let object = |names: Value, tags: Value| {
            json!({"apiVersion": "example.com/v1", "kind": "Bag",
                   "metadata": {"name": "b", "namespace": "default"},
                   "spec": {"names": names, "ids": [], "selectors": [], "tags": tags}})
        };
        let errors = |o: &Value| {
            v.validate_request(o, None, crd_cel::validate::Endpoint::Resource)
                .errors
                .to_string()
        };
        assert_eq!(errors(&object(json!(["a", "a"]), json!([]))), "");
        assert_eq!(
            errors(&object(json!([]), json!(["a", "a"]))),
            "spec.tags[1]: Duplicate value: \"a\""
        );
    }
}
