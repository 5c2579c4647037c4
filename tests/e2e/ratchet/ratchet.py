#!/usr/bin/env python3
"""Ratcheting of unchanged objects across a CRD change, on a real kube-apiserver.

Run by run.sh inside controlplane/start.sh (E2E_SERVER, E2E_TOKEN, E2E_CA set). Per case: install
a CRD without the rule, store an object that will violate it, add the rule to the CRD (and wait
until a dry-run create of a violating object is refused, so the handler serves the new schema),
then send the no-op requests (PUT of the object as read, JSON merge patch `{}`, server-side apply
of the same content) and record the HTTP code, the Status message and the Warning headers.
Before the rule is added, each request is also sent with dryRun=All: the object it returns is the
object the request makes (what validation receives as the new object), written to OUT/<case>/ and
diffed against the stored one. The same old/new pairs then go through the oracle and crd-cel.
"""
import argparse
import copy
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

GROUP = "ratchet.crd-cel.dev"
SERVER = os.environ["E2E_SERVER"]
TOKEN = os.environ["E2E_TOKEN"]
CTX = ssl.create_default_context(cafile=os.environ["E2E_CA"])
UA = "ratchet-e2e"


def api(method, path, body=None, ctype="application/json"):
    """-> (code, parsed body or text, [warnings])"""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(SERVER + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + TOKEN)
    req.add_header("User-Agent", UA)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", ctype)
    try:
        with urllib.request.urlopen(req, context=CTX, timeout=60) as r:
            code, raw, hdrs = r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        code, raw, hdrs = e.code, e.read(), e.headers
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = raw.decode(errors="replace")
    warnings = [w.split(" ", 2)[2].strip().strip('"') if w.startswith("299 ") else w for w in hdrs.get_all("Warning") or []]
    return code, parsed, warnings


def must(res, what):
    code, body, _ = res
    if code >= 300:
        sys.exit(f"ratchet: {what}: HTTP {code}: {body.get('message') if isinstance(body, dict) else body}")
    return body


def wait(pred, what, timeout=60):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred():
            return
        time.sleep(0.2)
    sys.exit(f"ratchet: timed out waiting for {what}")


# ---------------------------------------------------------------- cases

SPEC_X = {"type": "object", "properties": {"x": {"type": "string"}}}


def root(props, rules=None, **extra):
    s = {"type": "object", "properties": props, **extra}
    if rules:
        s["x-kubernetes-validations"] = [{"rule": r} for r in rules]
    return s


def with_rules(node, rules):
    n = copy.deepcopy(node)
    n["x-kubernetes-validations"] = [{"rule": r} for r in rules]
    return n


def obj(kind, name, spec):
    return {"apiVersion": GROUP + "/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}


STATUS = {"type": "object", "properties": {"ready": {"type": "string"}}}

NOOP = ["put-as-read", "merge-patch-{}", "apply-same"]

MAPLIST = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        }
    },
}

