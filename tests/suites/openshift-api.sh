#!/usr/bin/env bash
# OpenShift API's own validation test suites (`<group>/<version>/tests/<crdName>/*.yaml`, the
# format `crd-cel test` reads), run offline by `crd-cel test` in a checkout of
# github.com/openshift/api exactly as a user runs them there: no --crd (the suites' CRD files
# come from the layout, as OpenShift's runner takes them), the payload's FeatureGate manifests
# for gated suites. Upstream runs them on a real kube-apiserver (envtest); every case must pass
# here too. The checkout comes from the Go module proxy (the module holds the suites, CRDs and
# manifests), pinned below. Skips, saying so, without go.
#
#   bash tests/suites/openshift-api.sh            # the pinned snapshot
#   OPENSHIFT_API_VERSION=v0.0.0-... bash ...      # another one (its Kubernetes version: below)
set -euo pipefail
cd "$(dirname "$0")/../.."
# A snapshot of openshift/api's main branch (October 2025). Its suites' expected messages are
# those of the apiserver its envtest runs, Kubernetes 1.33 here (at 1.34 the texts of
# duplicate list items and of the "rules were not checked" error changed, and 99 cases fail
# as they would on a 1.34 server).
version=${OPENSHIFT_API_VERSION:-v0.0.0-20251021124544-a2cb0c5d994d}
kubernetes=${OPENSHIFT_API_KUBERNETES:-1.33}
if ! command -v go >/dev/null 2>&1; then
  echo "SKIPPED OpenShift API's suites: go is not installed (the checkout comes from the Go module proxy)"
  exit 0
fi
crd_cel=${CRD_CEL:-target/debug/crd-cel}
[[ -x $crd_cel ]] || cargo build -q -p crd-cel-cli
crd_cel=$(cd "$(dirname "$crd_cel")" && pwd)/$(basename "$crd_cel")
dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/openshift/api@$version" |
  python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(d["Error"]) if "Error" in d else print(d["Dir"])')
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
set +e
(cd "$dir" && "$crd_cel" test -j 0 --kubernetes-version "$kubernetes" */*/tests) > "$out" 2> "$err"
code=$?
set -e
suites=$(cd "$dir" && find */*/tests -mindepth 2 -name '*.yaml' -not -path '*/testdata/*' | wc -l)
summary=$(tail -1 "$out")
echo "openshift/api@$version: $suites suite files, at Kubernetes $kubernetes: $summary"
# The warnings are upstream's own slips (a misplaced `onUpdate`, `featureGate` for
# `featureGates`), which its runner ignores as crd-cel does: shown, not failed on.
sed 's/^/  /' "$err"
if [[ $code != 0 ]]; then
  grep -v '^Summary' "$out" | head -60
  echo "FAILED: crd-cel test exited $code on OpenShift API's suites"
  exit 1
fi
# Every suite file ran (a discovery regression would run fewer cases, all passing).
[[ $summary =~ ^Summary:\ ([0-9]+)\ cases ]] && cases=${BASH_REMATCH[1]}
if (( ${cases:-0} < suites )); then
  echo "FAILED: $cases cases from $suites suite files: some suites did not run"
  exit 1
fi
# Its CRDs' creation checks (2,215 rules) beside the oracle's, at 1.37 and 1.34, where the cost
# estimator differs (cel-go and apiextensions changes of 1.37): every verdict and every rule's
# cost figures the same. Needs the oracle binaries (.ci/run builds them); skipped, saying so.
oracle=tests/oracle/oracle oracle134=tests/oracle/oracle134
if [[ -x $oracle && -x $oracle134 ]]; then
  oracle=$(pwd)/$oracle oracle134=$(pwd)/$oracle134 compare=$(pwd)/tests/oracle/compare-check.py
  for release in "1.37 $oracle" "1.34 $oracle134"; do
    read -r version binary <<< "$release"
    if ! (cd "$dir" && python3 "$compare" --crd-cel "$crd_cel" --oracle "$binary" \
      --kubernetes-version "$version" */*/zz_generated.crd-manifests/*.yaml) > "$out"; then
      tail -40 "$out"
      echo "FAILED: crd-cel check and the oracle differ on OpenShift API's CRDs at $version"
      exit 1
    fi
    tail -1 "$out"
  done
else
  echo "SKIPPED OpenShift API's CRD checks beside the oracle: build tests/oracle/oracle and oracle134 first (.ci/run does)"
fi
