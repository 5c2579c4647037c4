#!/bin/sh
# Regenerates core/src/model/k8s/ (the CelSchema models of every k8s-openapi type) and
# tests/tests/k8s_models.rs (their comparison test). Run from anywhere:
#   tests/k8s-models/generate.sh
# Each Kubernetes version k8s-openapi supports is dumped by its own build of the generator
# (K8S_OPENAPI_ENABLED_VERSION picks it), then all dumps are merged into Rust source.
set -eu
cd "$(dirname "$0")/../.."
dumps="${CARGO_TARGET_DIR:-target}/k8s-models"
mkdir -p "$dumps"
for minor in 33 34 35 36 37; do
    K8S_OPENAPI_ENABLED_VERSION="1.$minor" cargo run -q -p crd-cel-k8s-models -- dump "$dumps/1.$minor.json"
done
# The merge needs no particular version; the last one dumped is already built.
K8S_OPENAPI_ENABLED_VERSION=1.37 cargo run -q -p crd-cel-k8s-models -- emit "$dumps" core/src/model/k8s tests/tests/k8s_models.rs