CASES = [
    dict(id="root-name", kind="RootName",
         what="root rule self.metadata.name == 'cluster' (the singleton rule)",
         before=root({"spec": SPEC_X}),
         after=root({"spec": SPEC_X}, ["self.metadata.name == 'cluster'"]),
         stored=obj("RootName", "other", {"x": "b"}), probe=obj("RootName", "probe", {"x": "b"})),
    dict(id="spec-rule", kind="SpecRule",
         what="rule on spec: self.x == 'a' (stored x: b)",
         before=root({"spec": SPEC_X}),
         after=root({"spec": with_rules(SPEC_X, ["self.x == 'a'"])}),
         stored=obj("SpecRule", "other", {"x": "b"}), probe=obj("SpecRule", "probe", {"x": "b"})),
    dict(id="root-spec", kind="RootSpec",
         what="root rule reading only spec: self.spec.x == 'a' (stored x: b)",
         before=root({"spec": SPEC_X}),
         after=root({"spec": SPEC_X}, ["self.spec.x == 'a'"]),
         stored=obj("RootSpec", "other", {"x": "b"}), probe=obj("RootSpec", "probe", {"x": "b"})),
    dict(id="root-name-declared", kind="RootDeclared",
         what="root rule on metadata.name; the root declares apiVersion, kind, metadata{name,generateName} (kubebuilder style)",
         before=root({"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                      "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}},
                      "spec": SPEC_X}),
         after=root({"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                     "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}},
                     "spec": SPEC_X}, ["self.metadata.name == 'cluster'"]),
         stored=obj("RootDeclared", "other", {"x": "b"}), probe=obj("RootDeclared", "probe", {"x": "b"})),
    dict(id="spec-preserve", kind="SpecPreserve",
         what="rule on spec self.x == 'a'; spec has x-kubernetes-preserve-unknown-fields and stores an undeclared y",
         before=root({"spec": dict(SPEC_X, **{"x-kubernetes-preserve-unknown-fields": True})}),
         after=root({"spec": with_rules(dict(SPEC_X, **{"x-kubernetes-preserve-unknown-fields": True}), ["self.x == 'a'"])}),
         stored=obj("SpecPreserve", "other", {"x": "b", "y": "1"}), probe=obj("SpecPreserve", "probe", {"x": "b"})),
    dict(id="maplist-reorder", kind="MapListReorder",
         what="rule on spec self.items.size() <= 1 (stored 2 items); list-type map; PUT with the items swapped",
         before=root({"spec": MAPLIST}),
         after=root({"spec": with_rules(MAPLIST, ["self.items.size() <= 1"])}),
         stored=obj("MapListReorder", "other", {"items": [{"name": "a"}, {"name": "b"}]}),
         probe=obj("MapListReorder", "probe", {"items": [{"name": "a"}, {"name": "b"}]}),
         requests=["put-as-read", "put-reordered"]),
    # The same through OpenAPI schema validation (its ratcheting uses the same CorrelatedObject).
    dict(id="root-required", kind="RootRequired",
         what="OpenAPI, not CEL: required: [spec] added at the root; stored object has no spec",
         before=root({"spec": SPEC_X}),
         after=root({"spec": SPEC_X}, required=["spec"]),
         stored={"apiVersion": GROUP + "/v1", "kind": "RootRequired", "metadata": {"name": "other"}},
         probe={"apiVersion": GROUP + "/v1", "kind": "RootRequired", "metadata": {"name": "probe"}}),
    # The status subresource validates the whole object with the same correlation (status_strategy.go).
    dict(id="root-name-status", kind="RootNameStatus",
         what="root rule on metadata.name, status subresource: updates of /status (as read, and with status changed)",
         before=root({"spec": SPEC_X, "status": STATUS}),
         after=root({"spec": SPEC_X, "status": STATUS}, ["self.metadata.name == 'cluster'"]),
         subresources=True, status={"ready": "no"},
         stored=obj("RootNameStatus", "other", {"x": "b"}), probe=obj("RootNameStatus", "probe", {"x": "b"}),
         requests=["put-status-as-read", "put-status-changed"]),
    dict(id="spec-rule-status", kind="SpecRuleStatus",
         what="rule on spec self.x == 'a', status subresource: update of /status with status changed",
         before=root({"spec": SPEC_X, "status": STATUS}),
         after=root({"spec": with_rules(SPEC_X, ["self.x == 'a'"]), "status": STATUS}),
         subresources=True, status={"ready": "no"},
         stored=obj("SpecRuleStatus", "other", {"x": "b"}), probe=obj("SpecRuleStatus", "probe", {"x": "b"}),
         requests=["put-status-changed"]),
    dict(id="spec-required", kind="SpecRequired",
         what="OpenAPI, not CEL: required: [x] added on spec; stored spec: {}",
         before=root({"spec": SPEC_X}),
         after=root({"spec": dict(SPEC_X, required=["x"])}),
         stored=obj("SpecRequired", "other", {}), probe=obj("SpecRequired", "probe", {})),
]


# What the real server (v1.37.2) answered when this was written: True = accepted (ratcheted).
# run.sh exits 1 when the server answers otherwise.
EXPECT = {
    "root-name": False, "spec-rule": True, "root-spec": False, "root-name-declared": False,
    "spec-preserve": False, "maplist-reorder": True, "root-required": False, "spec-required": True,
    "root-name-status": False, "spec-rule-status": True,
}


