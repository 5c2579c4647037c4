//! The CRDs of every UI pass case (`tests/ui/pass/*.rs`, compiled into `crd_cel_e2e::ui_pass`
//! by its build script): each applied as generated, and objects of each created, replaced,
//! merge-patched and server-side applied.

use crd_cel_e2e::session::Summary;
use crd_cel_e2e::{Rv, Server, Session, Subject, Via, findings};
use serde_json::{Value, json};

use crate::common::{at, object, with};

/// A subject's objects: a valid spec, and variants.
struct Cases {
    valid: Value,
    /// Created each under its own name.
    creates: Vec<(&'static str, Value)>,
    /// `(label, new, old)`: `old` created, then replaced with `new`.
    updates: Vec<(&'static str, Value, Value)>,
    /// Merge patches of the valid object, in order.
    merges: Vec<(&'static str, Value)>,
    /// Objects with their own metadata (a name the rules read), created.
    named: Vec<(&'static str, String)>,
}

fn n_times(v: Value, n: usize) -> Value {
    Value::Array(vec![v; n])
}

/// The objects of the UI pass CRD named `crd`.
fn cases(crd: &str) -> Option<Cases> {
    let mut named = Vec::new();
    let c = match crd {
        "things.all-attributes.ui.example.com" => {
            let v = json!({"a": 1, "b": 2, "ports": [{"name": "http", "port": 80}],
                "labels": {"app": "x"}, "tags": ["x"], "names": ["n"]});
            let ports = |n: usize| -> Value {
                (0..n)
                    .map(|i| json!({"name": format!("p{i}"), "port": 80}))
                    .collect()
            };
            Cases {
                creates: vec![
                    ("a over b", with(&v, json!({"a": 3, "b": 2}))),
                    ("a -1", with(&v, json!({"a": -1}))),
                    ("b 0", with(&v, json!({"a": 0, "b": 0}))),
                    ("no ports", with(&v, json!({"ports": []}))),
                    ("5 ports", with(&v, json!({"ports": ports(5)}))),
                    (
                        "a port twice",
                        with(
                            &v,
                            json!({"ports": n_times(json!({"name": "http", "port": 80}), 2)}),
                        ),
                    ),
                    (
                        "a name on two ports",
                        with(
                            &v,
                            json!({"ports": [{"name": "h", "port": 80}, {"name": "h", "port": 81}]}),
                        ),
                    ),
                    ("a tag twice", with(&v, json!({"tags": ["x", "x"]}))),
                    (
                        "a 64-character name",
                        with(&v, json!({"names": ["n".repeat(64)]})),
                    ),
                    (
                        "17 names",
                        with(&v, json!({"names": n_times(json!("n"), 17)})),
                    ),
                    (
                        "9 labels",
                        with(
                            &v,
                            json!({"labels": (0..9).map(|i| (format!("l{i}"), json!("v"))).collect::<serde_json::Map<_, _>>()}),
                        ),
                    ),
                    ("no b", with(&v, json!({"b": null}))),
                ],
                updates: vec![
                    ("a changed", with(&v, json!({"a": 2})), v.clone()),
                    ("b changed", with(&v, json!({"b": 3})), v.clone()),
                ],
                merges: vec![
                    ("merge: a 2", json!({"spec": {"a": 2}})),
                    ("merge: b 5", json!({"spec": {"b": 5}})),
                ],
                valid: v,
                named,
            }
        }
        "things.cost-bounded.ui.example.com" => {
            let v = json!({"names": ["a", "a"]});
            Cases {
                creates: vec![
                    ("two names", json!({"names": ["a", "b"]})),
                    ("11 names", json!({"names": n_times(json!("a"), 11)})),
                    ("a 17-character name", json!({"names": ["a".repeat(17)]})),
                ],
                updates: vec![("other names", json!({"names": ["b", "b"]}), v.clone())],
                merges: vec![("merge: x and y", json!({"spec": {"names": ["x", "y"]}}))],
                valid: v,
                named,
            }
        }
        "searches.example.com" => {
            let v = json!({"keywords": ["a keyword"]});
            Cases {
                creates: vec![
                    ("no keyword", json!({"keywords": ["nothing"]})),
                    ("two without", json!({"keywords": ["keyword", "none", "x"]})),
                    (
                        "4998 keywords",
                        json!({"keywords": n_times(json!("keyword"), 4998)}),
                    ),
                    (
                        "a 5001-character keyword",
                        json!({"keywords": [format!("keyword{}", "k".repeat(4994))]}),
                    ),
                ],
                updates: vec![],
                merges: vec![
                    ("merge: none", json!({"spec": {"keywords": ["none"]}})),
                    (
                        "merge: keywords",
                        json!({"spec": {"keywords": ["keyword", "keywords"]}}),
                    ),
                ],
                valid: v,
                named,
            }
        }
        "hygienics.example.com" => {
            let v = json!({
                "inner": {"a": 1, "items": [{"name": "x"}], "choice": {"kind": "A"}},
                "range": {"min": 1, "max": 2},
                "part_v1": {"size": 1, "ports": []},
                "part_v2": {"size": 1, "ports": []},
            });
            let items =
                |n: usize| -> Value { (0..n).map(|i| json!({"name": format!("i{i}")})).collect() };
            Cases {
                creates: vec![
                    ("a 11", at(&v, "/inner/a", json!(11))),
                    ("a -1", at(&v, "/inner/a", json!(-1))),
                    (
                        "choice B, n 0",
                        at(&v, "/inner/choice", json!({"kind": "B", "n": 0})),
                    ),
                    (
                        "choice B, n 1",
                        at(&v, "/inner/choice", json!({"kind": "B", "n": 1})),
                    ),
                    ("choice C", at(&v, "/inner/choice", json!({"kind": "C"}))),
                    (
                        "range 3..2",
                        with(&v, json!({"range": {"min": 3, "max": 2}})),
                    ),
                    (
                        "a 10-character item",
                        at(&v, "/inner/items", json!([{"name": "abcdefghij"}])),
                    ),
                    (
                        "an item twice",
                        at(&v, "/inner/items", json!([{"name": "x"}, {"name": "x"}])),
                    ),
                    ("part_v1 size 11", at(&v, "/part_v1/size", json!(11))),
                    ("part_v1 5 ports", at(&v, "/part_v1/ports", items(5))),
                    ("part_v2 8 ports", at(&v, "/part_v2/ports", items(8))),
                    ("part_v2 9 ports", at(&v, "/part_v2/ports", items(9))),
                ],
                updates: vec![
                    ("a changed", at(&v, "/inner/a", json!(2)), v.clone()),
                    ("a label", at(&v, "/inner/label", json!("l")), v.clone()),
                ],
                merges: vec![
                    ("merge: a 7", json!({"spec": {"inner": {"a": 7}}})),
                    ("merge: a label", json!({"spec": {"inner": {"label": "l"}}})),
                ],
                valid: v,
                named,
            }
        }
        // A camel-case field, and a status named by a bare path.
        "camels.example.com" => {
            let v = json!({"poolMode": 1});
            Cases {
                creates: vec![("poolMode -1", json!({"poolMode": -1}))],
                updates: vec![("poolMode changed", json!({"poolMode": 2}), v.clone())],
                merges: vec![("merge: poolMode -2", json!({"spec": {"poolMode": -2}}))],
                valid: v,
                named,
            }
        }
        "things.json-schema-only-types.ui.example.com" => {
            let v = json!({"inner": {"a": 1}, "source": {"Local": {}}, "template": {"a": 1, "x": 1},
                "items": [], "name": "a", "n": 0});
            Cases {
                creates: vec![
                    ("inner.a -1", at(&v, "/inner/a", json!(-1))),
                    (
                        "inner.a 0, n 1",
                        with(&v, json!({"inner": {"a": 0}, "n": 1})),
                    ),
                    ("name ABC", with(&v, json!({"name": "ABC"}))),
                    ("an empty name", with(&v, json!({"name": ""}))),
                    ("a 9-character name", with(&v, json!({"name": "abcdefghi"}))),
                    ("an item twice", with(&v, json!({"items": ["x", "x"]}))),
                    (
                        "tagged A without a",
                        with(&v, json!({"tagged": {"kind": "A"}})),
                    ),
                    (
                        "tagged A",
                        with(&v, json!({"tagged": {"kind": "A", "a": 1}})),
                    ),
                    (
                        "source Git",
                        with(&v, json!({"source": {"Git": {"url": "https://x"}}})),
                    ),
                    (
                        "source Git and Local",
                        with(&v, json!({"source": {"Git": {"url": "u"}, "Local": {}}})),
                    ),
                    (
                        "a deep template",
                        with(
                            &v,
                            json!({"template": {"a": 2, "deep": {"x": [1, {"y": null}]}}}),
                        ),
                    ),
                    ("only inner", json!({"inner": {"a": 2}})),
                    (
                        "optional inner a -1",
                        with(&v, json!({"optional": {"a": -1}})),
                    ),
                ],
                updates: vec![("n 5", with(&v, json!({"n": 5})), v.clone())],
                merges: vec![
                    ("merge: inner.a 0", json!({"spec": {"inner": {"a": 0}}})),
                    ("merge: n 3", json!({"spec": {"n": 3}})),
                ],
                valid: v,
                named,
            }
        }
        "things.list-bound-sized.ui.example.com" => {
            let v = json!({"names": ["a", "a"]});
            Cases {
                creates: vec![
                    ("two names", json!({"names": ["a", "b"]})),
                    ("568 names", json!({"names": n_times(json!("a"), 568)})),
                    ("567 names", json!({"names": n_times(json!("a"), 567)})),
                    ("a 64-character name", json!({"names": ["x".repeat(64)]})),
                ],
                updates: vec![],
                merges: vec![("merge: a and b", json!({"spec": {"names": ["a", "b"]}}))],
                valid: v,
                named,
            }
        }
        "things.list-pair-sized.ui.example.com" => {
            let v = json!({"names": ["a", "a"]});
            Cases {
                creates: vec![
                    ("two names", json!({"names": ["a", "b"]})),
                    ("111 names", json!({"names": n_times(json!("a"), 111)})),
                    (
                        "110 names of 2048 characters",
                        json!({"names": n_times(json!("x".repeat(2048)), 110)}),
                    ),
                    (
                        "a 2049-character name",
                        json!({"names": ["x".repeat(2049)]}),
                    ),
                ],
                updates: vec![],
                merges: vec![("merge: a and b", json!({"spec": {"names": ["a", "b"]}}))],
                valid: v,
                named,
            }
        }
        "things.old-self-as-a-variable.ui.example.com" => {
            let v = json!({"a": 1});
            Cases {
                creates: vec![("a string", json!({"a": "x"})), ("no a", json!({}))],
                updates: vec![("a 2", json!({"a": 2}), v.clone())],
                merges: vec![
                    ("merge: a 3", json!({"spec": {"a": 3}})),
                    ("merge: no a", json!({"spec": {"a": null}})),
                ],
                valid: v,
                named,
            }
        }
        "things.example.com" => {
            let v = json!({
                "ports": [{"name": "http", "port": 80}],
                "byName": {"a": {"name": "a", "port": 1}},
                "scale": {"minReplicas": 1, "maxReplicas": 2},
                "tags": ["web"],
                "endpoint": "https://example.com",
                "memory": "512Mi",
                "generation": 1,
            });
            let high: Vec<Value> = (0..4)
                .map(|i| json!({"name": format!("p{i}"), "port": 1025 + i}))
                .collect();
            named.push(("a 64-character name", "t".repeat(64)));
            Cases {
                creates: vec![
                    ("a host", at(&v, "/ports/0/host", json!("h"))),
                    ("an empty host", at(&v, "/ports/0/host", json!(""))),
                    ("port 0", at(&v, "/ports/0/port", json!(0))),
                    (
                        "primary host x",
                        with(
                            &v,
                            json!({"primary": {"name": "p", "port": 1, "host": "x"}}),
                        ),
                    ),
                    ("tag Web", with(&v, json!({"tags": ["Web"]}))),
                    ("no tags", with(&v, json!({"tags": []}))),
                    (
                        "a 16-character port name",
                        at(&v, "/ports/0/name", json!("a".repeat(16))),
                    ),
                    (
                        "an http endpoint",
                        with(&v, json!({"endpoint": "http://example.com"})),
                    ),
                    (
                        "an endpoint that is no URL",
                        with(&v, json!({"endpoint": "not a url"})),
                    ),
                    ("2Gi", with(&v, json!({"memory": "2Gi"}))),
                    ("4 high ports", with(&v, json!({"ports": high}))),
                    (
                        "two http ports",
                        with(
                            &v,
                            json!({"ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}]}),
                        ),
                    ),
                    (
                        "scale 3..2",
                        with(&v, json!({"scale": {"minReplicas": 3, "maxReplicas": 2}})),
                    ),
                    (
                        "targetCpuPercent 0",
                        with(
                            &v,
                            json!({"scale": {"minReplicas": 1, "maxReplicas": 2, "targetCpuPercent": 0}}),
                        ),
                    ),
                    (
                        "byName port 0",
                        with(&v, json!({"byName": {"a": {"name": "a", "port": 0}}})),
                    ),
                    (
                        "17 tags",
                        with(
                            &v,
                            json!({"tags": (0..17).map(|i| format!("t{}", "x".repeat(i))).collect::<Vec<_>>()}),
                        ),
                    ),
                ],
                updates: vec![
                    (
                        "generation 2",
                        with(&v, json!({"generation": 2})),
                        v.clone(),
                    ),
                    (
                        "generation 0",
                        with(&v, json!({"generation": 0})),
                        v.clone(),
                    ),
                    (
                        "another port",
                        at(&v, "/ports/0/port", json!(81)),
                        v.clone(),
                    ),
                ],
                merges: vec![
                    ("merge: generation 5", json!({"spec": {"generation": 5}})),
                    ("merge: memory 256Mi", json!({"spec": {"memory": "256Mi"}})),
                    (
                        "merge: primary without host",
                        json!({"spec": {"primary": {"name": "p", "port": 2}}}),
                    ),
                ],
                valid: v,
                named,
            }
        }
        _ => return None,
    };
    Some(c)
}

async fn run(s: &mut Session<'_>, subject: &Subject, c: Cases) {
    let first = c.creates.first().cloned();
    s.create("valid", object(subject, "valid", &c.valid), Via::Auto)
        .await;
    for (label, spec) in c.creates {
        let name = format!("c{}", s.records.len());
        s.create(label, object(subject, &name, &spec), Via::Auto)
            .await;
    }
    for (label, name) in c.named {
        s.create(label, object(subject, &name, &c.valid), Via::Auto)
            .await;
    }
    for (label, new, old) in c.updates {
        let name = format!("u{}", s.records.len());
        s.create(
            &format!("{label} (the stored object)"),
            object(subject, &name, &old),
            Via::Auto,
        )
        .await;
        s.replace(label, object(subject, &name, &new), Rv::Stored, Via::Auto)
            .await;
    }
    let base = object(subject, "valid", &c.valid);
    s.replace(
        "valid, no resourceVersion",
        base.clone(),
        Rv::Missing,
        Via::Dynamic,
    )
    .await;
    for (label, patch) in c.merges {
        s.merge_patch(label, "valid", patch, Via::Auto).await;
    }
    // Server-side apply: a new object, then the first variant over it.
    s.apply(
        "apply: valid",
        object(subject, "applied", &c.valid),
        Via::Dynamic,
    )
    .await;
    if let Some((label, spec)) = first {
        s.apply(
            &format!("apply: {label}"),
            object(subject, "applied", &spec),
            Via::Dynamic,
        )
        .await;
    }
}

#[tokio::test]
async fn ui_pass_crds() {
    let test = "ui_pass::ui_pass_crds";
    let Some(server) = Server::connect(test).await else {
        return;
    };
    assert!(
        crd_cel_e2e::ui_pass::NOT_INCLUDED.is_empty(),
        "UI pass cases not compiled here: {:?}",
        crd_cel_e2e::ui_pass::NOT_INCLUDED
    );
    let subjects = crd_cel_e2e::ui_pass::subjects();
    let mut summary = Summary::default();
    for subject in &subjects {
        let c = cases(subject.name()).unwrap_or_else(|| {
            panic!(
                "no objects for the CRD {} of {}: add them to tests/e2e/kube/tests/apiserver/ui_pass.rs",
                subject.name(),
                subject.origin
            )
        });
        let mut s = Session::open(&server, subject, "default").await;
        if subject.name() == "things.old-self-as-a-variable.ui.example.com" {
            s.known_difference("apply: a string", findings::APPLY_TYPE_ERROR);
        }
        run(&mut s, subject, c).await;
        let refused = s.records.iter().filter(|r| !r.server.is_valid()).count();
        assert!(
            refused > 0 && refused < s.records.len(),
            "{}: every request got one verdict",
            subject.name()
        );
        summary.add(s.finish());
    }
    summary.assert_agreement(test);
}
