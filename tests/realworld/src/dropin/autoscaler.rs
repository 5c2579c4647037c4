//! A horizontal autoscaler operator's CRD: optional fields whose serde default is `Some(..)`
//! (so schemars writes it as the schema's `default`), `#[schemars(schema_with = .., default)]`
//! on an `Option`, externally tagged enums with `rename_all_fields`, `LabelSelector`,
//! `Quantity`, the scale subresource written as a list, a list type written as two `extend`s
//! next to `length`, and `#[cel(..)]` rules reading into the enum's variants.

macro_rules! autoscaler {
    ($schema:path, $on:ident) => {
        use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, Time};
        use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};

        /// Scales a workload on metrics.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v2",
            kind = "Autoscaler",
            namespaced,
            status = "AutoscalerStatus",
            scale(
                spec_replicas_path = ".spec.maxReplicas",
                status_replicas_path = ".status.currentReplicas"
            ),
            printcolumn = r#"{"name":"Max","type":"integer","jsonPath":".spec.maxReplicas"}"#
        )]
        #[serde(rename_all = "camelCase")]
        #[cfg_attr($on(), cel(
            rule = "!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",
            message = "minReplicas must not exceed maxReplicas"
        ))]
        pub struct AutoscalerSpec {
            /// The workload scaled.
            pub scale_target_ref: ScaleTargetRef,
            /// The lower bound (defaults to 1: an `Option` whose default is `Some`).
            #[serde(
                default = "default_min_replicas",
                skip_serializing_if = "Option::is_none"
            )]
            #[schemars(range(min = 0))]
            pub min_replicas: Option<i32>,
            /// The upper bound.
            #[schemars(range(min = 1, max = 1000))]
            pub max_replicas: i32,
            /// What is measured.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(length(max = 10))]
            #[cfg_attr($on(), cel(
                rule = "self.all(m, !has(m.resource) || m.resource.name in ['cpu', 'memory'])",
                message = "resource metrics are cpu or memory"
            ))]
            pub metrics: Vec<Metric>,
            /// How fast it scales (a default of `Some(struct)`).
            #[serde(default = "default_behavior", skip_serializing_if = "Option::is_none")]
            pub behavior: Option<Behavior>,
            /// How many pods one scale-down may remove: a count or a percentage, with a
            /// hand-written schema and a schemars-only default.
            #[schemars(schema_with = "crate::dropin::int_or_percent", default)]
            #[cfg_attr($on(), cel(
                rule = "type(self) == int ? self >= 0 : self.endsWith('%')",
                message = "a count or a percentage"
            ))]
            pub scale_down_limit: Option<IntOrString>,
            /// Pods counted.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub selector: Option<LabelSelector>,
        }

        fn default_min_replicas() -> Option<i32> {
            Some(1)
        }

        fn default_behavior() -> Option<Behavior> {
            Some(Behavior {
                scale_up: None,
                scale_down: Some(ScalingRules {
                    stabilization_window_seconds: Some(300),
                    select_policy: None,
                }),
            })
        }

        /// The workload scaled.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct ScaleTargetRef {
            /// Its API version.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub api_version: Option<String>,
            /// Its kind.
            pub kind: String,
            /// Its name.
            pub name: String,
        }

        /// A metric (externally tagged: newtype and struct variants).
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
        pub enum Metric {
            /// A resource of the pods.
            Resource(ResourceMetric),
            /// A per-pod custom metric.
            Pods(PodsMetric),
            /// A metric from outside the cluster.
            External {
                /// Its name.
                metric_name: String,
                /// The target.
                target: MetricTarget,
                /// Which series.
                #[serde(default, skip_serializing_if = "Option::is_none")]
                selector: Option<LabelSelector>,
            },
        }

        /// A resource metric.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct ResourceMetric {
            /// `cpu` or `memory`.
            pub name: String,
            /// The target.
            pub target: MetricTarget,
        }

        /// A per-pod metric.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct PodsMetric {
            /// Its name.
            pub metric_name: String,
            /// The target.
            pub target: MetricTarget,
        }

        /// The value a metric is kept at.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[cfg_attr($on(), cel(
            rule = "self.type != 'Utilization' || has(self.averageUtilization)",
            message = "Utilization targets need averageUtilization"
        ))]
        #[cfg_attr($on(), cel(
            rule = "!has(self.averageValue) || quantity(self.averageValue).isGreaterThan(quantity('0'))",
            message = "averageValue must be positive",
            field_path = ".averageValue"
        ))]
        pub struct MetricTarget {
            /// What is compared.
            #[serde(rename = "type")]
            pub target_type: TargetType,
            /// Percent of the request.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(range(min = 1, max = 100))]
            pub average_utilization: Option<i32>,
            /// A total.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub value: Option<Quantity>,
            /// A per-pod average.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub average_value: Option<Quantity>,
        }

        /// Target types.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        pub enum TargetType {
            /// Percent of requests.
            Utilization,
            /// A total value.
            Value,
            /// A per-pod value.
            AverageValue,
        }

        /// Scaling behaviour.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct Behavior {
            /// Up.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub scale_up: Option<ScalingRules>,
            /// Down.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub scale_down: Option<ScalingRules>,
        }

        /// One direction's rules.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct ScalingRules {
            /// Seconds of history considered.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(range(min = 0, max = 3600))]
            pub stabilization_window_seconds: Option<i32>,
            /// Which policy wins.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub select_policy: Option<SelectPolicy>,
        }

        /// Policy selection.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        pub enum SelectPolicy {
            /// The largest change.
            Max,
            /// The smallest change.
            Min,
            /// No scaling in this direction.
            Disabled,
        }

        /// What the operator observed.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct AutoscalerStatus {
            /// Replicas now.
            #[serde(default)]
            pub current_replicas: i32,
            /// Replicas wanted.
            #[serde(default)]
            pub desired_replicas: i32,
            /// When it last scaled.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub last_scale_time: Option<Time>,
            /// Standard conditions, keyed by type.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(
                length(max = 16),
                extend("x-kubernetes-list-type" = "map"),
                extend("x-kubernetes-list-map-keys" = ["type"])
            )]
            pub conditions: Vec<Condition>,
        }
    };
}

/// The types with `CelValidate` and the `#[cel(..)]` rules.
pub mod celvalidate {
    autoscaler!(crd_cel::CelValidate, all);
}

/// The same types with `JsonSchema`, as upstream writes them (no `#[cel(..)]` rules).
pub mod jsonschema {
    autoscaler!(schemars::JsonSchema, any);
}
