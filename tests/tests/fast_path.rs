//! The typed fast path (`CelValidate::validate` without JSON) never changes a verdict: on random
//! values of a type with every kind of schema node, bound and rule (rules that select fields and
//! rules that use `self` whole, transition rules, map and set lists), `validate` and
//! `validate_update` agree with the JSON path (`Validator::validate_request` on the serialized
//! object), errors and messages included. The same on a type whose rules all run on views of
//! the Rust value (`ViewSpec`: the view path answers its valid objects, and defers the rest).

use crd_cel::validate::Validator;
use crd_cel::{CelSchema, CelValidate};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A port: a rule selecting two fields, and a rule on a field (both run on views).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.port >= 1 && self.port <= 100",
    message_expression = "'port ' + self.name + ' is out of range'"
)]
struct Port {
    #[schemars(length(max = 4))]
    #[cel(rule = "self.matches('^[a-z]+$')", message = "lowercase")]
    name: String,
    port: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 3))]
    protocol: Option<String>,
}

/// A rule that uses `self` whole (a transition rule) and one that selects.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[cel(
    rule = "self == oldSelf || self.n >= 0",
    message = "n may only change to >= 0"
)]
#[cel(rule = "self.s != 'no'")]
struct Inner {
    n: i64,
    #[schemars(length(max = 3))]
    s: String,
}

/// Rules that read fields, fields of list items (through comprehensions) and nested fields;
/// optional fields, lists of each type, a map.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[cel(rule = "self.min <= self.max", message = "min must not exceed max")]
#[cel(rule = "!has(self.label) || self.label != 'bad'")]
#[cel(rule = "self.ports.all(p, p.port != self.min)")]
#[cel(rule = "self.tags.size() <= 3 || self.labels.size() == 0")]
#[cel(rule = "self.inner.n >= 0 || !self.ports.exists(p, p.protocol == 'sctp')")]
#[cel(rule = "self.ports.map(p, p.port).all(x, x != 101) || self.inner.s == 's'")]
#[serde(rename_all = "camelCase")]
struct Spec {
    min: i64,
    max: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 4))]
    label: Option<String>,
    #[cel(list_type = "map", list_map_keys = ["name"], max_items = 4)]
    ports: Vec<Port>,
    #[cel(list_type = "set")]
    tags: Vec<i64>,
    #[cel(max_properties = 2)]
    #[cel(rule = "self.all(k, k != 'x')")]
    labels: BTreeMap<String, String>,
    #[cel(rule = "self == oldSelf", message = "tier is immutable")]
    tier: String,
    inner: Inner,
}

/// `Inner` with a transition rule on a field, and a field written as `null` when unset.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.s != 'no'")]
struct ViewInner {
    #[cel(rule = "self >= oldSelf", message = "n may not decrease")]
    n: i64,
    #[schemars(length(max = 3))]
    s: String,
    #[schemars(length(max = 3))]
    note: Option<String>,
}

