//! A certificate operator's CRD written with kube's `KubeSchema` spellings:
//! `#[x_kube(validation = Rule::new(..).message(..))]` with `.reason(..)` and `.field_path(..)`
//! in either order, `Message::Expression(..)`, plain string rules, and `#[kube(validation = ..)]`
//! root rules (which make kube derive `KubeSchema` on the root in both copies). Upstream
//! derives `KubeSchema` on the structs with `#[x_kube]` and `JsonSchema` on the rest.

macro_rules! certificate {
    ($schema:path, $kube:path) => {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};

        /// A certificate kept in a secret.
        #[derive(CustomResource, $kube, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1",
            kind = "Certificate",
            namespaced,
            status = "CertificateStatus",
            shortname = "cert",
            validation = Rule::new("self.metadata.name.size() <= 52")
                .message("certificate names leave room for the secret's suffix")
        )]
        #[kube(validation = "!has(self.spec.commonName) || self.spec.commonName != ''")]
        #[serde(rename_all = "camelCase")]
        #[x_kube(
            validation = Rule::new("has(self.dnsNames) || has(self.commonName)")
                .message("one of dnsNames or commonName is required")
                .reason(Reason::FieldValueRequired)
        )]
        #[x_kube(validation = Rule::new(
            "!has(self.renewBefore) || !has(self.duration) || duration(self.renewBefore) < duration(self.duration)"
        )
        .field_path(".renewBefore")
        .message("renewBefore must be shorter than duration"))]
        pub struct CertificateSpec {
            /// The secret the certificate is written to (immutable).
            #[x_kube(validation = Rule::new("self == oldSelf").message("secretName is immutable"))]
            pub secret_name: String,
            /// The subject's common name.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[x_kube(validation = ("self.size() <= 64", "commonName is at most 64 characters"))]
            pub common_name: Option<String>,
            /// Subject alternative names.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = 100))]
            #[x_kube(
                validation = Rule::new("self.all(n, n.size() <= 253)")
                    .reason(Reason::FieldValueInvalid)
                    .message("DNS names are at most 253 characters")
            )]
            pub dns_names: Option<Vec<String>>,
            /// How long the certificate is valid (a Go duration).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[x_kube(validation = Rule::new("duration(self) >= duration('1h')").message(Message::Expression(
                "'duration ' + self + ' is shorter than 1h'".into()
            )))]
            pub duration: Option<String>,
            /// How long before expiry it is renewed.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub renew_before: Option<String>,
            /// The issuer.
            pub issuer_ref: IssuerRef,
            /// The private key.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub private_key: Option<PrivateKey>,
            /// Key usages.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub usages: Option<Vec<KeyUsage>>,
        }

        /// Which issuer signs.
        #[derive($kube, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[x_kube(
            validation = Rule::new("self.kind in ['Issuer', 'ClusterIssuer']")
                .field_path(".kind")
                .reason(Reason::FieldValueForbidden)
                .message("kind is Issuer or ClusterIssuer")
        )]
        pub struct IssuerRef {
            /// The issuer's name.
            #[x_kube(validation = Rule::new("self != ''").message("issuerRef.name must not be empty"))]
            pub name: String,
            /// Its kind.
            #[serde(default = "default_issuer_kind")]
            pub kind: String,
            /// Its API group.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub group: Option<String>,
        }

        fn default_issuer_kind() -> String {
            "Issuer".into()
        }

        /// The private key's parameters.
        #[derive($kube, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[x_kube(validation = Rule::new("self.algorithm != 'RSA' || !has(self.size) || self.size >= 1024")
            .message("RSA keys are at least 1024 bits"))]
        pub struct PrivateKey {
            /// The algorithm.
            pub algorithm: KeyAlgorithm,
            /// The key size in bits: new keys need 2048, stored ones are kept (ratcheting).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[x_kube(validation = Rule::new("oldSelf.hasValue() || self >= 2048")
                .optional_old_self(true)
                .message("new keys are at least 2048 bits"))]
            pub size: Option<i32>,
            /// Whether the key is regenerated on renewal; may be set later, never changed.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[x_kube(validation = Rule::new("!oldSelf.hasValue() || oldSelf.value() == self")
                .message("rotationPolicy is immutable once set")
                .reason(Reason::FieldValueForbidden)
                .optional_old_self(true))]
            pub rotation_policy: Option<RotationPolicy>,
        }

        /// Key algorithms.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        #[serde(rename_all = "UPPERCASE")]
        pub enum KeyAlgorithm {
            /// RSA.
            Rsa,
            /// ECDSA.
            Ecdsa,
            /// Ed25519.
            Ed25519,
        }

        /// Key rotation.
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        pub enum RotationPolicy {
            /// Keep the key.
            Never,
            /// A new key on every renewal.
            Always,
        }

        /// Key usages (kebab-case, as X.509 tools print them).
        #[derive($schema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
        #[serde(rename_all = "kebab-case")]
        pub enum KeyUsage {
            /// Digital signature.
            DigitalSignature,
            /// Key encipherment.
            KeyEncipherment,
            /// TLS server.
            ServerAuth,
            /// TLS client.
            ClientAuth,
        }

        /// What the operator observed.
        #[derive($kube, Serialize, Deserialize, Clone, Debug, Default)]
        #[serde(rename_all = "camelCase")]
        #[x_kube(validation = Rule::new(
            "!has(oldSelf.revision) || (has(self.revision) && self.revision >= oldSelf.revision)"
        ).message("revision never decreases"))]
        pub struct CertificateStatus {
            /// Times the certificate was issued.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub revision: Option<i32>,
            /// Expiry of the current certificate.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub not_after: Option<Time>,
            /// Standard conditions, keyed by type.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
            pub conditions: Vec<Condition>,
        }
    };
}

/// The types with `CelValidate` (the `#[x_kube]` and `#[kube(validation)]` rules read by it).
pub mod celvalidate {
    certificate!(crd_cel::CelValidate, crd_cel::CelValidate);
}

/// The same types with `KubeSchema` and `JsonSchema`, as upstream writes them.
pub mod jsonschema {
    certificate!(schemars::JsonSchema, kube::KubeSchema);
}
