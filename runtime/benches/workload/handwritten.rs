//! The workload's checks written by hand in Rust, on the same typed object: the floor the typed
//! path is measured against. What a careful operator author would write without CEL: the
//! schema's bounds (lengths in characters, as the apiserver counts them), the map list's unique
//! keys, the eleven rules with the same messages, the two patterns with `regex` compiled once.
//! It reports every failure, as the apiserver does, and allocates only on failure. What it
//! leaves out is what only a generic validator needs: the apiserver's error paths and texts,
//! cost limits, ratcheting and the JSON fallback.

use std::sync::LazyLock;

use regex::Regex;

use super::crdcel::{Workload, WorkloadSpec};

static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
        .expect("valid pattern")
});
static PORT_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").expect("valid pattern"));

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Every failure of `w` (an update from `old`), as messages.
pub fn validate(w: &Workload, old: Option<&Workload>) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let mut fail = |ok: bool, message: &dyn Fn() -> String| {
        if !ok {
            errors.push(message());
        }
    };
    let s: &WorkloadSpec = &w.spec;
    // The schema.
    fail(chars(&s.image) <= 256, &|| "image: too long".into());
    fail(chars(&s.tier) <= 16, &|| "tier: too long".into());
    fail(chars(&s.hostname) <= 253, &|| "hostname: too long".into());
    fail(s.ports.len() <= 32, &|| "ports: too many".into());
    fail(s.labels.len() <= 64, &|| "labels: too many".into());
    for (i, p) in s.ports.iter().enumerate() {
        fail(chars(&p.name) <= 15, &|| "ports[].name: too long".into());
        fail(chars(&p.protocol) <= 3, &|| {
            "ports[].protocol: too long".into()
        });
        fail(!s.ports[..i].iter().any(|q| q.name == p.name), &|| {
            "ports: duplicate name".into()
        });
    }
    // The rules.
    fail(s.min_replicas <= s.max_replicas, &|| {
        "minReplicas must not exceed maxReplicas".into()
    });
    fail(
        s.replicas >= s.min_replicas && s.replicas <= s.max_replicas,
        &|| "replicas must lie within [minReplicas, maxReplicas]".into(),
    );
    fail(s.ports.iter().any(|p| p.name == "http"), &|| {
        "a port named http is required".into()
    });
    fail(s.image.contains(':'), &|| "image must carry a tag".into());
    fail(s.replicas <= 1000, &|| "at most 1000 replicas".into());
    if let Some(old) = old {
        fail(s.tier == old.spec.tier, &|| "tier is immutable".into());
    }
    fail(s.labels.keys().all(|k| chars(k) <= 63), &|| {
        "label keys are at most 63 characters".into()
    });
    fail(HOSTNAME.is_match(&s.hostname), &|| {
        "hostname must be a DNS name".into()
    });
    fail((1..=3600).contains(&s.timeout_seconds), &|| {
        "timeout is 1 to 3600 seconds".into()
    });
    for p in &s.ports {
        fail((1..=65535).contains(&p.port), &|| {
            format!("port {} is out of range", p.name)
        });
        fail(PORT_NAME.is_match(&p.name), &|| {
            "port names are lowercase alphanumerics and '-'".into()
        });
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}