/// Rules of every kind the viewed evaluation implements (equality of objects, maps, map lists
/// and sets included), and rules that fail with errors (`self.label` when it is absent,
/// `self.ports[0]` of no ports), which it leaves to the interpreter.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.min <= self.max", message = "min must not exceed max")]
#[cel(rule = "!has(self.label) || self.label != 'bad'")]
#[cel(rule = "self.ports.all(p, p.port != self.min)")]
#[cel(rule = "self.tags.size() <= 3 || self.labels.size() == 0")]
#[cel(rule = "self.inner.n >= 0 || !self.ports.exists(p, has(p.protocol) && p.protocol == 'sctp')")]
#[cel(rule = "self.ports.exists_one(p, p.name == 'a') || !('a' in self.labels)")]
#[cel(rule = "self.tags.all(t, t * 2 - 1 < 9 && t % 7 != 6 && -t <= 0)")]
#[cel(rule = "size(self.tier) + self.min / 2 < 6")]
#[cel(rule = "self.label.startsWith('o') || self.min in [0, 1, 2]")]
#[cel(rule = "self.tier.contains('o') ? self.max >= 0 : self.max > -1")]
#[cel(rule = "self.min != 1 || self.ports[0].port > 1")]
#[cel(rule = "!('c' in self.labels) || self.labels['c'].endsWith('v')")]
#[cel(rule = "self.labels.all(k, k < 'c' || self.labels[k] == 'v')")]
#[cel(rule = "self.min != 2 || self.inner == oldSelf.inner")]
#[cel(rule = "self.min != 3 || self.ports == oldSelf.ports")]
#[cel(rule = "self.tier.indexOf('r') != 1 || self.min > 0")]
#[cel(rule = "self.max != 2 || self.labels == oldSelf.labels")]
#[cel(rule = "self.max != 1 || self.tags != oldSelf.tags || self.min == 0")]
#[serde(rename_all = "camelCase")]
#[derive(CustomResource)]
#[kube(
    group = "example.com",
    version = "v1",
    kind = "ViewRoot",
    status = "ViewStatus",
    namespaced
)]
struct ViewSpec {
    min: i64,
    max: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 4))]
    label: Option<String>,
    #[cel(list_type = "map", list_map_keys = ["name"], max_items = 4)]
    ports: Vec<Port>,
    #[cel(list_type = "set", max_items = 8)]
    tags: Vec<i64>,
    #[cel(max_properties = 2)]
    #[cel(rule = "self.all(k, k != 'x')")]
    labels: BTreeMap<String, String>,
    #[schemars(length(max = 8))]
    #[cel(rule = "self == oldSelf", message = "tier is immutable")]
    tier: String,
    inner: ViewInner,
    /// The schema checks the view reads beside the rules': an enum, a range, a pattern,
    /// another crate's type (serialized alone) and a required field serde may leave out.
    mode: Mode,
    #[schemars(range(min = -1, max = 3))]
    level: i64,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    word: String,
    amount: IntOrString,
    #[serde(skip_serializing_if = "String::is_empty")]
    #[schemars(required)]
    code: String,
}

/// Rules the viewed evaluation runs beside rules it does not (`filter`, string concatenation,
/// `type`, an optional `oldSelf`), which run on the node's value built by serde; nested
/// comprehensions (eight variable slots).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.min <= self.max", message = "min must not exceed max")]
#[cel(
    rule = "self.ports.filter(p, p.port > 50).size() <= 1",
    message = "one high port at most"
)]
#[cel(
    rule = "self.tier + '-x' != 'iron-x' || self.min > 0",
    message = "iron needs min > 0"
)]
#[cel(
    rule = "self.ports.all(a, self.ports.all(b, a.name == b.name || a.port != b.port || a.port == 5))"
)]
#[cel(rule = "self.labels.all(k, k != 'x')")]
#[serde(rename_all = "camelCase")]
struct Mixed {
    min: i64,
    max: i64,
    #[cel(list_type = "map", list_map_keys = ["name"], max_items = 4)]
    ports: Vec<Port>,
    #[cel(max_properties = 2)]
    labels: BTreeMap<String, String>,
    #[schemars(length(max = 8))]
    tier: String,
    #[cel(
        rule = "!oldSelf.hasValue() || self >= oldSelf.value() - 1",
        optional_old_self = true,
        message = "level may drop by one at most"
    )]
    level: i64,
    #[cel(rule = "type(self) != int || self >= 0")]
    amount: IntOrString,
}

impl From<Spec> for Mixed {
    fn from(s: Spec) -> Mixed {
        Mixed {
            min: s.min,
            max: s.max,
            ports: s.ports,
            labels: s.labels,
            level: s.inner.n * 2,
            amount: if s.tier == "iron" {
                IntOrString::Int(s.inner.n as i32)
            } else {
                IntOrString::String(format!("{}%", s.min))
            },
            tier: s.tier,
        }
    }
}

/// The root's status: absent (kube leaves out `None`), or a phase with a bound.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct ViewStatus {
    #[schemars(length(max = 4))]
    phase: String,
}

impl From<Spec> for ViewSpec {
    fn from(s: Spec) -> ViewSpec {
        let iron = s.tier == "iron";
        ViewSpec {
            min: s.min,
            max: s.max,
            label: s.label,
            ports: s.ports,
            tags: s.tags,
            labels: s.labels,
            tier: s.tier,
            mode: if s.min % 2 == 0 { Mode::A } else { Mode::B },
            // Each of these fails its check now and then (the iron tier, with `min` above 0,
            // which a rule requires of it), not so often that few objects are valid.
            level: if iron { s.max } else { s.max.min(3) },
            word: if s.inner.n < 0 && s.min == 1 && iron {
                "No".into()
            } else {
                s.inner.s.clone()
            },
            amount: if s.min % 2 == 0 {
                IntOrString::Int(s.min as i32)
            } else {
                IntOrString::String(format!("{}%", s.min))
            },
            code: if s.max == 2 && s.min == 1 && iron {
                String::new()
            } else {
                "c".into()
            },
            inner: ViewInner {
                note: (s.inner.n > 0).then(|| "x".to_owned()),
                n: s.inner.n,
                s: s.inner.s,
            },
        }
    }
}

