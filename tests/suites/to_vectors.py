#!/usr/bin/env python3
"""Test suites (`*.testsuite.yaml`) as corpus vectors, so that the oracle (`oracle corpus`) and a
real kube-apiserver (`tests/e2e/run.sh`) answer the same cases `crd-cel test` answers.

    python3 tests/suites/to_vectors.py --crd CRD.yaml|DIR [--crd ...] --out DIR SUITE.yaml...
    python3 tests/suites/to_vectors.py ... --oracle tests/oracle/oracle   # and compare

Writes DIR/crd/<n>.yaml (the CRDs given that the suites name; --crd DIR: its YAML and JSON files) and DIR/vectors/suites/<suite>--<case>.json: an
onCreate case is a CREATE of `initial`; an onUpdate case an UPDATE from `initial` to `updated`
(`initialCRDPatches` kept), and, when `updated` has a status and the update is expected to
succeed, an UPDATE of `/status`. Each vector expects what the case expects (`expectedError` or
`expectedStatusError` as `errorsContain`). With --oracle, runs `oracle corpus` on them and prints
every vector whose oracle verdict or text disagrees with the case; exit 1 when one does.
`expected` (the stored object) is not part of a vector: `crd-cel test` checks it alone. The
oracle prints causes sorted by field, so a substring spanning several causes is compared cause
by cause with it (the real server, through run.sh, gives the order itself).
"""

import argparse
import json
import os
import re
import subprocess
import sys

import yaml  # PyYAML


LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(path):
    with open(path) as f:
        return list(d for d in yaml.load_all(f, Loader=LOADER) if d is not None)


def crd_files(paths):
    """The files named, and the *.yaml / *.yml / *.json files under the directories named."""
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in sorted(os.walk(path)):
                for name in sorted(names):
                    if name.endswith((".yaml", ".yml", ".json")):
                        yield os.path.join(root, name)
        else:
            yield path


def prepare(obj, case, name):
    obj = json.loads(json.dumps(obj))
    meta = obj.setdefault("metadata", {}) or {}
    obj["metadata"] = meta
    if case.get("resourceName"):
        meta["name"] = case["resourceName"]
    else:
        meta["name"] = name
    meta["namespace"] = "default"
    return obj


def slug(s):
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")[:60]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crd", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--oracle")
    ap.add_argument("suites", nargs="+")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "crd"), exist_ok=True)
    vec_dir = os.path.join(a.out, "vectors", "suites")
    os.makedirs(vec_dir, exist_ok=True)
    wanted = {(load_yaml(p)[0] or {}).get("crdName") for p in a.suites}
    crds = {}
    for i, path in enumerate(crd_files(a.crd)):
        with open(path) as f:
            text = f.read()
        # A file that does not mention a wanted CRD is not parsed (folders of big CRDs).
        if not any(name and name in text for name in wanted):
            continue
        for j, doc in enumerate(load_yaml(path)):
            if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                continue
            if doc["metadata"]["name"] not in wanted:
                continue
            rel = f"crd/{i}-{j}.yaml"
            with open(os.path.join(a.out, rel), "w") as f:
                json.dump(doc, f)  # JSON is YAML, and much faster to write than PyYAML's
            crds.setdefault(doc["metadata"]["name"], []).append((rel, doc))
    written = []
    for path in a.suites:
        suite = load_yaml(path)[0]
        targets = crds.get(suite.get("crdName", ""), [])
        if not targets:
            sys.exit(f"{path}: no CRD named {suite.get('crdName')!r} among --crd")
        versions = {v["name"] for _, d in targets for v in d["spec"]["versions"]}
        version = suite.get("version") or (versions.pop() if len(versions) == 1 else None)
        tests = suite.get("tests") or {}
        for kind in ("onCreate", "onUpdate"):
            for n, case in enumerate(tests.get(kind) or []):
                base = f"{slug(os.path.basename(path))}--{kind}-{n:03d}-{slug(case.get('name', ''))}"
                name = f"test-{kind.lower()}-{n}"
                initial = yaml.safe_load(case["initial"])
                common = {"crdPaths": [rel for rel, _ in targets], "version": version,
                          "source": f"{path}:{kind}[{n}] {case.get('name', '')}"}
                if kind == "onCreate":
                    err = case.get("expectedError") or ""
                    vecs = [dict(common, name=case.get("name", ""), operation="CREATE", subresource=None,
                                 object=prepare(initial, case, name), oldObject=None,
                                 expect="invalid" if err else "valid", errorsContain=[err] if err else [])]
                else:
                    updated = yaml.safe_load(case["updated"])
                    err = case.get("expectedError") or ""
                    old = prepare(initial, case, name)
                    new = prepare(updated, case, name)
                    main = dict(common, name=case.get("name", ""), operation="UPDATE", subresource=None,
                                object=new, oldObject=old, expect="invalid" if err else "valid",
                                errorsContain=[err] if err else [])
                    if case.get("initialCRDPatches"):
                        main["initialCRDPatches"] = case["initialCRDPatches"]
                    vecs = [main]
                    if not err and "status" in (updated or {}):
                        serr = case.get("expectedStatusError") or ""
                        # The object the status update replaces: the update's result, whose
                        # status is still `initial`'s (set through /status when it has one).
                        old_status = dict(new)
                        old_status.pop("status", None)
                        if "status" in (initial or {}):
                            old_status["status"] = initial["status"]
                        vecs.append(dict(common, name=case.get("name", "") + " (status)", operation="UPDATE",
                                         subresource="status", object=new, oldObject=old_status,
                                         expect="invalid" if serr else "valid", errorsContain=[serr] if serr else []))
                for k, v in enumerate(vecs):
                    file = f"{base}{'-status' if k else ''}.json"
                    with open(os.path.join(vec_dir, file), "w") as f:
                        json.dump(v, f, indent=1)
                    written.append((file, v))
    print(f"{len(written)} vectors in {vec_dir}", file=sys.stderr)
    if not a.oracle:
        return 0
    out = subprocess.run([a.oracle, "corpus", "--json", a.out, "suites"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"oracle corpus failed: {out.stderr}")
    results = {r["file"]: r for r in json.loads(out.stdout)["results"]}
    bad = 0
    for file, v in written:
        for run in results[file]["runs"]:
            text = run.get("text", "")
            # The oracle sorts causes by field (its canonical order): a substring that spans
            # several causes is compared cause by cause.
            ok = run.get("valid") == (v["expect"] == "valid") and all(
                all(p in text for p in re.split(r", (?=(?:<nil>|[A-Za-z][\w.\[\]-]*): )", s))
                for s in v["errorsContain"])
            if run.get("toolError"):
                ok = False
            if not ok:
                bad += 1
                print(f"DISAGREES {file} [{run['crdPath']}]: expect {v['expect']} {v['errorsContain']}; "
                      f"oracle {'valid' if run.get('valid') else 'invalid'}: {text} {run.get('toolError', '')}")
    print(f"suites: the oracle agrees with {len(written) - bad}/{len(written)} vectors")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
