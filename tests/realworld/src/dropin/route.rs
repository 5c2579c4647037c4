//! An HTTP route in the hand-written style of Gateway API bindings: a backend reference
//! flattened into its list item as an `Option` of a struct that flattens an object reference
//! in turn (schemars then requires none of the merged properties, the nested ones included),
//! `Option<Vec<..>>` lists and a `#[cel]` rule reading the merged properties.

macro_rules! route {
    ($schema:path, $on:ident) => {
        use kube::CustomResource;
        use serde::{Deserialize, Serialize};

        /// Routes requests to backends.
        #[derive(CustomResource, $schema, Serialize, Deserialize, Clone, Debug)]
        #[kube(
            group = "dropin.example.com",
            version = "v1",
            kind = "Route",
            namespaced
        )]
        #[serde(rename_all = "camelCase")]
        pub struct RouteSpec {
            /// Host names the route answers.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub hostnames: Option<Vec<String>>,
            /// The rules, in order.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = 16))]
            pub rules: Option<Vec<RouteRule>>,
        }

        /// One rule.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct RouteRule {
            /// Where matching requests go.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(length(max = 16))]
            #[cfg_attr(
                $on(),
                cel(
                    rule = "self.all(b, !has(b.port) || has(b.name))",
                    message = "a backend port needs a backend name"
                )
            )]
            pub backend_refs: Option<Vec<WeightedBackend>>,
        }

        /// A backend and the filters applied on the way to it.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct WeightedBackend {
            /// The backend; a rule that only filters has none.
            #[serde(flatten)]
            pub backend: Option<BackendRef>,
            /// Filter names.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub filters: Option<Vec<String>>,
        }

        /// A weighted reference.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct BackendRef {
            /// Share of the traffic.
            pub weight: Option<u16>,
            /// The object.
            #[serde(flatten)]
            pub target: ObjectRef,
        }

        /// An object reference: only `name` is required.
        #[derive($schema, Serialize, Deserialize, Clone, Debug)]
        pub struct ObjectRef {
            /// API group.
            pub group: Option<String>,
            /// Name.
            pub name: String,
            /// Port.
            pub port: Option<u16>,
        }
    };
}

/// The types with `CelValidate` and the `#[cel(..)]` rule.
pub mod celvalidate {
    route!(crd_cel::CelValidate, all);
}

/// The same types with `JsonSchema`, as upstream writes them (no `#[cel(..)]` rule).
pub mod jsonschema {
    route!(schemars::JsonSchema, any);
}
