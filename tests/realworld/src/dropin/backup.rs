//! A scheduled backup operator's CRD: a `PodTemplateSpec` with `#[cel(..)]` rules reading into
//! it, `#[serde(flatten)]` of a struct carrying its own rules, `Option<Vec<String>>`,
//! externally tagged enums with newtype and struct variants and a rule on the enum, a
//! hand-written schema (`schema_with`) with a rule, `LabelSelector` and `BTreeMap` labels.

macro_rules! backup {
    ($schema:path, $on:ident) => {
        use k8s_openapi::api::core::v1::PodTemplateSpec;
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, Time};
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};
        use std::collections::BTreeMap;

        /// Backs up selected namespaces on a schedule.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1beta1",
            kind = "BackupJob",
            plural = "backupjobs",
            namespaced,
            status = "BackupJobStatus"
        )]
        #[serde(rename_all = "camelCase")]
        #[cfg_attr($on(), cel(
            rule = "!has(self.jobTemplate.spec) || self.jobTemplate.spec.containers.all(c, has(c.resources) && has(c.resources.limits))",
            message = "every backup container needs resource limits"
        ))]
        #[cfg_attr($on(), cel(
            rule = "!has(self.jobTemplate.spec) || !has(self.jobTemplate.spec.restartPolicy) || self.jobTemplate.spec.restartPolicy != 'Always'",
            message = "backup pods must not restart forever",
            field_path = ".jobTemplate.spec.restartPolicy"
        ))]
        #[cfg_attr($on(), cel(
            rule = "!(has(self.includeNamespaces) && has(self.excludeNamespaces))",
            message = "includeNamespaces and excludeNamespaces are mutually exclusive"
        ))]
        pub struct BackupJobSpec {
            /// A cron schedule (a hand-written schema).
            #[schemars(schema_with = "crate::dropin::cron_schedule")]
            #[cfg_attr($on(), cel(
                rule = "!self.startsWith('@')",
                message = "cron macros are not supported"
            ))]
            pub schedule: String,
            /// How many backups are kept (flattened into the spec).
            #[serde(flatten)]
            pub retention: Retention,
            /// Where backups go.
            pub destination: Destination,
            /// Objects backed up.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub selector: Option<LabelSelector>,
            /// Namespaces backed up.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = 64))]
            pub include_namespaces: Option<Vec<String>>,
            /// Namespaces skipped.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = 64))]
            pub exclude_namespaces: Option<Vec<String>>,
            /// The pod that takes the backup.
            pub job_template: PodTemplateSpec,
            /// Labels of the backups taken.
            #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
            pub labels: BTreeMap<String, String>,
            /// Pause the schedule.
            #[serde(default)]
            pub suspend: bool,
        }

        /// Retention, flattened into the spec.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct Retention {
            /// The newest backups kept.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[cfg_attr($on(), cel(rule = "self >= 1", message = "keep at least one backup"))]
            pub keep_last: Option<i32>,
            /// Daily backups kept.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(range(min = 0, max = 366))]
            pub keep_daily: Option<i32>,
            /// Weekly backups kept.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub keep_weekly: Option<i32>,
        }

        /// Where backups go (externally tagged, newtype and struct variants).
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[cfg_attr($on(), cel(
            rule = "!has(self.s3) || self.s3.bucket.size() >= 3",
            message = "bucket names are at least 3 characters"
        ))]
        pub enum Destination {
            /// An S3 bucket.
            S3 {
                /// The bucket.
                bucket: String,
                /// Its region.
                region: String,
                /// A non-AWS endpoint.
                #[serde(default, skip_serializing_if = "Option::is_none")]
                endpoint: Option<String>,
            },
            /// A GCS bucket.
            Gcs {
                /// The bucket.
                bucket: String,
            },
            /// A volume claim.
            Volume(VolumeDestination),
        }

        /// A volume destination.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct VolumeDestination {
            /// The claim.
            pub claim_name: String,
            /// A directory in it.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[cfg_attr($on(), cel(rule = "!self.startsWith('/')", message = "subPath is relative"))]
            pub sub_path: Option<String>,
        }

        /// Phases.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BackupPhase {
            /// Waiting.
            Pending,
            /// Running.
            Running,
            /// Done.
            Completed,
            /// Failed.
            Failed,
        }

        /// What the operator observed.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct BackupJobStatus {
            /// The phase.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub phase: Option<BackupPhase>,
            /// The last backup.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub last_backup_time: Option<Time>,
            /// The backups kept.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub backups: Option<Vec<String>>,
            /// Standard conditions, keyed by type.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
            pub conditions: Vec<Condition>,
        }
    };
}

/// The types with `CelValidate` and the `#[cel(..)]` rules.
pub mod celvalidate {
    backup!(crd_cel::CelValidate, all);
}

/// The same types with `JsonSchema`, as upstream writes them (no `#[cel(..)]` rules).
pub mod jsonschema {
    backup!(schemars::JsonSchema, any);
}
