#!/usr/bin/env bash
# The hand-written suites of tests/suites/corpus (real corpus CRDs, every field of the format)
# through `crd-cel test`, every case passing, and through the oracle: each case as vectors
# (to_vectors.py), whose verdicts and texts the oracle must give as the case expects.
#
#   bash tests/suites/corpus-suites.sh            # crd-cel test, then the oracle (a few seconds)
#   bash tests/suites/corpus-suites.sh --server   # and the same suites against kube-apiserver
#                                                 # (tests/e2e/controlplane, envtest-style:
#                                                 # stored objects compared with `expected`)
#
# The CRDs are read from ../shared/corpus (never copied here); without it the script says
# SKIPPED and exits 0. CRD_CEL= names the crd-cel binary (default target/debug/crd-cel, built
# when missing), ORACLE= the oracle (default tests/oracle/oracle, built when missing and Go is
# there; without either, the oracle check says SKIPPED).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=../shared/corpus
if [[ ! -d $root ]]; then
  echo "SKIPPED corpus suites (tests/suites/corpus): $root is missing (the corpus is read from beside the checkout)"
  exit 0
fi
# The CRD folders the suites' crdNames are found in (Gateway API's two channels both name
# httproutes and gatewayclasses: those suites run against each file).
crds=(gateway-api/crd/standard gateway-api/crd/experimental karpenter/crd kueue/crd crossplane/crd jobset/crd)
crd_args=()
for d in "${crds[@]}"; do crd_args+=(--crd "$root/$d"); done
suites=(tests/suites/corpus/*.testsuite.yaml)

crd_cel=${CRD_CEL:-target/debug/crd-cel}
[[ -x $crd_cel ]] || cargo build -q -p crd-cel-cli
echo "== crd-cel test: ${#suites[@]} suites"
"$crd_cel" test "${crd_args[@]}" "${suites[@]}"

echo "== the oracle: the suites' cases as vectors"
oracle=${ORACLE:-tests/oracle/oracle}
if [[ ! -x $oracle ]]; then
  if command -v go >/dev/null 2>&1 && [[ -z ${ORACLE:-} ]]; then
    (cd tests/oracle && go build -o oracle .)
  else
    echo "SKIPPED the oracle check of the corpus suites: no oracle at $oracle (ORACLE= names one; without ORACLE, tests/oracle/oracle is built when Go is there)"
  fi
fi
out=target/corpus-suite-vectors
rm -rf "$out"
if [[ -x $oracle ]]; then
  python3 tests/suites/to_vectors.py "${crd_args[@]}" --out "$out" --oracle "$oracle" "${suites[@]}"
fi

if [[ ${1:-} == --server ]]; then
  echo "== kube-apiserver (tests/e2e/controlplane), envtest-style"
  runner=target/envtest-suites
  (cd tests/suites/envtest && go build -o ../../../$runner .)
  files=()
  for d in "${crds[@]}"; do
    while IFS= read -r f; do files+=(--crd "$f"); done < <(grep -l -r '^kind: CustomResourceDefinition' "$root/$d" | sort)
  done
  bash tests/e2e/controlplane/start.sh -- "$runner" "${files[@]}" "${suites[@]}"
fi
