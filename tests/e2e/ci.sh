#!/usr/bin/env bash
# CI's real-server step (.ci/run): a kube-apiserver v1.37.2 and etcd on 127.0.0.1 as the final
# judge. Builds the control plane (cached in ~/.cache/crd-cel-e2e; about 9 minutes cold, nothing
# warm), then, each on a fresh server:
#   - the harness's own vectors and the corpus vectors (when ../shared/corpus is here): crd-cel
#     must give the server's verdict and text on every one, except what known-differences.txt
#     lists (run.sh --known exits 1 otherwise);
#   - the no-op-update ratcheting cases (ratchet/run.sh: PUT, merge patch, server-side apply);
#   - kube-rs's client against the server (tests/e2e/kube: the examples', the UI pass cases'
#     and the realworld CRDs applied as generated, objects created, replaced, patched and
#     applied; the server's Status against crd-cel's typed and manifest validation).
# Needs go, openssl, curl, python3 and cargo; without go it says so and skips (exit 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v go >/dev/null 2>&1; then
  echo "SKIPPED e2e: go is not installed on this machine (the control plane is built from Go modules)"
  exit 0
fi
t0=$SECONDS
bash tests/e2e/controlplane/start.sh build
echo "e2e: control plane ready to start after $((SECONDS - t0)) s"
cargo build -q -p crd-cel-cli
known=tests/e2e/known-differences.txt

echo "== e2e: the harness's own vectors"
bash tests/e2e/run.sh --root tests/e2e/selftest --set selftest --known "$known" | tail -4

if [[ -d ../shared/corpus/vectors ]]; then
  echo "== e2e: the corpus vectors through the server"
  sets=()
  for d in ../shared/corpus/vectors/*/; do sets+=(--set "$(basename "$d")"); done
  bash tests/e2e/run.sh --root ../shared/corpus "${sets[@]}" --known "$known" | tail -8
else
  echo "SKIPPED e2e corpus: ../shared/corpus is missing (the corpus is read from beside the checkout)"
fi

# The hand-written suites' cases (tests/suites/corpus), as vectors written by
# tests/suites/corpus-suites.sh earlier in .ci/run: the server gives each case's answer (104/104
# when last run, tests/suites/README.md). Opt-in (E2E_SUITES=1) for the CI budget: about 50 s,
# most of it CRD changes; the oracle checks the same cases in every CI run.
if [[ -d target/corpus-suite-vectors/vectors/suites && ${E2E_SUITES:-} == 1 ]]; then
  echo "== e2e: the hand-written corpus suites' cases (tests/suites/corpus) through the server"
  bash tests/e2e/run.sh --root target/corpus-suite-vectors --set suites --known "$known" | tail -2
else
  echo "NOT RUN e2e of the corpus suites' cases (set E2E_SUITES=1; tests/suites/corpus-suites.sh writes target/corpus-suite-vectors)"
fi

# The same corpus through a kube-apiserver v1.34.2, crd-cel at --kubernetes-version 1.34: its
# texts differ from 1.37's on 245 runs, and crd-cel's 1.34 texts are checked against a real
# server of that release. A second apiserver build (about 6 minutes cold) and a minute and a
# half a run: opt-in (E2E_KUBERNETES_1_34=1) for the CI budget; tests/e2e/RESULTS.md has its run.
if [[ -d ../shared/corpus/vectors && ${E2E_KUBERNETES_1_34:-} == 1 ]]; then
  echo "== e2e: the corpus vectors through a kube-apiserver v1.34.2"
  E2E_KUBERNETES=1.34 bash tests/e2e/controlplane/start.sh build
  bash tests/e2e/run.sh --kubernetes 1.34 --root ../shared/corpus "${sets[@]}" --known "$known" | tail -8
else
  echo "NOT RUN e2e corpus at Kubernetes 1.34 (set E2E_KUBERNETES_1_34=1; tests/e2e/RESULTS.md has the last run)"
fi

echo "== e2e: no-op updates and ratcheting (PUT, merge patch, server-side apply)"
bash tests/e2e/ratchet/run.sh | tail -6

if [[ -d tests/e2e/kube ]]; then
  echo "== e2e: kube-rs's client against the server"
  bash tests/e2e/controlplane/start.sh -- env CRD_CEL_E2E=1 cargo test -q -p crd-cel-e2e
fi
echo "e2e: done in $((SECONDS - t0)) s"
