//! The kube-apiserver under test: connecting (or skipping loudly), applying CRDs and waiting
//! until they serve.

use std::io::Write as _;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ListParams, Patch, PatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::{ApiResource, DynamicObject};
use kube::{Api, Client, Config};

use crate::answer::Answer;
use crate::subject::{FIELD_MANAGER, Subject};

/// The command that runs these tests against a server.
pub const RUN: &str =
    "bash tests/e2e/controlplane/start.sh -- env CRD_CEL_E2E=1 cargo test -p crd-cel-e2e";

/// A connected kube-apiserver.
#[derive(Clone)]
pub struct Server {
    /// kube-rs's client, from the `KUBECONFIG` file.
    pub client: Client,
    /// `/version`'s `gitVersion`.
    pub version: String,
    /// Its minor version (37 for v1.37.2).
    pub minor: u8,
}

/// Writes a line to the process's stderr, past the test harness's output capture (a skip must
/// be seen in a plain `cargo test`).
pub fn loud(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

impl Server {
    /// The server of `KUBECONFIG` when `CRD_CEL_E2E=1`. Without `CRD_CEL_E2E=1`, `None` after a
    /// loud `SKIPPED <test>` line on stderr. With it, a missing `KUBECONFIG`, a server that is
    /// not on loopback (these tests create CRDs; `CRD_CEL_E2E_ANY_SERVER=1` allows another) or
    /// one that does not answer `/version` panics.
    pub async fn connect(test: &str) -> Option<Server> {
        if std::env::var("CRD_CEL_E2E").as_deref() != Ok("1") {
            loud(&format!("SKIPPED {test}: no kube-apiserver (run: {RUN})"));
            return None;
        }
        let path = std::env::var_os("KUBECONFIG").unwrap_or_else(|| {
            panic!("{test}: CRD_CEL_E2E=1 but KUBECONFIG is not set (run: {RUN})")
        });
        let kubeconfig = Kubeconfig::read_from(&path)
            .unwrap_or_else(|e| panic!("{test}: cannot read KUBECONFIG {path:?}: {e}"));
        let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
            .await
            .unwrap_or_else(|e| panic!("{test}: KUBECONFIG {path:?}: {e}"));
        let host = config.cluster_url.host().unwrap_or_default().to_owned();
        let loopback = ["127.0.0.1", "localhost", "[::1]", "::1"].contains(&host.as_str());
        assert!(
            loopback || std::env::var("CRD_CEL_E2E_ANY_SERVER").as_deref() == Ok("1"),
            "{test}: the server {} is not on loopback; these tests create CRDs there \
             (CRD_CEL_E2E_ANY_SERVER=1 to allow it)",
            config.cluster_url
        );
        let url = config.cluster_url.clone();
        let client =
            Client::try_from(config).unwrap_or_else(|e| panic!("{test}: no client for {url}: {e}"));
        let info = client
            .apiserver_version()
            .await
            .unwrap_or_else(|e| panic!("{test}: the kube-apiserver at {url} does not answer: {e}"));
        let minor = info
            .minor
            .trim_end_matches('+')
            .parse()
            .unwrap_or_else(|e| panic!("{test}: /version minor {:?}: {e}", info.minor));
        Some(Server {
            client,
            version: info.git_version,
            minor,
        })
    }

    /// Applies the subject's CRD (server-side apply, forced) and waits until it is
    /// `Established` with its names accepted, and its objects can be listed. `Err` with the
    /// server's message when the server rejects the CRD or does not establish it.
    pub async fn install(&self, subject: &Subject) -> Result<(), String> {
        let api: Api<CustomResourceDefinition> = Api::all(self.client.clone());
        let name = subject.name().to_owned();
        let pp = PatchParams::apply(FIELD_MANAGER).force();
        if let Err(e) = api.patch(&name, &pp, &Patch::Apply(&subject.crd)).await {
            return Err(match e {
                kube::Error::Api(status) => {
                    format!(
                        "the server rejects the CRD {name}: {}",
                        Answer::of_status(&status).text()
                    )
                }
                e => format!("applying the CRD {name}: {e}"),
            });
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let crd = api
                .get(&name)
                .await
                .map_err(|e| format!("reading the CRD {name} back: {e}"))?;
            let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
            let condition = |t: &str| conditions.iter().find(|c| c.type_ == t);
            if let Some(c) = condition("NamesAccepted")
                && c.status == "False"
            {
                return Err(format!(
                    "the server does not accept the names of {name}: {}: {}",
                    c.reason.as_deref().unwrap_or_default(),
                    c.message.as_deref().unwrap_or_default()
                ));
            }
            let is_true = |t: &str| condition(t).is_some_and(|c| c.status == "True");
            if is_true("Established") && is_true("NamesAccepted") {
                break;
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the CRD {name} is not Established with NamesAccepted after 60 s: {conditions:?}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The custom resource handler serves the new resource a moment after Established.
        let dynamic = self.dynamic(subject, "default");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match dynamic.list(&ListParams::default().limit(1)).await {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() > deadline => {
                    return Err(format!(
                        "{} not served 30 s after Established: {e}",
                        subject.plural()
                    ));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// `Api<DynamicObject>` of the subject's resource, in `namespace` when it is namespaced.
    pub fn dynamic(&self, subject: &Subject, namespace: &str) -> Api<DynamicObject> {
        let ar = ApiResource {
            group: subject.group().to_owned(),
            version: subject.version().to_owned(),
            api_version: subject.api_version(),
            kind: subject.kind().to_owned(),
            plural: subject.plural().to_owned(),
        };
        if subject.namespaced() {
            Api::namespaced_with(self.client.clone(), namespace, &ar)
        } else {
            Api::all_with(self.client.clone(), &ar)
        }
    }
}
