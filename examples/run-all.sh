#!/usr/bin/env bash
# Runs every example of crd-cel-examples (examples/examples/*.rs), the rule tests of
# tests/rules.rs, the check of the CI files (examples/ci/check.py) and of the starter project
# (examples/starter/check.sh); exits non-zero on the first failure. Each example asserts what
# it prints, so a run that ends is a run that held.
#
#   bash examples/run-all.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Built once, with the workspace's features (the artifacts `cargo test --workspace` built, in
# CI), then each run as `cargo run -p crd-cel-examples --example NAME` would run it.
cargo build -q --workspace --examples
target_dir=$(cargo metadata -q --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
for file in examples/examples/*.rs; do
    name=$(basename "$file" .rs)
    echo "=== cargo run -p crd-cel-examples --example $name"
    "$target_dir/debug/examples/$name"
done

echo "=== cargo test -p crd-cel-examples --test rules"
cargo test -q --workspace --test rules

echo "=== python3 examples/ci/check.py"
python3 examples/ci/check.py # runs `cargo run -q -p crd-cel-cli -- SUBCOMMAND --help`

echo "=== bash examples/starter/check.sh"
# The starter project as a user has it: a copy outside the workspace, crd-cel as its git
# dependency (redirected to a snapshot of this work tree), the CLI's commands on it.
bash examples/starter/check.sh

# Every example has its line in examples/README.md.
for file in examples/examples/*.rs; do
    name=$(basename "$file" .rs)
    grep -q -- "--example $name\`" examples/README.md || {
        echo "examples/README.md does not list the example $name" >&2
        exit 1
    }
done
echo "=== every example ran and held"
