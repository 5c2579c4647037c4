//! End-to-end tests of crd-cel against a real kube-apiserver, through kube-rs's own client.
//!
//! The CRDs of the examples, of every UI pass case and of `tests/realworld` are applied to a
//! kube-apiserver (`tests/e2e/controlplane/start.sh`), objects are created, replaced, merge-patched
//! and server-side applied with `kube::Api<Foo>` and `kube::Api<DynamicObject>`, and every
//! answer of the server (a stored object, or `kube::Error::Api(Status)`) is compared with
//! crd-cel's typed `validate()` / `validate_update()` and with the manifest `Validator` on the
//! same objects. See `README.md`.

pub mod answer;
pub mod findings;
pub mod merge;
pub mod server;
pub mod session;
pub mod subject;

pub use answer::{Agreement, Answer, Cause};
pub use server::Server;
pub use session::{Rv, Session, Via};
pub use subject::Subject;

/// The UI pass cases (`tests/ui/pass/*.rs`) compiled as modules (see `build.rs`), each with an
/// `e2e_subjects()` naming its CRD types.
pub mod ui_pass {
    include!(concat!(env!("OUT_DIR"), "/ui_pass.rs"));
}
