// Types the derive has no model for compile: their schema is what schemars generates, rules
// that read into them are checked against it by the generated test (`cargo test`) and by
// `validate()`, and rules that do not read into them keep their build-time checks.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct NotDerived {
    a: i32,
}

fn any_object(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

#[derive(CelValidate, Serialize, Deserialize)]
enum Source {
    Git { url: String },
    Local {},
}

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(tag = "kind")]
enum Tagged {
    A { a: i32 },
    B { b: String },
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Pair(i32, String);

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(default)]
#[cel(rule = "self.inner.a > 0 || self.n > 0")]
struct Spec {
    #[cel(rule = "self.a >= 0")]
    inner: NotDerived,
    optional: Option<NotDerived>,
    source: Source,
    #[cel(rule = "has(self.a) || has(self.b)")]
    tagged: Option<Tagged>,
    #[schemars(schema_with = "any_object")]
    template: NotDerived,
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    items: Vec<String>,
    #[validate(length(min = 1, max = 8))]
    #[garde(pattern(r"^[a-z]+$"))]
    name: String,
    n: i64,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            inner: NotDerived { a: 1 },
            optional: None,
            source: Source::Local {},
            tagged: None,
            template: NotDerived { a: 1 },
            items: Vec::new(),
            name: "a".into(),
            n: 0,
        }
    }
}

fn main() {
    // The derive and `crd-cel check` agree: the generated schema passes the apiserver's
    // CRD-creation checks, through the library and through the command line.
    let report = crd_cel::crd::check_type::<Spec>(&Default::default()).unwrap();
    assert!(report.accepted(), "{}", report.text());
    crd_cel_tests::assert_cli_accepts_type::<Spec>();
    let _ = Pair(1, String::new());
}
