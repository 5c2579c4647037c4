#!/usr/bin/env python3
"""Seed corpora for the fuzz targets (fuzz/corpus/<target>/, not committed).

From ../../shared/corpus (real CRDs, their rules, the apiserver-verdict vectors) and the
repository's example objects. Run from fuzz/: `python3 seed.py`. Without ../../shared it says so
and seeds from the repository alone.
"""

import glob
import hashlib
import json
import os
import sys

import yaml  # PyYAML

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus"))
REPO = os.path.normpath(os.path.join(HERE, ".."))
# The object target's CRD order (fuzz_targets/common.rs): the selector byte picks one.
OBJECT_CRDS = ["httproutes", "gateways", "grpcroutes"]
# The rule target's places (fuzz_targets/rule.rs PLACES has 8).
PLACES = 8
MAX_SEED = 64 * 1024


def put(target, data):
    if len(data) > MAX_SEED:
        return
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def rules():
    n = 0
    for path in glob.glob(os.path.join(SHARED, "*", "rules*.json")):
        with open(path) as f:
            doc = json.load(f)
        entries = doc.get("crd_rules", doc) if isinstance(doc, dict) else doc
        for i, r in enumerate(entries if isinstance(entries, list) else []):
            if not isinstance(r, dict):
                continue
            if r.get("rule"):
                put("rule", bytes([i % PLACES]) + r["rule"].encode())
                n += 1
            if r.get("messageExpression"):
                put("rule", bytes([0x80 | (i % PLACES)]) + r["messageExpression"].encode())
                n += 1
    return n


def crds():
    n = 0
    files = glob.glob(os.path.join(SHARED, "*", "crd", "**", "*.yaml"), recursive=True)
    files += glob.glob(os.path.join(REPO, "tests", "cases", "*.json"))
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        put("crd", data)
        put("input", data)
        n += 1
    return n


def objects():
    n = 0
    for path in glob.glob(os.path.join(SHARED, "vectors", "*", "*.json")):
        with open(path) as f:
            v = json.load(f)
        if not isinstance(v, dict) or "object" not in v:
            continue
        crd = v.get("crd", "")
        which = [i for i, c in enumerate(OBJECT_CRDS) if crd.endswith(f"_{c}.yaml")]
        if not which:
            continue
        sel = which[0] | (0x80 if v.get("subresource") == "status" else 0)
        data = bytes([sel]) + json.dumps(v["object"]).encode()
        if v.get("oldObject") is not None:
            data += b"\0" + json.dumps(v["oldObject"]).encode()
        put("object", data)
        put("input", json.dumps(v["object"], indent=1).encode())
        n += 1
    return n


def typed():
    n = 0
    for sel, pattern in [(0, "examples/objects/*.yaml"), (1, "tests/realworld/objects/*.yaml")]:
        for path in glob.glob(os.path.join(REPO, pattern)):
            with open(path, "rb") as f:
                raw = f.read()
            put("input", raw)
            for doc in yaml.safe_load_all(raw):
                if isinstance(doc, dict):
                    put("typed", bytes([sel]) + json.dumps(doc).encode())
                    n += 1
    return n


def main():
    if not os.path.isdir(SHARED):
        print(f"seed.py: {SHARED} is missing: seeding from the repository only", file=sys.stderr)
    counts = {"rules": rules(), "crds": crds(), "objects": objects(), "typed": typed()}
    print("seeded:", ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