fn arb_port() -> impl Strategy<Value = Port> {
    (
        prop_oneof![
            6 => "[a-h]{1,3}".boxed(),
            1 => Just("B".to_owned()).boxed(),
            1 => Just("abcde".to_owned()).boxed(),
        ],
        prop_oneof![8 => Just(5i64), 2 => Just(1), 2 => Just(100), 1 => Just(0), 1 => Just(101)],
        prop::option::of(prop_oneof![6 => Just("tcp"), 1 => Just("sctp")]),
    )
        .prop_map(|(name, port, protocol)| Port {
            name,
            port,
            protocol: protocol.map(Into::into),
        })
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (
        (0i64..4, prop_oneof![8 => 0i64..3, 1 => Just(-1)]),
        prop::option::of(prop_oneof![8 => Just("ok"), 1 => Just("bad"), 1 => Just("toolong")]),
        prop::collection::vec(arb_port(), 0..4),
        prop_oneof![
            6 => prop::collection::btree_set(0i64..6, 0..5)
                .prop_map(|s| s.into_iter().collect::<Vec<_>>())
                .boxed(),
            1 => Just(vec![1, 1]).boxed(),
        ],
        {
            let keys =
                || prop_oneof![6 => Just("a"), 6 => Just("b"), 2 => Just("c"), 1 => Just("x")];
            // Over maxProperties (2) now and then, not so often that few objects are valid.
            prop_oneof![
                8 => prop::collection::btree_map(keys(), Just("v"), 0..3),
                1 => prop::collection::btree_map(keys(), Just("v"), 3..4),
            ]
        },
        prop_oneof![Just("gold"), Just("iron")],
        (
            prop_oneof![6 => 0i64..2, 1 => Just(-1)],
            prop_oneof![8 => Just("s"), 1 => Just("no"), 1 => Just("long")],
        ),
    )
        .prop_map(
            |((min, delta), label, ports, tags, labels, tier, (n, s))| Spec {
                min,
                max: min + delta,
                label: label.map(Into::into),
                ports,
                tags,
                labels: labels
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect(),
                tier: tier.into(),
                inner: Inner { n, s: s.into() },
            },
        )
}

/// The JSON path's verdict: the errors as text, empty when valid.
fn by_json<T: Serialize>(v: &Validator, new: &T, old: Option<&T>) -> String {
    let new = serde_json::to_value(new).unwrap();
    let old = old.map(|o| serde_json::to_value(o).unwrap());
    let out = v.validate_request(&new, old.as_ref(), crd_cel::validate::Endpoint::Resource);
    if out.errors.is_empty() {
        String::new()
    } else {
        out.errors.to_string()
    }
}

fn text(r: Result<(), crd_cel::ValidationErrors>) -> String {
    r.err().map(|e| e.to_string()).unwrap_or_default()
}

/// `validate` and `validate_update` of random values of `T` agree with the JSON path, and the
/// generator reaches both verdicts on create and on update; every answer of the derive's code
/// for a rule agrees with the interpreters. Returns how many answers it gave.
fn agrees<T: CelValidate + CelSchema + Serialize + std::fmt::Debug + 'static>(
    resource: bool,
    values: impl Fn() -> BoxedStrategy<T>,
    tweak: fn(&T) -> T,
) -> u64 {
    let v = Validator::from_model(&T::MODEL, resource);
    let mut runner = TestRunner::new(Config {
        // About 5% of `ViewSpec`'s random objects are valid on create: enough cases that the
        // floor below holds whatever the seed.
        cases: 2500,
        ..Config::default()
    });
    let valid = std::cell::Cell::new([0usize; 2]);
    let invalid = std::cell::Cell::new([0usize; 2]);
    // Every answer of the derive's code for a rule is checked against the interpreters.
    crd_cel::__private::cross_check_derived(true);
    runner
        .run(&(values(), values()), |(new, old)| {
            // An update from another value, from the same value (transition rules hold), and
            // from a value that differs in a few places (for the rules comparing old and new).
            let near = tweak(&new);
            for (i, old) in [
                (0, None),
                (1, Some(&old)),
                (1, Some(&new)),
                (1, Some(&near)),
            ] {
                let want = by_json(&v, &new, old);
                let got = match old {
                    None => text(new.validate()),
                    Some(o) => text(new.validate_update(o)),
                };
                prop_assert_eq!(&got, &want, "update: {}", old.is_some());
                let counts = if want.is_empty() { &valid } else { &invalid };
                let mut c = counts.get();
                c[i] += 1;
                counts.set(c);
            }
            Ok(())
        })
        .unwrap();
    let (derived, disagreements) = crd_cel::__private::cross_check_derived(true);
    assert_eq!(disagreements, Vec::<String>::new());
    eprintln!(
        "{derived} rule results by the derive's code; valid {:?}, invalid {:?} (create, update)",
        valid.get(),
        invalid.get()
    );
    // The generator must reach both verdicts on create and on update, or the test proves little.
    for (i, what) in ["create", "update"].iter().enumerate() {
        assert!(
            valid.get()[i] >= 50 && invalid.get()[i] >= 50,
            "{what}: {} valid, {} invalid cases",
            valid.get()[i],
            invalid.get()[i]
        );
    }
    derived
}

