#!/usr/bin/env python3
"""Hostile inputs against the release `crd-cel` binary: each must end within 1 s with exit 1
or 2 and a message that says where (FILE:LINE or <stdin>:LINE), never a panic.

    cargo build --release -p crd-cel-cli
    python3 fuzz/hostile.py [target/release/crd-cel]

Prints one row per input (bytes, seconds, exit code, the message's first line) and exits 1 if any
input breaks the rule. The inputs are made here; nothing is downloaded.
"""

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, ".."))
LIMIT_SECONDS = 1.0

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-preserve-unknown-fields: true
            properties:
              bad: {type: integer}
            x-kubernetes-validations:
            - rule: "!has(self.bad)"
"""

HEAD = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"


def alias_bomb():
    lines = [HEAD + "spec:", '  a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 12):
        prev = f"*a{i - 1}"
        lines.append(f"  a{i}: &a{i} [{', '.join([prev] * 10)}]")
    return ("\n".join(lines) + "\n").encode()


def inputs():
    yield "YAML alias bomb (10^12 nodes)", alias_bomb()
    yield "JSON nested 200,000 deep", (
        '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":'
        + '{"a":' * 200_000 + "1" + "}" * 200_000 + "}").encode()
    yield "YAML flow nested 100,000 deep", (
        HEAD + "spec: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n").encode()
    yield "YAML block nested 2,000 deep", (
        HEAD + "spec:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(2_000))
        + " " * 2_001 + "b: 1\n").encode()
    yield "50 MB string", (HEAD + 'spec: {s: "' + "x" * (50 << 20) + '"}\n').encode()
    yield "invalid UTF-8", HEAD.encode() + b"spec: {s: \"\xff\xfe\"}\n"
    yield "20,000 documents", "".join(
        f"---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w{i}}}\nspec: {{bad: {i}}}\n"
        for i in range(20_000)).encode()
    yield "repeated keys", (HEAD + "spec:\n  a: 1\n  a: 2\n").encode()
    yield "a rule of 100,000 nested parentheses (check)", None
    yield "a pattern of 50,000 nested groups (check)", "pattern"


def hostile_crd():
    rule = "(" * 100_000 + "true" + ")" * 100_000
    return CRD.replace('"!has(self.bad)"', '"' + rule + '"').encode()


def hostile_pattern_crd():
    """A schema `pattern` nested deeper than Go's regexp parser allows (1,000)."""
    pattern = "(" * 50_000 + "a" + ")" * 50_000
    return CRD.replace("bad: {type: integer}", "bad: {type: integer}\n" + " " * 14
                       + "name: {type: string, pattern: '" + pattern + "'}").encode()


def run(binary, args, data):
    start = time.monotonic()
    try:
        p = subprocess.run([binary, *args], input=data, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, 60.0, "timed out after 60 s"
    seconds = time.monotonic() - start
    message = (p.stderr or p.stdout).decode("utf-8", "replace").strip().splitlines()
    return p.returncode, seconds, message[0] if message else ""


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "release", "crd-cel")
    work = tempfile.mkdtemp()
    crd = os.path.join(work, "crd.yaml")
    with open(crd, "w") as f:
        f.write(CRD)
    failed = 0
    print(f"| input | bytes | seconds | exit | message |")
    print("|---|---|---|---|---|")
    for name, data in inputs():
        if data is None or data == "pattern":
            data = hostile_crd() if data is None else hostile_pattern_crd()
            code, seconds, message = run(binary, ["check", "-"], data)
        else:
            code, seconds, message = run(binary, ["validate", "--crd", crd, "-"], data)
        located = message.startswith("<stdin>:") or "<stdin>:" in message
        ok = code in (1, 2) and seconds < LIMIT_SECONDS and located and "panicked" not in message
        failed += not ok
        print(f"| {name} | {len(data):,} | {seconds:.2f} | {code} | {message[:110]} |"
              + ("" if ok else " **FAIL**"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
