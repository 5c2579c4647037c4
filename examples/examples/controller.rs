//! Validating in a controller before `Api::create` and `Api::patch`.
//!
//! `cargo run -p crd-cel-examples --example controller` (no cluster needed)
//!
//! A controller that builds objects of a CRD (from another resource, a template, a user's
//! request) can ask crd-cel what the apiserver would answer before sending them. An object the
//! apiserver would refuse is then not sent: the controller gets the apiserver's own message at
//! once, can put it in a status condition or an event, and does not retry a request that can
//! only fail.
//!
//! The API calls (`create`, `patch_spec` below) are compiled against kube's client; `main` runs
//! only the decisions, which need no server. With a cluster in your kubeconfig:
//!
//! ```sh
//! cargo run -p crd-cel-examples --example controller -- --crd | kubectl apply -f -
//! cargo run -p crd-cel-examples --example controller -- --apply
//! ```

use crd_cel::{CelValidate, ValidationErrors};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{CustomResource, CustomResourceExt, ResourceExt};
use serde::{Deserialize, Serialize};

/// A database backup, made by the controller.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "backup.example.com",
    version = "v1",
    kind = "Backup",
    namespaced
)]
#[serde(rename_all = "camelCase")]
pub struct BackupSpec {
    /// The database to back up; fixed once the backup exists.
    #[cel(rule = "self == oldSelf", message = "the database is immutable")]
    #[schemars(length(max = 63))]
    pub database: String,
    /// A cron expression of five fields.
    #[cel(
        rule = "self.matches('^[0-9*/,-]+( [0-9*/,-]+){4}$')",
        message = "the schedule must be a cron expression of five fields"
    )]
    #[schemars(length(max = 64))]
    pub schedule: String,
    /// How many backups to keep.
    #[cel(rule = "self >= 1 && self <= 30", message = "keep 1 to 30 backups")]
    pub keep: i32,
}

/// Why an object was not stored.
#[derive(Debug)]
pub enum SendError {
    /// The apiserver would refuse it (crd-cel's verdict): nothing was sent.
    Invalid(ValidationErrors),
    /// The request failed on the server or on the way.
    Kube(kube::Error),
}

/// The decision before a create: send only what the apiserver would accept. No server needed.
pub fn check_create(backup: &Backup) -> Result<(), ValidationErrors> {
    backup.validate()
}

/// The decision before a patch: the object as the patch will leave it, validated as an update
/// of the stored one, so that transition rules (`self == oldSelf`) and ratcheting apply.
pub fn check_patch(stored: &Backup, desired: &Backup) -> Result<(), ValidationErrors> {
    desired.validate_update(stored)
}

/// Creates `backup`, unless the apiserver would refuse it.
pub async fn create(api: &Api<Backup>, backup: &Backup) -> Result<Backup, SendError> {
    check_create(backup).map_err(SendError::Invalid)?;
    api.create(&PostParams::default(), backup)
        .await
        .map_err(SendError::Kube)
}

/// Replaces the spec of the stored `stored` with `spec`, unless the apiserver would refuse it.
/// A merge patch of the whole spec leaves the object exactly as `desired`, which is what was
/// validated.
pub async fn patch_spec(
    api: &Api<Backup>,
    stored: &Backup,
    spec: BackupSpec,
) -> Result<Backup, SendError> {
    let mut desired = stored.clone();
    desired.spec = spec;
    check_patch(stored, &desired).map_err(SendError::Invalid)?;
    let patch = Patch::Merge(serde_json::json!({ "spec": desired.spec }));
    api.patch(&stored.name_any(), &PatchParams::default(), &patch)
        .await
        .map_err(SendError::Kube)
}

/// A backup of `database` named after it.
fn backup(database: &str, schedule: &str, keep: i32) -> Backup {
    Backup::new(
        &format!("{database}-nightly"),
        BackupSpec {
            database: database.into(),
            schedule: schedule.into(),
            keep,
        },
    )
}

/// The decision as `main` prints it (and the example asserts it).
fn verdict(backup: &Backup, decision: Result<(), ValidationErrors>) -> String {
    match decision {
        Ok(()) => "send".to_owned(),
        // What a controller would log, or put in the status of the resource it reconciles.
        Err(errors) => format!(
            "do not send: {}",
            errors.status_message("Backup", "backup.example.com", &backup.name_any())
        ),
    }
}

/// `--apply`: the same decisions, with the requests sent to the cluster of your kubeconfig.
fn apply() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let client = kube::Client::try_default().await?;
        let api: Api<Backup> = Api::default_namespaced(client);
        let stored = match create(&api, &backup("orders", "0 3 * * *", 7)).await {
            Ok(stored) => stored,
            Err(SendError::Invalid(e)) => return Err(e.into()),
            Err(SendError::Kube(e)) => return Err(e.into()),
        };
        println!("created {}", stored.name_any());
        let moved = BackupSpec {
            database: "payments".into(),
            ..stored.spec.clone()
        };
        match patch_spec(&api, &stored, moved).await {
            Err(SendError::Invalid(e)) => println!("patch not sent: {e}"),
            other => println!("patch: {other:?}"),
        }
        Ok(())
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1).as_deref() {
        Some("--crd") => {
            print!("{}", crd_cel::yaml::to_string(&Backup::crd())?);
            return Ok(());
        }
        Some("--apply") => return apply(),
        _ => {}
    }

    // Creates: what the controller wants to exist.
    let creates = [
        (backup("orders", "0 3 * * *", 7), "send"),
        (
            backup("users", "nightly", 7),
            "do not send: Backup.backup.example.com \"users-nightly\" is invalid: spec.schedule: \
             Invalid value: \"nightly\": the schedule must be a cron expression of five fields",
        ),
        (
            backup("events", "*/30 * * * *", 90),
            "do not send: Backup.backup.example.com \"events-nightly\" is invalid: spec.keep: \
             Invalid value: 90: keep 1 to 30 backups",
        ),
    ];
    for (desired, expected) in &creates {
        let got = verdict(desired, check_create(desired));
        println!("create {}: {got}", desired.name_any());
        assert_eq!(got, *expected);
    }

    // Patches: what the controller wants to change in a stored object.
    let stored = backup("orders", "0 3 * * *", 7);
    let keep_more = BackupSpec {
        keep: 14,
        ..stored.spec.clone()
    };
    let other_database = BackupSpec {
        database: "payments".into(),
        ..stored.spec.clone()
    };
    let patches = [
        (keep_more, "send"),
        (
            other_database,
            "do not send: Backup.backup.example.com \"orders-nightly\" is invalid: spec.database: \
             Invalid value: \"payments\": the database is immutable",
        ),
    ];
    for (spec, expected) in patches {
        let mut desired = stored.clone();
        desired.spec = spec;
        let got = verdict(&desired, check_patch(&stored, &desired));
        println!("patch {}: {got}", desired.name_any());
        assert_eq!(got, expected);
    }
    println!("controller: every decision is as expected");
    Ok(())
}
