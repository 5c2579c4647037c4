#!/usr/bin/env bash
# Runs every example of crd-cel-examples (examples/examples/*.rs), the rule tests of
# tests/rules.rs and the check of the CI files (examples/ci/check.py); exits non-zero on the
# first failure. Each example asserts what it prints, so a run that ends is a run that held.
#
#   bash examples/run-all.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Built once, so that the runs below print only the examples' output.
cargo build -q -p crd-cel-examples --examples
for file in examples/examples/*.rs; do
    name=$(basename "$file" .rs)
    echo "=== cargo run -p crd-cel-examples --example $name"
    cargo run -q -p crd-cel-examples --example "$name"
done

echo "=== cargo test -p crd-cel-examples --test rules"
cargo test -q -p crd-cel-examples --test rules

echo "=== python3 examples/ci/check.py"
python3 examples/ci/check.py # runs `cargo run -q -p crd-cel-cli -- SUBCOMMAND --help`

# Every example has its line in examples/README.md.
for file in examples/examples/*.rs; do
    name=$(basename "$file" .rs)
    grep -q -- "--example $name\`" examples/README.md || {
        echo "examples/README.md does not list the example $name" >&2
        exit 1
    }
done
echo "=== every example ran and held"
