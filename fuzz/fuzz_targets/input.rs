//! Bytes -> the CLI's input reader (YAML streams, JSON, `kind: List`): documents or a
//! located input error, never a panic, in time linear in the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match crd_cel_cli::input::split_documents("fuzz.yaml", text) {
        Ok(docs) => {
            for d in &docs {
                let _ = d.location();
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
