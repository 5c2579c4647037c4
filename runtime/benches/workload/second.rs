//! A second workload beside the anchor, its rules in the shapes the anchor's do not use:
//! optional fields and `has()`, a list literal with `in`, `duration()`, comprehensions that read
//! the enclosing object, `exists_one`, a transition rule on the struct selecting a field of
//! `oldSelf`, `has() != has()` (exactly one of two fields), and `Option` fields on a map list's
//! items. 13 rules: 4 on the spec, 6 on its fields, 3 on each of the 20 stages (one on the
//! item, two on its fields): 70 evaluations on update, 69 on create (the transition rule does
//! not run). Every rule but `size(self) >= 1` fails on [`all_failing`]: 68 errors on create,
//! 69 on update.

use serde_json::{Value, json};

/// The CR written with crd-cel's derive.
pub mod crdcel {
    use crd_cel::CelValidate;
    use kube::CustomResource;
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    /// A pipeline's desired state.
    #[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[kube(
        group = "bench.example.com",
        version = "v1",
        kind = "Pipeline",
        namespaced
    )]
    #[cel(
        rule = "!has(self.maxRetries) || self.maxRetries >= self.minRetries",
        message = "maxRetries must not be below minRetries"
    )]
    #[cel(
        rule = "self.stages.all(s, !has(s.timeoutSeconds) || s.timeoutSeconds <= self.deadlineSeconds)",
        message = "a stage's timeout is within the deadline"
    )]
    #[cel(
        rule = "self.stages.exists_one(s, s.name == 'build')",
        message = "exactly one stage is named build"
    )]
    #[cel(rule = "self.owner == oldSelf.owner", message = "owner is immutable")]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineSpec {
        #[schemars(length(max = 63))]
        #[cel(rule = "self.startsWith('team-')", message = "owner starts with team-")]
        pub owner: String,
        #[schemars(length(max = 16))]
        #[cel(
            rule = "self in ['Blue', 'Green', 'Canary']",
            message = "mode is Blue, Green or Canary"
        )]
        pub mode: String,
        #[schemars(length(max = 32))]
        #[cel(
            rule = "duration(self) >= duration('10s')",
            message = "the interval is at least 10s"
        )]
        pub interval: String,
        #[cel(rule = "self > 0", message = "the deadline is positive")]
        pub deadline_seconds: i64,
        pub min_retries: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_retries: Option<i32>,
        #[cel(list_type = "map", list_map_keys = ["name"], max_items = 32)]
        #[cel(rule = "size(self) >= 1", message = "at least one stage")]
        pub stages: Vec<Stage>,
        #[serde(default)]
        #[cel(max_properties = 32)]
        #[cel(
            rule = "self.all(k, !k.startsWith('internal.'))",
            message = "internal. annotations are reserved"
        )]
        pub annotations: BTreeMap<String, String>,
    }

    /// One stage.
    #[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
    #[cel(
        rule = "has(self.image) != has(self.template)",
        message = "a stage has exactly one of image and template"
    )]
    #[serde(rename_all = "camelCase")]
    pub struct Stage {
        #[schemars(length(max = 63))]
        #[cel(
            rule = "self.matches('^[a-z][-a-z0-9]*$')",
            message = "stage names are lowercase"
        )]
        pub name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 256))]
        pub image: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 63))]
        pub template: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout_seconds: Option<i64>,
        #[serde(default)]
        #[cel(max_items = 8)]
        #[cel(rule = "self.all(d, d != '')", message = "dependencies are named")]
        pub depends_on: Vec<String>,
    }
}

/// The identical CR written for kube-rs 5 (`KubeSchema` with `#[x_kube(validation)]`).
pub mod kubers {
    use kube::{CustomResource, KubeSchema};
    use serde::{Deserialize, Serialize};
    use std::collections::BTreeMap;

