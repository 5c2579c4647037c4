//! `conformance --oracle PATH [options] CORPUS_DIR [SET...]`: crd-cel's `validate` beside the
//! oracle and the recorded answers on corpus vectors, as a table (see
//! `crd_cel_tests::conformance`).
//!
//! Options:
//! - `--kubernetes-version 1.N`: crd-cel's version against the oracle (default 1.37, the
//!   oracle's release).
//! - `--recorded-version SET=1.N`: the version a set's answers were recorded at (repeatable).
//! - `--details`: every difference, with both answers.
//! - `--known FILE`: the differences listed with their reasons; with `--check`, exit 1 when a
//!   difference is not listed or a listed one is gone.
//!
//! Exit 0 when every vector agrees (or, with `--check`, when the differences are the listed
//! ones), 1 otherwise, 2 when the command could not run.

use crd_cel_tests::conformance::{self, Config};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: conformance --oracle PATH [--kubernetes-version 1.N] \
                     [--recorded-version SET=1.N]... [--details] [--known FILE [--check]] \
                     CORPUS_DIR [SET...]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut oracle = None;
    let mut version = "1.37".to_owned();
    let mut recorded_versions = BTreeMap::new();
    let mut details = false;
    let mut known = None;
    let mut check = false;
    let mut positional = Vec::new();
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let r = match a.as_str() {
            "--oracle" => value("--oracle").map(|v| oracle = Some(PathBuf::from(v))),
            "--kubernetes-version" => value("--kubernetes-version").map(|v| version = v),
            "--recorded-version" => value("--recorded-version").and_then(|v| {
                let (set, ver) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--recorded-version {v}: expected SET=1.N"))?;
                recorded_versions.insert(set.to_owned(), ver.to_owned());
                Ok(())
            }),
            "--known" => value("--known").map(|v| known = Some(PathBuf::from(v))),
            "--details" => {
                details = true;
                Ok(())
            }
            "--check" => {
                check = true;
                Ok(())
            }
            s if s.starts_with("--") => Err(format!("unknown option {s}")),
            _ => {
                positional.push(a.clone());
                Ok(())
            }
        };
        if let Err(e) = r {
            eprintln!("conformance: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let (Some(oracle), Some(corpus)) = (oracle, positional.first()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if check && known.is_none() {
        eprintln!("conformance: --check needs --known FILE\n{USAGE}");
        return ExitCode::from(2);
    }
    let corpus = PathBuf::from(corpus);
    let mut sets: Vec<String> = positional[1..].to_vec();
    if sets.is_empty() {
        let mut found: Vec<String> = std::fs::read_dir(corpus.join("vectors"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        found.sort();
        sets = found;
    }
    if sets.is_empty() {
        eprintln!(
            "conformance: no vector sets in {}/vectors",
            corpus.display()
        );
        return ExitCode::from(2);
    }
    let cfg = Config {
        oracle,
        corpus,
        sets,
        version,
        recorded_versions,
    };
    let results = match conformance::run(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("conformance: {e}");
            return ExitCode::from(2);
        }
    };
    print!("{}", conformance::table(&results, &cfg));
    if details {
        print!("{}", conformance::details(&results));
    }
    let Some(known) = known else {
        let all_agree = results.iter().all(|r| r.differences.is_empty());
        return ExitCode::from(u8::from(!all_agree));
    };
    let listed = match std::fs::read_to_string(&known)
        .map_err(|e| e.to_string())
        .and_then(|t| conformance::read_known(&t))
    {
        Ok(k) => k,
        Err(e) => {
            eprintln!("conformance: {}: {e}", known.display());
            return ExitCode::from(2);
        }
    };
    let (new, gone) = conformance::compare_known(&results, &listed, &cfg.sets);
    println!(
        "\ndifferences: {} found, {} listed in {}",
        results.iter().map(|r| r.differences.len()).sum::<usize>(),
        listed.len(),
        known.display()
    );
    for n in &new {
        println!("NOT LISTED {n}");
    }
    for g in &gone {
        println!("LISTED BUT GONE (remove it) {g}");
    }
    ExitCode::from(u8::from(check && !(new.is_empty() && gone.is_empty())))
}
