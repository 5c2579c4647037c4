//! A UI task pipeline: a generic task whose free-form spec defaults to
//! `serde_json::Map<String, Value>`, with `#[schemars(bound = "Spec: Default + JsonSchema")]`
//! (schemars needs `Default` for the `#[serde(default)]` spec) and `#[serde(bound = ..)]`,
//! garde's `#[garde(length, pattern, skip)]` attributes, a kube `root = ".."` name, and the task
//! instantiated with the default and with a typed step.

macro_rules! pipeline {
    ($schema:path, $on:ident) => {
        use kube::CustomResource;
        use serde::{Deserialize, Serialize, de::DeserializeOwned};
        use serde_json::{Map, Value};

        /// A pipeline of tasks.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1",
            kind = "Pipeline",
            root = "PipelineCrd",
            namespaced
        )]
        #[serde(rename_all = "camelCase")]
        pub struct PipelineSpec {
            /// Free-form tasks, in order.
            #[serde(default)]
            #[cfg_attr(
                $on(),
                cel(
                    rule = "self.all(t, t.name != t.kind)",
                    message = "a task is not named after its kind"
                )
            )]
            pub tasks: Vec<Task>,
            /// Typed tasks.
            #[serde(default)]
            pub steps: Vec<Task<Step>>,
        }

        /// One task, generic over its spec.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[schemars(bound = "Spec: Default + schemars::JsonSchema")]
        #[serde(
            bound = "Spec: Default + Serialize + DeserializeOwned",
            rename_all = "camelCase"
        )]
        pub struct Task<Spec = Map<String, Value>> {
            /// The task's name.
            #[garde(length(min = 1, max = 63), pattern("^[a-z][a-z0-9-]*$"))]
            pub name: String,
            /// What runs it.
            #[garde(length(min = 1, max = 63))]
            pub kind: String,
            /// Its settings (schemars writes no `default`: it cannot serialize a `Spec` there).
            #[garde(skip)]
            #[serde(default)]
            pub spec: Spec,
        }

        /// A typed step.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        pub struct Step {
            /// The command.
            pub command: Option<String>,
        }
    };
}

/// The types with `CelValidate` and the `#[cel(..)]` rule.
pub mod celvalidate {
    pipeline!(crd_cel::CelValidate, all);
}

/// The same types with `JsonSchema`, as upstream writes them (no `#[cel(..)]` rule).
pub mod jsonschema {
    pipeline!(schemars::JsonSchema, any);
}
