//! A service-mesh traffic policy written entirely in kube's `KubeSchema` style: `#[x_kube]`
//! rules next to `#[schemars(length(..), extend("x-kubernetes-list-type" = ..))]` on the same
//! field, several `validation`s in one `#[x_kube(..)]`, `#[kube(validation = ..)]` root rules
//! as a string and as `Rule::new(..)` in one `#[kube(..)]`, unit enums with defaults, and
//! maps.

macro_rules! mesh {
    ($schema:path, $kube:path) => {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};
        use std::collections::BTreeMap;

        /// Routes traffic to a service's versions.
        #[derive(CustomResource, $kube, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1",
            kind = "TrafficPolicy",
            namespaced,
            status = "TrafficPolicyStatus",
            validation = "self.metadata.name != 'default'",
            validation = ("self.metadata.name.size() <= 63", "policy names are DNS labels"),
            validation = Rule::new("(has(self.spec.routes) && self.spec.routes.size() > 0) || has(self.spec.fallback)")
                .message("a policy must route somewhere")
        )]
        #[serde(rename_all = "camelCase")]
        #[x_kube(
            validation = Rule::new("!has(self.fallback) || !has(self.routes) || self.routes.all(r, r.destination.host != self.fallback.host)")
                .message("the fallback is not one of the routes"),
            validation = "!has(self.retries) || has(self.timeout)"
        )]
        pub struct TrafficPolicySpec {
            /// Routes, keyed by name.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(
                length(max = 32),
                extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"])
            )]
            #[x_kube(validation = Rule::new("self.size() == 0 || self.exists(r, r.weight > 0)")
                .message("at least one route carries traffic"))]
            pub routes: Vec<Route>,
            /// Where traffic goes when no route matches.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub fallback: Option<Destination>,
            /// The IP families used.
            #[schemars(length(max = 2), extend("x-kubernetes-list-type" = "atomic"))]
            #[x_kube(validation = Rule::new("self.size() != 2 || self[0] != self[1]").message("ipFamilies must not repeat"))]
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub ip_families: Vec<IpFamily>,
            /// Request timeout (a Go duration).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[x_kube(validation = Rule::new("duration(self) <= duration('60s')").message("timeouts are at most 60s"))]
            pub timeout: Option<String>,
            /// Mutual TLS.
            #[serde(default)]
            pub mtls: MtlsMode,
            /// Retries.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub retries: Option<RetryPolicy>,
        }

        /// One route.
        #[derive($kube, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct Route {
            /// Name, unique in the policy.
            #[x_kube(validation = "self.matches('^[a-z0-9-]+$')")]
            #[schemars(length(max = 63))]
            pub name: String,
            /// Share of traffic.
            #[schemars(range(min = 0, max = 100))]
            pub weight: i32,
            /// Where it goes.
            pub destination: Destination,
            /// Which requests.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = 8))]
            pub matches: Option<Vec<HttpMatch>>,
        }

        /// A destination.
        #[derive($kube, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[x_kube(validation = Rule::new("!has(self.port) || self.port > 0")
            .message("port 0 is not a port")
            .field_path(".port"))]
        pub struct Destination {
            /// A service host.
            #[schemars(length(min = 1, max = 253))]
            pub host: String,
            /// Its port.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub port: Option<u16>,
            /// A subset of its pods.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub subset: Option<String>,
        }

        /// A request match.
        #[derive($kube, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct HttpMatch {
            /// A path prefix.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[x_kube(validation = Rule::new("self.startsWith('/')").message("pathPrefix starts with /"))]
            pub path_prefix: Option<String>,
            /// Headers that must be present.
            #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
            pub headers: BTreeMap<String, String>,
        }

        /// Retries.
        #[derive($kube, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct RetryPolicy {
            /// Attempts.
            #[x_kube(validation = Rule::new("self <= 10")
                .reason(Reason::FieldValueForbidden)
                .message("at most 10 attempts"))]
            pub attempts: i32,
            /// Timeout of each try.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub per_try_timeout: Option<String>,
        }

        /// IP families.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        pub enum IpFamily {
            /// IPv4.
            IPv4,
            /// IPv6.
            IPv6,
        }

        /// Mutual TLS modes (`SCREAMING_SNAKE_CASE`, as meshes spell them).
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        pub enum MtlsMode {
            /// mTLS only.
            #[default]
            Strict,
            /// mTLS or plain text.
            Permissive,
            /// Plain text.
            Disable,
        }

        /// What the operator observed.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct TrafficPolicyStatus {
            /// The generation observed.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub observed_generation: Option<i64>,
            /// Standard conditions, keyed by type.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
            pub conditions: Vec<Condition>,
        }
    };
}

/// The types with `CelValidate` (the `#[x_kube]` and `#[kube(validation)]` rules read by it).
pub mod celvalidate {
    mesh!(crd_cel::CelValidate, crd_cel::CelValidate);
}

/// The same types with `KubeSchema` and `JsonSchema`, as upstream writes them.
pub mod jsonschema {
    mesh!(schemars::JsonSchema, kube::KubeSchema);
}
