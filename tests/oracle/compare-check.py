#!/usr/bin/env python3
"""`crd-cel check` beside the oracle's `check-crd` on CRD files, at one Kubernetes release:
every CRD's verdict and every rule's estimated cost, max cost and max cardinality must be the
same (the oracle runs the apiserver's own CRD validation of that release in-process).

    compare-check.py --crd-cel target/debug/crd-cel --oracle tests/oracle/oracle134 \
        --kubernetes-version 1.34 FILE...

Paths are passed to both as given (run it from the folder they are relative to). Exit 1 on any
difference (each printed), 2 when a tool fails to run.
"""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crd-cel", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--kubernetes-version", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    ours = subprocess.run(
        [a.crd_cel, "check", "--kubernetes-version", a.kubernetes_version, "-o", "json", *a.files],
        capture_output=True, text=True)
    if ours.returncode not in (0, 1):
        print(f"crd-cel check exited {ours.returncode}: {ours.stderr[-2000:]}", file=sys.stderr)
        return 2
    theirs = subprocess.run([a.oracle, "check-crd", *a.files], capture_output=True, text=True)
    if theirs.returncode not in (0, 1):
        print(f"oracle check-crd exited {theirs.returncode}: {theirs.stderr[-2000:]}", file=sys.stderr)
        return 2
    oracle = {}
    for line in theirs.stdout.splitlines():
        if line.strip():
            r = json.loads(line)
            oracle[(r["file"], r["doc"])] = r
    crds = rules = 0
    differences = []
    for r in json.loads(ours.stdout)["results"]:
        key = (r["file"], r.get("doc", 0))
        o = oracle.pop(key, None)
        if o is None:
            differences.append(f"{key}: crd-cel checked a CRD the oracle did not")
            continue
        crds += 1
        if (r["status"] == "valid") != o["accepted"]:
            differences.append(f"{r['file']}: crd-cel {r['status']}, oracle accepted={o['accepted']}")
        theirs_rules = {x["path"]: x for x in o["rules"]}
        for x in r.get("rules", []):
            rules += 1
            y = theirs_rules.pop(x["path"], None)
            if y is None:
                differences.append(f"{r['file']}: {x['path']}: no such rule in the oracle's answer")
                continue
            mine = tuple(x.get(k) for k in ("estimatedCost", "maxCost", "maxCardinality"))
            other = tuple(y.get(k) for k in ("estimatedCost", "maxCost", "maxCardinality"))
            if mine != other:
                differences.append(
                    f"{r['file']}: {x['rule'][:100]!r}: (estimatedCost, maxCost, maxCardinality) crd-cel {mine}, oracle {other}")
        for path in theirs_rules:
            differences.append(f"{r['file']}: {path}: a rule crd-cel did not report")
    for key in oracle:
        differences.append(f"{key}: the oracle checked a CRD crd-cel did not")
    for d in differences:
        print(d)
    print(f"crd-cel check vs the oracle at Kubernetes {a.kubernetes_version}: {crds} CRDs, {rules} rules, "
          f"{len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
