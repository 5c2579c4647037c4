//! Requests to one CRD's objects, each sent to the server and given to crd-cel, and the answers
//! compared.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crd_cel::ValidationErrors;
use crd_cel::validate::{Endpoint, UpdateMethod, Validator};
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::core::DynamicObject;
use kube::{Api, Client};
use serde_json::Value;

use crate::answer::{Agreement, Answer, compare};
use crate::merge::{apply_owned, merge_patch};
use crate::server::Server;
use crate::subject::{FIELD_MANAGER, Op, Subject};

/// Which client sends a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// `Api<K>` when the subject is a kube root and the body is a value of `K`, else
    /// `Api<DynamicObject>`.
    Auto,
    /// `Api<K>` (the body is read as a `K` and serialized: what is sent is the Rust value).
    Typed,
    /// `Api<DynamicObject>` (the body as written).
    Dynamic,
}

/// The `metadata.resourceVersion` of a replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rv {
    /// The stored object's, as a client that read it sends.
    Stored,
    /// None (the server: `metadata.resourceVersion: Invalid value: 0: must be specified for an
    /// update`).
    Missing,
    /// An older one (the server: a Conflict).
    Stale,
}

#[derive(Debug, Clone)]
enum Req {
    Create(Value),
    Replace(Value, Rv),
    ReplaceStatus(Value),
    Merge(String, Value),
    Apply(Value),
}

impl Req {
    fn verb(&self) -> &'static str {
        match self {
            Req::Create(_) => "create",
            Req::Replace(_, Rv::Stored) => "replace",
            Req::Replace(_, Rv::Missing) => "replace without resourceVersion",
            Req::Replace(_, Rv::Stale) => "replace with a stale resourceVersion",
            Req::ReplaceStatus(_) => "replace status",
            Req::Merge(..) => "merge-patch",
            Req::Apply(_) => "server-side apply",
        }
    }
}

/// One request and how crd-cel's answers compare with the server's.
#[derive(Debug, Clone)]
pub struct Record {
    /// `Kind.group: label`.
    pub id: String,
    /// The server's answer.
    pub server: Answer,
    /// The manifest `Validator`'s, compared.
    pub manifest: Agreement,
    /// The typed `validate()`'s, compared, or why it does not apply.
    pub typed: Result<Agreement, String>,
    /// The finding this request is listed under as a known difference.
    pub known: Option<String>,
}

/// crd-cel's answer and the errors it was made of.
struct Ours {
    answer: Answer,
    errors: Option<ValidationErrors>,
    name: String,
}

/// Requests to the objects of one CRD.
pub struct Session<'a> {
    server: &'a Server,
    subject: &'a Subject,
    namespace: String,
    dynamic: Api<DynamicObject>,
    manifest: Validator,
    /// The same, for PUTs (replace): `UpdateMethod::Put`.
    manifest_put: Validator,
    stored: BTreeMap<String, Value>,
    known: BTreeMap<String, String>,
    /// Every request so far.
    pub records: Vec<Record>,
}

fn name_of(body: &Value) -> String {
    body["metadata"]["name"]
        .as_str()
        .unwrap_or_else(|| panic!("the object has no metadata.name: {body}"))
        .to_owned()
}

