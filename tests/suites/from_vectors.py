#!/usr/bin/env python3
"""Corpus vectors that expect an error, as test suites (`*.testsuite.yaml`), one per CRD file:
real projects' own validation cases run through `crd-cel test`, which must pass every one.

    python3 tests/suites/from_vectors.py --root ../shared/corpus --set gateway-api --out DIR
    crd-cel test --crd ../shared/corpus/gateway-api/crd DIR

A CREATE vector is an onCreate case, an UPDATE one an onUpdate case (`oldObject` the initial
object, `initialCRDPatches` kept; status updates are left out, the format sends them through
`updated`'s status), each with its first `errorsContain` string as `expectedError`. Vectors that
expect a valid object are left out: the format compares the stored object with `expected`, which
a vector does not record; so are the vectors tests/corpus-known-differences.txt lists (recorded by
older releases or other runners, with the reason there). The suites are written outside the
repository (the corpus stays where it is).
"""

import argparse
import json
import os
import re
import sys

import yaml  # PyYAML


LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_crds = {}


def crds_of(path):
    """The CRD documents of a file, read once."""
    if path not in _crds:
        with open(path) as f:
            _crds[path] = [d for d in yaml.load_all(f, Loader=LOADER)
                           if d and d.get("kind") == "CustomResourceDefinition"]
    return _crds[path]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--set", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    vdir = os.path.join(a.root, "vectors", a.set)
    known = set()
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus-known-differences.txt")) as k:
        for line in k:
            if line.strip() and not line.startswith("#"):
                known.add(line.split(" -- ")[0].strip())
    suites = {}
    skipped = 0
    for f in sorted(os.listdir(vdir)):
        if not f.endswith(".json") or f.startswith("_"):
            continue
        v = json.load(open(os.path.join(vdir, f)))
        errs = v.get("errorsContain") or []
        if v.get("expect") != "invalid" or not errs or v.get("subresource") or f"{a.set}/{f[:-5]}" in known:
            skipped += 1
            continue
        obj = v["object"]
        group = obj.get("apiVersion", "").rpartition("/")[0]
        for crd_path in v["crdPaths"]:
            # The CRD of the object's kind and group (a file may hold several).
            crd = next((d for d in crds_of(os.path.join(a.root, crd_path))
                        if d["spec"]["names"]["kind"] == obj.get("kind") and d["spec"]["group"] == group), None)
            if crd is None:
                skipped += 1
                continue
            key = (crd_path, crd["metadata"]["name"], v.get("version"))
            case = {"name": f"{f[:-5]}", "expectedError": errs[0]}
            if v["operation"] == "UPDATE":
                case["initial"] = json.dumps(v["oldObject"])
                case["updated"] = json.dumps(v["object"])
                if v.get("initialCRDPatches"):
                    case["initialCRDPatches"] = v["initialCRDPatches"]
                suites.setdefault(key, {"onCreate": [], "onUpdate": []})["onUpdate"].append(case)
            else:
                case["initial"] = json.dumps(v["object"])
                suites.setdefault(key, {"onCreate": [], "onUpdate": []})["onCreate"].append(case)
    os.makedirs(a.out, exist_ok=True)
    n = 0
    for (crd_path, name, version), tests in suites.items():
        slug = re.sub(r"[^a-z0-9]+", "-", f"{crd_path}-{name}".lower()).strip("-")
        suite = {"name": f"{a.set}: {crd_path}", "crdName": name, "tests": tests}
        if version:
            suite["version"] = version
        with open(os.path.join(a.out, f"{slug}.testsuite.yaml"), "w") as out:
            yaml.safe_dump(suite, out, sort_keys=False, width=100000)
        n += len(tests["onCreate"]) + len(tests["onUpdate"])
    print(f"{n} cases in {len(suites)} suites ({skipped} vectors left out: valid, status or no expected text)",
          file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
