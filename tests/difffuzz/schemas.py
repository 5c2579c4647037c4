#!/usr/bin/env python3
"""Differential fuzzing of `crd-cel check` against the apiserver oracle on CRD schemas.

Real CRDs from ../shared/corpus are mutated (one to three edits at random nodes of a version's
schema: a type removed or changed, an extension added where it does not belong, a keyword JSON
Schema has and Kubernetes refuses, a junctor clause with spine-only fields, a broken pattern, a
map list with bad keys, a default where defaults are forbidden, ...) and checked by both:
`oracle check-crd` (the apiserver's CRD validation) and `crd-cel check -o jsonl`. The verdict
and every error text are compared. Divergences go to target/difffuzz/schemas/ with both
outputs; the table goes to stdout.

    python3 tests/difffuzz/schemas.py --crds 300 --seed 1 \
        --oracle tests/oracle/oracle --crd-cel target/debug/crd-cel

Exit 0 when nothing diverged, 1 when something did, 2 on a tool error. A tool for finding
differences, not a CI gate: each divergence becomes a case in tests/cases/ (fixed, or listed as a
known difference with the reason).
"""

import argparse
import copy
import glob
import json
import os
import random
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.normpath(os.path.join(REPO, "..", "shared", "corpus"))


def load_crds():
    crds = []
    for path in sorted(glob.glob(os.path.join(CORPUS, "**", "*.yaml"), recursive=True)):
        try:
            with open(path) as f:
                for doc in yaml.safe_load_all(f):
                    if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition" \
                            and doc.get("apiVersion") == "apiextensions.k8s.io/v1":
                        crds.append(doc)
        except yaml.YAMLError:
            continue
    return crds


