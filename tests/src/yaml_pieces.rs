//! Strings that YAML gives a meaning to, for the tests of `crd_cel::yaml::to_string`: the
//! property test in `tests/yaml_output.rs` and `.ci/run`'s check with Go's `sigs.k8s.io/yaml`
//! (`bin/yaml-pieces.rs`).

use serde_json::{Value as Json, json};

/// Pieces that YAML gives a meaning to, alone or side by side.
pub const PIECES: &[&str] = &[
    "on",
    "yes",
    "y",
    "N",
    "Off",
    "~",
    "null",
    "true",
    "0777",
    "0x1F",
    "1_000",
    "1e3",
    "1.0",
    ".inf",
    "1:30",
    ":",
    ": ",
    " ",
    " #",
    "#",
    "-",
    "- ",
    "? ",
    "\n",
    "\n\n",
    "\t",
    "'",
    "\"",
    "\\",
    "|",
    ">",
    "&a",
    "*a",
    "!",
    "%",
    "@",
    "`",
    "{",
    "}",
    "[",
    "]",
    ",",
    "---",
    "...",
    "<<",
    "=",
    "... ",
    "\r",
    "\u{0}",
    "\u{7}",
    "\u{85}",
    "\u{2028}",
    "\u{FEFF}",
    "é",
    "✓",
    "\u{1F600}",
    "a",
    "Z",
    "0",
    "9",
    ".",
    "_",
    "/",
    "$",
    "1e400",
    "0o17",
    "2001-12-14",
    "+1",
    "-.5",
    "\n  x",
    "x\n\ty",
    "_1",
    "e5",
    "5",
];

/// Every pair of [`PIECES`] as a key of the root map, whose value holds it again as a string,
/// as a value in a nested map and as a list item.
pub fn pairs() -> Json {
    let mut root = serde_json::Map::new();
    for a in PIECES {
        for b in PIECES {
            let s = format!("{a}{b}");
            root.insert(s.clone(), json!([s, {"k": s, "l": [s, [s]]}]));
        }
    }
    Json::Object(root)
}
