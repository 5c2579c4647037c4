#!/usr/bin/env bash
# Checks examples/starter as a user has it: a copy outside this repository, its own project
# (not a workspace member), crd-cel as the git dependency its Cargo.toml names. Runs what its
# README.md and .github/workflows/ci.yml run, and fails on the first failure.
#
#   bash examples/starter/check.sh
#
# What is built:
# - the starter: this checkout's work tree (examples/starter, copied to a temporary directory);
# - crd-cel: this checkout's work tree (its files git tracks or does not ignore), committed to a
#   temporary repository. The git dependency (https://github.com/crd-cel/crd-cel) is
#   redirected there by git's `url.<base>.insteadOf`, which cargo's git
#   (CARGO_NET_GIT_FETCH_WITH_CLI) follows. A `[patch]` would not do on a machine that never
#   fetched the repository: cargo fetches a patched git source all the same. Not this
#   repository itself: cargo cannot fetch from a shallow clone (CI's may be one), and a
#   snapshot sees uncommitted changes.
# - with the workspace's Cargo.lock (the dependency versions the workspace is tested with) and
#   its target directory (the starter's kube and k8s-openapi builds are kept between runs);
# - with the toolchain of rust-toolchain.toml, and the starter's own (default) build profile.
#
# The CLI is this work tree's (`cargo run -q -p crd-cel-cli --`, built once here), or the
# command in $CRD_CEL (`CRD_CEL=~/.cargo/bin/crd-cel bash examples/starter/check.sh`).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
starter="$repo/examples/starter"
cd "$repo"

target_dir=$(cargo metadata -q --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
toolchain=$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)
if [ -z "${CRD_CEL:-}" ]; then
    cargo build -q -p crd-cel-cli
    CRD_CEL="$target_dir/debug/crd-cel" # what `cargo run -q -p crd-cel-cli --` runs
fi
crd_cel() { $CRD_CEL "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `crd-cel` on PATH, for the workflow's steps.
mkdir "$work/bin"
printf '#!/bin/sh\nexec %s "$@"\n' "$CRD_CEL" > "$work/bin/crd-cel"
chmod +x "$work/bin/crd-cel"
cp -r "$starter" "$work/starter"
rm -f "$work/starter/check.sh"
cp Cargo.lock "$work/starter/Cargo.lock"
# The snapshot of the work tree crd-cel is fetched from (see above).
mkdir "$work/crd-cel"
git ls-files -z --cached --others --exclude-standard |
    tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$work/crd-cel"
git -C "$work/crd-cel" init -q
git -C "$work/crd-cel" add -A -f
# Fixed names and dates: the same tree makes the same commit, whose checkout and build cargo
# reuses on the next run.
GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
    git -C "$work/crd-cel" -c user.name=check -c user.email=check@localhost -c commit.gpgsign=false commit -q -m snapshot

export CARGO_TARGET_DIR="$target_dir"
export RUSTUP_TOOLCHAIN="$toolchain"
export CARGO_NET_GIT_FETCH_WITH_CLI=true
export GIT_CONFIG_COUNT=1
export GIT_CONFIG_KEY_0="url.file://$work/crd-cel/.insteadOf"
export GIT_CONFIG_VALUE_0="https://github.com/crd-cel/crd-cel"
# Variables of this repository's .cargo/config.toml a user does not have.
unset CRD_CEL_STRICT_MODEL

cd "$work/starter"
step() { echo "=== (starter) $*"; }
step "crd-cel: the work tree at $(git -C "$repo" rev-parse --short HEAD)"

# The workflow's own steps, as GitHub Actions runs them (bash -e -o pipefail), but those that
# install the CLI (it is on PATH here): cargo test, the committed CRD against crdgen's, and
# check, validate (yaml/good/ valid, every object of yaml/bad/ invalid) and test.
python3 - .github/workflows/ci.yml > "$work/steps" <<'STEPS'
import sys, yaml
for job in yaml.safe_load(open(sys.argv[1]))["jobs"].values():
    for step in job["steps"]:
        run = step.get("run")
        if run and "${{" not in run and "github.com/crd-cel" not in run:
            print(run.replace("\n", " ").strip())
STEPS
while IFS= read -r run; do
    step ".github/workflows/ci.yml: $run"
    PATH="$work/bin:$PATH" bash -e -o pipefail -c "$run" 2>&1 | sed '/^$/d'
done < "$work/steps"

# README.md shows what the commands print and the compile error of a wrong rule: still true?
step "README.md: the CLI's outputs and the wrong rule's compile error are today's"
{
    crd_cel check crds/ 2>&1
    crd_cel validate --crd crds/ yaml/good/ 2>&1
    status=0
    crd_cel validate --crd crds/ yaml/bad/ 2>&1 || status=$?
    if [ "$status" != 1 ]; then
        echo "crd-cel validate on yaml/bad/ exited $status, not 1" >&2
        exit 1
    fi
    crd_cel test --crd crds/ tests/suites/ 2>&1
} > "$work/outputs"
python3 - README.md src/lib.rs > "$work/wrong.rs" <<'WRONG'
import re, sys
readme, lib = open(sys.argv[1]).read(), open(sys.argv[2]).read()
wrong = readme.split("```rust,ignore\n", 1)[1].split("```", 1)[0]
rule = re.search(r"^ *rule = .*\n *message = .*\n", wrong, re.M).group(0)
rule3 = re.search(r"^ *rule = \"!has\(self\.spec\).*?\n *message = \"every container must set a memory limit\"\n", lib, re.M | re.S)
print(lib[: rule3.start()] + rule + lib[rule3.end() :], end="")
WRONG
cp "$work/wrong.rs" src/lib.rs
if cargo build -q --lib > "$work/wrong.log" 2>&1; then
    echo "the README's wrong rule builds" >&2
    exit 1
fi
python3 - README.md "$work/outputs" "$work/wrong.log" <<'SAME'
import sys
readme, outputs, build = (open(p).read() for p in sys.argv[1:])
missing = [line for line in outputs.splitlines() if line and line not in readme]
error = readme.split("```text\nerror[E0080]", 1)[1].split("```", 1)[0]
if "error[E0080]" + error not in build:
    missing.append("the compile error; the build printed:\n" + build)
if missing:
    sys.exit("README.md is not what the starter prints:\n" + "\n".join(missing))
print("README.md: the outputs of check, validate and test, and the compile error, are today's")
SAME

echo "=== examples/starter: every check held"
