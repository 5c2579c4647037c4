//! The `crd-cel` binary: parses nothing itself, see the library.

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = std::io::stdin();
    let stdin_is_terminal = stdin.is_terminal();
    let mut stdin = stdin.lock();
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let code = crd_cel_cli::run(
        std::env::args_os(),
        &mut crd_cel_cli::Io {
            stdin: &mut stdin,
            stdin_is_terminal,
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    ExitCode::from(code)
}
