//! Compile-error UI tests (trybuild): every misuse of the derive fails the build with a message
//! on the offending attribute. `attr/` are expansion-time errors, `check/` are const-evaluation
//! errors that need field types, `cost/` the apiserver's cost limit at `cargo build`. Regenerate with `TRYBUILD=overwrite` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/attr/*.rs");
    t.compile_fail("ui/check/*.rs");
    t.compile_fail("ui/types/*.rs");
    t.compile_fail("ui/cost/*.rs");
    t.pass("ui/pass/*.rs");
}