def crd_doc(case, schema):
    kind = case["kind"]
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {"group": GROUP, "scope": "Cluster",
                 "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": kind + "List"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema},
                               **({"subresources": {"status": {}}} if case.get("subresources") else {})}]},
    }


def coll(case):
    return f"/apis/{GROUP}/v1/{case['kind'].lower()}s"


def install(case):
    doc = crd_doc(case, case["before"])
    must(api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", doc), "create CRD")
    name = doc["metadata"]["name"]

    def established():
        _, c, _ = api("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        return any(x.get("type") == "Established" and x.get("status") == "True" for x in (c.get("status") or {}).get("conditions") or [])

    wait(established, f"{name} Established")
    wait(lambda: api("GET", coll(case))[0] == 200, f"{name} served")


def add_rule(case):
    name = crd_doc(case, {})["metadata"]["name"]
    cur = must(api("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"), "get CRD")
    cur["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = case["after"]
    must(api("PUT", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}", cur), "update CRD")
    # The handler serves the new schema once a dry-run create of a violating object is refused.
    wait(lambda: api("POST", coll(case) + "?dryRun=All", case["probe"])[0] == 422, f"{name}: the new rule")
    return cur


def request(case, kind, stored, dry):
    """Send one request; stored is the object as read (GET)."""
    url = coll(case) + "/" + stored["metadata"]["name"]
    q = "dryRun=All&" if dry else ""
    if kind == "put-as-read":
        return api("PUT", f"{url}?{q}", stored)
    if kind in ("put-reordered", "put-status-changed"):
        return api("PUT", f"{url}{'/status' if 'status' in kind else ''}?{q}", changed(kind, stored))
    if kind == "put-status-as-read":
        return api("PUT", f"{url}/status?{q}", stored)
    if kind == "merge-patch-{}":
        return api("PATCH", f"{url}?{q}", b"{}", "application/merge-patch+json")
    if kind == "apply-same":
        return api("PATCH", f"{url}?{q}fieldManager=ratchet-apply", case["stored"], "application/apply-patch+yaml")
    raise ValueError(kind)


def changed(kind, stored):
    """The body of a PUT that changes something."""
    body = copy.deepcopy(stored)
    if kind == "put-reordered":
        body["spec"]["items"].reverse()
    elif kind == "put-status-changed":
        body["status"]["ready"] = "yes"
    return body


def diff(a, b, path=""):
    """JSON paths where a and b differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            p = f"{path}.{k}" if path else k
            if k not in a:
                out.append(f"+{p}")
            elif k not in b:
                out.append(f"-{p}")
            else:
                out += diff(a[k], b[k], p)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [path]


def run_tool(argv):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    line = p.stdout.strip()
    try:
        # the oracle prints one indented JSON object, crd-cel -o jsonl one line
        r = json.loads(line)
    except ValueError:
        return {"valid": None, "text": f"tool error rc={p.returncode}: {p.stderr.strip()[:300]}", "warnings": []}
    return r


def verdict(valid, text):
    return "ACCEPT" if valid else "REJECT: " + text


# ---------------------------------------------------------------- observation with a ValidatingAdmissionPolicy

OBSERVE = dict(id="observe", kind="Observe", before=root({"spec": SPEC_X}),
               stored=obj("Observe", "other", {"x": "b"}))
VAP_MSG = (
    "'DIFF top=[' + object.filter(k, !(k in oldObject) || object[k] != oldObject[k]).join(',')"
    " + '] topGone=[' + oldObject.filter(k, !(k in object)).join(',')"
    " + '] metadata=[' + object.metadata.filter(k, !(k in oldObject.metadata) || object.metadata[k] != oldObject.metadata[k]).join(',')"
    " + '] metadataGone=[' + oldObject.metadata.filter(k, !(k in object.metadata)).join(',')"
    " + '] generation=' + string(oldObject.metadata.generation) + '->' + string(object.metadata.generation)"
    " + ' resourceVersion=' + oldObject.metadata.resourceVersion + '->' + object.metadata.resourceVersion"
    " + ' managedFields old=' + oldObject.metadata.managedFields.map(m, MF).join(';')"
    " + ' new=' + object.metadata.managedFields.map(m, MF).join(';')"
).replace("MF", "m.manager + '/' + m.operation + '@' + (has(m.time) ? m.time : '(no time)')")


def observe(out):
    """What the objects look like when validation runs (admission sees the object the strategy validated,
    after IgnoreManagedFieldsTimestampsTransformer, see README)."""
    install(OBSERVE)
    must(api("POST", coll(OBSERVE), OBSERVE["stored"]), "create observed object")
    pol = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
           "metadata": {"name": "ratchet-observe"},
           "spec": {"failurePolicy": "Fail",
                    "matchConstraints": {"resourceRules": [{"apiGroups": [GROUP], "apiVersions": ["v1"],
                                                            "operations": ["UPDATE"], "resources": ["observes"]}]},
                    "validations": [{"expression": "false", "messageExpression": VAP_MSG}]}}
    must(api("POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", pol), "create VAP")
    must(api("POST", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
             {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
              "metadata": {"name": "ratchet-observe"},
              "spec": {"policyName": "ratchet-observe", "validationActions": ["Deny"]}}), "create VAP binding")
    stored = must(api("GET", coll(OBSERVE) + "/other"), "get observed object")

    def active():
        code, body, _ = request(OBSERVE, "put-as-read", stored, dry=True)
        return code != 200 and "DIFF" in str(body.get("message", ""))

    wait(active, "the ValidatingAdmissionPolicy", timeout=90)
    rows = []
    for kind in NOOP:
        code, body, _ = request(OBSERVE, kind, stored, dry=False)
        msg = body.get("message", "") if isinstance(body, dict) else str(body)
        rows.append((kind, code, msg))
    with open(os.path.join(out, "observe.json"), "w") as f:
        json.dump([{"request": k, "code": c, "message": m} for k, c, m in rows], f, indent=1)
    return rows


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--crd-cel", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = []
    for case in CASES:
        d = os.path.join(a.out, case["id"])
        os.makedirs(d, exist_ok=True)
        install(case)
        must(api("POST", coll(case), case["stored"]), f"{case['id']}: store the object")
        url = coll(case) + "/" + case["stored"]["metadata"]["name"]
        stored = must(api("GET", url), "read the object")
        if "status" in case:
            stored["status"] = case["status"]
            must(api("PUT", url + "/status", stored), f"{case['id']}: set the status")
            stored = must(api("GET", url), "read the object")
        with open(os.path.join(d, "old.json"), "w") as f:
            json.dump(stored, f, indent=1)
        kinds = case.get("requests", NOOP)
        # What each request makes, before the rule exists (dryRun=All returns the would-be object).
        made = {}
        for kind in kinds:
            made[kind] = must(request(case, kind, stored, dry=True), f"{case['id']}: dry-run {kind}")
        crd = add_rule(case)
        with open(os.path.join(d, "crd.json"), "w") as f:
            json.dump(crd, f, indent=1)
        for kind in kinds:
            stored_now = must(api("GET", coll(case) + "/" + stored["metadata"]["name"]), "re-read the object")
            code, body, warns = request(case, kind, stored_now, dry=False)
            msg = body.get("message", "") if isinstance(body, dict) else str(body)
            # What the oracle and crd-cel get as the new object: the PUT body for a PUT (they run the update
            # handler themselves), the dry-run result for a patch (they run no patch handler).
            if kind in ("put-as-read", "put-status-as-read"):
                new = stored
            elif kind in ("put-reordered", "put-status-changed"):
                new = changed(kind, stored)
            else:
                new = made[kind]
            newf = os.path.join(d, f"new-{kind}.json")
            with open(newf, "w") as f:
                json.dump(new, f, indent=1)
            oldf = os.path.join(d, "old.json")
            crdf = os.path.join(d, "crd.json")
            sub = ["--subresource", "status"] if "status" in kind else []
            o = run_tool([a.oracle, "validate", "--crd", crdf, "--old", oldf, *sub, newf])
            c = run_tool([a.crd_cel, "validate", "--crd", crdf, "--old", oldf, "--field-validation", "warn",
                          "--kubernetes-version", "1.37", "-o", "jsonl", *sub, newf])
            results.append(dict(case=case["id"], what=case["what"], request=kind, code=code, message=msg,
                                warnings=warns, madeDiff=diff(stored, made[kind]),
                                oracle=dict(valid=o.get("valid"), text=o.get("text", ""), warnings=o.get("warnings", [])),
                                crdcel=dict(valid=c.get("valid"), text=c.get("text", ""), warnings=c.get("warnings", []))))
    obs = observe(a.out)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)

    # ---- the table
    print("\n== cases")
    for case in CASES:
        print(f"  {case['id']:<19} {case['what']}")
    print("\n== what each request makes (dryRun=All before the rule), as paths differing from the stored object")
    for r in results:
        print(f"  {r['case']:<19} {r['request']:<18} {', '.join(r['madeDiff']) or '(identical)'}")
    print("\n== answers (server: HTTP code, Status message, Warning headers; '!': the oracle's or crd-cel's verdict,")
    print("   message (rejected) or warnings (accepted) differ from the server's)")
    hdr = f"  {'case':<19} {'request':<18} {'server':<11} {'oracle':<8} {'crd-cel':<8}"
    print(hdr)
    agree_o = agree_c = 0
    for r in results:
        sv = r["code"] < 300
        ov, cv = r["oracle"]["valid"], r["crdcel"]["valid"]
        srv_text = "" if sv else r["message"]
        # Same verdict, and the same Status message (rejected) or the same Warning headers (accepted).
        sw = sorted(r["warnings"])
        o_same = ov == sv and (r["oracle"]["text"] == srv_text if not sv else sorted(r["oracle"]["warnings"]) == sw)
        c_same = cv == sv and (r["crdcel"]["text"] == srv_text if not sv else sorted(r["crdcel"]["warnings"]) == sw)
        agree_o += o_same
        agree_c += c_same
        lab = lambda v: "ACCEPT" if v else ("REJECT" if v is not None else "ERROR")
        print(f"  {r['case']:<19} {r['request']:<18} {str(r['code']) + ' ' + lab(sv):<11} "
              f"{lab(ov) + ('' if o_same else '!'):<8} {lab(cv) + ('' if c_same else '!'):<8}")
        if not sv:
            print(f"      server : {r['message']}")
        if r["warnings"]:
            print(f"      server warnings: {r['warnings']}")
        if not o_same:
            print(f"      oracle DIFFERS: {verdict(ov, r['oracle']['text'])}")
        if not c_same:
            print(f"      crd-cel DIFFERS: {verdict(cv, r['crdcel']['text'])}")
        if cv and r["crdcel"]["warnings"]:
            print(f"      crd-cel warnings: {r['crdcel']['warnings']}")
    print(f"\n  oracle {agree_o}/{len(results)}, crd-cel {agree_c}/{len(results)} agree with the server")
    unexpected = [r for r in results if (r["code"] < 300) != EXPECT[r["case"]]]
    print("\n== observe: a ValidatingAdmissionPolicy that denies every UPDATE of Observe with the old/new difference")
    for kind, code, msg in obs:
        print(f"  {kind:<15} {code} {msg}")
    print(f"\nratchet: inputs and results in {a.out}")
    for r in unexpected:
        print(f"ratchet: UNEXPECTED server answer for {r['case']} {r['request']}: HTTP {r['code']} (expected "
              f"{'accepted' if EXPECT[r['case']] else 'rejected'})")
    print(f"ratchet: server as expected in {len(results) - len(unexpected)}/{len(results)} requests; "
          f"oracle {agree_o}/{len(results)}, crd-cel {agree_c}/{len(results)} agree with the server")
    # CI's judge: the server as recorded, and crd-cel and the oracle as the server.
    sys.exit(1 if unexpected or agree_c < len(results) or agree_o < len(results) else 0)


if __name__ == "__main__":
    main()