def nodes(schema, path=()):
    """Every schema node with its path of keys: the spine and the junctors' clauses."""
    out = [(path, schema)]
    if not isinstance(schema, dict):
        return out
    for name, sub in (schema.get("properties") or {}).items():
        out += nodes(sub, path + ("properties", name))
    if isinstance(schema.get("items"), dict):
        out += nodes(schema["items"], path + ("items",))
    if isinstance(schema.get("additionalProperties"), dict):
        out += nodes(schema["additionalProperties"], path + ("additionalProperties",))
    for key in ("allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(schema.get(key) or []):
            out += nodes(sub, path + (key, i))
    if isinstance(schema.get("not"), dict):
        out += nodes(schema["not"], path + ("not",))
    return out


def mutations(rng):
    """Edits of one schema node: each returns nothing and changes the node in place."""
    types = ["object", "array", "string", "integer", "number", "boolean", "", "null", "int"]

    def set_(k, v):
        return lambda n: n.__setitem__(k, v)

    def drop(k):
        return lambda n: n.pop(k, None)

    def junctor(n):
        clause = rng.choice([
            {"type": "string"}, {"default": 1}, {"title": "t"}, {"description": "d"},
            {"nullable": True}, {"x-kubernetes-preserve-unknown-fields": True},
            {"x-kubernetes-list-type": "atomic"}, {"x-kubernetes-validations": [{"rule": "true"}]},
            {"properties": {"metadata": {"maxProperties": 1}}}, {"additionalProperties": {"maxLength": 1}},
            {"properties": {"nope": {"maxLength": 3}}}, {"items": {"maxLength": 2}},
            {"required": ["a"]}, {"pattern": "^a"},
        ])
        n.setdefault(rng.choice(["allOf", "anyOf", "oneOf"]), []).append(clause)

    def map_list(n):
        n["type"] = "array"
        n["x-kubernetes-list-type"] = "map"
        n["x-kubernetes-list-map-keys"] = rng.choice([["name"], ["name", "name"], ["nope"], ["spec"], []])
        n["items"] = rng.choice([
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            {"type": "object", "properties": {"name": {"type": "string", "nullable": True}}},
            {"type": "object", "properties": {"spec": {"type": "object"}, "name": {"type": "string"}}, "required": ["spec"]},
            {"type": "string"},
            {"type": "object", "nullable": True, "properties": {"name": {"type": "string", "default": "a"}}},
        ])

    def set_list(n):
        n["type"] = "array"
        n["x-kubernetes-list-type"] = "set"
        n["items"] = rng.choice([
            {"type": "string"}, {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "x-kubernetes-map-type": "atomic"},
            {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            {"type": "string", "nullable": True},
        ])

    return [
        lambda n: n.__setitem__("type", rng.choice(types)),
        drop("type"), drop("items"), drop("properties"),
        set_("additionalProperties", rng.choice([True, False, {"type": "string"}, {}])),
        set_("x-kubernetes-preserve-unknown-fields", rng.choice([True, False])),
        set_("x-kubernetes-int-or-string", True),
        set_("x-kubernetes-embedded-resource", True),
        set_("x-kubernetes-map-type", rng.choice(["atomic", "granular", "other"])),
        set_("x-kubernetes-list-type", rng.choice(["atomic", "set", "map", "other"])),
        set_("x-kubernetes-list-map-keys", rng.choice([["a"], []])),
        set_("nullable", True), set_("uniqueItems", rng.choice([True, False])),
        set_("default", rng.choice([{}, "x", 1, None])),
        set_("pattern", rng.choice(["a(", "[a-", "x**", "^ok$", "(?P<n>a)", "\\p{Greek}", "a{2,1}", "\\Q(\\E", "(?i)a", "\\8"])),
        set_(rng.choice(["id", "$schema", "$ref"]), rng.choice(["x", ""])),
        set_("patternProperties", rng.choice([{}, {"^a": {"type": "string"}}])),
        set_("definitions", rng.choice([{}, {"d": {"type": "string"}}])),
        set_("dependencies", rng.choice([{}, {"d": ["e"]}])),
        set_("additionalItems", rng.choice([True, {"type": "string"}])),
        set_("items", rng.choice([[{"type": "string"}], [], {}, {"type": "string"}])),
        junctor, junctor, map_list, set_list,
        set_("properties", {"kind": {"type": rng.choice(["string", "integer"])},
                            "apiVersion": {"type": "string"},
                            "metadata": {"type": rng.choice(["object", "string"]),
                                         "properties": {"name": {"type": "string"}}}}),
        set_("not", {"type": "string"}),
    ]


def mutate(crd, rng):
    crd = copy.deepcopy(crd)
    versions = crd["spec"]["versions"]
    version = rng.choice(versions)
    schema = version.get("schema", {}).get("openAPIV3Schema")
    if not isinstance(schema, dict):
        return crd, []
    edits = []
    for _ in range(rng.randint(1, 3)):
        path, node = rng.choice(nodes(schema))
        if not isinstance(node, dict):
            continue
        m = rng.choice(mutations(rng))
        m(node)
        edits.append("/".join(map(str, path)) or "<root>")
    return crd, edits


def run_jsonl(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    return p.returncode, lines, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--oracle", default=os.path.join(REPO, "tests", "oracle", "oracle"))
    ap.add_argument("--crd-cel", default=os.path.join(REPO, "target", "debug", "crd-cel"))
    args = ap.parse_args()
    if not os.path.isdir(CORPUS):
        print(f"schemas.py: {CORPUS} is missing: nothing to mutate", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    base = load_crds()
    out_dir = os.path.join(REPO, "target", "difffuzz", "schemas")
    work = os.path.join(out_dir, "work")
    os.makedirs(work, exist_ok=True)
    for f in glob.glob(os.path.join(work, "*.json")):
        os.remove(f)
    files, edits = [], {}
    for i in range(args.crds):
        crd, e = mutate(rng.choice(base), rng)
        name = os.path.join(work, f"crd{i:05d}.json")
        with open(name, "w") as f:
            json.dump(crd, f)
        files.append(name)
        edits[name] = e
    diverged, agreed, rejected = [], 0, 0
    for start in range(0, len(files), 100):
        batch = files[start:start + 100]
        _, want, err_o = run_jsonl([args.oracle, "check-crd", *batch])
        rc, got, err_c = run_jsonl([args.crd_cel, "check", "-o", "jsonl", *batch])
        if rc not in (0, 1):
            print(f"crd-cel exited {rc}: {err_c[:2000]}", file=sys.stderr)
        want_by = {w["file"]: w for w in want}
        got_by = {g["file"]: g for g in got}
        for f in batch:
            w, g = want_by.get(f), got_by.get(f)
            if w is None:
                continue  # the oracle could not read it either
            if not w["accepted"]:
                rejected += 1
            same = g is not None and g["accepted"] == w["accepted"] and g["errors"] == w["errors"]
            if same:
                agreed += 1
            else:
                diverged.append({"file": f, "edits": edits[f], "oracle": w["errors"],
                                 "crd-cel": None if g is None else g["errors"],
                                 "crd-cel-stderr": None if g is not None else err_c[-500:]})
    with open(os.path.join(out_dir, "findings.json"), "w") as f:
        json.dump(diverged, f, indent=1)
    total = agreed + len(diverged)
    print(f"| CRDs | rejected by the oracle | same verdict and errors | diverged |")
    print(f"| {total} | {rejected} | {agreed} | {len(diverged)} |")
    for d in diverged[:10]:
        print(json.dumps(d)[:1500])
    return 1 if diverged else 0


if __name__ == "__main__":
    sys.exit(main())
