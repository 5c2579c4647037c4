//! Forms operators write that `CelValidate` does not compile. Each is written once with
//! upstream's derive (which compiles) and once with `CelValidate`, compiled out with
//! `#[cfg(any())]` and the error it gives above it. Move a form into a real module (and
//! `tests/dropin.rs`) once it compiles.

/// kube's list merge strategy, `#[x_kube(merge_strategy = ListMerge::Map(..))]`, which writes
/// `x-kubernetes-list-type: map` and its keys. Not a drop-in by design (README, "Switching from
/// `KubeSchema`": the one attribute to rewrite, as `#[cel(list_type = "map", list_map_keys =
/// ["name"])]` or `#[schemars(extend("x-kubernetes-list-type" = "map", ..))]`).
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
        }
    };
}

/// What upstream writes: compiles.
pub mod merge_strategy_upstream {
    merge_strategy!(kube::KubeSchema, schemars::JsonSchema);
}

/// With `CelValidate`; the error it gives is below.
#[cfg(any())]
pub mod merge_strategy_celvalidate {
    merge_strategy!(crd_cel::CelValidate, crd_cel::CelValidate);
}

// error: write the list's merge strategy as #[cel(list_type = "map", list_map_keys = [..])], #[cel(list_type = "set")] or #[cel(map_type = "atomic")]
//   --> tests/realworld/src/dropin/pending.rs:23:22
//    |
// 23 |             #[x_kube(merge_strategy = ListMerge::Map(vec!["name".into()]))]
//    |                      ^^^^^^^^^^^^^^
// ...
// 37 |     merge_strategy!(crd_cel::CelValidate, crd_cel::CelValidate);
//    |     ----------------------------------------------------------- in this macro invocation
//    |
//    = note: this error originates in the macro `merge_strategy` (in Nightly builds, run with -Z macro-backtrace for more info)
