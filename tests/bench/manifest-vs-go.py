#!/usr/bin/env python3
"""crd-cel's manifest path against the apiserver's own Go code, request by request.

Times every request of the example objects and of every corpus vector (each CRD path of it) with
both `oracle bench -list` (tests/oracle/bench.go: the apiserver's decode, prune, default,
ObjectMeta, OpenAPI, list types and CEL, validators built once per CRD version) and
`CORPUS_LIST=... benches/manifest.rs` (crd-cel's `Validator::validate_body` on the same JSON
bodies, validators built once), in the same run, alternating chunks of requests between the two
so that both see the same machine load. Each side checks before timing: Go that its timed path
gives the oracle's `validate` verdict, crd-cel that it gives the oracle's verdict (passed in the
list). It prints the Go / crd-cel ratio per example and its distribution over the corpus.

    python3 tests/bench/manifest-vs-go.py [--corpus DIR] [--limit N] [--sets a,b] [--tsv OUT]

The corpus is ../shared/corpus beside the checkout (read-only); without it only the examples
run, and the script says so.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ORACLE_DIR = REPO / "tests" / "oracle"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build_oracle():
    log("building tests/oracle (go build -o oracle .)")
    subprocess.run(["go", "build", "-o", "oracle", "."], cwd=ORACLE_DIR, check=True)
    return ORACLE_DIR / "oracle"


def build_bench():
    """Builds benches/manifest.rs and returns its executable."""
    log("building the manifest bench (cargo bench -p crd-cel --bench manifest --no-run)")
    out = subprocess.run(
        ["cargo", "bench", "-p", "crd-cel", "--bench", "manifest", "--no-run",
         "--message-format=json"],
        cwd=REPO, check=True, stdout=subprocess.PIPE, text=True)
    exe = None
    for line in out.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if (msg.get("reason") == "compiler-artifact" and msg.get("executable")
                and msg["target"]["name"] == "manifest"):
            exe = msg["executable"]
    if not exe:
        sys.exit("manifest-vs-go: cargo did not report the manifest bench's executable")
    return exe


def example_requests(oracle, work):
    """The example CRD and objects, as JSON bodies (the JSON kubectl makes of the YAML)."""
    crd = REPO / "tests" / "snapshots" / "webapp-crd.yaml"
    objects = REPO / "examples" / "objects"
    body = {}
    for stem in ("shop", "shop-broken", "shop-premium"):
        out = subprocess.run([str(oracle), "yaml-to-json", str(objects / f"{stem}.yaml")],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        path = work / "examples" / f"{stem}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(out.strip() + "\n")
        body[stem] = path
    return [
        ("example/shop-create", crd, body["shop"], None, None),
        ("example/shop-broken-create", crd, body["shop-broken"], None, None),
        ("example/shop-premium-create", crd, body["shop-premium"], None, None),
        ("example/shop-premium-update", crd, body["shop-premium"], body["shop"], None),
    ]


def corpus_requests(corpus, work, sets):
    """One request per (vector, CRD path) of corpus/vectors/<set>/*.json."""
    out = []
    vectors = corpus / "vectors"
    for set_dir in sorted(p for p in vectors.iterdir() if p.is_dir()):
        if sets and set_dir.name not in sets:
            continue
        for f in sorted(set_dir.glob("*.json")):
            if f.name == "_index.json":
                continue
            v = json.loads(f.read_text())
            d = work / "corpus" / set_dir.name
            d.mkdir(parents=True, exist_ok=True)
            obj = d / f"{f.stem}.object.json"
            obj.write_text(json.dumps(v["object"], separators=(",", ":")))
            old = None
            if str(v.get("operation", "")).upper() == "UPDATE" and v.get("oldObject") is not None:
                old = d / f"{f.stem}.old.json"
                old.write_text(json.dumps(v["oldObject"], separators=(",", ":")))
            if v.get("initialCRDPatches"):
                log(f"manifest-vs-go: {f}: initialCRDPatches are not timed; skipped")
                continue
            paths = v["crdPaths"]
            for cp in paths:
                name = f"{set_dir.name}/{f.stem}"
                if len(paths) > 1:
                    name += "@" + Path(cp).parent.name
                out.append((name, corpus / cp, obj, old, v.get("subresource")))
    return out


def list_line(req, verdict=None):
    name, crd, obj, old, sub = req
    cols = [name, str(crd), str(obj), str(old) if old else "-", sub or "-"]
    if verdict:
        cols.append(verdict)
    return "\t".join(cols) + "\n"


def parse(stdout, side):
    res = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == "ns/op":
            res[parts[0]] = (parts[1], float(parts[2]))
        elif len(parts) >= 2 and parts[1] == "MISMATCH":
            res[parts[0]] = ("MISMATCH " + " ".join(parts[2:]), None)
        elif line.strip():
            log(f"{side}: {line}")
    return res


def run_chunks(requests, oracle, bench, work, chunk, tag):
    """Times requests chunk by chunk, the two sides alternating (who goes first too)."""
    go, rs = {}, {}
    for i in range(0, len(requests), chunk):
        part = requests[i:i + chunk]
        log(f"{tag}: requests {i + 1}-{i + len(part)} of {len(requests)}")
        go_list = work / "go.tsv"
        go_list.write_text("".join(list_line(r) for r in part))

        def run_go():
            p = subprocess.run([str(oracle), "bench", "-list", str(go_list)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                sys.exit(f"oracle bench failed:\n{p.stderr}")
            go.update(parse(p.stdout, "go"))

        def run_rs():
            rs_list = work / "rs.tsv"
            rs_list.write_text("".join(
                list_line(r, go.get(r[0], (None,))[0]) for r in part))
            p = subprocess.run([bench], env={**os.environ, "CORPUS_LIST": str(rs_list)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode not in (0, 1):
                sys.exit(f"manifest bench failed:\n{p.stderr}")
            rs.update(parse(p.stdout, "crd-cel"))

        # crd-cel needs the oracle's verdicts: Go first, then crd-cel; the next chunk's Go run
        # follows crd-cel's, so each side runs right after the other throughout.
        run_go()
        run_rs()
    return go, rs


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def us(ns):
    return f"{ns / 1000:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus"))
    ap.add_argument("--sets", default="", help="comma-separated corpus sets (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many corpus requests")
    ap.add_argument("--chunk", type=int, default=40, help="requests per alternation")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--retime", type=int, default=30,
                    help="time the N requests of lowest ratio again, both sides, and keep each"
                         " side's faster run (a load spike on a shared machine hits one side)")
    ap.add_argument("--tsv", help="write every request's figures here")
    ap.add_argument("--no-build", action="store_true",
                    help="use tests/oracle/oracle as built and the bench as last built")
    args = ap.parse_args()

    oracle = ORACLE_DIR / "oracle" if args.no_build else build_oracle()
    bench = build_bench()
    with tempfile.TemporaryDirectory(prefix="manifest-vs-go.") as tmp:
        work = Path(tmp)
        examples = example_requests(oracle, work)
        corpus = Path(args.corpus)
        requests = []
        if (corpus / "vectors").is_dir():
            sets = set(filter(None, args.sets.split(",")))
            requests = corpus_requests(corpus, work, sets)
            if args.limit:
                requests = requests[:args.limit]
        else:
            log("=" * 72)
            log(f"manifest-vs-go: NO CORPUS at {corpus}: only the examples are timed")
            log("=" * 72)
        go, rs = run_chunks(examples + requests, oracle, bench, work, args.chunk, "timing")
        if args.retime:
            def ratio(r):
                g, c = go.get(r[0]), rs.get(r[0])
                return g[1] / c[1] if g and c and g[1] and c[1] else float("inf")
            again = sorted(examples + requests, key=ratio)[:args.retime]
            go2, rs2 = run_chunks(again, oracle, bench, work, args.chunk, "timing again")
            for side, second in ((go, go2), (rs, rs2)):
                for name, (verdict, ns) in second.items():
                    if ns is not None and side.get(name, (None, None))[1] is not None:
                        side[name] = (verdict, min(ns, side[name][1]))

    rows = []
    mismatches = []
    missing = []
    for name, *_ in examples + requests:
        g, r = go.get(name), rs.get(name)
        if not g or not r:
            missing.append(name)
            continue
        if r[1] is None:
            mismatches.append(f"{name}: {r[0]}")
            continue
        rows.append((name, g[0], g[1], r[1], g[1] / r[1]))

    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("name\tverdict\tgo_ns\tcrdcel_ns\tratio\n")
            for name, verdict, g, r, ratio in rows:
                f.write(f"{name}\t{verdict}\t{g:.0f}\t{r:.0f}\t{ratio:.2f}\n")

    print("\nexamples (median of five ~20 ms batches each; ratio = Go / crd-cel):")
    if args.retime:
        print(f"  (the {args.retime} requests of lowest ratio were timed twice on both sides;"
              " each side's faster run is kept)")
    print(f"  {'request':<32} {'verdict':<8} {'Go us':>9} {'crd-cel us':>11} {'ratio':>7}")
    for name, verdict, g, r, ratio in rows:
        if name.startswith("example/"):
            print(f"  {name[8:]:<32} {verdict:<8} {us(g):>9} {us(r):>11} {ratio:>6.2f}x")
    corpus_rows = [row for row in rows if not row[0].startswith("example/")]
    if corpus_rows:
        ratios = [row[4] for row in corpus_rows]
        slow = [row for row in corpus_rows if row[4] < 2]
        print(f"\ncorpus: {len(corpus_rows)} requests (every CRD path of every vector)")
        print("  ratio Go / crd-cel: min {:.2f}  p10 {:.2f}  median {:.2f}  p90 {:.2f}  max {:.2f}"
              .format(min(ratios), quantile(ratios, .1), statistics.median(ratios),
                      quantile(ratios, .9), max(ratios)))
        print(f"  crd-cel less than 2x faster: {len(slow)} of {len(corpus_rows)}")
        print("  median per request: Go {} us, crd-cel {} us".format(
            us(statistics.median(r[2] for r in corpus_rows)),
            us(statistics.median(r[3] for r in corpus_rows))))
        by_set = {}
        for row in corpus_rows:
            by_set.setdefault(row[0].split("/")[0], []).append(row[4])
        for s, rs_ in sorted(by_set.items()):
            print(f"  {s:<22} {len(rs_):>4} requests, median ratio {statistics.median(rs_):.2f},"
                  f" min {min(rs_):.2f}, below 2x: {sum(1 for x in rs_ if x < 2)}")
        print(f"  worst {args.worst}:")
        for name, verdict, g, r, ratio in sorted(corpus_rows, key=lambda x: x[4])[:args.worst]:
            print(f"    {ratio:5.2f}x  {name} ({verdict}): Go {us(g)} us, crd-cel {us(r)} us")
    if mismatches:
        print(f"\nverdicts that differ (not timed): {len(mismatches)}")
        for m in mismatches:
            print("  " + m)
    if missing:
        print(f"\nno figure from one side: {len(missing)}: {', '.join(missing[:10])}")
    return 1 if mismatches or missing else 0


if __name__ == "__main__":
    sys.exit(main())