#[test]
fn typed_validation_agrees_with_the_json_path() {
    // `Spec`'s `map()` rule is not one the viewed evaluation runs: it runs on the value of
    // its node, built by serde, and the other rules on views.
    assert!(crd_cel::__private::typed_views::<Spec>());
    agrees(
        false,
        || arb_spec().boxed(),
        |s| {
            let mut t = s.clone();
            t.inner.n += 1;
            t.tags.reverse();
            t
        },
    );
    assert!(crd_cel::__private::typed_views::<Spec>());
}

/// Rules the views cannot run are evaluated on their node's value, one rule at a time, with
/// the cost counted; the others stay on views, and every verdict and message is the JSON
/// path's (updates of `Mixed` are walked on values: a transition rule sits below its list).
#[test]
fn rules_views_cannot_run_are_evaluated_on_values_and_agree_with_the_json_path() {
    assert!(crd_cel::__private::typed_views::<Mixed>());
    agrees(
        false,
        || arb_spec().prop_map(Mixed::from).boxed(),
        |m| {
            let mut t = m.clone();
            for p in &mut t.ports {
                p.port -= 1;
            }
            t.level -= 2;
            t
        },
    );
    // Valid objects the views could not answer for would have turned them off.
    assert!(crd_cel::__private::typed_views::<Mixed>());
}

/// A port whose rule reads its old value: below a list, correlated by key (`name`).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.port >= oldSelf.port || self.port == 1",
    message = "port may not decrease"
)]
struct KeyedPort {
    #[schemars(length(max = 4))]
    name: String,
    port: i64,
}

/// A transition rule below a map list, and a rule the views cannot run above it.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.ports.filter(p, p.port > 3).size() <= 1",
    message = "one high port at most"
)]
struct Keyed {
    #[cel(list_type = "map", list_map_keys = ["name"], max_items = 4)]
    ports: Vec<KeyedPort>,
}

/// A type with a transition rule below a map list is walked on views, on create (the rule
/// does not run) and on update (the old item is the one with the same key); every verdict is
/// the JSON path's.
#[test]
fn transition_rules_below_a_list_agree_with_the_json_path() {
    agrees(
        false,
        || {
            let port = ("[a-c]", 0i64..6).prop_map(|(name, port)| KeyedPort { name, port });
            prop::collection::vec(port, 0..4)
                .prop_map(|ports| Keyed { ports })
                .boxed()
        },
        |k| {
            let mut t = k.clone();
            for p in &mut t.ports {
                p.port -= 1;
            }
            t.ports.reverse();
            t
        },
    );
    assert!(crd_cel::__private::typed_views::<Keyed>());
    assert!(crd_cel::__private::typed_update_views::<Keyed>());
}

/// An item keyed by a string and an integer, whose rule reads its old value.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.size >= oldSelf.size", message = "may not shrink")]
struct Slot {
    #[schemars(length(max = 2))]
    name: String,
    zone: i64,
    size: i64,
}

/// Old values found by key in a map list long enough to be indexed (over 32 items), by two
/// key fields (the first of old items with the same key), and in a map.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct Slots {
    #[cel(list_type = "map", list_map_keys = ["name", "zone"], max_items = 64)]
    slots: Vec<Slot>,
    #[cel(max_properties = 8)]
    by_name: std::collections::BTreeMap<String, Slot>,
}

