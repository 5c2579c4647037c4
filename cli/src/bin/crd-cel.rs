//! The `crd-cel` binary: parses nothing itself, see the library.

use std::io::IsTerminal;
use std::process::ExitCode;

/// The tool allocates for every YAML event, JSON node and CEL value it builds, and frees most
/// of them soon after: with glibc's malloc, allocating and freeing (and the page faults of
/// memory it gave back and took again) were about a fifth of the time of validating a corpus
/// (`tests/peers/RESULTS.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let stdin = std::io::stdin();
    let stdin_is_terminal = stdin.is_terminal();
    let mut stdin = stdin.lock();
    let stdout = std::io::stdout();
    let stdout_is_terminal = stdout.is_terminal();
    // Results can be many lines: block-buffered into a pipe or file (flushed before the exit),
    // line by line on a terminal so that they stay in order with the warnings on stderr.
    let mut stdout: Box<dyn std::io::Write> = if stdout_is_terminal {
        Box::new(stdout.lock())
    } else {
        Box::new(std::io::BufWriter::new(stdout.lock()))
    };
    let mut stderr = std::io::stderr().lock();
    // https://no-color.org: set and not empty.
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let code = crd_cel_cli::run(
        std::env::args_os(),
        &mut crd_cel_cli::Io {
            stdin: &mut stdin,
            stdin_is_terminal,
            stdout: &mut stdout,
            stdout_is_terminal,
            no_color,
            stderr: &mut stderr,
        },
    );
    if std::io::Write::flush(&mut stdout).is_err() && code == 0 {
        // A closed pipe or a full disk: the results did not all get out.
        return ExitCode::from(crd_cel_cli::EXIT_BAD_INPUT);
    }
    ExitCode::from(code)
}
