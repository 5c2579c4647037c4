#!/usr/bin/env python3
"""crd-cel beside the offline validators users would pick instead, on the apiserver verdicts of
../shared/corpus/vectors (CREATE requests: the peers validate creates only).

  python3 tests/peers/compare.py [--crd-cel PATH] [--kubeconform PATH] [--kubectl-validate PATH] [--runs N]

Verdicts: each vector's object is written to a file in a directory per CRD; each tool runs once
per directory; a verdict is the tool's valid / invalid for the file, compared with the vector's
`expect` (what a real apiserver answered).

Throughput: every object of the corpus in one directory and every CRD in another (where the
standard and experimental Gateway API channels both define a kind, the experimental one, as
one process can hold one CRD per kind), one process per tool, timed over --runs runs (the best
is kept): sequential (crd-cel `-j 1`, kubeconform `-n 1`) and parallel (crd-cel `-j 0`, one
thread per CPU; kubeconform `-n` CPUs; kubectl-validate has no parallel mode).

Prints a Markdown table: agreement per suite, invalid vectors caught, with the suites' expected
message, tool errors, objects per second. A tool that is not installed is left out, loudly.
"""
import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")

try:
    import yaml  # PyYAML, for kubeconform's JSON schemas
except ImportError:
    yaml = None


def vectors():
    out = []
    for path in sorted(glob.glob(os.path.join(CORPUS, "vectors", "*", "*.json"))):
        if path.endswith("_index.json"):
            continue
        with open(path) as f:
            v = json.load(f)
        if v.get("operation") != "CREATE" or v.get("subresource"):
            continue
        v["suite"] = os.path.basename(os.path.dirname(path))
        v["id"] = os.path.splitext(os.path.basename(path))[0]
        out.append(v)
    return out


def kubeconform_schemas(crd_path, out_dir):
    """The CRD's versions as JSON schemas, named as -schema-location below expects (what
    kubeconform's openapi2jsonschema.py does, without its strict additionalProperties)."""
    with open(crd_path) as f:
        for doc in yaml.safe_load_all(f):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            kind = doc["spec"]["names"]["kind"].lower()
            for ver in doc["spec"].get("versions", []):
                schema = (ver.get("schema") or {}).get("openAPIV3Schema")
                if schema is None:
                    continue
                with open(os.path.join(out_dir, f"{kind}_{ver['name']}.json"), "w") as o:
                    json.dump(schema, o)


def run(cmd):
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p, time.perf_counter() - start


def crd_cel_verdicts(tool, crd, objects):
    p, t = run([tool, "validate", "--crd", crd, "--field-validation", "warn", "-o", "jsonl", objects])
    verdicts = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        verdict = "valid" if r.get("valid") else "invalid"
        verdicts[os.path.basename(r["file"])] = (verdict, r.get("text", ""))
    return verdicts, t


def kubeconform_verdicts(tool, schemas, objects):
    loc = os.path.join(schemas, "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")
    p, t = run([tool, "-schema-location", loc, "-output", "json", "-verbose", objects])
    verdicts = {}
    try:
        doc = json.loads(p.stdout or "{}")
    except json.JSONDecodeError:
        doc = {}
    for r in doc.get("resources", []):
        status = r.get("status")
        verdict = {"statusValid": "valid", "statusInvalid": "invalid"}.get(status, "error")
        verdicts[os.path.basename(r["filename"])] = (verdict, r.get("msg", ""))
    return verdicts, t


def kubectl_validate_verdicts(tool, crds, objects):
    p, t = run([tool, objects, "--local-crds", crds, "-o", "json"])
    verdicts = {}
    try:
        doc = json.loads(p.stdout or "{}")
    except json.JSONDecodeError:
        doc = {}
    for path, results in doc.items():
        results = results if isinstance(results, list) else [results]
        statuses = {r.get("status") for r in results if isinstance(r, dict)}
        if statuses == {"Success"}:
            verdict = "valid"
        elif "Failure" in statuses:
            # kubectl-validate reports an unreadable input as a Failure too: look at the reason.
            reasons = {r.get("reason") for r in results if isinstance(r, dict)}
            verdict = "invalid" if reasons & {"Invalid", "BadRequest"} else "error"
        else:
            verdict = "error"
        message = " ".join(r.get("message", "") for r in results if isinstance(r, dict))
        verdicts[os.path.basename(path)] = (verdict, message)
    return verdicts, t


