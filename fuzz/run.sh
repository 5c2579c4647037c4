#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, seeded from ../../shared/corpus when
# it is there, and prints one line per target: executions, coverage, time, crashes.
#   fuzz/run.sh SECONDS [TARGET...]
#   FUZZ_RUNS=10000000 fuzz/run.sh 0 rule    # a number of executions instead of a time
# Needs the nightly toolchain and cargo-fuzz. A crash, hang (> 1 s) or out-of-memory (> 2 GiB)
# fails the run and leaves the input in fuzz/artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(rule crd object typed input)

if [ -d ../../shared/corpus ]; then
  python3 seed.py
else
  echo "fuzz: ../../shared/corpus is missing: the targets start from an empty corpus" >&2
fi

# The input reader goes through unsafe-libyaml (C translated to Rust): AddressSanitizer there;
# the other targets are safe Rust over it and run faster without. FUZZ_SANITIZER=none builds
# every target alike (CI: one build of the dependencies instead of two).
sanitizer() {
  if [ -n "${FUZZ_SANITIZER:-}" ]; then echo "$FUZZ_SANITIZER";
  elif [ "$1" = input ]; then echo address; else echo none; fi
}
status=0
printf '%-8s %14s %8s %8s %6s\n' target executions cov seconds crash
for t in "${targets[@]}"; do
  dict=dict/k8s.dict
  [ "$t" = rule ] && dict=dict/cel.dict
  mkdir -p "corpus/$t" "artifacts/$t"
  log=$(mktemp)
  # Built first so that the time below is fuzzing only (switching sanitizers rebuilds).
  cargo +nightly fuzz build -O -s "$(sanitizer "$t")" "$t" 2>&1 | tail -1
  start=$(date +%s)
  set +e
  if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="$seconds"); fi
  cargo +nightly fuzz run -O -s "$(sanitizer "$t")" "$t" "corpus/$t" -- \
    "${limit[@]}" -dict="$dict" -rss_limit_mb=2048 -timeout=1 -max_len=65536 \
    -print_final_stats=1 >"$log" 2>&1
  code=$?
  set -e
  elapsed=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  crash=no
  if [ "$code" -ne 0 ]; then
    crash=YES
    status=1
    grep -E 'ERROR|panicked|Test unit written' "$log" | head -5 >&2
  fi
  printf '%-8s %14s %8s %8s %6s\n' "$t" "$execs" "$cov" "$elapsed" "$crash"
  rm -f "$log"
done
exit $status
