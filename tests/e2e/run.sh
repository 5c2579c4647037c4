#!/usr/bin/env bash
# Corpus vectors through a real kube-apiserver, beside crd-cel and the oracle:
#
#   tests/e2e/run.sh --root DIR --set NAME [--set NAME]... [--limit N] [--match REGEX] [--json FILE]
#                    [--known FILE] [--kubernetes 1.37|1.34]
#
# Starts the control plane (controlplane/start.sh), runs every vector of DIR/vectors/NAME/
# against it (controlplane/cmd/e2e-vectors), prints per vector and CRD what the server, crd-cel
# and the oracle answered, a table per set, and last:
#   e2e: server vs crd-cel: V/N same verdict, T/N same text
# With --known FILE (known-differences.txt), exits 1 on any difference the file does not list.
# Binaries: crd-cel from $CRD_CEL (default target/debug/crd-cel, built with
# `cargo build -p crd-cel-cli` when missing), the oracle from $ORACLE (default
# tests/oracle/oracle, built when missing). At most $E2E_TIMEOUT seconds (default 3600).
# --kubernetes 1.34: a kube-apiserver v1.34.2 (controlplane/start.sh), crd-cel with
# --kubernetes-version 1.34 and the oracle built at 1.34 (tests/oracle/oracle134).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/crd-cel-e2e/v1.37.2

usage() {
  echo "usage: run.sh --root DIR --set NAME [--set NAME]... [--limit N] [--match REGEX] [--json FILE] [--known FILE] [--kubernetes 1.37|1.34]" >&2
  exit 2
}
root= sets= limit=0 json= match= known= release=1.37
while (($#)); do
  case $1 in
    --root) root=${2:?}; shift 2 ;;
    --set) sets=${sets:+$sets,}${2:?}; shift 2 ;;
    --limit) limit=${2:?}; shift 2 ;;
    --json) json=${2:?}; shift 2 ;;
    --match) match=${2:?}; shift 2 ;;
    --kubernetes) release=${2:?}; shift 2 ;;
    --known) known=$(cd "$(dirname "${2:?}")" && pwd)/$(basename "$2"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "run.sh: unknown argument $1" >&2; usage ;;
  esac
done
[[ -n $root && -n $sets ]] || usage
[[ -d $root/vectors ]] || { echo "run.sh: $root/vectors is not a folder" >&2; exit 2; }
root=$(cd "$root" && pwd)
if [[ -n $json ]]; then json=$(cd "$(dirname "$json")" && pwd)/$(basename "$json"); fi

case $release in
  1.37) oracle_default=$REPO/tests/oracle/oracle oracle_build=(-o oracle) ;;
  1.34) oracle_default=$REPO/tests/oracle/oracle134 oracle_build=(-modfile=go134.mod -tags k8s134 -o oracle134) ;;
  *) echo "run.sh: --kubernetes $release: 1.37 or 1.34" >&2; exit 2 ;;
esac
export E2E_KUBERNETES=$release

# The control plane first: the oracle and the runner then reuse its Go build cache.
bash "$HERE/controlplane/start.sh" build
CRD_CEL=${CRD_CEL:-$REPO/target/debug/crd-cel}
if [[ ! -x $CRD_CEL ]]; then
  echo "run.sh: building crd-cel (cargo build -p crd-cel-cli)" >&2
  (cd "$REPO" && cargo build -q -p crd-cel-cli)
fi
ORACLE=${ORACLE:-$oracle_default}
if [[ ! -x $ORACLE ]]; then
  echo "run.sh: building the oracle (tests/oracle, Kubernetes $release)" >&2
  (cd "$REPO/tests/oracle" && go build -mod=readonly "${oracle_build[@]}" .)
fi
mkdir -p "$CACHE"
(cd "$HERE/controlplane" && go build -mod=readonly -o "$CACHE/e2e-vectors" ./cmd/e2e-vectors)

exec bash "$HERE/controlplane/start.sh" -- timeout "${E2E_TIMEOUT:-3600}" "$CACHE/e2e-vectors" \
  --root "$root" --set "$sets" --limit "$limit" --crd-cel "$CRD_CEL" --oracle "$ORACLE" --kubernetes-version "$release" ${json:+--json "$json"} ${match:+--match "$match"} ${known:+--known "$known"}
