//! kube's merge strategies, `#[x_kube(merge_strategy = ..)]`, which write
//! `x-kubernetes-list-type`, its map keys and `x-kubernetes-map-type`: read by `CelValidate` as
//! the `#[cel(..)]` keys of the same meaning, so the CRD is upstream's.

macro_rules! merge_strategy {
    ($kube:path, $schema:path) => {
        /// A listener.
        #[derive($schema, serde::Serialize, serde::Deserialize, Clone, Debug)]
        pub struct Listener {
            /// Its name.
            pub name: String,
        }

        /// Listeners keyed by name.
        #[derive($kube, serde::Serialize, serde::Deserialize, Clone, Debug)]
        pub struct Listeners {
            /// The listeners.
            #[x_kube(merge_strategy = ListMerge::Map(vec!["name".into()]))]
            pub listeners: Vec<Listener>,
            /// Hosts, a set.
            #[x_kube(merge_strategy = ListMerge::Set)]
            pub hosts: Vec<String>,
            /// Labels, replaced whole.
            #[x_kube(merge_strategy = MapMerge::Atomic)]
            pub labels: std::collections::BTreeMap<String, String>,
        }
    };
}

/// What upstream writes.
pub mod upstream {
    merge_strategy!(kube::KubeSchema, schemars::JsonSchema);
}

/// With `CelValidate`, nothing else changed.
pub mod celvalidate {
    merge_strategy!(crd_cel::CelValidate, crd_cel::CelValidate);
}
