#!/usr/bin/env python3
"""Differential fuzzing of crd-cel against the apiserver oracle.

Generates CEL rules from a typed grammar over one schema's fields and the function table
(mostly well typed, a share deliberately ill typed), then asks both sides:

  * compile: `oracle probe` and `mirror probe` (crd-cel's checker and cost estimator): the
    rule's error text, its messageExpression's error text, the transition flag and maxCost;
  * evaluate: every rule both accept, on generated objects (create and update), through
    `oracle eval` and `mirror eval`: verdict, every error's field, type and message, runtime
    cost.

Every divergence is minimized (subtrees replaced by their children or by a literal of the same
type while the same kind of divergence persists) and written to OUT/findings.json; the summary
table goes to stdout. Divergences of a known class (`KNOWN`, listed with their reasons in
tests/probes/known-differences.txt) are counted apart. Exit 0 when nothing else diverged, 1 when
something did, 2 on a tool error.

    python3 tests/difffuzz/difffuzz.py --rules 2000 --seed 1 [--oracle BIN] [--mirror BIN]

Without --oracle/--mirror it builds both (Go and cargo must be installed).
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

# ---------------------------------------------------------------------------------------------
# The schema every rule is written against: one node of each kind CRD rules read.

SCHEMA = {
    "type": "object",
    "required": ["name", "n", "s", "l", "lo"],
    "properties": {
        "name": {"type": "string", "maxLength": 63},
        "n": {"type": "integer", "format": "int32"},
        "big": {"type": "integer"},
        "d": {"type": "number"},
        "s": {"type": "string", "maxLength": 32},
        "su": {"type": "string"},
        "b": {"type": "boolean"},
        "l": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 16}},
        "lu": {"type": "array", "items": {"type": "string"}},
        "li": {"type": "array", "maxItems": 8, "items": {"type": "integer"}},
        "set": {"type": "array", "maxItems": 8, "x-kubernetes-list-type": "set",
                "items": {"type": "string", "maxLength": 8}},
        "m": {"type": "object", "maxProperties": 8,
              "additionalProperties": {"type": "integer"}},
        "o": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 10},
                                                "b": {"type": "integer"}}},
        "lo": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map",
               "x-kubernetes-list-map-keys": ["k"],
               "items": {"type": "object", "required": ["k"],
                         "properties": {"k": {"type": "string", "maxLength": 8},
                                        "v": {"type": "integer"}}}},
        "t": {"type": "string", "format": "date-time"},
        "dur": {"type": "string", "format": "duration"},
        "by": {"type": "string", "format": "byte", "maxLength": 64},
        "ios": {"x-kubernetes-int-or-string": True},
        "q": {"type": "string", "maxLength": 16},
        "dash-name": {"type": "boolean"},
    },
}

# Field name -> CEL type, as the apiserver types them (escaped names where they need it).
FIELDS = {
    "name": "string", "n": "int", "big": "int", "d": "double", "s": "string", "su": "string",
    "b": "bool", "l": "list(string)", "lu": "list(string)", "li": "list(int)",
    "set": "list(string)", "m": "map(int)", "o": "obj_o", "lo": "list(obj_lo)",
    "t": "timestamp", "dur": "duration", "by": "bytes", "ios": "dyn", "q": "string",
    "dash__dash__name": "bool",
}
OBJ_FIELDS = {"obj_o": {"a": "string", "b": "int"}, "obj_lo": {"k": "string", "v": "int"}}
REQUIRED = {"name", "n", "s", "l", "lo", "k"}


def objects(rng):
    """Objects the accepted rules are evaluated on: a full one, a sparse one, edge values.

    Maps have at most one key: the apiserver iterates a map in Go's random order, so a rule
    whose answer depends on the order (`self.m.map(k, k).join('')`, which error or what cost
    `exists` over a map ends with) has no one answer to compare with."""
    full = {
        "name": "web", "n": 3, "big": 9007199254740993, "d": 2.5, "s": "a,b,c", "su": "Hello",
        "b": True, "l": ["x", "y", "x"], "lu": ["alpha"], "li": [3, 1, 2], "set": ["a", "b"],
        "m": {"one": 1}, "o": {"a": "z", "b": -4},
        "lo": [{"k": "a", "v": 1}, {"k": "b", "v": 0}],
        "t": "2024-02-29T23:59:59Z", "dur": "1h30m", "by": "aGVsbG8=", "ios": "50%",
        "q": "1.5Gi", "dash-name": False,
    }
    sparse = {"name": "s", "n": 0, "s": "", "l": [], "lo": []}
    edge = {
        "name": "e", "n": 2147483647, "big": -9223372036854775808, "d": -0.0, "s": "ü\u00e9é",
        "su": "", "b": False, "l": [""], "li": [], "set": [], "m": {}, "o": {},
        "lo": [{"k": ""}], "t": "0001-01-01T00:00:00Z", "dur": "-1.5s", "by": "",
        "ios": 7, "q": "1e3", "dash-name": True,
    }
    return [full, sparse, edge]


# ---------------------------------------------------------------------------------------------
# Expressions are trees: (text template, [children], type). Rendering substitutes children.

class E:
    __slots__ = ("fmt", "kids", "ty")

    def __init__(self, fmt, kids, ty):
        self.fmt, self.kids, self.ty = fmt, kids, ty

    def render(self):
        return self.fmt.format(*[k.render() for k in self.kids])

    def size(self):
        return 1 + sum(k.size() for k in self.kids)


def lit(text, ty):
    # Braces in literal text are doubled for str.format.
    return E(text.replace("{", "{{").replace("}", "}}"), [], ty)


SCALARS = ["int", "uint", "double", "string", "bool", "bytes", "timestamp", "duration"]
STRINGS = ["''", "'a'", "'x,y'", "'ü'", "'\\n'", "'%'", "'1Gi'", "'a.b'", "'https://e.x/p?q=1'",
           "'10.0.0.1'", "'10.0.0.0/8'", "'::1'", "'^[a-z]+$'", "'[a-'", "'1.2.3'", "\"dq\"",
           "r'\\d+'", "'\\u00e9'", "'abc'", "'ABC'"]
LITERALS = {
    "int": ["0", "1", "-1", "2", "10", "9223372036854775807", "-9223372036854775808", "0x10",
            "1000000"],
    "uint": ["0u", "1u", "18446744073709551615u", "7u"],
    "double": ["0.0", "1.5", "-2.0", "1e308", "1e-3", "double('NaN')", "double('inf')"],
    "string": STRINGS,
    "bool": ["true", "false"],
    "bytes": ["b''", "b'ab'", "b'\\xff'"],
    "timestamp": ["timestamp('2024-01-01T00:00:00Z')", "timestamp('1970-01-01T00:00:00.5+01:00')",
                  "timestamp(0)"],
    "duration": ["duration('1s')", "duration('-2h')", "duration('0')", "duration('1.5ms')"],
}


class Gen:
    def __init__(self, rng, bad_rate):
        self.rng = rng
        self.bad_rate = bad_rate

    def pick(self, xs):
        return self.rng.choice(xs)

    def gen(self, ty, depth, scope):
        """An expression of type `ty`; sometimes of another type, to provoke type errors."""
        if self.rng.random() < self.bad_rate:
            ty = self.pick(SCALARS + ["list(int)", "map(int)"])
        if depth <= 0 or self.rng.random() < 0.25:
            return self.leaf(ty, scope)
        makers = [m for m in self.makers(ty) if m is not None]
        if not makers:
            return self.leaf(ty, scope)
        return self.pick(makers)(depth - 1, scope)

    def leaf(self, ty, scope):
        refs = [(f"self.{f}", t) for f, t in FIELDS.items() if t == ty]
        refs += [(v, t) for v, t in scope if t == ty]
        for obj, fields in OBJ_FIELDS.items():
            for v, t in scope:
                if t == obj:
                    refs += [(f"{v}.{f}", ft) for f, ft in fields.items() if ft == ty]
        refs += [(f"self.o.{f}", t) for f, t in OBJ_FIELDS["obj_o"].items() if t == ty]
        if refs and self.rng.random() < 0.7:
            return lit(self.pick(refs)[0], ty)
        if ty in LITERALS:
            return lit(self.pick(LITERALS[ty]), ty)
        if ty.startswith("list("):
            inner = ty[5:-1]
            if inner in LITERALS:
                return E("[{}, {}]", [self.leaf(inner, scope), self.leaf(inner, scope)], ty)
            return lit("[]", ty)
        if ty.startswith("map("):
            return E("{{'k': {}}}", [self.leaf(ty[4:-1], scope)], ty)
        if ty == "dyn":
            return lit("self.ios", ty)
        return lit("self", "obj_root")

    def makers(self, ty):
        g, r = self.gen, self.rng
        def f(fmt, *tys, out=ty):
            return lambda d, s: E(fmt, [g(t, d, s) for t in tys], out)
        def macro(fmt, list_ty, body_ty, out=ty, two=False):
            def make(d, s):
                lst = g(list_ty, d, s)
                inner = list_ty[5:-1] if list_ty.startswith("list(") else "string"
                v = self.pick(["x", "y", "e"])
                if two:
                    w = "i" if v != "i" else "j"
                    scope = s + [(w, "int"), (v, inner)]
                    return E(fmt.replace("V", v).replace("W", w), [lst, g(body_ty, d, scope)], out)
                return E(fmt.replace("V", v), [lst, g(body_ty, d, s + [(v, inner)])], out)
            return make
        listy = self.pick(["list(string)", "list(int)", "list(obj_lo)"])
        common = [
            f("({} ? {} : {})", "bool", ty, ty),
            f("{}[{}]", f"list({ty})", "int") if ty in SCALARS else None,
        ]
        table = {
            "bool": [
                f("{} && {}", "bool", "bool"), f("{} || {}", "bool", "bool"), f("!{}", "bool"),
                f("{} == {}", "int", "int"), f("{} < {}", "int", "int"),
                f("{} <= {}", "double", "double"), f("{} != {}", "string", "string"),
                f("{} > {}", "timestamp", "timestamp"), f("{} >= {}", "duration", "duration"),
                f("{} == {}", "list(string)", "list(string)"), f("{} in {}", "string", "list(string)"),
                f("{} in {}", "string", "map(int)"), f("{} == {}", "uint", "uint"),
                f("{}.contains({})", "string", "string"), f("{}.startsWith({})", "string", "string"),
                f("{}.endsWith({})", "string", "string"), f("{}.matches({})", "string", "string"),
                lambda d, s: lit(self.pick(["has(self.o)", "has(self.o.a)", "has(self.t)",
                                            "has(self.m.one)", "has(self.dash__dash__name)",
                                            "has(self.su)"]), "bool"),
                macro("{}.all(V, {})", listy, "bool"), macro("{}.exists(V, {})", listy, "bool"),
                macro("{}.exists_one(V, {})", listy, "bool"),
                macro("{}.all(W, V, {})", "list(string)", "bool", two=True),
                f("{}.isSorted()", "list(int)"), f("isQuantity({})", "string"),
                f("isURL({})", "string"), f("isIP({})", "string"), f("isCIDR({})", "string"),
                f("quantity({}).isGreaterThan(quantity({}))", "string", "string"),
                f("{}.size() > {}", "list(int)", "int"), f("self.?o.?a.hasValue()"),
                f("{}.isLowerAscii()", "string"),
                f("ip({}).family() == 4", "string"), f("url({}).getScheme() == 'https'", "string"),
                f("{} == {}", "dyn", "int"), f("{} == {}", "bytes", "bytes"),
            ],
            "int": [
                f("{} + {}", "int", "int"), f("{} - {}", "int", "int"), f("{} * {}", "int", "int"),
                f("{} / {}", "int", "int"), f("{} % {}", "int", "int"), f("-{}", "int"),
                f("size({})", "string"), f("size({})", "list(string)"), f("{}.size()", "map(int)"),
                f("int({})", "double"), f("int({})", "string"), f("int({})", "uint"),
                f("int({})", "timestamp"), f("{}.indexOf({})", "string", "string"),
                f("{}.lastIndexOf({})", "string", "string"), f("{}.sum()", "list(int)"),
                f("{}.min()", "list(int)"), f("{}.max()", "list(int)"),
                f("{}.indexOf({})", "list(int)", "int"), f("{}.getFullYear()", "timestamp"),
                f("{}.getHours('America/New_York')", "timestamp"), f("{}.getSeconds()", "duration"),
                f("{}.getMilliseconds()", "duration"), f("{}.compareTo(semver({}))", "string", "string"),
                f("quantity({}).compareTo(quantity('1'))", "string"),
                f("self.m[{}]", "string"),
            ],
            "uint": [f("uint({})", "int"), f("{} + {}", "uint", "uint"), f("{} / {}", "uint", "uint"),
                     f("uint({})", "double")],
            "double": [
                f("{} + {}", "double", "double"), f("{} * {}", "double", "double"),
                f("{} / {}", "double", "double"), f("double({})", "int"), f("double({})", "string"),
                f("-{}", "double"), f("quantity({}).asApproximateFloat()", "string"),
                f("math.ceil({})", "double"), f("math.abs({})", "double"),
            ],
            "string": [
                f("{} + {}", "string", "string"), f("{}.substring({})", "string", "int"),
                f("{}.substring({}, {})", "string", "int", "int"), f("{}.lowerAscii()", "string"),
                f("{}.upperAscii()", "string"), f("{}.trim()", "string"),
                f("{}.replace({}, {})", "string", "string", "string"), f("string({})", "int"),
                f("string({})", "double"), f("string({})", "timestamp"), f("string({})", "duration"),
                f("string({})", "bytes"), f("string({})", "bool"), f("{}.join({})", "list(string)", "string"),
                f("{}.charAt({})", "string", "int"), f("{}.format([{}])", "string", "int"),
                f("'%s/%d'.format([{}, {}])", "string", "int"), f("'%.2f'.format([{}])", "double"),
                f("{}.reverse()", "string"), f("strings.quote({})", "string"),
                f("{}.split({})[0]", "string", "string"), f("{}.o.a", "obj_root"),
                f("self.?o.?a.orValue({})", "string"), f("url({}).getHost()", "string"),
                f("ip({}).string()", "string"), f("base64.encode({})", "bytes"),
                f("{}.find({})", "string", "string"), f("type({}) == string ? 's' : 'o'", "dyn"),
            ],
            "bytes": [f("bytes({})", "string"), f("{} + {}", "bytes", "bytes"),
                      f("base64.decode({})", "string")],
            "timestamp": [f("{} + {}", "timestamp", "duration"), f("{} - {}", "timestamp", "duration"),
                          f("timestamp({})", "string")],
            "duration": [f("{} - {}", "timestamp", "timestamp"), f("{} + {}", "duration", "duration"),
                         f("duration({})", "string")],
            "list(string)": [
                f("{} + {}", "list(string)", "list(string)"), f("{}.split({})", "string", "string"),
                macro("{}.map(V, {})", listy, "string"), macro("{}.filter(V, {})", "list(string)", "bool"),
                f("{}.sort()", "list(string)"), f("{}.slice(0, {})", "list(string)", "int"),
                f("{}.distinct()", "list(string)"), f("self.m.map(k, k)"),
                f("{}.reverse()", "list(string)"),
            ],
            "list(int)": [
                f("{} + {}", "list(int)", "list(int)"), macro("{}.map(V, {})", listy, "int"),
                macro("{}.filter(V, {})", "list(int)", "bool"), f("lists.range({})", "int"),
                f("{}.flatten()", "list(list(int))"),
            ],
            "list(list(int))": [f("[{}, {}]", "list(int)", "list(int)")],
            "list(obj_lo)": [macro("{}.filter(V, {})", "list(obj_lo)", "bool")],
            "map(int)": [f("{{'a': {}, 'b': {}}}", "int", "int"),
                         macro("{}.transformMap(W, V, {})", "list(int)", "int", two=True)],
            "dyn": [f("dyn({})", "int"), f("dyn({})", "string")],
        }
        return [m for m in common + table.get(ty, []) if m is not None]


def generate(rng, n, bad_rate):
    g = Gen(rng, bad_rate)
    out = []
    for _ in range(n):
        depth = rng.choice([1, 2, 3, 3, 4, 5])
        e = g.gen("bool", depth, [])
        me = None
        if rng.random() < 0.15:
            me = g.gen("string", 2, [])
        transition = rng.random() < 0.1
        if transition:
            e = E("({}) || self == oldSelf", [e], "bool")
        out.append({"expr": e, "me": me})
    return out


# ---------------------------------------------------------------------------------------------
# Known differences: classes of divergence crd-cel does not remove, each listed with its reason
# (and a probe) in tests/probes/known-differences.txt. They are counted apart, not minimized,
# and do not make the run fail.

def issue_count(text):
    return text.count("ERROR: <input>:")


KNOWN = [
    ("syntax error after an incomplete ternary, worded by the cel crate's parser",
     lambda o, c: "Incomplete `ExprContext` for `_?_:_` expression!" in c),
    ("more than 8 issues: crd-cel keeps the first 8 it finds",
     lambda o, c: issue_count(o) > 8),
    ("type variables numbered differently (cel-go checks a call's arguments before its receiver)",
     lambda o, c: o != c and re.sub(r"_var\d+", "_var", o) == re.sub(r"_var\d+", "_var", c)),
    # cel-go before 0.29 (Kubernetes 1.36 and older) declares `duration(int)`, whose conversion
    # always fails at runtime ("type conversion error"); crd-cel declares it on no release, so a
    # rule calling it is a type error there where the older apiserver fails it later.
    ("duration(int), declared by cel-go before 0.29 only (1.36 and older)",
     lambda o, c: "'duration' applied to '(int)'" in c and "'duration' applied to '(int)'" not in o),
]


# At runtime, after minimization: `==` of a `dyn` list or map of object data with another
# type (tests/runtime-known-differences.txt, "a list field compared with a value of another
# type"): the apiserver's data lists and maps say `no such overload`, cel-go's own lists count
# an element comparison that errs as equal; crd-cel's values do not tell them apart.
UNSTRUCTURED_EQUALITY = "== of a dyn list or map of object data with another type"


def known_runtime(rule, detail):
    if not detail or ("==" not in rule and "!=" not in rule):
        return None
    if "self.ios" not in rule and "dyn(" not in rule:
        return None
    o, c = detail.get("oracle") or {}, detail.get("crd-cel") or {}
    said = lambda r: " ".join(e.get("detail") or "" for e in r.get("errors") or [])
    if ("no such overload" in said(o) and "failed rule" in said(c)) or \
            (o.get("result") == "pass" and "failed rule" in said(c)):
        return UNSTRUCTURED_EQUALITY
    return None


def known_class(kind, w, g):
    """The known class of a compile-side divergence (`w`, `g`: the two probe results)."""
    if kind not in ("compile message", "messageExpression message"):
        return None
    key = "error" if kind == "compile message" else "messageExpressionError"
    o, c = w.get(key) or "", g.get(key) or ""
    for name, test in KNOWN:
        if test(o, c):
            return name
    return None


# ---------------------------------------------------------------------------------------------
# Running both sides.

def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        sys.stderr.write(f"difffuzz: {' '.join(cmd)} exited {p.returncode}\n{p.stderr[-2000:]}\n")
        sys.exit(2)
    return json.loads(p.stdout)


def probe_file(work, items):
    rules = []
    for it in items:
        r = {"rule": it["rule"]}
        if it.get("me"):
            r["messageExpression"] = it["me"]
        rules.append(r)
    path = os.path.join(work, "probe.json")
    with open(path, "w") as f:
        json.dump({"groups": [{"name": "difffuzz", "schema": SCHEMA, "rules": rules}]}, f)
    return path


def compile_diffs(tools, work, items):
    """Per item: None when both sides compile it the same, else the kind of difference."""
    path = probe_file(work, items)
    want = run_json([tools["oracle"], "probe", path])["groups"][0]["results"]
    got = run_json([tools["mirror"], "probe", path])["groups"][0]["results"]
    out = []
    for w, g in zip(want, got):
        kind = None
        if bool(w.get("error")) != bool(g.get("error")):
            kind = "compile verdict"
        elif w.get("error") != g.get("error"):
            kind = "compile message"
        elif bool(w.get("messageExpressionError")) != bool(g.get("messageExpressionError")):
            kind = "messageExpression verdict"
        elif w.get("messageExpressionError") != g.get("messageExpressionError"):
            kind = "messageExpression message"
        elif not w.get("error") and w.get("maxCost") != g.get("maxCost"):
            kind = "maxCost"
        elif not w.get("error") and bool(w.get("transitionRule")) != bool(g.get("transitionRule")):
            kind = "transition flag"
        out.append((kind, w, g))
    return out


def eval_vector(work, items, objs, rng):
    cases = []
    for it in items:
        for i, obj in enumerate(objs):
            rule = {"rule": it["rule"]}
            if it.get("me"):
                rule["messageExpression"] = it["me"]
            case = {"name": f"{len(cases)}", "rules": [rule], "object": obj}
            if "oldSelf" in it["rule"]:
                case["oldObject"] = objs[(i + 1) % len(objs)]
            cases.append(case)
    vec = {"id": "difffuzz", "harness": {"mode": "runtime", "rootPath": "root",
                                         "isResourceRoot": False, "costBudget": 10000000,
                                         "perCallLimit": 1000000, "env": "stored",
                                         "ratcheting": False},
           "schema": SCHEMA, "cases": cases}
    path = os.path.join(work, "eval.json")
    with open(path, "w") as f:
        json.dump(vec, f)
    return path, len(objs)


def errors_key(r):
    return sorted(f"{e.get('field')} | {e.get('type')} | {e.get('message')}" for e in r.get("errors") or [])


def eval_diffs(tools, work, items, objs, rng):
    """Per item: None, or the kind of the first runtime difference over the objects."""
    if not items:
        return []
    path, per = eval_vector(work, items, objs, rng)
    want = run_json([tools["oracle"], "eval", path])["cases"]
    got = run_json([tools["mirror"], "eval", path])["cases"]
    out = []
    for k in range(len(items)):
        kind, detail = None, None
        for w, g in zip(want[k * per:(k + 1) * per], got[k * per:(k + 1) * per]):
            if "error" in g and "result" not in g:
                kind = "crd-cel could not run"
            elif w.get("result") != g.get("result"):
                kind = "runtime verdict"
            elif errors_key(w) != errors_key(g):
                kind = "runtime message"
            elif w.get("runtimeCost") != g.get("runtimeCost"):
                kind = "runtime cost"
            if kind:
                detail = {"oracle": w, "crd-cel": g}
                break
        out.append((kind, detail))
    return out


# ---------------------------------------------------------------------------------------------
# Minimization.

def reductions(e):
    """Trees one step smaller than `e`: a subtree replaced by one of its children of the same
    type, or by a literal of its type."""
    out = []
    for k in e.kids:
        if k.ty == e.ty:
            out.append(k)
    if e.kids and e.ty in LITERALS:
        for l in LITERALS[e.ty][:2]:
            out.append(lit(l, e.ty))
    for i, k in enumerate(e.kids):
        for r in reductions(k):
            kids = list(e.kids)
            kids[i] = r
            out.append(E(e.fmt, kids, e.ty))
    return out


def minimize(tools, work, item, kind, phase, objs, rng, rounds=40):
    cur = item
    for _ in range(rounds):
        cands = []
        seen = set()
        for r in reductions(cur["expr"]):
            text = r.render()
            if text not in seen and text != cur["rule"]:
                seen.add(text)
                cands.append({"expr": r, "rule": text, "me": cur.get("me"), "me_expr": cur.get("me_expr")})
        if cur.get("me"):
            me_tree = cur["me_expr"]
            cands.append({"expr": cur["expr"], "rule": cur["rule"], "me": None, "me_expr": None})
            cands.append({"expr": lit("true", "bool"), "rule": "true", "me": cur["me"], "me_expr": me_tree})
            for r in reductions(me_tree):
                cands.append({"expr": cur["expr"], "rule": cur["rule"], "me": r.render(), "me_expr": r})
        if not cands:
            break
        comp = compile_diffs(tools, work, cands)
        if phase == "compile":
            keep = [c for c, (k, _, _) in zip(cands, comp) if k == kind]
        else:
            ok = [c for c, (k, _, _) in zip(cands, comp) if k is None]
            ev = eval_diffs(tools, work, ok, objs, rng)
            keep = [c for c, (k, _) in zip(ok, ev) if k == kind]
        if not keep:
            break
        cur = min(keep, key=lambda c: (c["expr"].size() + (c["me_expr"].size() if c.get("me_expr") else 0),
                                       len(c["rule"]) + len(c.get("me") or "")))
    return cur


# ---------------------------------------------------------------------------------------------

def build_tools(args):
    tools = {}
    if args.oracle:
        tools["oracle"] = args.oracle
    else:
        tools["oracle"] = os.path.join(tempfile.mkdtemp(), "oracle")
        subprocess.run(["go", "build", "-mod=readonly", "-o", tools["oracle"], "."],
                       cwd=os.path.join(REPO, "tests", "oracle"), check=True)
    if args.mirror:
        tools["mirror"] = args.mirror
    else:
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "crd-cel-tests", "--bin", "mirror"],
                       cwd=REPO, check=True)
        tools["mirror"] = os.path.join(REPO, "target", "release", "mirror")
    return tools


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bad-rate", type=float, default=0.04,
                    help="probability that a subexpression is generated with a wrong type")
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--oracle")
    ap.add_argument("--mirror")
    ap.add_argument("--kubernetes-version",
                    help="answer as this release (1.N): the mirror reads it from "
                         "CRD_CEL_KUBERNETES_VERSION; pass the oracle built for it (oracle134)")
    ap.add_argument("--out", default=os.path.join(REPO, "target", "difffuzz"))
    ap.add_argument("--max-findings", type=int, default=40,
                    help="minimize at most this many divergences of each kind")
    args = ap.parse_args()
    if args.kubernetes_version:
        os.environ["CRD_CEL_KUBERNETES_VERSION"] = args.kubernetes_version
    tools = build_tools(args)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp()
    rng = random.Random(args.seed)
    objs = objects(rng)
    start = time.time()
    counts = {"rules": 0, "accepted by the oracle": 0, "evaluated": 0}
    kinds = {}
    known = {}
    findings = []
    seen_min = set()
    done = 0
    while done < args.rules:
        n = min(args.batch, args.rules - done)
        done += n
        items = [{"expr": it["expr"], "rule": it["expr"].render(), "me_expr": it["me"],
                  "me": it["me"].render() if it["me"] else None}
                 for it in generate(rng, n, args.bad_rate)]
        counts["rules"] += len(items)
        comp = compile_diffs(tools, work, items)
        clean = []
        for it, (kind, w, g) in zip(items, comp):
            if not w.get("error"):
                counts["accepted by the oracle"] += 1
            known_as = known_class(kind, w, g) if kind else None
            if known_as:
                known[known_as] = known.get(known_as, 0) + 1
            elif kind:
                kinds[kind] = kinds.get(kind, 0) + 1
                if sum(1 for f in findings if f["kind"] == kind) < args.max_findings:
                    m = minimize(tools, work, it, kind, "compile", objs, rng)
                    if (kind, m["rule"], m.get("me")) not in seen_min:
                        seen_min.add((kind, m["rule"], m.get("me")))
                        mc = compile_diffs(tools, work, [m])[0]
                        findings.append({"kind": kind, "rule": m["rule"], "messageExpression": m.get("me"),
                                         "original": it["rule"], "oracle": mc[1], "crd-cel": mc[2]})
            elif not w.get("error"):
                clean.append(it)
        counts["evaluated"] += len(clean)
        for it, (kind, detail) in zip(clean, eval_diffs(tools, work, clean, objs, rng)):
            if not kind:
                continue
            # Every runtime divergence is minimized: its known class is told by the minimal rule.
            m = minimize(tools, work, it, kind, "eval", objs, rng)
            d = eval_diffs(tools, work, [m], objs, rng)[0][1] or detail
            known_as = known_runtime(m["rule"], d)
            if known_as:
                known[known_as] = known.get(known_as, 0) + 1
                continue
            kinds[kind] = kinds.get(kind, 0) + 1
            if sum(1 for f in findings if f["kind"] == kind) < args.max_findings:
                if (kind, m["rule"], m.get("me")) not in seen_min:
                    seen_min.add((kind, m["rule"], m.get("me")))
                    findings.append({"kind": kind, "rule": m["rule"], "messageExpression": m.get("me"),
                                     "original": it["rule"], **(d or {})})
    path = os.path.join(args.out, "findings.json")
    with open(path, "w") as f:
        json.dump({"seed": args.seed, "counts": counts, "kinds": kinds, "known": known,
                   "findings": findings}, f, indent=1)
    print(f"| seed | rules | accepted by the oracle | evaluated (x{len(objs)} objects) | divergent "
          f"| known | seconds |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {args.seed} | {counts['rules']} | {counts['accepted by the oracle']} | {counts['evaluated']} "
          f"| {sum(kinds.values())} | {sum(known.values())} | {time.time() - start:.0f} |")
    for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {k}: {v}")
    for k, v in sorted(known.items(), key=lambda kv: -kv[1]):
        print(f"  known, {k}: {v}")
    print(f"{len(findings)} minimized findings in {path}")
    for fnd in findings:
        print(f"  [{fnd['kind']}] {fnd['rule']}" + (f"  (messageExpression {fnd['messageExpression']})"
                                                 if fnd.get("messageExpression") else ""))
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main())
