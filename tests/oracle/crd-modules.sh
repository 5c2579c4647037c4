#!/usr/bin/env bash
# `crd-cel check` beside the oracle on the CRDs real projects publish, fetched as Go modules
# (pinned below) through the Go module proxy: every CRD's verdict and every rule's
# estimatedCost/maxCost/maxCardinality the same at 1.37 and 1.34 (compare-check.py).
# OpenShift API's CRDs are checked by tests/suites/openshift-api.sh, the corpus's by ci.sh.
#
#   bash tests/oracle/crd-modules.sh     # needs go, and tests/oracle/oracle and oracle134 built
#
# Skips, saying so, without go or the oracle binaries.
set -euo pipefail
cd "$(dirname "$0")/../.."
modules=(
  sigs.k8s.io/cluster-api@v1.14.2
  sigs.k8s.io/kueue@v0.17.0
  sigs.k8s.io/karpenter@v1.10.0
  sigs.k8s.io/gateway-api-inference-extension@v1.6.2
  github.com/kubeflow/trainer/v2@v2.0.0
  github.com/envoyproxy/gateway@v1.9.1
)
if ! command -v go >/dev/null 2>&1; then
  echo "SKIPPED CRD modules beside the oracle: go is not installed"
  exit 0
fi
if [[ ! -x tests/oracle/oracle || ! -x tests/oracle/oracle134 ]]; then
  echo "SKIPPED CRD modules beside the oracle: build tests/oracle/oracle and oracle134 first (.ci/run does)"
  exit 0
fi
crd_cel=${CRD_CEL:-target/debug/crd-cel}
[[ -x $crd_cel ]] || cargo build -q -p crd-cel-cli
crd_cel=$(pwd)/$crd_cel
repo=$(pwd)
status=0
for module in "${modules[@]}"; do
  dir=$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "$module" |
    python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(d["Error"]) if "Error" in d else print(d["Dir"])')
  # The CRD manifests the project ships (not test fixtures, Helm templates or kustomize patches).
  mapfile -t files < <(cd "$dir" && grep -rl --include='*.yaml' '^kind: CustomResourceDefinition' . |
    grep -v -e /test -e testdata -e /vendor/ -e /templates/ -e /patches/ | sort)
  for release in "1.37 oracle" "1.34 oracle134"; do
    read -r version oracle <<< "$release"
    if (cd "$dir" && python3 "$repo/tests/oracle/compare-check.py" --crd-cel "$crd_cel" \
      --oracle "$repo/tests/oracle/$oracle" --kubernetes-version "$version" "${files[@]}") > /tmp/crd-modules.out; then
      echo "$module: $(tail -1 /tmp/crd-modules.out)"
    else
      tail -20 /tmp/crd-modules.out
      echo "FAILED $module at $version"
      status=1
    fi
  done
done
exit $status