#[test]
fn old_items_found_by_key_on_views_agree_with_the_json_path() {
    agrees(
        false,
        || {
            let slot = ("[a-z]{1,2}", 0i64..2, 0i64..4).prop_map(|(name, zone, size)| Slot {
                name,
                zone,
                size,
            });
            (
                prop::collection::vec(slot.clone(), 0..48),
                prop::collection::btree_map("[a-d]", slot, 0..5),
            )
                .prop_map(|(slots, by_name)| Slots { slots, by_name })
                .boxed()
        },
        |s| {
            let mut t = s.clone();
            // Same keys, smaller sizes (every rule holds if the old items are found by key),
            // another order, one key's zone changed (a new item), and a repeated key whose
            // second item would fail the rule: the first item is the old value.
            for slot in &mut t.slots {
                slot.size -= 1;
            }
            if let Some(slot) = t.slots.get_mut(1) {
                slot.zone += 2;
            }
            t.slots.reverse();
            if let Some(first) = t.slots.first().cloned() {
                t.slots.push(Slot {
                    size: first.size + 5,
                    ..first
                });
            }
            for slot in t.by_name.values_mut() {
                slot.size -= 1;
            }
            t
        },
    );
    assert!(crd_cel::__private::typed_update_views::<Slots>());
}

/// `s` with a few changes: same keys, another item; another value under a key; a set in
/// another order; a field `null` on one side only.
fn near(s: &ViewSpec) -> ViewSpec {
    let mut t = s.clone();
    if let Some(p) = t.ports.first_mut() {
        p.port += 1;
    }
    if let Some(v) = t.labels.values_mut().next() {
        *v = "w".into();
    }
    t.tags.reverse();
    t.inner.note = match t.inner.note {
        Some(_) => None,
        None => Some("y".into()),
    };
    t
}

/// The same on the kube root of `ViewSpec`: `apiVersion`, `kind` and `metadata` beside the
/// spec, and a status that kube leaves out when it is `None`.
#[test]
fn typed_validation_of_a_root_on_views_agrees_with_the_json_path() {
    let root = |spec: ViewSpec| {
        let status = (spec.min > 0).then(|| ViewStatus {
            phase: if spec.min == 3 { "Ready" } else { "Up" }.into(),
        });
        let mut r = ViewRoot::new("x", spec);
        r.status = status;
        r
    };
    agrees(
        true,
        move || arb_spec().prop_map(move |s| root(s.into())).boxed(),
        |r| {
            let mut t = r.clone();
            t.spec = near(&r.spec);
            t
        },
    );
    assert!(crd_cel::__private::typed_root_view_checks::<ViewRoot>());
}

#[test]
fn typed_validation_on_views_agrees_with_the_json_path() {
    assert!(crd_cel::__private::typed_views::<ViewSpec>());
    assert!(crd_cel::__private::typed_view_checks::<ViewSpec>());
    agrees(false, || arb_spec().prop_map(ViewSpec::from).boxed(), near);
    // Still on views, checks included: valid objects they could not answer for would have
    // turned them off.
    assert!(crd_cel::__private::typed_views::<ViewSpec>());
    assert!(crd_cel::__private::typed_view_checks::<ViewSpec>());
}

/// A unit enum: the string serde writes for the variant (renamed by the container's rule).
#[derive(CelValidate, Serialize, Deserialize, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
enum Mode {
    A,
    #[serde(rename = "bee")]
    B,
}

/// A field serde writes its own way: no view.
fn as_upper<S: serde::Serializer>(s: &str, out: S) -> Result<S::Ok, S::Error> {
    out.serialize_str(&s.to_uppercase())
}

/// Rules reading an enum (read in place) and a field written by `serialize_with` (no view:
/// a rule that reads it runs on the struct's value built by serde; read in place, `y` would
/// pass where the apiserver sees `Y`); every verdict agrees.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[cel(rule = "self.mode == 'a' || self.n > 0", message = "bee needs n > 0")]
#[cel(
    rule = "self.n != 7 || self.code != 'Y'",
    message = "7 needs a code other than Y"
)]
struct Moded {
    mode: Mode,
    n: i64,
    #[serde(serialize_with = "as_upper")]
    code: String,
}

