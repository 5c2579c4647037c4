#!/usr/bin/env python3
"""Differential fuzzing of objects: generated custom resources for real CRDs, through the
oracle (the apiserver's code) and `crd-cel validate` side by side.

For each CRD manifest given (default: every CRD of ../shared/corpus), the schema of its first
served version is walked to make objects: mostly valid values (enums, formats, bounds, required
fields, list types), each object with a few mutations (a wrong type, a value past a bound, a
missing required field, an unknown field, a null, a duplicate set item or map-list key, a long
string, an empty list). Half of them are also sent as updates of another generated object.

The objects are written as vectors of the corpus format into a scratch corpus, and the
`conformance` command compares crd-cel with the oracle on them: verdict and whole text.

    python3 tests/difffuzz/objects.py --oracle ORACLE --conformance target/debug/conformance \\
        --objects 40 --seed 1 [--kubernetes-version 1.34] [CRD.yaml ...]

Prints the table and every difference; exit 0 when none, 1 when some, 2 on a tool error.

For a real apiserver (tests/e2e/objects.sh) the vectors are only written: `--keep DIR
--no-compare` skips the oracle comparison. `--updates F` is the share of updates (0.5),
`--olds K` makes the updates of a CRD share K old objects (named `old-K`, as is every update
of it), so that each old object is created once and its updates sent as a batch, and
`--from-old P` makes that share of the updates a mutated copy of their old object (transition
rules and ratcheting meet unchanged fields), and `--patterns` makes strings match their
node's `pattern` (more objects valid, so more of them reach the CEL rules). Without these flags a seed makes the same objects
as before they existed.
"""

import argparse
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import yaml  # PyYAML

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(REPO, "..", "shared", "corpus")


try:  # the regular expression parser, to make strings that match a schema's pattern
    import re._parser as sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover
    import sre_parse


class PatternGen:
    """Strings matching a regular expression (the common syntax of RE2 and Python's re)."""

    POOL = [chr(c) for c in range(32, 127)]

    def __init__(self, rng):
        self.r = rng

    def make(self, pattern, lo, hi, tries=8):
        try:
            tree = sre_parse.parse(pattern)
            compiled = re.compile(pattern)
        except (re.error, RecursionError, ValueError):
            return None
        for _ in range(tries):
            try:
                s = self.gen(tree)
            except (RecursionError, ValueError, IndexError):
                return None
            # kube-openapi matches unanchored (regexp.MatchString).
            if lo <= len(s) <= hi and compiled.search(s):
                return s
        return None

    def char_in(self, items):
        negate = any(str(op) == "NEGATE" for op, _ in items)
        def member(ch):
            for op, av in items:
                op = str(op)
                if op == "LITERAL" and ord(ch) == av:
                    return True
                if op == "RANGE" and av[0] <= ord(ch) <= av[1]:
                    return True
                if op == "CATEGORY":
                    cat = str(av)
                    if ("DIGIT" in cat and ch.isdigit()) or ("WORD" in cat and (ch.isalnum() or ch == "_")) \
                            or ("SPACE" in cat and ch.isspace()):
                        return "NOT" not in cat
                    if "NOT" in cat:
                        return True
            return False
        if not negate:
            # Prefer the listed characters themselves (ranges: a random one).
            op, av = self.r.choice([i for i in items if str(i[0]) != "NEGATE"])
            op = str(op)
            if op == "LITERAL":
                return chr(av)
            if op == "RANGE":
                return chr(self.r.randint(av[0], min(av[1], av[0] + 60)))
        pool = [c for c in self.POOL if member(c) != negate]
        return self.r.choice(pool)

    def gen(self, tree):
        out = []
        for op, av in tree:
            op = str(op)
            if op == "LITERAL":
                out.append(chr(av))
            elif op == "NOT_LITERAL":
                out.append(self.r.choice([c for c in "abc0" if ord(c) != av]))
            elif op == "ANY":
                out.append(self.r.choice("abcxyz0"))
            elif op == "IN":
                out.append(self.char_in(av))
            elif op == "CATEGORY":
                out.append(self.char_in([(op, av)]))
            elif op == "BRANCH":
                out.append(self.gen(self.r.choice(av[1])))
            elif op == "SUBPATTERN":
                out.append(self.gen(av[-1]))
            elif op == "ATOMIC_GROUP":
                out.append(self.gen(av))
            elif op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
                lo, hi, sub = av
                n = self.r.randint(lo, max(lo, min(hi, lo + 3)))
                out.extend(self.gen(sub) for _ in range(n))
            elif op in ("AT", "ASSERT", "ASSERT_NOT"):
                pass
            else:
                raise ValueError(op)
        return "".join(out)


