//! A data-platform product in the style of operator libraries that share "commons" types across
//! many operators: a generic client-settings struct whose type parameter defaults to `()` and
//! is flattened (`Options<T = ()>` with `#[serde(flatten)] extra: T`) inside another generic
//! struct's `Option<Options<O>>`, instantiated with `()` and with a product's own struct; an
//! image selection flattening an untagged enum; a description type that derives the schema
//! but not `Serialize` (only its schema is used); validator's `#[validate(regex(path =
//! "NAME"))]` naming the regex a version must match; a generic struct instantiated with a
//! type that has a model and with another crate's type that has none.

/// The regex of a release version, as validator's `regex(path = ..)` names it.
pub const RELEASE_VERSION: &str = r"^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$";

macro_rules! platform {
    ($schema:path, $on:ident) => {
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};

        #[allow(unused_imports)]
        use super::RELEASE_VERSION;

        /// A product cluster.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1",
            kind = "Warehouse",
            namespaced
        )]
        #[serde(rename_all = "camelCase")]
        pub struct WarehouseSpec {
            /// The image to run.
            pub image: ProductImage,
            /// Clients, with the common settings only.
            #[serde(default)]
            pub clients: Vec<ClientDetails>,
            /// Clients with this product's extra settings.
            #[serde(default)]
            #[cfg_attr(
                $on(),
                cel(
                    rule = "self.all(c, !has(c.oidc) || !has(c.oidc.prompt) || c.oidc.prompt != '')",
                    message = "a prompt is not empty"
                )
            )]
            #[schemars(length(max = 8))]
            pub product_clients: Vec<ClientDetails<ProductOidcExtras>>,
            /// The release to roll out.
            #[validate(regex(path = "RELEASE_VERSION"))]
            pub release: Option<String>,
            /// Worker bounds (a type argument with a model).
            pub workers: Option<Bounds<u16>>,
            /// Replica bounds (a type argument of another crate without one).
            pub replicas: Option<Bounds<std::num::NonZeroI32>>,
        }

        /// Lower and upper bounds, generic over the number type.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct Bounds<N> {
            /// At least.
            pub min: N,
            /// At most.
            pub max: N,
        }

        /// Which image to run: a custom one, or a version of the vendor's.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct ProductImage {
            /// Custom or vendor (kube hoists the variants' properties, which must agree).
            #[serde(flatten)]
            pub selection: ImageSelection,
            /// Pull secrets.
            pub pull_secrets: Option<Vec<String>>,
        }

        /// Tried in order.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(untagged)]
        pub enum ImageSelection {
            /// Any image.
            Custom(CustomImage),
            /// The vendor's image of a version.
            Vendor(VendorImage),
        }

        /// A custom image.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomImage {
            /// The whole image reference.
            pub custom: String,
            /// The product version.
            pub product_version: String,
        }

        /// The vendor's image.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct VendorImage {
            /// The product version.
            pub product_version: String,
            /// The vendor's repository.
            pub repo: Option<String>,
        }

        /// What the operator resolved an image to: described for documentation tools, never
        /// sent, so it derives the schema but not `Serialize`.
        #[derive($schema, Clone, Debug)]
        pub struct ResolvedImage {
            /// The image.
            pub image: String,
            /// The pull policy.
            pub pull_policy: String,
        }

        /// The common client settings, generic over a product's extra OIDC settings.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        #[schemars(description = "")]
        pub struct ClientDetails<O = ()> {
            /// The authentication class to use.
            #[serde(rename = "authenticationClass")]
            pub class_ref: String,
            /// OIDC settings, when the class is OIDC.
            pub oidc: Option<OidcOptions<O>>,
        }

        /// OIDC settings: the common ones and the product's, flattened.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct OidcOptions<T = ()> {
            /// The client credentials secret.
            pub client_credentials_secret: String,
            /// Scopes to add.
            #[serde(default)]
            pub extra_scopes: Vec<String>,
            /// The product's own settings (none by default).
            #[serde(flatten)]
            pub product_specific_fields: T,
        }

        /// This product's extra OIDC settings.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct ProductOidcExtras {
            /// The login prompt.
            #[serde(default)]
            pub prompt: Option<String>,
        }
    };
}

/// The types with `CelValidate` and the `#[cel(..)]` rule.
pub mod celvalidate {
    platform!(crd_cel::CelValidate, all);
}

/// The same types with `JsonSchema`, as upstream writes them (no `#[cel(..)]` rule).
pub mod jsonschema {
    platform!(schemars::JsonSchema, any);
}
