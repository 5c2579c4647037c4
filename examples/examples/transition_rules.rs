//! Transition rules: `oldSelf`, `optional_old_self`, immutability and ratcheting, with
//! `validate_update`.
//!
//! `cargo run -p crd-cel-examples --example transition_rules`
//!
//! A rule that reads `oldSelf` is a transition rule: the apiserver runs it on an update, where
//! `oldSelf` is the stored value of the same node. `value.validate_update(&stored)` validates
//! `value` as that update; `value.validate()` as a create, where transition rules do not run
//! (except with `optional_old_self`, where `oldSelf` is then an empty optional).

use crd_cel::CelValidate;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// A managed database.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "db.example.com",
    version = "v1",
    kind = "Database",
    namespaced
)]
#[serde(rename_all = "camelCase")]
// A field that was set cannot be removed: a removed field has no node for a rule to run on, so
// the rule goes on the parent, which has both.
#[cel(
    rule = "!has(oldSelf.backupBucket) || has(self.backupBucket)",
    message = "backupBucket cannot be removed once set"
)]
pub struct DatabaseSpec {
    /// The engine; fixed at creation (the classic immutable field), and one of two (a rule
    /// added after some databases were stored with other engines: see ratcheting below).
    #[cel(rule = "self == oldSelf", message = "engine is immutable")]
    #[cel(
        rule = "self in ['postgres', 'mysql']",
        message = "engine must be postgres or mysql"
    )]
    #[schemars(length(max = 16))]
    pub engine: String,

    /// Disk size; may grow, never shrink. Quantities compare by value (`1Ti` > `900Gi`).
    #[cel(
        rule = "quantity(self).compareTo(quantity(oldSelf)) >= 0",
        message = "storage can only grow"
    )]
    pub storage: Quantity,

    /// Pods. With `optional_old_self` the rule runs on create too, with `oldSelf` empty:
    /// one rule for "start small" and "at most double at a time".
    #[cel(
        rule = "oldSelf.hasValue() ? self <= oldSelf.value() * 2 : self <= 3",
        message = "a database starts with at most 3 replicas and at most doubles in one update",
        optional_old_self
    )]
    pub replicas: i32,

    /// Where backups go; optional, but fixed once set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cel(rule = "self == oldSelf", message = "backupBucket is immutable")]
    #[schemars(length(max = 63))]
    pub backup_bucket: Option<String>,

    /// Database users. A `map` list (keyed by `name`): the apiserver pairs each item with the
    /// stored item of the same name, wherever it is in the list, so a rule inside an item can
    /// read `oldSelf`. (In a list of another type that is a build error: the items cannot be
    /// paired.)
    #[cel(list_type = "map", list_map_keys = ["name"], max_items = 16)]
    pub users: Vec<User>,
}

/// A database user.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
pub struct User {
    /// The user name (the list's key).
    #[schemars(length(max = 32))]
    pub name: String,
    /// `read` or `write`; fixed for a user.
    #[cel(
        rule = "self == oldSelf",
        message = "a user's role is fixed: remove the user and add it again"
    )]
    #[schemars(length(max = 8))]
    pub role: String,
}

fn user(name: &str, role: &str) -> User {
    User {
        name: name.into(),
        role: role.into(),
    }
}

/// `what` on `new`, as a create (`old` is `None`) or as an update of `old`: prints the
/// verdict and checks it is `expected` (`None`: valid).
fn expect(what: &str, new: &DatabaseSpec, old: Option<&DatabaseSpec>, expected: Option<&str>) {
    let verdict = match old {
        None => new.validate(),
        Some(old) => new.validate_update(old),
    };
    match &verdict {
        Ok(()) => println!("{what}: valid"),
        Err(errors) => println!("{what}: {errors}"),
    }
    assert_eq!(
        verdict.map_err(|e| e.to_string()),
        expected.map_or(Ok(()), |m| Err(m.to_owned())),
        "{what}"
    );
}

fn main() {
    let stored = DatabaseSpec {
        engine: "postgres".into(),
        storage: Quantity("100Gi".into()),
        replicas: 3,
        backup_bucket: Some("db-backups".into()),
        users: vec![user("app", "write"), user("report", "read")],
    };

    // Creates: `self == oldSelf` and the other transition rules do not run;
    // `optional_old_self` rules do, with an empty `oldSelf`.
    expect("create", &stored, None, None);
    let big = DatabaseSpec {
        replicas: 5,
        ..stored.clone()
    };
    expect(
        "create with 5 replicas",
        &big,
        None,
        Some(
            "replicas: Invalid value: 5: a database starts with at most 3 replicas \
             and at most doubles in one update",
        ),
    );

    // Updates.
    let grown = DatabaseSpec {
        storage: Quantity("1Ti".into()),
        replicas: 6,
        users: vec![
            user("report", "read"),
            user("app", "write"),
            user("ops", "read"),
        ],
        ..stored.clone()
    };
    expect(
        "grow storage to 1Ti, double the replicas, reorder the users and add one",
        &grown,
        Some(&stored),
        None,
    );
    let moved = DatabaseSpec {
        engine: "mysql".into(),
        storage: Quantity("90Gi".into()),
        replicas: 7,
        ..stored.clone()
    };
    expect(
        "change the engine, shrink the storage, 3 to 7 replicas",
        &moved,
        Some(&stored),
        Some(
            "[engine: Invalid value: \"mysql\": engine is immutable, \
             replicas: Invalid value: 7: a database starts with at most 3 replicas \
             and at most doubles in one update, \
             storage: Invalid value: \"90Gi\": storage can only grow]",
        ),
    );
    let unbacked = DatabaseSpec {
        backup_bucket: None,
        users: vec![user("app", "read"), user("report", "read")],
        ..stored.clone()
    };
    expect(
        "remove the backup bucket, change a user's role",
        &unbacked,
        Some(&stored),
        Some(
            "[<nil>: Invalid value: backupBucket cannot be removed once set, \
             users[0].role: Invalid value: \"read\": a user's role is fixed: remove the user \
             and add it again]",
        ),
    );

    // Ratcheting (Kubernetes 1.30+, always on since 1.33): a database stored before the
    // engine rule existed keeps its engine, and can still be updated elsewhere; the rule's
    // error on the unchanged field is forgiven. Changing that field is not.
    let legacy = DatabaseSpec {
        engine: "mariadb".into(),
        ..stored.clone()
    };
    expect(
        "create a mariadb database today",
        &legacy,
        None,
        Some("engine: Invalid value: \"mariadb\": engine must be postgres or mysql"),
    );
    let legacy_grown = DatabaseSpec {
        storage: Quantity("200Gi".into()),
        ..legacy.clone()
    };
    expect(
        "grow the storage of a stored mariadb database",
        &legacy_grown,
        Some(&legacy),
        None,
    );
    println!("transition_rules: every verdict is as expected");
}
