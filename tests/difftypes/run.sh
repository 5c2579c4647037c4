#!/usr/bin/env bash
# Runs the differential test of the derive against schemars on many seeds:
#   bash tests/difftypes/run.sh FIRST_SEED LAST_SEED [COUNT]
# Each seed generates COUNT types (default 250), built both ways and compared (src/lib.rs).
# Prints one line per seed and a last line `difftypes: T types, F disagreeing, seeds A-B`.
set -uo pipefail
cd "$(dirname "$0")/../.."
first=${1:?first seed}; last=${2:?last seed}; count=${3:-250}
export CARGO_INCREMENTAL=0
total=0; failed=0; bad_seeds=()
for seed in $(seq "$first" "$last"); do
  log=$(mktemp)
  total=$((total + count))
  if DIFFTYPES_SEED=$seed DIFFTYPES_COUNT=$count cargo test -q -p crd-cel-difftypes --lib >"$log" 2>&1; then
    echo "seed $seed: $count types agree"
  else
    n=$(grep -o '^[0-9]* of [0-9]* generated types disagree' "$log" | head -1 | cut -d' ' -f1)
    [ -n "$n" ] || n="build"
    echo "seed $seed: $n disagree (log: $log)"
    [ "$n" = build ] && n=$count
    failed=$((failed + n))
    bad_seeds+=("$seed")
    continue
  fi
  rm -f "$log"
done
echo "difftypes: $total types, $failed disagreeing, seeds $first-$last${bad_seeds[*]:+ (failing: ${bad_seeds[*]})}"
[ "$failed" = 0 ]
