#!/usr/bin/env bash
# CI for the apiserver oracle (issue 3).
#
#   bash tests/oracle/ci.sh            build, check committed expectations, print agreement tables
#   bash tests/oracle/ci.sh --update   rewrite tests/cases/*.expected.json from the oracle
#
# Fails if: the oracle does not build; a committed expectation differs from what the oracle prints
# (the diff is shown), is missing or is stale; a case's own "expect" disagrees with the oracle; a
# corpus CRD is rejected; or the set of corpus vectors the oracle disagrees with differs from
# tests/oracle/corpus-known-disagreements.txt. The corpus and reference-vector parts need
# ../shared beside the checkout (override with CRD_CEL_SHARED); without it they are skipped, loudly.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
shared="${CRD_CEL_SHARED:-$repo/../shared}"
update=0
[[ "${1:-}" == "--update" ]] && update=1

if ! command -v go >/dev/null 2>&1; then
  echo "oracle ci: go is not installed" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$work/oracle"
status=0

t0=$(date +%s)
echo "== oracle: go build ($(go version | cut -d' ' -f3), GOMODCACHE=$(go env GOMODCACHE))"
(cd "$here" && go build -mod=readonly -o "$bin" .)
# The same sources against Kubernetes 1.34's modules (go134.mod; release_1_34.go holds the two
# API differences): crd-cel at 1.34 is compared with it on the corpus below.
bin134="$work/oracle134"
(cd "$here" && go build -mod=readonly -modfile=go134.mod -tags k8s134 -o "$bin134" .)
t1=$(date +%s)
echo "build (including module download if needed): $((t1 - t0))s"
"$bin" version | sed 's/^/  /'

# ---- 1. the project's own cases -------------------------------------------------------------
echo
echo "== tests/cases: regenerate expectations and compare with the committed ones"
mkdir -p "$work/expected"
ncase=0
for case in "$repo"/tests/cases/*.json; do
  [[ "$case" == *.expected.json ]] && continue
  name="$(basename "$case" .json)"
  ncase=$((ncase + 1))
  rc=0
  "$bin" eval "$case" > "$work/expected/$name.expected.json" || rc=$?
  if [[ $rc -eq 2 ]]; then
    echo "FAIL $name: the oracle could not evaluate the case" >&2
    status=1
    continue
  elif [[ $rc -eq 1 ]]; then
    echo "FAIL $name: the oracle disagrees with the case's own expect (see \"mismatches\" in the output)" >&2
    status=1
  fi
  committed="$repo/tests/cases/$name.expected.json"
  if [[ $update -eq 1 ]]; then
    cp "$work/expected/$name.expected.json" "$committed"
  elif [[ ! -f "$committed" ]]; then
    echo "FAIL $name: no committed expectation ($committed); run: bash tests/oracle/ci.sh --update" >&2
    status=1
  elif ! diff -u "$committed" "$work/expected/$name.expected.json"; then
    echo "FAIL $name: committed expectation differs from the oracle output (diff above)" >&2
    status=1
  fi
done
for exp in "$repo"/tests/cases/*.expected.json; do
  [[ -e "$exp" ]] || continue
  if [[ ! -f "${exp%.expected.json}.json" ]]; then
    echo "FAIL stale expectation without a case: $exp" >&2
    status=1
  fi
done
echo "$ncase case files checked"

# ---- 1b. the checker's probes (tests/probes) --------------------------------------------------
echo
echo "== tests/probes: the checker's differential cases against oracle probe"
probes="$repo/tests/probes/checker.json"
if [[ -f "$probes" ]]; then
  "$bin" probe "$probes" > "$work/checker.expected.json"
  if [[ $update -eq 1 ]]; then
    cp "$work/checker.expected.json" "$repo/tests/probes/checker.expected.json"
  elif ! diff -u "$repo/tests/probes/checker.expected.json" "$work/checker.expected.json" > "$work/probes.diff"; then
    echo "FAIL tests/probes/checker.expected.json differs from what the oracle prints:" >&2
    head -50 "$work/probes.diff" >&2
    status=1
  else
    echo "tests/probes/checker.expected.json: up to date ($(grep -c '"rule"' "$probes") expressions)"
  fi
fi

# ---- 1c. the example CRD the README's main job prints -------------------------------------
example="$repo/target/webapp-crd.yaml"
echo
if [[ -f "$example" ]]; then
  echo "== example CRD ($example): the apiserver must accept it"
  if "$bin" check-crd "$example" > "$work/example.json"; then
    echo "accepted"
  else
    echo "FAIL the apiserver rejects the example CRD:" >&2
    cat "$work/example.json" >&2
    status=1
  fi
else
  echo "SKIPPED example CRD: $example not generated (.ci/run's main job writes it)"
fi

# ---- 2. reference vectors and corpus ------------------------------------------------------------
echo
if [[ ! -d "$shared/reference/vectors" || ! -d "$shared/corpus" ]]; then
  echo "SKIP: $shared (reference vectors and corpus) not found; oracle-vs-corpus agreement NOT measured"
  exit $status
fi

echo "== reference vectors ($shared/reference/vectors): oracle vs the vectors' expect"
printf '%-48s %6s %6s %9s %9s\n' vector cases agree disagree unchecked
for v in "$shared"/reference/vectors/v*.json; do
  rc=0
  "$bin" eval "$v" > "$work/vec.json" || rc=$?
  [[ $rc -eq 2 ]] && { echo "FAIL the oracle could not evaluate $v" >&2; status=1; continue; }
  # the summary is the last object of the output
  sum="$(tr -d ' \n' < "$work/vec.json" | sed 's/.*"summary":{\([^}]*\)}}$/\1/')"
  get() { echo "$sum" | sed "s/.*\"$1\":\([0-9]*\).*/\1/"; }
  printf '%-48s %6s %6s %9s %9s\n' "$(basename "$v" .json)" "$(get cases)" "$(get agree)" "$(get disagree)" "$(get unchecked)"