impl<'a> Session<'a> {
    /// Installs the subject's CRD on the server and opens a session on its objects in
    /// `namespace` (cluster-scoped kinds ignore it). Panics with the server's message when the
    /// server rejects the CRD, and when crd-cel's CRD checks disagree with the server's verdict.
    pub async fn open(server: &'a Server, subject: &'a Subject, namespace: &str) -> Session<'a> {
        let ours = crd_cel::crd::check_crd(&subject.json, &crd_cel::crd::Options::default())
            .unwrap_or_else(|e| panic!("crd-cel cannot check the CRD {}: {e}", subject.name()));
        let started = Instant::now();
        let installed = server.install(subject).await;
        match (&installed, ours.accepted()) {
            (Ok(()), true) => {}
            (Err(e), _) => panic!(
                "{} ({}): {e}\n  crd-cel check says: {}",
                subject.type_name,
                subject.origin,
                if ours.accepted() {
                    "accepted".into()
                } else {
                    ours.text()
                }
            ),
            (Ok(()), false) => panic!(
                "the server accepts the CRD {} that crd-cel check rejects: {}",
                subject.name(),
                ours.text()
            ),
        }
        let build = |method| {
            let mut v = Validator::from_crd(&subject.json, Some(subject.version()))
                .unwrap_or_else(|e| panic!("no Validator for the CRD {}: {e}", subject.name()))
                .with_default_namespace(namespace)
                .with_update_method(method);
            if server.minor <= crd_cel::check::NEWEST_KUBERNETES_MINOR {
                v = v.with_kubernetes_version(server.minor);
            }
            v
        };
        let manifest = build(UpdateMethod::Patch);
        let manifest_put = build(UpdateMethod::Put);
        println!(
            "== CRD {} ({}, {}): Established and served in {} ms",
            subject.name(),
            subject.type_name,
            subject.origin,
            started.elapsed().as_millis()
        );
        Session {
            server,
            subject,
            namespace: namespace.to_owned(),
            dynamic: server.dynamic(subject, namespace),
            manifest,
            manifest_put,
            stored: BTreeMap::new(),
            known: BTreeMap::new(),
            records: Vec::new(),
        }
    }

    /// Lists the request `label` as a known difference between the server and crd-cel, with
    /// the finding: its disagreement is reported, not failed; its agreement fails (the list
    /// must be kept exact).
    pub fn known_difference(&mut self, label: &str, finding: &str) {
        self.known.insert(label.to_owned(), finding.to_owned());
    }

    /// POST `body`.
    pub async fn create(&mut self, label: &str, body: Value, via: Via) -> &Record {
        self.run(label, Req::Create(body), via).await
    }

    /// PUT `body` (a whole object) over the stored object of its name.
    pub async fn replace(&mut self, label: &str, body: Value, rv: Rv, via: Via) -> &Record {
        self.run(label, Req::Replace(body, rv), via).await
    }

    /// PUT `body` to `/status`, with the stored resourceVersion.
    pub async fn replace_status(&mut self, label: &str, body: Value, via: Via) -> &Record {
        self.run(label, Req::ReplaceStatus(body), via).await
    }

    /// PATCH the object `name` with a JSON merge patch.
    pub async fn merge_patch(
        &mut self,
        label: &str,
        name: &str,
        patch: Value,
        via: Via,
    ) -> &Record {
        self.run(label, Req::Merge(name.to_owned(), patch), via)
            .await
    }

    /// Server-side apply of `body` (field manager `crd-cel-e2e`, forced). Only for objects this
    /// session created by server-side apply (the manager owns every field, so the result is
    /// `body` over the stored metadata).
    pub async fn apply(&mut self, label: &str, body: Value, via: Via) -> &Record {
        self.run(label, Req::Apply(body), via).await
    }

    /// The stored object `name`, as the server last returned it.
    pub fn stored(&self, name: &str) -> Option<&Value> {
        self.stored.get(name)
    }

    async fn run(&mut self, label: &str, req: Req, via: Via) -> &Record {
        let subject = self.subject;
        let id = format!("{}.{}: {label}", subject.kind(), subject.group());
        // What is sent: the Rust value's JSON through `Api<K>`, the body as written through
        // `Api<DynamicObject>`.
        let body = match &req {
            Req::Create(b) | Req::Replace(b, _) | Req::ReplaceStatus(b) | Req::Apply(b) => Some(b),
            Req::Merge(..) => None,
        };
        let typed_body = body.and_then(|b| subject.roundtrip(b));
        let typed = match (via, &typed_body) {
            (Via::Dynamic, _) => false,
            (Via::Typed | Via::Auto, _) if matches!(req, Req::Merge(..)) => subject.root,
            (Via::Typed, Some(Ok(_))) => true,
            (Via::Typed, Some(Err(e))) => panic!("{id}: Via::Typed: {e}"),
            (Via::Typed, None) => {
                panic!("{id}: Via::Typed: {} is not a kube root", subject.type_name)
            }
            (Via::Auto, Some(Ok(_))) => true,
            (Via::Auto, Some(Err(_))) => false,
            (Via::Auto, None) => false,
        };
        let mut sent = match typed_body {
            Some(Ok(v)) if typed => Some(v),
            _ => body.cloned(),
        };
        let name = match &req {
            Req::Merge(name, _) => name.clone(),
            _ => name_of(sent.as_ref().expect("a body")),
        };
        if matches!(req, Req::Create(_) | Req::Apply(_)) && !self.stored.contains_key(&name) {
            self.delete_leftover(&name).await;
        }
        let old = self.stored.get(&name).cloned();
        let needs_old = |what: &str| -> Value {
            old.clone()
                .unwrap_or_else(|| panic!("{id}: {what} of {name}, which is not stored"))
        };
        // The object the server validates, as crd-cel is given it.
        let (new, old_for_cel, endpoint) = match &req {
            Req::Create(_) => (sent.clone().expect("a body"), None, Endpoint::Resource),
            Req::Replace(..) | Req::ReplaceStatus(_) => {
                let stored = needs_old("an update");
                let body = sent.as_mut().expect("a body");
                let meta = body["metadata"]
                    .as_object_mut()
                    .expect("metadata is an object");
                match rv_of(&req) {
                    Rv::Stored => {
                        meta.insert(
                            "resourceVersion".into(),
                            stored["metadata"]["resourceVersion"].clone(),
                        );
                    }
                    Rv::Missing => {
                        meta.remove("resourceVersion");
                    }
                    Rv::Stale => {
                        meta.insert("resourceVersion".into(), "1".into());
                    }
                }
                let endpoint = if matches!(req, Req::ReplaceStatus(_)) {
                    Endpoint::Status
                } else {
                    Endpoint::Resource
                };
                (body.clone(), Some(stored), endpoint)
            }
            Req::Merge(_, patch) => {
                let stored = needs_old("a merge patch");
                (
                    merge_patch(&stored, patch),
                    Some(stored),
                    Endpoint::Resource,
                )
            }
            Req::Apply(_) => {
                let body = sent.clone().expect("a body");
                match &old {
                    Some(stored) => (
                        apply_owned(stored, &body),
                        Some(stored.clone()),
                        Endpoint::Resource,
                    ),
                    None => (body, None, Endpoint::Resource),
                }
            }
        };

        // crd-cel: the manifest Validator and the typed validate().
        let cel_started = Instant::now();
        let (kind, group) = (subject.kind(), subject.group());
        // A replace is a PUT of the body as sent; merge patches and applies are patches.
        let validator = if matches!(req, Req::Replace(..) | Req::ReplaceStatus(_)) {
            &self.manifest_put
        } else {
            &self.manifest
        };
        let out = validator.validate_request(&new, old_for_cel.as_ref(), endpoint);
        let manifest = Ours {
            answer: Answer::of_outcome(&out, kind, group, &name),
            errors: out.refusal.is_none().then(|| out.errors.clone()),
            name: out.name.clone().unwrap_or_else(|| name.clone()),
        };
        let typed_ours: Result<Ours, String> = match &req {
            Req::Replace(_, Rv::Missing | Rv::Stale) => Err(
                "the resourceVersion is the request's, not the value's (typed validate() \
                 validates values)"
                    .into(),
            ),
            _ => {
                // A status update changes nothing but `status` (the status strategy keeps the
                // rest of the stored object): the value a typed client validates is the stored
                // one with the new status.
                let typed_new = match (&req, &old_for_cel) {
                    (Req::ReplaceStatus(_), Some(old)) => {
                        let mut v = old.clone();
                        match new.get("status") {
                            Some(status) => v["status"] = status.clone(),
                            None => drop(v.as_object_mut().map(|m| m.remove("status"))),
                        }
                        v
                    }
                    _ => new.clone(),
                };
                subject.validate_typed(&typed_new, old_for_cel.as_ref())
            }
            .map(|result| Ours {
                answer: Answer::of_typed(&result, kind, group, &name),
                errors: result.err(),
                name: name.clone(),
            }),
        };

        let cel_time = cel_started.elapsed();
        // The server.
        let server_started = Instant::now();
        let op = match &req {
            Req::Create(_) => Op::Create(sent.clone().expect("a body")),
            Req::Replace(..) => Op::Replace(name.clone(), sent.clone().expect("a body")),
            Req::ReplaceStatus(_) => Op::ReplaceStatus(name.clone(), sent.clone().expect("a body")),
            Req::Merge(_, patch) => Op::Merge(name.clone(), patch.clone()),
            Req::Apply(_) => Op::Apply(name.clone(), sent.clone().expect("a body")),
        };
        let client = self.server.client.clone();
        let result = if typed {
            subject
                .send_typed(client, &self.namespace, &op)
                .expect("a kube root")
                .await
        } else {
            self.send_dynamic(&op).await
        };
        let (server, code) = match result {
            Ok(()) => (Answer::Valid, String::new()),
            Err(kube::Error::Api(status)) => (
                Answer::of_status(&status),
                format!("[{} {}] ", status.code, status.reason),
            ),
            Err(e) => panic!("{id}: the request failed: {e}"),
        };
        if server.is_valid() {
            let got = self
                .dynamic
                .get(&name)
                .await
                .unwrap_or_else(|e| panic!("{id}: reading {name} back: {e}"));
            self.stored.insert(
                name.clone(),
                serde_json::to_value(got).expect("an object serializes"),
            );
        }

        let server_time = server_started.elapsed();
        let agree = |ours: &Ours| {
            compare(&server, &ours.answer, |order| {
                ours.errors.as_ref().map(|e| {
                    ValidationErrors {
                        errors: order.iter().map(|&i| e.errors[i].clone()).collect(),
                    }
                    .status_message(kind, group, &ours.name)
                })
            })
        };
        let record = Record {
            id: id.clone(),
            manifest: agree(&manifest),
            typed: typed_ours.as_ref().map(agree).map_err(Clone::clone),
            known: self.known.get(label).cloned(),
            server: server.clone(),
        };
        let client_name = if typed {
            format!("Api<{}>", short(subject.type_name))
        } else {
            "Api<DynamicObject>".into()
        };
        let mut text = format!(
            "-- {id} [{} via {client_name}; server {} ms, crd-cel {} ms]\n   server:   {code}{}\n",
            req.verb(),
            server_time.as_millis(),
            cel_time.as_millis(),
            server.text()
        );
        let line = |agreement: &Agreement, ours: &Answer| match agreement {
            Agreement::Same => "same".to_owned(),
            Agreement::Order => format!("same causes, another order: {}", ours.text()),
            Agreement::Differs(why) => format!("DIFFERS ({why}): {}", ours.text()),
        };
        text.push_str(&format!(
            "   manifest: {}\n",
            line(&record.manifest, &manifest.answer)
        ));
        match (&record.typed, &typed_ours) {
            (Ok(a), Ok(ours)) => {
                text.push_str(&format!("   typed:    {}\n", line(a, &ours.answer)))
            }
            (_, Err(why)) | (Err(why), _) => text.push_str(&format!("   typed:    n/a: {why}\n")),
        }
        if let Some(finding) = &record.known {
            text.push_str(&format!("   known difference: {finding}\n"));
        }
        print!("{text}");
        self.records.push(record);
        self.records.last().expect("just pushed")
    }

    /// Deletes an object of that name left by an earlier run against the same server, and
    /// waits until it is gone.
    async fn delete_leftover(&self, name: &str) {
        match self.dynamic.delete(name, &DeleteParams::default()).await {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 404 => return,
            Err(e) => panic!("deleting a leftover {name}: {e}"),
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.dynamic.get_opt(name).await.ok().flatten().is_some() {
            assert!(
                Instant::now() < deadline,
                "a leftover {name} is not deleted after 30 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn send_dynamic(&self, op: &Op) -> kube::Result<()> {
        let pp = PostParams::default();
        let obj = |v: &Value| -> DynamicObject {
            serde_json::from_value(v.clone())
                .unwrap_or_else(|e| panic!("not an object for Api<DynamicObject>: {e}: {v}"))
        };
        let api = &self.dynamic;
        match op {
            Op::Create(body) => api.create(&pp, &obj(body)).await.map(drop),
            Op::Replace(name, body) => api.replace(name, &pp, &obj(body)).await.map(drop),
            Op::ReplaceStatus(name, body) => {
                api.replace_status(name, &pp, &obj(body)).await.map(drop)
            }
            Op::Merge(name, patch) => api
                .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                .await
                .map(drop),
            Op::Apply(name, body) => api
                .patch(
                    name,
                    &PatchParams::apply(FIELD_MANAGER).force(),
                    &Patch::Apply(body),
                )
                .await
                .map(drop),
        }
    }

    /// The client.
    pub fn client(&self) -> Client {
        self.server.client.clone()
    }

    /// Ends the session: every request's failures (a disagreement not listed as known, a known
    /// difference that agrees now), and a one-line summary printed.
    pub fn finish(self) -> Summary {
        let mut summary = Summary {
            crds: 1,
            ..Summary::default()
        };
        for r in &self.records {
            summary.requests += 1;
            if r.server.is_valid() {
                summary.accepted += 1;
            }
            let mut differs = Vec::new();
            if let Agreement::Differs(why) = &r.manifest {
                differs.push(format!("manifest Validator: {why}"));
            }
            match &r.typed {
                Ok(Agreement::Differs(why)) => differs.push(format!("typed validate(): {why}")),
                Ok(_) => summary.typed += 1,
                Err(_) => {}
            }
            if r.manifest == Agreement::Order || r.typed == Ok(Agreement::Order) {
                summary.order_only += 1;
            }
            match (&r.known, differs.is_empty()) {
                (None, true) => {}
                (None, false) => summary.failures.push(format!(
                    "{}: {} (server: {})",
                    r.id,
                    differs.join("; "),
                    r.server.text()
                )),
                (Some(finding), true) => summary.failures.push(format!(
                    "{}: listed as a known difference ({finding}) but crd-cel agrees with the \
                     server now: remove it from the list",
                    r.id
                )),
                (Some(finding), false) => summary.known.push(format!("{}: {finding}", r.id)),
            }
        }
        let listed: Vec<&String> = self.known.keys().collect();
        for label in listed {
            let id = format!("{}.{}: {label}", self.subject.kind(), self.subject.group());
            if !self.records.iter().any(|r| r.id == id) {
                summary.failures.push(format!(
                    "{id}: listed as a known difference, but no such request"
                ));
            }
        }
        println!(
            "== {}: {} requests ({} accepted by the server), typed compared on {}, {} in another \
             cause order, {} known differences, {} failures",
            self.subject.name(),
            summary.requests,
            summary.accepted,
            summary.typed,
            summary.order_only,
            summary.known.len(),
            summary.failures.len()
        );
        summary
    }
}

fn rv_of(req: &Req) -> Rv {
    match req {
        Req::Replace(_, rv) => *rv,
        _ => Rv::Stored,
    }
}

/// `crd_cel_examples::WebApp` → `WebApp`.
fn short(type_name: &str) -> &str {
    type_name.rsplit("::").next().unwrap_or(type_name)
}

/// What a test's sessions found.
#[derive(Debug, Default)]
pub struct Summary {
    /// CRDs applied.
    pub crds: usize,
    /// Requests sent.
    pub requests: usize,
    /// Requests the server accepted.
    pub accepted: usize,
    /// Requests the typed `validate()` was compared on.
    pub typed: usize,
    /// Requests whose causes crd-cel lists in another order than the server.
    pub order_only: usize,
    /// Known differences seen.
    pub known: Vec<String>,
    /// Failures.
    pub failures: Vec<String>,
}

impl Summary {
    /// Adds another session's.
    pub fn add(&mut self, other: Summary) {
        self.crds += other.crds;
        self.requests += other.requests;
        self.accepted += other.accepted;
        self.typed += other.typed;
        self.order_only += other.order_only;
        self.known.extend(other.known);
        self.failures.extend(other.failures);
    }

    /// Prints the totals and panics on any failure.
    pub fn assert_agreement(&self, test: &str) {
        println!(
            "{test}: {} CRDs, {} requests ({} accepted), typed validate() compared on {}, {} in \
             another cause order, {} known differences",
            self.crds,
            self.requests,
            self.accepted,
            self.typed,
            self.order_only,
            self.known.len()
        );
        for k in &self.known {
            println!("  known difference: {k}");
        }
        assert!(
            self.failures.is_empty(),
            "{test}: crd-cel and the kube-apiserver disagree:\n  {}",
            self.failures.join("\n  ")
        );
        assert!(self.requests > 0, "{test}: no requests");
    }
}
