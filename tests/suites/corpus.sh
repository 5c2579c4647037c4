#!/usr/bin/env bash
# Real projects' validation cases through `crd-cel test`: every corpus vector that expects an
# error becomes a case of a suite per CRD file (from_vectors.py, written under target/), and
# every case must pass. Skips, saying so, without ../shared/corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=../shared/corpus
if [[ ! -d $root/vectors ]]; then
  echo "SKIPPED corpus suites: $root is missing (the corpus is read from beside the checkout)"
  exit 0
fi
crd_cel=${CRD_CEL:-target/debug/crd-cel}
[[ -x $crd_cel ]] || cargo build -q -p crd-cel-cli
out=target/corpus-suites
rm -rf "$out"
total=0 failed=0
for set_dir in "$root"/vectors/*/; do
  set=$(basename "$set_dir")
  python3 tests/suites/from_vectors.py --root "$root" --set "$set" --out "$out/$set"
  for suite in "$out/$set"/*.testsuite.yaml; do
    [[ -e $suite ]] || continue
    crd=$(sed -n 's/^name: .*: \(.*\)$/\1/p' "$suite" | head -1 | tr -d "'\"")
    if ! "$crd_cel" test --crd "$root/$crd" "$suite" > "$suite.out" 2>&1; then
      failed=$((failed + 1))
      cat "$suite.out"
    fi
    total=$((total + 1))
  done
done
echo "corpus suites: $((total - failed))/$total suites pass"
[[ $failed == 0 ]]
