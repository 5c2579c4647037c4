#!/usr/bin/env bash
# Builds the oracle against another Kubernetes release, for measuring crd-cel at that release:
#   bash tests/oracle/release.sh v0.32.13 /tmp/oracle132
#   cargo run -p crd-cel-tests --bin conformance -- --oracle /tmp/oracle132 \
#     --kubernetes-version 1.32 ../shared/corpus
# The sources are this folder's, built in a scratch module whose k8s.io requirements are the
# given release (from the Go module proxy; go.sum is not committed for these, unlike go.mod and
# go134.mod, which CI builds). 1.30 to 1.36 build this way (with release_1_37.go's API forms where
# they fit, else release_1_34.go's).
set -euo pipefail
version=${1:?usage: release.sh v0.N.P OUTPUT}
out=${2:?usage: release.sh v0.N.P OUTPUT}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The API forms of 1.37 (release_1_37.go) first, then those of 1.34 (release_1_34.go, -tags k8s134).
build() {
  local keep=$1 tags=$2 dir="$work/$1"
  mkdir -p "$dir"
  cp "$here"/*.go "$dir"/
  rm "$dir/release_1_3"[47].go
  cp "$here/$keep" "$dir/"
  cd "$dir"
  printf 'module github.com/crd-cel/crd-cel/tests/oracle\n\ngo 1.26.0\n' > go.mod
  go get k8s.io/apiextensions-apiserver@"$version" k8s.io/apimachinery@"$version" \
    k8s.io/apiserver@"$version" k8s.io/api@"$version" k8s.io/client-go@"$version" \
    k8s.io/component-base@"$version" gopkg.in/evanphx/json-patch.v4 sigs.k8s.io/yaml \
    k8s.io/klog/v2 2>&1 | grep -v '^go: \(downloading\|added\|upgraded\)' || true
  go mod tidy 2>&1 | grep -v '^go: downloading' || true
  # tidy may have raised a module to find a package of the other release's API forms.
  for m in apimachinery apiserver apiextensions-apiserver; do
    [ "$(go list -m -f '{{.Version}}' "k8s.io/$m")" = "$version" ] || return 1
  done
  go build -tags "$tags" -o "$out" .
}
if ! (build release_1_37.go "") 2>/dev/null; then
  build release_1_34.go k8s134
fi
"$out" version | head -1
