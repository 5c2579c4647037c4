#!/usr/bin/env bash
# Ratcheting of an unchanged object at the CR root vs below it, on a real kube-apiserver v1.37.2,
# beside the oracle and crd-cel (see README.md in this folder):
#
#   tests/e2e/ratchet/run.sh [--out DIR]
#
# Starts the control plane (../controlplane/start.sh), runs every case of ratchet.py (per case a
# CRD without the rule, an object stored under it, the rule added, then a PUT of the object as
# read, a JSON merge patch {} and a server-side apply of the same content), prints the table and
# stops. The inputs given to the oracle and crd-cel (old.json, new-*.json, crd.json per case) and
# results.json stay in DIR (default: a new ${TMPDIR:-/tmp}/crd-cel-ratchet.XXXXXX).
# Also runs root-correlation.json (runtime vectors: where the root does ratchet) through
# `oracle eval`. Binaries: $ORACLE (default tests/oracle/oracle, built when missing), $CRD_CEL
# (default target/debug/crd-cel, built with `cargo build -p crd-cel-cli` when missing).
# Exit 0 when the server answered every request as recorded in ratchet.py's EXPECT and crd-cel
# and the oracle answered every request as the server did.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
out=
while (($#)); do
  case $1 in
    --out) out=${2:?}; shift 2 ;;
    *) echo "usage: run.sh [--out DIR]" >&2; exit 2 ;;
  esac
done
[[ -n $out ]] || out=$(mktemp -d "${TMPDIR:-/tmp}/crd-cel-ratchet.XXXXXX")
mkdir -p "$out"
out=$(cd "$out" && pwd)

bash "$HERE/../controlplane/start.sh" build
CRD_CEL=${CRD_CEL:-$REPO/target/debug/crd-cel}
if [[ ! -x $CRD_CEL ]]; then
  echo "run.sh: building crd-cel (cargo build -p crd-cel-cli)" >&2
  (cd "$REPO" && cargo build -q -p crd-cel-cli)
fi
ORACLE=${ORACLE:-$REPO/tests/oracle/oracle}
if [[ ! -x $ORACLE ]]; then
  echo "run.sh: building the oracle (tests/oracle)" >&2
  (cd "$REPO/tests/oracle" && go build -mod=readonly -o oracle .)
fi

echo "== root-correlation.json through the apiserver's cel.Validator (oracle eval)"
"$ORACLE" eval "$HERE/root-correlation.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["cases"]:
    print("  %-9s %-5s %s" % (c["agreement"], c["result"], c["name"]))
print("  summary:", d["summary"])'

rc=0
bash "$HERE/../controlplane/start.sh" -- timeout "${E2E_TIMEOUT:-600}" \
  python3 "$HERE/ratchet.py" --oracle "$ORACLE" --crd-cel "$CRD_CEL" --out "$out" || rc=$?
exit "$rc"
