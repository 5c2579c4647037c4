//! A PostgreSQL cluster operator's CRD. Every rule is written as upstream writes it without
//! crd-cel, `#[schemars(extend("x-kubernetes-validations" = [..]))]` on the spec, on a nested
//! struct and on fields; list types as `extend("x-kubernetes-list-type" = "map", ..)`. Both
//! copies carry the same rules, so their CRDs should be identical.

macro_rules! database {
    ($schema:path) => {
        use k8s_openapi::api::core::v1::ResourceRequirements;
        use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};
        use std::collections::BTreeMap;

        /// A PostgreSQL cluster.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1",
            kind = "Database",
            namespaced,
            status = "DatabaseStatus",
            shortname = "db",
            printcolumn = r#"{"name":"Instances","type":"integer","jsonPath":".spec.instances"}"#,
            printcolumn = r#"{"name":"Phase","type":"string","jsonPath":".status.phase"}"#
        )]
        #[schemars(extend("x-kubernetes-validations" = [
            {
                "rule": "!self.highAvailability || self.instances >= 3",
                "message": "high availability needs at least 3 instances"
            },
            {
                "rule": "!has(self.bootstrap) || !has(self.bootstrap.recovery) || self.bootstrap.recovery.source != self.clusterName",
                "message": "a cluster cannot recover from itself",
                "fieldPath": ".bootstrap.recovery.source",
                "reason": "FieldValueForbidden"
            }
        ]))]
        #[serde(rename_all = "camelCase")]
        pub struct DatabaseSpec {
            /// The name the cluster has inside PostgreSQL (immutable).
            #[schemars(extend("x-kubernetes-validations" = [{"message": "clusterName is immutable", "rule": "self == oldSelf"}]))]
            pub cluster_name: String,
            /// PostgreSQL major version; upgrades only.
            #[schemars(range(min = 13, max = 18))]
            #[schemars(extend("x-kubernetes-validations" = [
                {"rule": "self >= oldSelf", "message": "postgresVersion cannot be downgraded"},
            ]))]
            pub postgres_version: i32,
            /// Number of instances.
            #[serde(default = "default_instances")]
            #[schemars(range(min = 1, max = 9))]
            pub instances: i32,
            /// Whether a failover replica is kept.
            #[serde(default)]
            pub high_availability: bool,
            /// Storage of every instance.
            pub storage: StorageSpec,
            /// Requests and limits of the PostgreSQL container.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub resources: Option<ResourceRequirements>,
            /// `postgresql.conf` parameters.
            #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
            #[schemars(extend("x-kubernetes-validations" = [
                serde_json::json!({
                    "rule": "!('listen_addresses' in self)",
                    "message": "listen_addresses is managed by the operator",
                }),
            ]))]
            pub parameters: BTreeMap<String, String>,
            /// Managed roles, keyed by name.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
            pub roles: Option<Vec<Role>>,
            /// When base backups are taken (the default is kept, not skipped: `Some`).
            #[serde(
                default = "default_backup_schedule",
                skip_serializing_if = "Option::is_none"
            )]
            pub backup_schedule: Option<String>,
            /// How the cluster starts.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub bootstrap: Option<Bootstrap>,
        }

        fn default_instances() -> i32 {
            1
        }

        fn default_backup_schedule() -> Option<String> {
            Some("0 0 * * *".into())
        }

        /// The volume of each instance.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[schemars(extend("x-kubernetes-validations" = [{
            "rule": "!has(oldSelf.storageClass) || (has(self.storageClass) && self.storageClass == oldSelf.storageClass)",
            "message": "storageClass is immutable once set",
        }]))]
        pub struct StorageSpec {
            /// Size of the volume.
            #[schemars(extend("x-kubernetes-validations" = [{"rule": "quantity(self).compareTo(quantity('1Gi')) >= 0", "message": "at least 1Gi"}]))]
            pub size: Quantity,
            /// The storage class.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub storage_class: Option<String>,
        }

        /// A role PostgreSQL should have.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct Role {
            /// Role name.
            #[schemars(length(min = 1, max = 63))]
            pub name: String,
            /// Whether it can log in.
            #[serde(default)]
            pub login: bool,
            /// Roles it is a member of.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(extend("x-kubernetes-list-type" = "set"))]
            pub in_roles: Vec<String>,
        }

        /// How a new cluster is initialised (externally tagged).
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub enum Bootstrap {
            /// An empty database.
            InitDb(InitDb),
            /// A copy of another cluster's backups.
            Recovery(Recovery),
        }

        /// `initdb` parameters.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct InitDb {
            /// The database created.
            pub database: String,
            /// Its owner.
            pub owner: String,
        }

        /// Point-in-time recovery parameters.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct Recovery {
            /// The cluster recovered from.
            pub source: String,
            /// Recover up to this time (RFC 3339).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub target_time: Option<String>,
        }

        /// What the operator observed.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct DatabaseStatus {
            /// Standard conditions, keyed by type.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(extend(
                "x-kubernetes-list-type" = "map",
                "x-kubernetes-list-map-keys" = ["type"],
            ))]
            pub conditions: Vec<Condition>,
            /// Instances ready.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub ready_instances: Option<i32>,
            /// A summary.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub phase: Option<String>,
        }
    };
}

/// The types with `CelValidate`.
pub mod celvalidate {
    database!(crd_cel::CelValidate);
}

/// The same types with `JsonSchema`, as upstream writes them.
pub mod jsonschema {
    database!(schemars::JsonSchema);
}