class Gen:
    def __init__(self, rng, patterns=False):
        self.r = rng
        # --patterns: strings under a `pattern` are made to match it (when the generator can).
        self.patterns = PatternGen(rng) if patterns else None

    def string(self, s):
        if "enum" in s and s["enum"]:
            return self.r.choice(s["enum"])
        fmt = s.get("format")
        samples = {
            "date-time": "2024-01-02T03:04:05Z",
            "date": "2024-01-02",
            "duration": "1h2m",
            "hostname": "example.com",
            "ipv4": "10.0.0.1",
            "ipv6": "2001:db8::1",
            "uri": "https://example.com/a",
            "uuid": "123e4567-e89b-12d3-a456-426614174000",
            "byte": "aGVsbG8=",
            "email": "a@example.com",
        }
        if fmt in samples:
            return samples[fmt]
        lo = s.get("minLength", 0)
        hi = s.get("maxLength", max(lo, 12))
        n = self.r.randint(lo, min(hi, lo + 12))
        if "pattern" in s and self.patterns:
            made = self.patterns.make(s["pattern"], lo, s.get("maxLength", lo + 64))
            if made is not None:
                return made
        if "pattern" in s:
            # Patterns are often DNS-like: lower-case letters are the safest guess.
            return "".join(self.r.choice("abcdefghij") for _ in range(max(n, 1)))
        return "".join(self.r.choice("abcdefxyz-") for _ in range(n)).strip("-") or "a"

    def number(self, s, integer):
        lo = s.get("minimum", 0 if integer else 0.0)
        hi = s.get("maximum", lo + 100)
        if integer:
            return self.r.randint(int(lo), int(max(lo, hi)))
        return round(self.r.uniform(lo, hi), 2)

    def value(self, s, depth=0):
        if s.get("x-kubernetes-int-or-string"):
            return self.r.choice([self.r.randint(0, 100), "50%"])
        if "default" in s and self.r.random() < 0.3:
            return copy.deepcopy(s["default"])
        t = s.get("type")
        if t == "string":
            return self.string(s)
        if t == "integer":
            return self.number(s, True)
        if t == "number":
            return self.number(s, False)
        if t == "boolean":
            return self.r.random() < 0.5
        if t == "array":
            items = s.get("items", {})
            lo = s.get("minItems", 0)
            hi = min(s.get("maxItems", 3), lo + 3)
            n = self.r.randint(lo, max(lo, hi)) if depth < 6 else lo
            out = [self.value(items, depth + 1) for _ in range(n)]
            keys = s.get("x-kubernetes-list-map-keys")
            if keys:
                seen, uniq = set(), []
                for i, o in enumerate(out):
                    if isinstance(o, dict):
                        for k in keys:
                            o.setdefault(k, f"k{i}" if items.get("properties", {}).get(k, {}).get("type") == "string" else i)
                        key = tuple(json.dumps(o.get(k)) for k in keys)
                        if key not in seen:
                            seen.add(key)
                            uniq.append(o)
                out = uniq
            elif s.get("x-kubernetes-list-type") == "set":
                seen, uniq = set(), []
                for o in out:
                    j = json.dumps(o, sort_keys=True)
                    if j not in seen:
                        seen.add(j)
                        uniq.append(o)
                out = uniq
            return out
        if t == "object" or "properties" in s:
            out = {}
            props = s.get("properties", {})
            required = set(s.get("required", []))
            for name, sub in props.items():
                if name in required or (depth < 5 and self.r.random() < 0.5):
                    out[name] = self.value(sub, depth + 1)
            add = s.get("additionalProperties")
            if isinstance(add, dict) and depth < 6:
                for i in range(self.r.randint(0, 2)):
                    out[f"key{i}"] = self.value(add, depth + 1)
            return out
        return self.r.choice([1, "x", True, {"a": 1}])

    def mutate(self, obj, schema):
        """One mutation somewhere under spec (or status)."""
        # Under the object's own fields: kind, apiVersion and metadata pick the CRD and name.
        tops = [k for k in obj if k not in ("apiVersion", "kind", "metadata") and isinstance(obj[k], dict)]
        if not tops:
            return
        top = self.r.choice(tops)
        path = [top]
        node, s = obj[top], (schema.get("properties") or {}).get(top, {})
        for _ in range(self.r.randint(1, 5)):
            if isinstance(node, dict) and node:
                k = self.r.choice(list(node))
                sub = (s.get("properties") or {}).get(k) or (
                    s.get("additionalProperties") if isinstance(s.get("additionalProperties"), dict) else {}
                )
                if not isinstance(node[k], (dict, list)) or self.r.random() < 0.3:
                    return self.change(node, k, sub)
                path.append(k)
                node, s = node[k], sub or {}
            elif isinstance(node, list) and node:
                i = self.r.randrange(len(node))
                if not isinstance(node[i], (dict, list)) or self.r.random() < 0.3:
                    return self.change(node, i, s.get("items", {}))
                node, s = node[i], s.get("items", {})
            else:
                break
        if isinstance(node, dict):
            self.change(node, self.r.choice(list(node) or ["extraField"]), {})

    def change(self, parent, key, s):
        if isinstance(parent, dict) and key not in parent:
            parent[key] = "x"  # a field the schema may not have
            return
        r = self.r.random()
        if isinstance(parent, dict) and r < 0.12:
            parent.pop(key, None)  # a required field may go
        elif isinstance(parent, dict) and r < 0.2:
            parent["unknownField"] = "x"
        elif r < 0.3:
            parent[key] = None
        elif r < 0.45:
            parent[key] = self.r.choice([1, "1", True, [1], {"a": "b"}, 1.5, -1])
        elif r < 0.55 and isinstance(parent[key], list) and parent[key]:
            parent[key].append(copy.deepcopy(parent[key][0]))  # a duplicate
        elif r < 0.65 and isinstance(parent[key], str):
            parent[key] = parent[key] * 40  # past maxLength
        elif r < 0.75 and isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
            parent[key] = self.r.choice([-1, 0, 2**31, 10**12, 1.5, 65536])
        elif r < 0.85 and isinstance(parent[key], list):
            parent[key] = []
        else:
            parent[key] = self.value(s) if s else "x"