#[test]
fn enums_are_read_in_place_and_values_without_a_view_are_built() {
    assert!(crd_cel::__private::typed_views::<Moded>());
    Moded {
        mode: Mode::B,
        n: 1,
        code: "x".into(),
    }
    .validate()
    .unwrap();
    // Reading `mode` in place (no `code`) kept views on.
    assert!(crd_cel::__private::typed_views::<Moded>());
    let v = Validator::from_model(&<Moded as CelSchema>::MODEL, false);
    for n in [-1, 1, 7] {
        for mode in [Mode::A, Mode::B] {
            for code in ["x", "y"] {
                let m = Moded {
                    mode,
                    n,
                    code: code.into(),
                };
                assert_eq!(text(m.validate()), by_json(&v, &m, None), "{m:?}");
            }
        }
    }
    // The object with n = 7 read `code`, which has no view: that rule runs on `Moded`'s
    // value, which serde writes (`Y`), and the type stays on views.
    assert!(crd_cel::__private::typed_views::<Moded>());
    let m = |mode, n| Moded {
        mode,
        n,
        code: "x".into(),
    };
    assert_eq!(
        text(m(Mode::B, 0).validate()),
        "<nil>: Invalid value: bee needs n > 0"
    );
    assert_eq!(text(m(Mode::A, 7).validate()), "");
    assert_eq!(
        text(
            Moded {
                code: "y".into(),
                ..m(Mode::A, 7)
            }
            .validate()
        ),
        "<nil>: Invalid value: 7 needs a code other than Y"
    );
}

/// A rule whose estimated cost rests on a bound (`maxItems`), on a parent of the bounded list.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[cel(rule = "self.items.all(a, a in self.items)")]
struct Bounded {
    #[cel(max_items = 8)]
    items: Vec<i64>,
}

/// Views run a node's rules after its entries' checks: a list far longer than its maxItems is
/// refused by the check, not walked quadratically by the parent's rule (50,000 items would
/// take 2.5 billion steps), and the verdict is the JSON path's.
#[test]
fn rules_on_views_run_after_the_checks_that_bound_their_cost() {
    let ok = Bounded {
        items: (0..8).collect(),
    };
    assert!(ok.validate().is_ok());
    assert!(crd_cel::__private::typed_views::<Bounded>(), "rules");
    assert!(crd_cel::__private::typed_view_checks::<Bounded>(), "checks");
    let long = Bounded {
        items: (0..50_000).collect(),
    };
    let v = Validator::from_model(&<Bounded as CelSchema>::MODEL, false);
    let got = text(long.validate());
    assert!(
        got.contains("items: Too many: 50000: must have at most 8 items"),
        "{got}"
    );
    assert_eq!(got, by_json(&v, &long, None));
}

/// A schema only the field's `schema_with` knows: a `default` the apiserver applies where
/// serde leaves the field out.
fn fast_by_default(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "default": "fast", "maxLength": 8})
}

/// A type whose generated schema is its validator's (the derive cannot know `mode`'s): its
/// objects are decoded as the apiserver decodes them, and the rules read the default.
#[derive(CelValidate, Serialize, Clone, Debug)]
#[cel(
    rule = "!has(self.mode) || self.mode != 'fast' || self.replicas <= 3",
    message = "fast mode allows at most 3 replicas"
)]
#[cel(rule = "!has(oldSelf.mode) || oldSelf.mode != 'fast' || self.mode == 'fast'")]
struct Defaulted {
    replicas: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "fast_by_default")]
    mode: Option<String>,
}

/// Every create and update of small `Defaulted` values agrees with the JSON path, which
/// defaults `mode`; the fast path answers for the valid ones with a `mode` (on views), and
/// defers the others (the default would change them, new or old).
#[test]
fn a_generated_schemas_defaults_are_seen_by_the_typed_path() {
    let schema = serde_json::to_value(schemars::schema_for!(Defaulted)).unwrap();
    let v = Validator::from_schema_json(&schema, false).unwrap();
    let values: Vec<Defaulted> = (0..6)
        .flat_map(|replicas| {
            [None, Some("fast"), Some("slow")].map(|mode| Defaulted {
                replicas,
                mode: mode.map(str::to_owned),
            })
        })
        .collect();
    for new in &values {
        for old in std::iter::once(None).chain(values.iter().map(Some)) {
            let want = by_json(&v, new, old);
            let got = match old {
                None => text(new.validate()),
                Some(o) => text(new.validate_update(o)),
            };
            assert_eq!(got, want, "{new:?} from {old:?}");
            // Answered exactly when valid without ratcheting (valid as a create too) and
            // nothing is defaulted, new or old.
            let defaulted = new.mode.is_none() || old.is_some_and(|o| o.mode.is_none());
            let created = by_json(&v, new, None).is_empty();
            assert_eq!(
                crd_cel::__private::typed_fast_valid(new, old, false),
                want.is_empty() && created && !defaulted,
                "{new:?} from {old:?}"
            );
        }
    }
    assert!(crd_cel::__private::typed_view_checks::<Defaulted>());
}

