#!/usr/bin/env python3
"""Build overhead of crd-cel's compile-time checks (issue 4's "Done when").

Generates a crate with 50 deriving types and 200 rules (4 per type, mixing field access,
comprehensions, optional selection and library calls), builds it 3 times with the rules and 3 times
with the same types and no rules, and prints the medians and the overhead per rule. The crate's
dependencies are built once first and not counted.

usage: python3 tests/build-overhead/measure.py [WORKDIR]
"""
import os, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = sys.argv[1] if len(sys.argv) > 1 else "/tmp/crd-cel-build-overhead"
TYPES, RULES_PER_TYPE = 50, int(os.environ.get("RULES_PER_TYPE", "4"))
# Builds of each variant (the issue asks for the median of 3; more steadies a busy machine).
RUNS = int(os.environ.get("RUNS", "3"))
# OPAQUE=1 names the field types through aliases the derive cannot see through, so that every
# rule is checked in const evaluation (as rules over other crates' types are).
OPAQUE = os.environ.get("OPAQUE") == "1"

RULES = [
    'self.count >= 0 && self.count <= self.limit',
    'self.names.all(n, n.size() < 64 && n.matches("^[a-z]+$"))',
    '!has(self.label) || self.label.startsWith("x-")',
    'self.items.exists(i, i.key == "main") || self.items.size() == 0',
    'self.?label.orValue("") != "forbidden"',
    'self.tags.all(k, self.tags[k].size() <= 16)',
    'self.names.map(n, n.lowerAscii()).size() == self.names.size()',
    'self.items.filter(i, i.weight > 10).size() <= 3',
]

def generate(with_rules: bool) -> str:
    out = [
        "use crd_cel::CelValidate;",
        "use serde::{Deserialize, Serialize};",
        "use std::collections::BTreeMap;",
        "",
        "#[derive(CelValidate, Serialize, Deserialize)]",
        "pub struct Item { #[schemars(length(max = 64))] pub key: String, pub weight: i64 }",
    ]
    if OPAQUE:
        out += ["pub type I64 = i64;", "pub type Str = String;"]
    for t in range(TYPES):
        out.append("#[derive(CelValidate, Serialize, Deserialize)]")
        if with_rules:
            for r in range(RULES_PER_TYPE):
                rule = RULES[(t + r) % len(RULES)].replace('"', "'")
                out.append(f'#[cel(rule = "{rule}")]')
        out.append(f"pub struct T{t} {{")
        out.append("    pub count: i64,")
        out.append("    pub limit: i64,")
        # Bounded, so that every rule stays under the apiserver's cost limit (checked at build).
        out.append("    #[cel(max_items = 16)] #[schemars(inner(length(max = 63)))]")
        out.append("    pub names: Vec<String>,")
        out.append("    #[schemars(length(max = 64))]")
        out.append("    pub label: Option<String>,")
        out.append("    #[cel(max_items = 16)]")
        out.append("    pub items: Vec<Item>,")
        out.append("    #[cel(max_properties = 16)]")
        out.append("    pub tags: BTreeMap<String, String>,")
        if t > 0:
            out.append(f"    pub prev: Option<Box<T{t - 1}>>,")
        out.append("}")
    source = "\n".join(out) + "\n"
    if OPAQUE:
        for ty, alias in (("i64", "I64"), ("String", "Str")):
            source = source.replace(ty, alias).replace(f"type {alias} = {alias};", f"type {alias} = {ty};")
    return source

def write_crate():
    os.makedirs(os.path.join(WORK, "src"), exist_ok=True)
    with open(os.path.join(WORK, "Cargo.toml"), "w") as f:
        f.write(f"""[package]
name = "crd-cel-build-overhead"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
crd-cel = {{ path = "{ROOT}/runtime", default-features = false, features = ["derive"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
""")

def build(source: str) -> float:
    lib = os.path.join(WORK, "src", "lib.rs")
    with open(lib, "w") as f:
        f.write(source)
    start = time.monotonic()
    # crd-cel reads kube's schema settings (kube-core, hence k8s-openapi), whose build needs
    # a Kubernetes version; a binary picks it, this crate has none of its own.
    env = dict(os.environ, K8S_OPENAPI_ENABLED_VERSION=os.environ.get("K8S_OPENAPI_ENABLED_VERSION", "1.37"))
    subprocess.run(["cargo", "build", "-q", "--offline"], cwd=WORK, check=True, env=env)
    return time.monotonic() - start

def main():
    write_crate()
    with_rules, without = generate(True), generate(False)
    print("building dependencies once ...", flush=True)
    build(without)
    # Then once with rules, untimed: the first timed build would otherwise find the incremental
    # cache of an identical crate and take a fraction of a real build.
    build(with_rules)
    times = {"with": [], "without": []}
    for _ in range(RUNS):
        times["without"].append(build(without + "\n// a\n"))
        times["with"].append(build(with_rules + "\n// b\n"))
    w, wo = statistics.median(times["with"]), statistics.median(times["without"])
    rules = TYPES * RULES_PER_TYPE
    print(f"types: {TYPES}, rules: {rules}")
    print(f"without rules: {[round(t, 2) for t in times['without']]} s, median {wo:.2f} s")
    print(f"with rules:    {[round(t, 2) for t in times['with']]} s, median {w:.2f} s")
    print(f"overhead: {(w - wo) * 1000 / rules:.2f} ms per rule")

if __name__ == "__main__":
    main()
