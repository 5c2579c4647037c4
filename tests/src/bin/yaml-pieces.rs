//! `yaml-pieces write DIR`: writes `DIR/pieces.json` and `DIR/pieces.yaml` (the same value, by
//! `crd_cel::yaml::to_string`); `yaml-pieces compare A.json B.json`: exit 1 unless both files
//! hold the same JSON value. `.ci/run` has Go's `sigs.k8s.io/yaml` (kubectl's reader, through
//! `oracle yaml-to-json`) read the YAML, and compares.

use std::path::Path;
use std::process::ExitCode;

fn read(path: &str) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

fn run(args: &[String]) -> Result<(), String> {
    match args {
        [cmd, dir] if cmd == "write" => {
            let value = crd_cel_tests::yaml_pieces::pairs();
            let yaml = crd_cel::yaml::to_string(&value).map_err(|e| e.to_string())?;
            let dir = Path::new(dir);
            std::fs::write(dir.join("pieces.json"), value.to_string())
                .map_err(|e| e.to_string())?;
            std::fs::write(dir.join("pieces.yaml"), yaml).map_err(|e| e.to_string())
        }
        [cmd, a, b] if cmd == "compare" => {
            let (a_value, b_value) = (read(a)?, read(b)?);
            let (Some(a_map), Some(b_map)) = (a_value.as_object(), b_value.as_object()) else {
                return Err("both files must hold a JSON object".to_owned());
            };
            let differ: Vec<_> = a_map
                .iter()
                .filter(|(k, v)| b_map.get(*k) != Some(v))
                .collect();
            if differ.is_empty() && a_map.len() == b_map.len() {
                println!("{} entries read back the same", a_map.len());
                return Ok(());
            }
            for (k, v) in differ.iter().take(10) {
                eprintln!(
                    "{k:?}: {v} in {a}, {} in {b}",
                    b_map.get(*k).unwrap_or(&serde_json::Value::Null)
                );
            }
            Err(format!(
                "{} of {} entries differ ({} and {} entries)",
                differ.len(),
                a_map.len(),
                a_map.len(),
                b_map.len()
            ))
        }
        _ => Err("usage: yaml-pieces write DIR | yaml-pieces compare A.json B.json".to_owned()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("yaml-pieces: {e}");
            ExitCode::FAILURE
        }
    }
}
