#!/usr/bin/env bash
# Generated objects through a real kube-apiserver (v1.37.2) beside crd-cel, many at a time:
#
#   tests/e2e/objects.sh [--objects N] [--seed S] [--updates F] [--olds K] [--from-old P]
#                        [--no-patterns] [--concurrency C] [--match REGEX] [--keep DIR]
#                        [--json FILE] [--known FILE | --no-known] [CRD.yaml ...]
#   tests/e2e/objects.sh --cases [DIR]      # the minimized cases (objects-cases/*/)
#
# 1. tests/difffuzz/objects.py writes N objects per CRD (every CRD of ../shared/corpus unless
#    CRD files are named; the first served version of each) as corpus vectors, without its
#    oracle comparison (--no-compare): mostly creates, a share F of updates (default 0.3) that
#    share K old objects per CRD (default 10), a share P of them (default 0.5) being their old
#    object mutated; strings under a `pattern` match it (objects.py --patterns) unless
#    --no-patterns.
# 2. The control plane starts (controlplane/start.sh) and controlplane/cmd/e2e-objects sends
#    every object as a dry-run request (creates; each old object created once, then its updates
#    as dry-run PUTs), C at a time (default 8), and runs crd-cel once per CRD over all its
#    creates and once per old object over its updates (`crd-cel validate --crd CRD
#    --field-validation warn -o jsonl`; no fieldValidation is sent to the server: Warn).
# 3. Prints every divergence (object, server text, crd-cel text), a table per CRD, the rates,
#    and last: `e2e objects: server vs crd-cel: V/N same verdict, T/N same text`.
#
# Exit 1 on a divergence that no case of the known file (default objects-cases/known.txt)
# explains, or (--cases) on a case whose server answer is not its server.txt; 2 on a tool error.
# crd-cel: $CRD_CEL (default target/debug/crd-cel, built with `cargo build -p crd-cel-cli` when
# missing), copied into the work folder first (others rebuild it meanwhile).
# At most $E2E_TIMEOUT seconds (default 5400) for the server part.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/crd-cel-e2e/v1.37.2

usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
objects=1000 seed=1 updates=0.3 olds=10 from_old=0.5 concurrency=8 match= keep= json=
known=$HERE/objects-cases/known.txt cases= crds=() patterns=--patterns
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
while (($#)); do
  case $1 in
    --objects) objects=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --updates) updates=${2:?}; shift 2 ;;
    --olds) olds=${2:?}; shift 2 ;;
    --from-old) from_old=${2:?}; shift 2 ;;
    --no-patterns) patterns=; shift ;;
    --concurrency) concurrency=${2:?}; shift 2 ;;
    --match) match=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    --json) json=$(abs "${2:?}"); shift 2 ;;
    --known) known=$(abs "${2:?}"); shift 2 ;;
    --no-known) known=; shift ;;
    --cases)
      cases=$HERE/objects-cases
      if [[ ${2:-} != "" && ${2:0:2} != -- ]]; then cases=$(cd "$2" && pwd); shift; fi
      shift ;;
    -h|--help) usage ;;
    -*) echo "objects.sh: unknown argument $1" >&2; usage ;;
    *) crds+=("$(abs "$1")"); shift ;;
  esac
done

bash "$HERE/controlplane/start.sh" build
mkdir -p "$CACHE"
(cd "$HERE/controlplane" && go build -mod=readonly -o "$CACHE/e2e-objects" ./cmd/e2e-objects)
CRD_CEL=${CRD_CEL:-$REPO/target/debug/crd-cel}
if [[ ! -x $CRD_CEL ]]; then
  echo "objects.sh: building crd-cel (cargo build -p crd-cel-cli)" >&2
  (cd "$REPO" && cargo build -q -p crd-cel-cli)
fi

if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -rf "$work/crd" "$work/vectors"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/crd-cel-objects.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
cp "$CRD_CEL" "$work/crd-cel"

if [[ -n $cases ]]; then
  # Each case folder: crd.yaml, object.yaml (object.json: numbers as written), old.yaml for an
  # update, server.txt (the server's canonical text, or `valid`). Written as vectors of the generated set, one CRD file each.
  python3 - "$cases" "$work" <<'EOF'
import json, os, sys
import yaml
cases, work = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(work, "crd"), exist_ok=True)
out = os.path.join(work, "vectors", "generated")
os.makedirs(out, exist_ok=True)
names = sorted(d for d in os.listdir(cases) if os.path.isfile(os.path.join(cases, d, "crd.yaml")))
for i, name in enumerate(names):
    d = os.path.join(cases, name)
    with open(os.path.join(d, "crd.yaml")) as f:
        crd = f.read()
    with open(os.path.join(work, "crd", f"{name}.yaml"), "w") as f:
        f.write(crd)
    def load(base):
        p = os.path.join(d, base)
        if os.path.exists(p + ".json"):  # numbers as written (1.0 is a float)
            return json.load(open(p + ".json"))
        return yaml.safe_load(open(p + ".yaml"))
    with open(os.path.join(d, "server.txt")) as f:
        server = f.read().rstrip("\n")
    v = {"name": name, "crdPaths": [f"crd/{name}.yaml"], "operation": "CREATE", "object": load("object"),
         "oldObject": None, "serverText": server}
    if os.path.exists(os.path.join(d, "old.yaml")):
        v["operation"], v["oldObject"] = "UPDATE", load("old")
    with open(os.path.join(out, f"{i:03d}-0-0.json"), "w") as f:
        json.dump(v, f)
print(f"objects.sh: {len(names)} cases from {cases}", file=sys.stderr)
EOF
else
  t0=$SECONDS
  python3 "$REPO/tests/difffuzz/objects.py" --no-compare --keep "$work" --objects "$objects" --seed "$seed" \
    --updates "$updates" --olds "$olds" --from-old "$from_old" $patterns ${crds[@]+"${crds[@]}"}
  echo "objects.sh: generated in $((SECONDS - t0)) s (objects.py --objects $objects --seed $seed --updates $updates --olds $olds --from-old $from_old $patterns)" >&2
fi

bash "$HERE/controlplane/start.sh" -- timeout "${E2E_TIMEOUT:-5400}" "$CACHE/e2e-objects" \
  --dir "$work" --crd-cel "$work/crd-cel" --concurrency "$concurrency" \
  ${match:+--match "$match"} ${json:+--json "$json"} ${known:+--known "$known"}
