#!/usr/bin/env bash
# `crd-cel validate --output jsonl` against `oracle validate` on the example objects (or those of
# a directory: `compare-validate.sh CRD DIR STORED`), create and update (STORED `none`: create
# only): the verdict, every error and the whole text must be the same. Needs the oracle built
# (tests/oracle/ci.sh builds it) and the crd-cel binary; run from the repository root.
# SUBRESOURCE=status sends every object as an update of STORED to the status subresource.
# OLD_CRD=FILE: STORED was created under that CRD (a CRD change since; updates only).
# UPDATE_METHOD=put: the updates are sent as PUTs (default: patches; both sides' --update-method).
# ORACLE=PATH and KUBERNETES_VERSION=1.N compare at another release (the oracle built for it).
oracle=${ORACLE:-tests/oracle/oracle}
set -euo pipefail
crd=${1:-target/webapp-crd.yaml}
# The objects, and the stored object each is also validated as an update of.
objects=${2:-examples/objects}
stored=${3:-examples/objects/shop.yaml}
crd_cel=${CRD_CEL:-target/debug/crd-cel}
fail=0
if [ ! -x "$oracle" ]; then
  (cd tests/oracle && go build -mod=readonly -o oracle .)
fi
olds=("" "$stored")
[ "$stored" = none ] && olds=("")
[ -n "${SUBRESOURCE:-}${OLD_CRD:-}" ] && olds=("$stored")
for f in $(ls "$objects"/*.yaml | grep -v -e "/crd.yaml$" -e "/old-crd.yaml$"); do
  for old in "${olds[@]}"; do
    args=(--crd "$crd")
    ours_args=(--field-validation warn)
    [ -n "${KUBERNETES_VERSION:-}" ] && ours_args+=(--kubernetes-version "$KUBERNETES_VERSION")
    [ -n "$old" ] && args+=(--old "$old")
    [ -n "${SUBRESOURCE:-}" ] && args+=(--subresource "$SUBRESOURCE")
    [ -n "${OLD_CRD:-}" ] && args+=(--old-crd "$OLD_CRD")
    [ -n "$old" ] && [ -n "${UPDATE_METHOD:-}" ] && args+=(--update-method "$UPDATE_METHOD")
    ours=$("$crd_cel" validate "${ours_args[@]}" "${args[@]}" -o jsonl "$f" | python3 -c 'import json,sys; d=json.load(sys.stdin); [d.pop(k) for k in ("file","doc","line")]; print(json.dumps(d, sort_keys=True))') || true
    theirs=$("$oracle" validate "${args[@]}" "$f" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))') || true
    if [ "$ours" = "$theirs" ]; then
      echo "same: $f${old:+ (update from $old)}"
    else
      echo "DIFFERENT: $f${old:+ (update from $old)}"; echo "  crd-cel: $ours"; echo "  oracle:  $theirs"; fail=1
    fi
  done
done
exit $fail