/// Rules written as Rust by the derive on the edges of CEL's semantics: int overflow and
/// division by zero (errors), `||`/`&&` absorbing an error on the other side, `has()` of a
/// field serde skips, sizes in code points, string ordering by bytes, a uint, comparisons of
/// doubles with NaN out of the way, `in` on a list, a list of literals and a map, `exists_one`,
/// durations (invalid ones, and past an int64 of nanoseconds, are errors), the size of a
/// `filter` (on views: the derive does not write it), `?:`, a missing
/// map key (an error), and a regex over Unicode.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.a + self.b > 0 || self.a < 0")]
#[cel(rule = "self.a / self.b >= 0 || self.b == 0 || self.a % self.b != 1")]
#[cel(rule = "self.a * 2 != 8 && (self.b == 0 || self.a / self.b < 100)")]
#[cel(rule = "!has(self.note) || size(self.note) <= 3")]
#[cel(rule = "has(self.note) ? self.note.startsWith('n') || self.note > 'm' : self.a != 5")]
#[cel(rule = "self.u >= 0u && self.ratio <= 1.5")]
#[cel(rule = "self.tags.exists_one(t, t == self.a) || !(self.a in self.tags)")]
#[cel(rule = "!('k' in self.labels) || self.labels.k != 'bad'")]
#[cel(rule = "self.labels.all(k, k.size() < 3 && self.labels[k] != 'x')")]
#[cel(rule = "self.word.matches('^[a-zé]+$') || self.word.endsWith('!')")]
#[cel(rule = "self.word.contains('ß') == (size(self.word) != self.word.size() + 0) || true")]
#[cel(rule = "self.word in ['abc', 'é', 'A!'] || !(self.note in ['n', 'zz']) || self.a >= 0")]
#[cel(rule = "!(self.word in []) && (self.a < 2 || self.labels.all(k, !(k in ['é', 'ab'])))")]
#[cel(rule = "self.tags.filter(t, t > 2).size() <= 2 || self.a > 3")]
#[cel(rule = "[has(self.note), self.a > 2, self.b == 0].filter(x, x).size() <= 2")]
#[cel(rule = "[has(self.note), self.a == 1].exists_one(x, x) || self.u != 2 || self.b != 0")]
#[cel(rule = "size(self.tags.filter(i, size(self.tags.filter(j, j == i)) > 1)) <= 2")]
#[cel(rule = "duration(self.wait) < duration('1m') || self.wait == 'bad' || self.a > 1")]
#[cel(rule = "duration(self.wait) != duration('-1h') || duration(self.wait) >= duration('-61m')")]
#[serde(rename_all = "camelCase")]
struct Edges {
    a: i64,
    b: i64,
    u: u32,
    ratio: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8))]
    note: Option<String>,
    #[cel(max_items = 4)]
    tags: Vec<i64>,
    #[cel(max_properties = 3)]
    labels: BTreeMap<String, String>,
    #[schemars(length(max = 8))]
    #[cel(rule = "self.size() >= 1 && self != 'stop'")]
    word: String,
    #[schemars(length(max = 24))]
    wait: String,
}

fn arb_edges() -> impl Strategy<Value = Edges> {
    let int = || {
        prop_oneof![
            6 => -3i64..6,
            1 => Just(i64::MAX),
            1 => Just(i64::MIN),
            1 => Just(4),
            1 => Just(0),
        ]
    };
    (
        (
            int(),
            int(),
            0u32..3,
            prop_oneof![Just(0.5f64), Just(1.5), Just(2.0), Just(-0.0)],
        ),
        prop::option::of(prop_oneof![
            Just("n"),
            Just("zz"),
            Just("abcd"),
            Just("éé"),
            Just("a")
        ]),
        prop::collection::vec(-1i64..5, 0..5),
        prop::collection::btree_map(
            prop_oneof![Just("k"), Just("ab"), Just("abc"), Just("é")],
            prop_oneof![Just("v"), Just("bad"), Just("x")],
            0..4,
        ),
        prop_oneof![
            Just("abc"),
            Just("é"),
            Just("ß"),
            Just("A!"),
            Just(""),
            Just("stop"),
            Just("Zz")
        ],
        prop_oneof![
            40 => Just("10s"),
            1 => Just("1m"),
            1 => Just("1h1m"),
            1 => Just("-1h"),
            1 => Just("bad"),
            1 => Just(""),
            1 => Just("9223372036854775807ns"),
            1 => Just("9223372036854775808ns"),
        ],
    )
        .prop_map(|((a, b, u, ratio), note, tags, labels, word, wait)| Edges {
            a,
            b,
            u,
            ratio,
            note: note.map(Into::into),
            tags,
            labels: labels
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            word: word.into(),
            wait: wait.into(),
        })
}