def throughput(tools, vs, work, runs):
    """Objects per second of one process over the whole corpus: (sequential, parallel)."""
    crds_dir, objects_dir, schemas_dir = (os.path.join(work, d) for d in ("all-crds", "all-objects", "all-schemas"))
    for d in (crds_dir, objects_dir, schemas_dir):
        os.makedirs(d)
    chosen = {}  # (group, kind) -> CRD path: the first in path order ("experimental" < "standard")
    for rel in sorted({p for v in vs for p in v["crdPaths"]}):
        with open(os.path.join(CORPUS, rel)) as f:
            for doc in (yaml.safe_load_all(f) if yaml else []):
                if doc and doc.get("kind") == "CustomResourceDefinition":
                    chosen.setdefault((doc["spec"]["group"], doc["spec"]["names"]["kind"]), rel)
    if not chosen:  # without PyYAML: every CRD file (crd-cel takes the first of a kind)
        chosen = {rel: rel for rel in sorted({p for v in vs for p in v["crdPaths"]})}
    for i, rel in enumerate(sorted(set(chosen.values()))):
        dst = os.path.join(crds_dir, f"{i:02d}-{os.path.basename(rel)}")
        shutil.copy(os.path.join(CORPUS, rel), dst)
        if yaml:
            kubeconform_schemas(dst, schemas_dir)
    for v in vs:
        with open(os.path.join(objects_dir, f"{v['suite']}--{v['id']}.json"), "w") as f:
            json.dump(v["object"], f)
    cpus = str(os.cpu_count() or 1)
    loc = os.path.join(schemas_dir, "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")
    commands = {
        "crd-cel": lambda tool, jobs: [tool, "validate", "--crd", crds_dir, "--field-validation", "warn",
                                       "--ignore-missing-crds", "-o", "jsonl", "-j", jobs, objects_dir],
        "kubeconform": lambda tool, jobs: [tool, "-schema-location", loc, "-output", "json", "-n", jobs, objects_dir],
        "kubectl-validate": lambda tool, jobs: None if jobs != "1" else [tool, objects_dir, "--local-crds", crds_dir, "-o", "json"],
    }
    rates = {}
    for t, tool in tools.items():
        rates[t] = []
        for jobs in ("1", "0" if t == "crd-cel" else cpus):
            cmd = commands[t](tool, jobs)
            if cmd is None:
                rates[t].append(None)
                continue
            best = min(run(cmd)[1] for _ in range(runs))
            rates[t].append(len(vs) / best)
    return rates


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crd-cel", default=os.path.join(ROOT, "target", "release", "crd-cel"))
    ap.add_argument("--kubeconform", default=shutil.which("kubeconform") or os.path.expanduser("~/go/bin/kubeconform"))
    ap.add_argument("--kubectl-validate", default=shutil.which("kubectl-validate") or os.path.expanduser("~/go/bin/kubectl-validate"))
    ap.add_argument("--runs", type=int, default=3, help="throughput runs per tool and mode (the best is kept)")
    args = ap.parse_args()
    if not os.path.isdir(CORPUS):
        sys.exit(f"SKIPPED: {CORPUS} is missing")
    tools = {}
    for name, path in [("crd-cel", args.crd_cel), ("kubeconform", args.kubeconform), ("kubectl-validate", args.kubectl_validate)]:
        if path and os.access(path, os.X_OK):
            tools[name] = path
        else:
            print(f"SKIPPED {name}: not found at {path}", file=sys.stderr)
    if "kubeconform" in tools and yaml is None:
        print("SKIPPED kubeconform: PyYAML is needed to write its schemas", file=sys.stderr)
        del tools["kubeconform"]
    vs = vectors()
    groups = collections.defaultdict(list)
    for v in vs:
        groups[v["crdPaths"][0]].append(v)
    work = tempfile.mkdtemp(prefix="crd-cel-peers-")
    verdicts = {t: {} for t in tools}
    seconds = collections.Counter()
    for i, (crd_rel, group) in enumerate(sorted(groups.items())):
        d = os.path.join(work, str(i))
        for sub in ("crds", "objects", "schemas"):
            os.makedirs(os.path.join(d, sub))
        crd = os.path.join(d, "crds", os.path.basename(crd_rel))
        shutil.copy(os.path.join(CORPUS, crd_rel), crd)
        for v in group:
            with open(os.path.join(d, "objects", v["id"] + ".json"), "w") as f:
                json.dump(v["object"], f)
        objects = os.path.join(d, "objects")
        for t, path in tools.items():
            if t == "crd-cel":
                got, s = crd_cel_verdicts(path, crd, objects)
            elif t == "kubeconform":
                kubeconform_schemas(crd, os.path.join(d, "schemas"))
                got, s = kubeconform_verdicts(path, os.path.join(d, "schemas"), objects)
            else:
                got, s = kubectl_validate_verdicts(path, os.path.join(d, "crds"), objects)
            seconds[t] += s
            for v in group:
                verdicts[t][v["id"]] = got.get(v["id"] + ".json", ("error", ""))
    rates = throughput(tools, vs, work, args.runs)
    shutil.rmtree(work)
    suites = sorted({v["suite"] for v in vs})
    print("| tool | " + " | ".join(f"{s} ({sum(1 for v in vs if v['suite'] == s)})" for s in suites)
          + " | invalid caught | with the expected message | tool errors | objects/s, one process | objects/s, one process, parallel |")
    print("|---|" + "---|" * (len(suites) + 5))
    for t in tools:
        verdict = lambda v: verdicts[t][v["id"]][0]
        cells = []
        for s in suites:
            mine = [v for v in vs if v["suite"] == s]
            agree = sum(1 for v in mine if verdict(v) == v["expect"])
            cells.append(f"{agree}/{len(mine)}")
        invalid = [v for v in vs if v["expect"] == "invalid"]
        caught = [v for v in invalid if verdict(v) == "invalid"]
        # The vectors' expected substrings, as the suites check them against the apiserver's text.
        worded = sum(1 for v in caught if all(e in verdicts[t][v["id"]][1] for e in v.get("errorsContain", [])))
        errors = sum(1 for v in vs if verdict(v) == "error")
        seq, par = (f"{r:,.0f}" if r else "n/a" for r in rates[t])
        print(f"| {t} | " + " | ".join(cells) + f" | {len(caught)}/{len(invalid)} | {worded}/{len(invalid)} | {errors} | {seq} | {par} |")
    print(f"\n{len(vs)} CREATE vectors in {len(groups)} CRD groups; verdicts: one process per group and tool "
          f"(seconds: " + ", ".join(f"{t} {seconds[t]:.2f}" for t in tools) + f"); throughput: best of {args.runs} runs, "
          f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
