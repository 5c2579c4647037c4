//! The e2e tests: each applies its CRDs to the kube-apiserver of `KUBECONFIG`, sends objects
//! with kube-rs's client and compares every answer with crd-cel's (`crd_cel_e2e::Session`).
//! Without `CRD_CEL_E2E=1` each test prints `SKIPPED ...` on stderr and passes.

mod common;
mod examples;
mod realworld;
mod ui_pass;
