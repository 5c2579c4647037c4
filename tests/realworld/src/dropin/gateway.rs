//! An ingress gateway operator's CRD: ports by number or name (an untagged enum of
//! `NonZeroU16` and `String`), addresses as untagged enums of `std::net` types, listeners as a
//! map list written with `schemars(length(..), extend(..))`, an `extend` rule on an enum, unit
//! enums, and `#[cel(..)]` rules next to upstream's `extend` ones.

macro_rules! gateway {
    ($schema:path, $on:ident) => {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};
        use std::collections::BTreeMap;
        use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
        use std::num::NonZeroU16;

        /// A gateway.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1alpha1",
            kind = "Gateway",
            namespaced,
            status = "GatewayStatus",
            category = "dropin"
        )]
        #[serde(rename_all = "camelCase")]
        #[cfg_attr($on(), cel(
            rule = "self.listeners.all(l, l.protocol != 'HTTPS' || has(l.tls))",
            message = "HTTPS listeners need tls"
        ))]
        pub struct GatewaySpec {
            /// The class of gateway (immutable).
            #[schemars(extend("x-kubernetes-validations" = [{"rule": "self == oldSelf", "message": "gatewayClassName is immutable"}]))]
            pub gateway_class_name: String,
            /// Listeners, keyed by name.
            #[schemars(
                length(min = 1, max = 16),
                extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"])
            )]
            pub listeners: Vec<Listener>,
            /// Addresses requested.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(length(max = 4), extend("x-kubernetes-list-type" = "atomic"))]
            #[cfg_attr($on(), cel(
                rule = "self.all(a, !a.startsWith('127.'))",
                message = "loopback addresses are not allowed"
            ))]
            pub addresses: Vec<Address>,
            /// Where the gateway's pods run.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub infrastructure: Option<Infrastructure>,
        }

        /// One listener.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct Listener {
            /// Name, unique in the gateway.
            #[schemars(length(min = 1, max = 63))]
            pub name: String,
            /// The port, by number or by name.
            #[cfg_attr($on(), cel(
                rule = "type(self) != string || self.size() <= 15",
                message = "a port name is at most 15 characters"
            ))]
            pub port: Port,
            /// The protocol.
            pub protocol: Protocol,
            /// The host name matched.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub hostname: Option<String>,
            /// TLS.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub tls: Option<TlsMode>,
            /// Where traffic goes.
            pub backend: Backend,
        }

        /// A port by number or by name (`IntOrString` written as an enum).
        #[derive($schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[serde(untagged)]
        pub enum Port {
            /// A port number.
            Number(NonZeroU16),
            /// A named port.
            Name(String),
        }

        /// An IP address of either family.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[serde(untagged)]
        pub enum Address {
            /// IPv4.
            V4(Ipv4Addr),
            /// IPv6.
            V6(Ipv6Addr),
        }

        /// A backend by address or by host name.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, PartialEq)]
        #[serde(untagged)]
        pub enum Target {
            /// An address.
            Ip(IpAddr),
            /// A host name.
            Hostname(String),
        }

        /// The backend of a listener.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct Backend {
            /// Where.
            pub target: Target,
            /// Its port.
            pub port: u16,
        }

        /// Listener protocols.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        #[serde(rename_all = "UPPERCASE")]
        pub enum Protocol {
            /// Plain HTTP.
            Http,
            /// HTTP over TLS.
            Https,
            /// Raw TCP.
            Tcp,
        }

        /// What the gateway does with TLS (externally tagged, struct variants).
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
        #[schemars(extend("x-kubernetes-validations" = [{
            "rule": "!has(self.terminate) || self.terminate.certificateRefs.size() > 0",
            "message": "terminating TLS needs a certificate"
        }]))]
        pub enum TlsMode {
            /// Terminate at the gateway.
            Terminate {
                /// Secrets holding certificates.
                #[schemars(length(max = 8))]
                certificate_refs: Vec<String>,
            },
            /// Pass through to the backend.
            Passthrough {},
        }

        /// Where the gateway's pods run.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct Infrastructure {
            /// Labels of the pods.
            #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
            #[cfg_attr($on(), cel(
                rule = "self.all(k, !k.startsWith('gateway.dropin.example.com/'))",
                message = "gateway.dropin.example.com/ labels are reserved"
            ))]
            pub labels: BTreeMap<String, String>,
            /// Annotations of the pods.
            #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
            pub annotations: BTreeMap<String, String>,
        }

        /// What the operator observed.
        #[derive($schema, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        pub struct GatewayStatus {
            /// The addresses assigned.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            pub addresses: Vec<IpAddr>,
            /// Standard conditions, keyed by type.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
            pub conditions: Vec<Condition>,
        }
    };
}

/// The types with `CelValidate` and the `#[cel(..)]` rules.
pub mod celvalidate {
    gateway!(crd_cel::CelValidate, all);
}

/// The same types with `JsonSchema`, as upstream writes them (no `#[cel(..)]` rules).
pub mod jsonschema {
    gateway!(schemars::JsonSchema, any);
}
