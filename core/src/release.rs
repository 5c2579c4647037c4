//! The Kubernetes releases crd-cel emulates, and the release ranges a rule is priced for: a leaf
//! module, read by the checker (`check`), the estimator (`cost`) and the typed AST.

/// The newest Kubernetes release crd-cel emulates (`1.<minor>`): its apiserver compiles new
/// rules at compatibility `1.<minor - 1>` and stored rules at `1.<minor>`.
pub const NEWEST_KUBERNETES_MINOR: u8 = 37;

/// The first release with cel-go 0.29 and that release's apiextensions, where the cost of some
/// calls and sizes changed (see [`Releases`]): the one boundary the estimator and the runtime's
/// cost tracker read.
pub const CEL_GO_0_29: u8 = 37;

/// The oldest release crd-cel emulates (CRD validation rules are GA in 1.25).
pub const OLDEST_KUBERNETES_MINOR: u8 = 25;

/// The Kubernetes releases a rule is priced for, `1.<oldest>` to `1.<newest>`: where their
/// estimators differ, the highest estimate any of them gives (each difference is a call or a
/// size one release prices higher, so the highest is known without pricing each release).
///
/// What 1.37 changed (cel-go 0.29, apiextensions 1.37): the global `matches(s, re)` is priced
/// as `s.matches(re)` (before: 1), `includes` by the list's size (before: no library
/// estimate), and a resource root's implicit `metadata.name`/`generateName` are bounded at
/// 253 (before: unbounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Releases {
    /// The oldest release.
    pub oldest: u8,
    /// The newest release.
    pub newest: u8,
}

impl Releases {
    /// One release.
    pub const fn only(minor: u8) -> Releases {
        Releases {
            oldest: minor,
            newest: minor,
        }
    }

    /// Every release from `minor` to the newest crd-cel emulates.
    pub const fn from(minor: u8) -> Releases {
        Releases {
            oldest: minor,
            newest: NEWEST_KUBERNETES_MINOR,
        }
    }

    /// Whether one of them prices the global `matches(s, re)` and `includes` (1.37 on).
    pub(crate) const fn price_matches_and_includes(self) -> bool {
        self.newest >= CEL_GO_0_29
    }

    /// Whether one of them leaves a resource root's implicit `metadata.name` and
    /// `generateName` unbounded (before 1.37).
    pub(crate) const fn unbounded_root_names(self) -> bool {
        self.oldest < CEL_GO_0_29
    }
}