/// The derive's code for `Edges`' rules answers as the interpreters do (every answer checked
/// against the viewed interpreter and the interpreter on the built value), and the typed path
/// as the JSON path.
#[test]
fn rules_written_as_rust_agree_with_the_interpreters_on_cels_edges() {
    let derived = agrees(
        false,
        || arb_edges().boxed(),
        |e| {
            let mut t = e.clone();
            t.a = t.a.wrapping_add(1);
            t
        },
    );
    // Every rule of `Edges` is one the derive writes: most answers are its code's.
    assert!(derived > 10_000, "{derived} results by the derive's code");
}

/// Fields flattened into [`Flat`]: a rule on one of them, an optional one.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
struct Common {
    #[schemars(length(max = 8))]
    #[cel(rule = "self != 'x'", message = "owner x is reserved")]
    owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retries: Option<i64>,
}

/// An optional flattened struct.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct Extra {
    #[schemars(range(max = 5))]
    level: i64,
}

/// A struct with flattened fields, before and after its own (serde writes their entries among
/// its own), and rules reading both.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "!has(self.retries) || self.retries <= self.max",
    message = "retries above max"
)]
#[cel(
    rule = "self.owner != 'root' || self.max == 0",
    message = "root has no retries"
)]
#[cel(
    rule = "!has(self.level) || self.level < self.max + 3",
    message = "level"
)]
struct Flat {
    #[serde(flatten)]
    common: Common,
    max: i64,
    #[serde(flatten)]
    extra: Option<Extra>,
}

/// A struct flattening a map: serde writes the map's entries as its own, which no view says.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.max >= 0", message = "max is not negative")]
struct FlatMap {
    max: i64,
    #[serde(flatten)]
    rest: BTreeMap<String, i64>,
}

fn arb_flat() -> impl Strategy<Value = Flat> {
    (
        prop_oneof![Just("a"), Just("x"), Just("root"), Just("toolong-owner")],
        prop::option::of(0i64..4),
        0i64..3,
        prop::option::of(2i64..7),
    )
        .prop_map(|(owner, retries, max, level)| Flat {
            common: Common {
                owner: owner.into(),
                retries,
            },
            max,
            extra: level.map(|level| Extra { level }),
        })
}

/// Flattened structs are read through the struct's view (their fields are its own, as serde
/// writes them): the typed path stays on views and agrees with the JSON path; a flattened map
/// leaves the struct without a view, and the verdicts are the same.
#[test]
fn flattened_structs_are_read_in_place() {
    agrees(
        false,
        || arb_flat().boxed(),
        |f| {
            let mut t = f.clone();
            t.max += 1;
            t
        },
    );
    assert!(crd_cel::__private::typed_views::<Flat>(), "rules");
    assert!(crd_cel::__private::typed_view_checks::<Flat>(), "checks");
    let bad = Flat {
        common: Common {
            owner: "root".into(),
            retries: Some(9),
        },
        max: 1,
        extra: Some(Extra { level: 6 }),
    };
    let v = Validator::from_model(&<Flat as CelSchema>::MODEL, false);
    let got = text(bad.validate());
    assert!(got.contains("retries above max"), "{got}");
    assert!(got.contains("level: Invalid value"), "{got}");
    assert_eq!(got, by_json(&v, &bad, None));

    let m = FlatMap {
        max: -1,
        rest: BTreeMap::from([("a".to_owned(), 1)]),
    };
    let v = Validator::from_model(&<FlatMap as CelSchema>::MODEL, false);
    assert_eq!(text(m.validate()), by_json(&v, &m, None));
    assert!(!crd_cel::__private::typed_views::<FlatMap>());
}