done

echo
echo "== corpus CRDs ($shared/corpus): oracle check-crd must accept every CRD"
mapfile -t crds < <(find "$shared/corpus" -path "$shared/corpus/vectors" -prune -o \( -name '*.yaml' -o -name '*.yml' \) -print | sort)
rc=0
"$bin" check-crd "${crds[@]}" > "$work/crds.jsonl" || rc=$?
total=$(wc -l < "$work/crds.jsonl")
accepted=$(grep -c '"accepted":true' "$work/crds.jsonl" || true)
rules=$(grep -o '"estimatedCost":' "$work/crds.jsonl" | wc -l)
echo "CRDs: $total, accepted: $accepted, rules with cost figures: $rules (from ${#crds[@]} files)"
if [[ $rc -ne 0 || "$accepted" -ne "$total" ]]; then
  echo "FAIL a corpus CRD was rejected:" >&2
  grep '"accepted":false' "$work/crds.jsonl" | cut -c1-2000 >&2 || true
  status=1
fi

echo
echo "== corpus rule costs: tests/oracle/corpus-costs.jsonl must be what the oracle prints"
# One line per rule, without corpus text (paths relative to the corpus and numbers only);
# tests/tests/cli_corpus.rs compares crd-cel check's figures with it.
if ! command -v jq >/dev/null 2>&1; then
  echo "FAIL jq is needed to extract the corpus rule costs" >&2
  status=1
else
  mapfile -t rel < <(cd "$shared/corpus" && find . -path ./vectors -prune -o \( -name '*.yaml' -o -name '*.yml' \) -print | sed 's|^\./||' | sort)
  (cd "$shared/corpus" && "$bin" check-crd "${rel[@]}") > "$work/corpus-rel.jsonl" || true
  jq -c '. as $c | .rules[] | {file: $c.file, doc: $c.doc, crd: $c.crd, path, estimatedCost, maxCost, maxCardinality}
    + (if .messageExpressionMaxCost != null then {messageExpressionMaxCost} else {} end)
    + (if .compileError != null then {compileError: true} else {} end)' \
    "$work/corpus-rel.jsonl" > "$work/corpus-costs.jsonl"
  if [[ $update -eq 1 ]]; then
    cp "$work/corpus-costs.jsonl" "$here/corpus-costs.jsonl"
  elif ! diff -u "$here/corpus-costs.jsonl" "$work/corpus-costs.jsonl" > "$work/costs.diff"; then
    echo "FAIL tests/oracle/corpus-costs.jsonl differs from what the oracle prints (update with --update):" >&2
    head -40 "$work/costs.diff" >&2
    status=1
  else
    echo "tests/oracle/corpus-costs.jsonl: up to date ($(wc -l < "$here/corpus-costs.jsonl") rules)"
  fi
