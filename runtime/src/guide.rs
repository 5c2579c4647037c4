//! The crd-cel guide: from a first rule to CI, one chapter per page.
//!
//! Every Rust code block of these pages is compiled by `cargo test --doc -p crd-cel --features
//! testing` (and run, unless marked `no_run`); the ones that must not compile are
//! `compile_fail` with the error code of the failure they show, and their message beside them.
//! The command lines were run against this version.
//!
//! **Using crd-cel**
//!
//! 1. [Getting started](getting_started): install, a first rule, the CRD, a first test.
//! 2. [Attributes](attributes): every `#[cel(..)]` key and what the apiserver gets.
//! 3. [Rules into k8s-openapi and other crates' types](foreign_types), and how each is checked.
//! 4. [Enums](enums): string enums and data-carrying enums.
//! 5. [Transition rules](transition_rules): `oldSelf`, `optional_old_self` and ratcheting.
//! 6. [Runtime validation](runtime_validation): typed `validate()`, manifests with
//!    [`Validator::from_crd`](crate::Validator::from_crd), dry runs.
//! 7. [Targeted Kubernetes versions](kubernetes_versions).
//! 8. [Validation test suites](test_suites): `crd-cel test` and `crd_cel::testing`.
//! 9. [The command line](cli): every command, option, output and exit code.
//! 10. [The CLI in CI](ci): GitHub Actions, GitLab CI, a pre-commit hook.
//! 11. [CRD upgrades](crd_upgrades).
//! 12. [Cost errors and how to fix them](cost).
//! 13. [Migrating from kube's `KubeSchema`](migrating).
//!
//! **About crd-cel**
//!
//! 14. [How crd-cel is tested against the apiserver](conformance): the oracle, a real
//!     kube-apiserver, differential fuzzing, and the status of each part.
//! 15. [Performance](performance): build cost, validation speed, beside the peers.
//! 16. [Limitations](limitations), honestly.
//! 17. [Publishing](publishing) (for maintainers).

macro_rules! chapter {
    ($name:ident, $file:literal) => {
        pub mod $name {
            #![doc = include_str!($file)]
        }
    };
}

chapter!(getting_started, "guide/getting_started.md");
chapter!(attributes, "guide/attributes.md");
chapter!(foreign_types, "guide/foreign_types.md");
chapter!(enums, "guide/enums.md");
chapter!(transition_rules, "guide/transition_rules.md");
chapter!(runtime_validation, "guide/runtime_validation.md");
chapter!(kubernetes_versions, "guide/kubernetes_versions.md");
chapter!(test_suites, "guide/test_suites.md");
chapter!(cli, "guide/cli.md");
chapter!(ci, "guide/ci.md");
chapter!(crd_upgrades, "guide/crd_upgrades.md");
chapter!(cost, "guide/cost.md");
chapter!(migrating, "guide/migrating.md");
chapter!(conformance, "guide/conformance.md");
chapter!(performance, "guide/performance.md");
chapter!(limitations, "guide/limitations.md");
chapter!(publishing, "guide/publishing.md");
