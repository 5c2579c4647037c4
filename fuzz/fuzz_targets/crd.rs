//! CRD manifest bytes -> `crd-cel check -` (the CLI's input reader, then the apiserver's
//! CRD-creation checks of every rule: rule fields, parse, type check, cost, oldSelf placement,
//! structural schema). The first byte picks the output format and Kubernetes version.
#![no_main]

use crd_cel_cli::{Io, run};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, mut stdin)) = data.split_first() else {
        return;
    };
    let output = if selector & 0x80 != 0 { "json" } else { "text" };
    let version = format!("1.{}", 30 + (selector & 0x7f) % 8);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut io = Io {
        stdin: &mut stdin,
        stdin_is_terminal: false,
        stdout: &mut out,
        stdout_is_terminal: false,
        no_color: true,
        stderr: &mut err,
    };
    let code = run(
        ["crd-cel", "check", "--output", output, "--kubernetes-version", &version, "-"],
        &mut io,
    );
    assert!(code <= 2, "exit code {code}");
});
