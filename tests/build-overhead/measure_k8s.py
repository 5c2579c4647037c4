#!/usr/bin/env python3
"""Build cost of rules that read into k8s-openapi types (issue 14, item 5).

Generates a crate whose spec embeds a `PodTemplateSpec`, a `ResourceRequirements` and a
`Vec<EnvVar>`, with 20 rules reading into them, and builds it in three variants, RUNS times each
(median): `JsonSchema` (the plain kube CRD, no crd-cel), `CelValidate` without rules, and
`CelValidate` with the 20 rules (each written REPEAT times, default 5: 100 rules). Prints the medians, crd-cel's cost over plain JsonSchema and the
cost per rule. Dependencies (k8s-openapi, kube) are built once first and not counted.

Besides wall time it reports the CPU time (user + sys) of the one rustc process compiling the
measured crate (`rustc_rusage.py`, as `measure.py` does), and with `INSTRUCTIONS=1` the
instructions that rustc executes for the no-rules and rules variants (cachegrind, a few minutes
per build). `CRD_CEL=PATH` builds against another crd-cel tree (an old commit's checkout).

usage: python3 tests/build-overhead/measure_k8s.py [WORKDIR]
"""
import os, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("CRD_CEL") or os.path.dirname(os.path.dirname(HERE))
WRAPPER = os.path.join(HERE, "rustc_rusage.py")
WORK = sys.argv[1] if len(sys.argv) > 1 else "/tmp/crd-cel-build-overhead-k8s"
RUNS = int(os.environ.get("RUNS", "3"))
# Each rule written REPEAT times (20 rules cost less than the noise of one build).
REPEAT = int(os.environ.get("REPEAT", "5"))

# Every rule reads into a k8s-openapi type; each stays under the per-expression cost limit.
RULES = [
    ("template", "!has(self.spec) || self.spec.containers.size() <= 8"),
    ("template", "!has(self.spec) || self.spec.containers.all(c, c.name.size() <= 63)"),
    ("template", "!has(self.spec) || !has(self.spec.hostNetwork) || !self.spec.hostNetwork"),
    ("template", "!has(self.metadata) || !has(self.metadata.labels) || 'app' in self.metadata.labels"),
    ("template", "!has(self.spec) || self.spec.containers.exists(c, c.name == 'main')"),
    ("template", "!has(self.spec) || !has(self.spec.restartPolicy) || self.spec.restartPolicy != 'Never'"),
    ("template", "!has(self.spec) || !has(self.spec.initContainers) || self.spec.initContainers.size() <= 2"),
    ("template", "!has(self.spec) || !has(self.spec.serviceAccountName) || self.spec.serviceAccountName != 'default'"),
    ("resources", "!has(self.limits) || !('cpu' in self.limits) || quantity(self.limits['cpu']).compareTo(quantity('8')) <= 0"),
    ("resources", "!has(self.requests) || !('memory' in self.requests) || quantity(self.requests['memory']).isGreaterThan(quantity('1Mi'))"),
    ("resources", "!has(self.limits) || self.limits.size() <= 4"),
    ("resources", "!has(self.requests) || self.requests.all(k, k.size() <= 63)"),
    ("resources", "!has(self.claims) || self.claims.size() <= 2"),
    ("env", "self.all(e, !e.name.startsWith('KUBERNETES_'))"),
    ("env", "self.all(e, !has(e.valueFrom) || !has(e.valueFrom.secretKeyRef) || e.valueFrom.secretKeyRef.name != '')"),
    ("env", "self.exists(e, e.name == 'LOG_LEVEL') || self.size() == 0"),
    ("env", "self.all(e, !has(e.value) || e.value.size() <= 1024)"),
    ("env", "self.size() <= 32"),
    ("env", "self.all(e, e.name.size() <= 253)"),
    ("env", "self.filter(e, has(e.valueFrom)).size() <= 8"),
]