# libyaml when PyYAML has it: the corpus's CRDs take minutes to read and write in pure Python.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def crd_documents(path):
    with open(path) as f:
        for doc in yaml.load_all(f, Loader=LOADER):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                yield doc


def object_for(gen, crd, version, name):
    schema = version["schema"]["openAPIV3Schema"]
    group = crd["spec"]["group"]
    kind = crd["spec"]["names"]["kind"]
    obj = gen.value(schema)
    obj["apiVersion"] = f"{group}/{version['name']}"
    obj["kind"] = kind
    obj["metadata"] = {"name": name}
    if crd["spec"].get("scope") == "Namespaced":
        obj["metadata"]["namespace"] = "default"
    return obj, schema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle")
    ap.add_argument("--conformance", default=os.path.join(REPO, "target", "debug", "conformance"))
    ap.add_argument("--objects", type=int, default=30, help="objects per CRD")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the scratch corpus in this folder")
    ap.add_argument("--kubernetes-version", default="1.37", help="crd-cel's release (the oracle's own)")
    ap.add_argument("--no-compare", action="store_true",
                    help="only write the vectors (with --keep): no oracle or crd-cel run")
    ap.add_argument("--updates", type=float, default=0.5, help="share of the objects sent as updates")
    ap.add_argument("--olds", type=int, default=0,
                    help="updates share this many old objects per CRD (0: one old object each)")
    ap.add_argument("--from-old", type=float, default=0.0,
                    help="share of the updates whose object is its old object mutated")
    ap.add_argument("--patterns", action="store_true",
                    help="make strings under a `pattern` match it (default: lower-case letters)")
    ap.add_argument("crds", nargs="*")
    a = ap.parse_args()
    if a.no_compare and not a.keep:
        ap.error("--no-compare needs --keep DIR")
    if not a.no_compare and not a.oracle:
        ap.error("--oracle is required (unless --no-compare)")
    rng = random.Random(a.seed)
    gen = Gen(rng, patterns=a.patterns)
    crds = a.crds
    if not crds:
        if not os.path.isdir(CORPUS):
            print(f"objects.py: {CORPUS} is missing; name CRD files", file=sys.stderr)
            return 2
        for root, _, files in os.walk(CORPUS):
            if "/vectors" in root:
                continue
            crds += [os.path.join(root, f) for f in sorted(files) if f.endswith((".yaml", ".yml"))]
    work = a.keep or tempfile.mkdtemp(prefix="crd-cel-objects-")
    os.makedirs(os.path.join(work, "crd"), exist_ok=True)
    vec_dir = os.path.join(work, "vectors", "generated")
    os.makedirs(vec_dir, exist_ok=True)
    count = 0
    for ci, path in enumerate(crds):
        for di, crd in enumerate(crd_documents(path)):
            versions = [v for v in crd["spec"].get("versions", []) if v.get("served") and v.get("schema")]
            if not versions:
                continue
            version = versions[0]
            crd_file = f"crd/{ci}-{di}.yaml"
            with open(os.path.join(work, crd_file), "w") as f:
                yaml.dump(crd, f, Dumper=DUMPER)
            olds = [object_for(gen, crd, version, f"old-{k}")[0] for k in range(max(a.olds, 0))]
            for i in range(a.objects):
                obj, schema = object_for(gen, crd, version, f"obj-{i}")
                for _ in range(rng.randint(0, 3)):
                    gen.mutate(obj, schema)
                vector = {
                    "name": f"{crd['metadata']['name']} #{i}",
                    "crdPaths": [crd_file],
                    "version": version["name"],
                    "operation": "CREATE",
                    "subresource": None,
                    "object": obj,
                    "oldObject": None,
                    "expect": "valid",
                    "errorsContain": [],
                }
                if rng.random() < a.updates:
                    if olds:
                        old = rng.choice(olds)
                        if rng.random() < a.from_old:
                            obj = copy.deepcopy(old)
                            for _ in range(rng.randint(1, 3)):
                                gen.mutate(obj, schema)
                        obj["metadata"] = copy.deepcopy(old["metadata"])
                        vector["object"] = obj
                    else:
                        old, _ = object_for(gen, crd, version, f"obj-{i}")
                    vector["operation"] = "UPDATE"
                    vector["oldObject"] = old
                name = f"{ci:03d}-{di}-{i:03d}.json"
                with open(os.path.join(vec_dir, name), "w") as f:
                    json.dump(vector, f)
                count += 1
    print(f"{count} objects for {len(crds)} files in {work}", file=sys.stderr)
    if a.no_compare:
        return 0
    proc = subprocess.run(
        [a.conformance, "--oracle", a.oracle, "--kubernetes-version", a.kubernetes_version,
         "--details", work, "generated"],
        capture_output=True,
        text=True,
    )
    # The recorded answers are made up here ("valid"): only the oracle columns count.
    out = proc.stdout
    print(out[: out.find("\n\n")] if "\n\n" in out else out)
    diffs = [b for b in out.split("\n\n")[1:] if "oracle-verdict" in b.split("\n")[0] or "oracle-text" in b.split("\n")[0] or " error" in b.split("\n")[0]]
    for d in diffs:
        print("\n" + d)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    if proc.returncode == 2:
        print(proc.stderr, file=sys.stderr)
        return 2
    print(f"\n{len(diffs)} of {count} objects differ from the oracle", file=sys.stderr)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