    /// A pipeline's desired state.
    #[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug)]
    #[kube(
        group = "bench.example.com",
        version = "v1",
        kind = "Pipeline",
        namespaced,
        cel
    )]
    #[x_kube(validation = Rule::new("!has(self.maxRetries) || self.maxRetries >= self.minRetries")
        .message("maxRetries must not be below minRetries"))]
    #[x_kube(validation = Rule::new("self.stages.all(s, !has(s.timeoutSeconds) || s.timeoutSeconds <= self.deadlineSeconds)")
        .message("a stage's timeout is within the deadline"))]
    #[x_kube(validation = Rule::new("self.stages.exists_one(s, s.name == 'build')")
        .message("exactly one stage is named build"))]
    #[x_kube(validation = Rule::new("self.owner == oldSelf.owner").message("owner is immutable"))]
    #[serde(rename_all = "camelCase")]
    pub struct PipelineSpec {
        #[schemars(length(max = 63))]
        #[x_kube(validation = Rule::new("self.startsWith('team-')").message("owner starts with team-"))]
        pub owner: String,
        #[schemars(length(max = 16))]
        #[x_kube(validation = Rule::new("self in ['Blue', 'Green', 'Canary']")
            .message("mode is Blue, Green or Canary"))]
        pub mode: String,
        #[schemars(length(max = 32))]
        #[x_kube(validation = Rule::new("duration(self) >= duration('10s')")
            .message("the interval is at least 10s"))]
        pub interval: String,
        #[x_kube(validation = Rule::new("self > 0").message("the deadline is positive"))]
        pub deadline_seconds: i64,
        pub min_retries: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub max_retries: Option<i32>,
        #[schemars(length(max = 32))]
        #[x_kube(merge_strategy = ListMerge::Map(vec!["name".into()]))]
        #[x_kube(validation = Rule::new("size(self) >= 1").message("at least one stage"))]
        pub stages: Vec<Stage>,
        #[serde(default)]
        #[schemars(extend("maxProperties" = 32))]
        #[x_kube(validation = Rule::new("self.all(k, !k.startsWith('internal.'))")
            .message("internal. annotations are reserved"))]
        pub annotations: BTreeMap<String, String>,
    }

    /// One stage.
    #[derive(KubeSchema, Serialize, Deserialize, Clone, Debug)]
    #[x_kube(validation = Rule::new("has(self.image) != has(self.template)")
        .message("a stage has exactly one of image and template"))]
    #[serde(rename_all = "camelCase")]
    pub struct Stage {
        #[schemars(length(max = 63))]
        #[x_kube(validation = Rule::new("self.matches('^[a-z][-a-z0-9]*$')")
            .message("stage names are lowercase"))]
        pub name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 256))]
        pub image: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 63))]
        pub template: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub timeout_seconds: Option<i64>,
        #[serde(default)]
        #[schemars(length(max = 8))]
        #[x_kube(validation = Rule::new("self.all(d, d != '')").message("dependencies are named"))]
        pub depends_on: Vec<String>,
    }
}

/// The benchmark object as JSON; `shift` moves every stage's timeout (an update's change).
pub fn object(shift: i64) -> Value {
    let stages: Vec<Value> = (0..20)
        .map(|i| {
            let name = if i == 0 {
                "build".to_owned()
            } else {
                format!("stage-{i}")
            };
            let mut s =
                json!({"name": name, "dependsOn": if i == 0 { vec![] } else { vec!["build"] }});
            if i % 2 == 0 {
                s["image"] = json!("registry.example.com/step:1");
                s["timeoutSeconds"] = json!(60 + shift);
            } else {
                s["template"] = json!("step-template");
            }
            s
        })
        .collect();
    json!({
        "apiVersion": "bench.example.com/v1",
        "kind": "Pipeline",
        "metadata": {"name": "ci", "namespace": "default"},
        "spec": {
            "owner": "team-platform",
            "mode": "Canary",
            "interval": "5m",
            "deadlineSeconds": 3600,
            "minRetries": 1,
            "maxRetries": 3,
            "stages": stages,
            "annotations": {"app": "ci", "tier": "build"},
        }
    })
}

/// An object on which every rule fails at every node (the transition rule against `object(0)`).
pub fn all_failing() -> Value {
    let mut o = object(0);
    let spec = &mut o["spec"];
    spec["owner"] = json!("platform");
    spec["mode"] = json!("Red");
    spec["interval"] = json!("1s");
    spec["deadlineSeconds"] = json!(0);
    spec["minRetries"] = json!(5);
    spec["annotations"] = json!({"internal.x": "y"});
    // Renamed stages correlate with no old item; none is named build, each has both or
    // neither of image and template, a timeout past the deadline and an empty dependency.
    spec["stages"] = Value::Array(
        (0..20)
            .map(|i| {
                let mut s =
                    json!({"name": format!("S{i}"), "dependsOn": [""], "timeoutSeconds": 10});
                if i % 2 == 0 {
                    s["image"] = json!("a");
                    s["template"] = json!("b");
                }
                s
            })
            .collect(),
    );
    o
}