def generate(mode: str) -> str:
    derive = "JsonSchema" if mode == "jsonschema" else "CelValidate"
    out = [
        "use k8s_openapi::api::core::v1::{EnvVar, PodTemplateSpec, ResourceRequirements};",
        "use kube::CustomResource;",
        "use serde::{Deserialize, Serialize};",
        "use crd_cel::CelValidate;" if derive == "CelValidate" else "use schemars::JsonSchema;",
        "",
        f"#[derive(CustomResource, {derive}, Serialize, Deserialize, Clone, Debug)]",
        '#[kube(group = "measure.example.com", version = "v1", kind = "Job", namespaced)]',
        '#[serde(rename_all = "camelCase")]',
        "pub struct JobSpec {",
    ]
    fields = {
        "template": "PodTemplateSpec",
        "resources": "ResourceRequirements",
        "env": "Vec<EnvVar>",
    }
    for name, ty in fields.items():
        if mode == "rules":
            for field, rule in RULES * REPEAT:
                if field == name:
                    out.append(f'    #[cel(rule = "{rule}")]')
        if name == "env" and derive == "CelValidate":
            out.append("    #[cel(max_items = 64)]")
        elif name == "env":
            out.append("    #[schemars(length(max = 64))]")
        out.append(f"    pub {name}: {ty},")
    out.append("}")
    return "\n".join(out) + "\n"

def write_crate():
    os.makedirs(os.path.join(WORK, "src"), exist_ok=True)
    with open(os.path.join(WORK, "Cargo.toml"), "w") as f:
        f.write(f"""[package]
name = "crd-cel-build-overhead-k8s"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
crd-cel = {{ path = "{ROOT}/runtime" }}
k8s-openapi = {{ version = "0.29", features = ["latest", "schemars"] }}
kube = {{ version = "5", default-features = false, features = ["derive"] }}
schemars = "1"
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"
""")

def build(source: str, prefix: str = "") -> tuple[float, float]:
    """Builds the crate; returns its wall time and its rustc's CPU time (user + sys), in s."""
    with open(os.path.join(WORK, "src", "lib.rs"), "w") as f:
        f.write(source)
    log = os.path.join(WORK, "rusage.log")
    if os.path.exists(log):
        os.remove(log)
    start = time.monotonic()
    # Without incremental compilation: each variant's build would otherwise reuse what the
    # previous variant left (measured: a build right after a different variant took 5 s, the
    # next similar one 1 s), and the figures would say more about the order than the code.
    env = dict(os.environ, CARGO_INCREMENTAL="0", RUSTC_WRAPPER=WRAPPER,
               MEASURE_CRATE="crd_cel_build_overhead_k8s", MEASURE_LOG=log, MEASURE_PREFIX=prefix)
    subprocess.run(["cargo", "build", "-q", "--offline"], cwd=WORK, check=True, env=env)
    wall = time.monotonic() - start
    cpu = 0.0
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                user, sys_, _rss, _wall = line.split()
                cpu += float(user) + float(sys_)
    return wall, cpu

def main():
    write_crate()
    variants = {m: generate(m) for m in ("jsonschema", "norules", "rules")}
    print("building dependencies once ...", flush=True)
    for src in variants.values():
        build(src)
    times = {m: [] for m in variants}
    cpu = {m: [] for m in variants}
    for i in range(RUNS):
        for m, src in variants.items():
            wall, c = build(src + f"\n// {m} {i}\n")
            times[m].append(wall)
            cpu[m].append(c)
    n = len(RULES) * REPEAT
    print(f"crd-cel: {ROOT}")
    for label, values in (("wall", times), ("rustc CPU", cpu)):
        med = {m: statistics.median(t) for m, t in values.items()}
        for m, t in values.items():
            print(f"{label} {m:>10}: {[round(x, 2) for x in t]} s, median {med[m]:.2f} s")
        print(f"{label}: crd-cel without rules over JsonSchema: "
              f"{med['norules'] - med['jsonschema']:+.2f} s")
        print(f"{label}: rules: {n}, {(med['rules'] - med['norules']) * 1000 / n:.1f} ms per rule")
    if os.environ.get("INSTRUCTIONS") == "1":
        counts = {}
        for m in ("norules", "rules"):
            out = os.path.join(WORK, f"cachegrind.{m}.out")
            build(variants[m] + f"\n// {m} cachegrind\n",
                  f"valgrind -q --tool=cachegrind --cache-sim=no --cachegrind-out-file={out}")
            with open(out) as f:
                counts[m] = next(int(l.split()[1]) for l in f if l.startswith("summary:"))
        print(f"instructions without rules: {counts['norules'] / 1e9:.3f} G, "
              f"with rules: {counts['rules'] / 1e9:.3f} G")
        print(f"instructions: {(counts['rules'] - counts['norules']) / n / 1e6:.2f} M per rule")

if __name__ == "__main__":
    main()
