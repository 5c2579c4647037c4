//! `mirror probe FILE` and `mirror eval FILE`: crd-cel's answers to the Go oracle's `probe` and
//! `eval` inputs, printed in the oracle's JSON shapes (see `crd_cel_tests::mirror`). The
//! differential fuzzer (`tests/difffuzz`) runs this beside the oracle on generated input.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, path) = match args.as_slice() {
        [c, p] if c == "probe" || c == "eval" => (c.as_str(), p.as_str()),
        _ => {
            eprintln!("usage: mirror probe|eval FILE.json");
            return ExitCode::from(2);
        }
    };
    let input: serde_json::Value = match std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let output = if command == "probe" {
        crd_cel_tests::mirror::probe(&input)
    } else {
        Ok(crd_cel_tests::mirror::eval(&input))
    };
    match output {
        Ok(v) => {
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(2)
        }
    }
}
