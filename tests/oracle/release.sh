#!/usr/bin/env bash
# Builds the oracle against another Kubernetes release, for measuring crd-cel at that release:
#   bash tests/oracle/release.sh v0.32.13 /tmp/oracle132
#   cargo run -p crd-cel-tests --bin conformance -- --oracle /tmp/oracle132 \
#     --kubernetes-version 1.32 ../shared/corpus
# The sources are this folder's, built in a scratch module whose k8s.io requirements are the
# given release (from the Go module proxy; go.sum is not committed for these, unlike go.mod and
# go134.mod, which CI builds). Releases before 1.37 use release_1_34.go's API forms; 1.30 to 1.36
# build this way.
set -euo pipefail
version=${1:?usage: release.sh v0.N.P OUTPUT}
out=${2:?usage: release.sh v0.N.P OUTPUT}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here"/*.go "$work"/
rm "$work/release_1_37.go"
cd "$work"
printf 'module github.com/crd-cel/crd-cel/tests/oracle\n\ngo 1.26.0\n' > go.mod
go get k8s.io/apiextensions-apiserver@"$version" k8s.io/apimachinery@"$version" \
  k8s.io/apiserver@"$version" k8s.io/api@"$version" k8s.io/client-go@"$version" \
  k8s.io/component-base@"$version" gopkg.in/evanphx/json-patch.v4 sigs.k8s.io/yaml k8s.io/klog/v2 \
  2>&1 | grep -v '^go: downloading' || true
go mod tidy 2>&1 | grep -v '^go: downloading' || true
go build -tags k8s134 -o "$out" .
"$out" version | head -1
