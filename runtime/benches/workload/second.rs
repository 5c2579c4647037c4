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

/// The second workload's checks written by hand in Rust, as the anchor's are
/// (`handwritten.rs`): the schema's bounds, the map list's unique names, the 13 rules with
/// their messages, the pattern with `regex` compiled once, durations parsed with Go's syntax
/// (crd-cel-core's parser, which a hand-written validator would need too).
pub mod handwritten {
    use super::crdcel::{Pipeline, PipelineSpec};
    use regex::Regex;
    use std::sync::LazyLock;

    static STAGE_NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new("^[a-z][-a-z0-9]*$").expect("valid pattern"));

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    /// Every failure of `p` (an update from `old`), as messages.
    pub fn validate(p: &Pipeline, old: Option<&Pipeline>) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        let mut fail = |ok: bool, message: &dyn Fn() -> String| {
            if !ok {
                errors.push(message());
            }
        };
        let s: &PipelineSpec = &p.spec;
        // The schema.
        fail(chars(&s.owner) <= 63, &|| "owner: too long".into());
        fail(chars(&s.mode) <= 16, &|| "mode: too long".into());
        fail(chars(&s.interval) <= 32, &|| "interval: too long".into());
        fail(s.stages.len() <= 32, &|| "stages: too many".into());
        fail(s.annotations.len() <= 32, &|| {
            "annotations: too many".into()
        });
        for (i, st) in s.stages.iter().enumerate() {
            fail(chars(&st.name) <= 63, &|| "stages[].name: too long".into());
            fail(st.image.as_deref().is_none_or(|x| chars(x) <= 256), &|| {
                "stages[].image: too long".into()
            });
            fail(
                st.template.as_deref().is_none_or(|x| chars(x) <= 63),
                &|| "stages[].template: too long".into(),
            );
            fail(st.depends_on.len() <= 8, &|| {
                "stages[].dependsOn: too many".into()
            });
            fail(!s.stages[..i].iter().any(|q| q.name == st.name), &|| {
                "stages: duplicate name".into()
            });
        }
        // The rules.
        fail(s.max_retries.is_none_or(|m| m >= s.min_retries), &|| {
            "maxRetries must not be below minRetries".into()
        });
        fail(
            s.stages
                .iter()
                .all(|st| st.timeout_seconds.is_none_or(|t| t <= s.deadline_seconds)),
            &|| "a stage's timeout is within the deadline".into(),
        );
        fail(
            s.stages.iter().filter(|st| st.name == "build").count() == 1,
            &|| "exactly one stage is named build".into(),
        );
        if let Some(old) = old {
            fail(s.owner == old.spec.owner, &|| "owner is immutable".into());
        }
        fail(s.owner.starts_with("team-"), &|| {
            "owner starts with team-".into()
        });
        fail(
            ["Blue", "Green", "Canary"].contains(&s.mode.as_str()),
            &|| "mode is Blue, Green or Canary".into(),
        );
        fail(
            crd_cel_core::literals::parse_go_duration(&s.interval)
                .is_some_and(|d| d >= 10_000_000_000),
            &|| "the interval is at least 10s".into(),
        );
        fail(s.deadline_seconds > 0, &|| {
            "the deadline is positive".into()
        });
        fail(!s.stages.is_empty(), &|| "at least one stage".into());
        fail(
            s.annotations.keys().all(|k| !k.starts_with("internal.")),
            &|| "internal. annotations are reserved".into(),
        );
        for st in &s.stages {
            fail(st.image.is_some() != st.template.is_some(), &|| {
                "a stage has exactly one of image and template".into()
            });
            fail(STAGE_NAME.is_match(&st.name), &|| {
                "stage names are lowercase".into()
            });
            fail(st.depends_on.iter().all(|d| !d.is_empty()), &|| {
                "dependencies are named".into()
            });
        }
        match errors.is_empty() {
            true => Ok(()),
            false => Err(errors),
        }
    }
}