fi

echo
echo "== corpus CRDs: crd-cel check beside the 1.34 oracle (verdicts and every rule's cost figures)"
# 1.37's figures are the committed file above (tests/tests/cli_corpus.rs compares crd-cel's);
# 1.34's estimator differs (cel-go 0.26, apiextensions before 1.37), so it is compared here.
(cd "$repo" && cargo build -q -p crd-cel-cli)
mapfile -t crd_files < <(cd "$shared/corpus" && find . -path ./vectors -prune -o \( -name '*.yaml' -o -name '*.yml' \) -print |
  sed 's|^\./||' | sort | xargs grep -l '^kind: CustomResourceDefinition')
if ! (cd "$shared/corpus" && python3 "$here/compare-check.py" --crd-cel "$repo/target/debug/crd-cel" \
  --oracle "$bin134" --kubernetes-version 1.34 "${crd_files[@]}") > "$work/check134.txt"; then
  tail -40 "$work/check134.txt" >&2
  echo "FAIL crd-cel check differs from the 1.34 oracle on the corpus CRDs" >&2
  status=1
else
  tail -1 "$work/check134.txt"
fi

echo
echo "== corpus vectors: oracle vs recorded apiserver verdicts (expect) and errorsContain"
rc=0
"$bin" corpus --details "$shared/corpus" gateway-api gateway-api-examples istio-api > "$work/corpus.txt" || rc=$?
[[ $rc -eq 2 ]] && { echo "FAIL oracle corpus could not run" >&2; cat "$work/corpus.txt"; exit 1; }
sed -n '1,/^$/p' "$work/corpus.txt"
grep '^DISAGREE ' "$work/corpus.txt" | awk '{print $2}' | sort > "$work/disagree.txt" || true
grep -v '^#' "$here/corpus-known-disagreements.txt" | awk 'NF {print $1}' | sort > "$work/known.txt"
if ! diff -u "$work/known.txt" "$work/disagree.txt" > "$work/disagree.diff"; then
  echo "FAIL the corpus disagreements changed (- known, + now); details:" >&2
  cat "$work/disagree.diff" >&2
  sed -n '/^DISAGREE/,$p' "$work/corpus.txt" | cut -c1-1500 >&2
  status=1
else
  echo "disagreements: $(wc -l < "$work/disagree.txt"), all known and explained in tests/oracle/corpus-known-disagreements.txt"
fi

echo
echo "== conformance: crd-cel validate beside the oracle and the recorded answers, every corpus vector"
# The measurement of issue 16 (tests/src/conformance.rs): same verdict and same whole text as
# the oracle, and the recorded verdict and substrings at each suite's version; every difference
# must be listed with its reason in tests/conformance-known-differences.txt.
# At 1.37 against the 1.37 oracle, and at 1.34 against the 1.34 oracle.
for release in "1.37 $bin" "1.34 $bin134"; do
  read -r version oracle <<< "$release"
  rc=0
  (cd "$repo" && cargo run -q -p crd-cel-tests --bin conformance -- --oracle "$oracle" \
    --kubernetes-version "$version" --recorded-version istio-api=1.34 \
    --known tests/conformance-known-differences.txt --check \
    "$shared/corpus") > "$work/conformance.txt" || rc=$?
  cat "$work/conformance.txt"
  if [[ $rc -ne 0 ]]; then
    echo "FAIL conformance at $version: differences not listed in tests/conformance-known-differences.txt, or listed ones gone (above); run with --details for both answers" >&2
    status=1
  fi
  # The project's own vectors (tests/conformance: initialCRDPatches): no difference at all.
  rc=0
  (cd "$repo" && cargo run -q -p crd-cel-tests --bin conformance -- --oracle "$oracle" \
    --kubernetes-version "$version" --details tests/conformance) || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL conformance at $version on tests/conformance (above)" >&2
    status=1
  fi
done
t2=$(date +%s)
echo
echo "oracle ci total: $((t2 - t0))s"
exit $status
