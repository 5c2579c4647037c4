//! Data-carrying enums: serde's four representations, with rules on them and on their
//! variants' fields.
//!
//! `cargo run -p crd-cel-examples --example enums`
//!
//! An enum becomes the schema serde writes it as, and its rules see that serialized value:
//!
//! - externally tagged (serde's default): `{"s3": {...}}`, an object with one optional property
//!   per variant;
//! - internally tagged (`#[serde(tag = "type")]`): `{"type": "cron", "expression": ...}`, the tag
//!   a required string enum beside every variant's fields (optional, as only some variants have
//!   them);
//! - adjacently tagged (`#[serde(tag = "policy", content = "count")]`): the tag and the content;
//! - untagged integer-or-string: `x-kubernetes-int-or-string`, as k8s-openapi's `IntOrString`.
//!
//! `#[cel(..)]` goes on the enum: the rule's `self` is the whole serialized value, and it
//! tells the variants apart by the tag or by `has()`. A field of a variant cannot carry
//! `#[cel(..)]` (the derive refuses it); give the field a type of its own with the rule, as
//! `BucketName` below.

use crd_cel::validate::Endpoint;
use crd_cel::{CelValidate, Validator};
use kube::{CustomResource, CustomResourceExt};
use serde::{Deserialize, Serialize};

/// An S3 bucket name: a newtype whose rule applies wherever it is used, variants included.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.matches('^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$')",
    message = "not an S3 bucket name"
)]
pub struct BucketName(#[schemars(length(max = 63))] String);

/// Where backups go. Externally tagged: `{"s3": {"bucket": .., "region": ..}}` or
/// `{"volume": "claim-name"}`.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
// A rule on the enum sees the serialized object: `has()` tells which variant it is.
#[cel(
    rule = "!has(self.s3) || self.s3.bucket != self.s3.region",
    message = "bucket and region look swapped"
)]
pub enum Destination {
    /// An S3 bucket.
    S3 {
        /// The bucket name.
        bucket: BucketName,
        /// The region, `eu-west-1` style.
        #[schemars(length(max = 32))]
        region: String,
    },
    /// A PersistentVolumeClaim, by name (a newtype variant).
    Volume(String),
}

/// When backups run. Internally tagged: `{"type": "cron", "expression": "0 3 * * *"}` or
/// `{"type": "interval", "minutes": 30}`.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "type", rename_all = "camelCase")]
// `expression` and `minutes` exist only on one variant each: test the tag before reading them
// (reading a missing field is a runtime `no such key` error, as in the apiserver).
#[cel(
    rule = "self.type != 'cron' || self.expression.split(' ').size() == 5",
    message = "a cron expression has five fields"
)]
#[cel(
    rule = "self.type != 'interval' || self.minutes >= 5",
    message = "at least 5 minutes apart"
)]
#[cel(
    rule = "self.type != 'interval' || self.minutes % 5 == 0",
    message = "intervals are whole multiples of 5 minutes"
)]
pub enum Schedule {
    /// A cron expression of five fields.
    Cron {
        /// The expression.
        #[schemars(length(max = 64))]
        expression: String,
    },
    /// Every so many minutes.
    Interval {
        /// Minutes between two runs.
        minutes: i32,
    },
}

/// How many backups are kept. Adjacently tagged: `{"policy": "last", "count": 7}`.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(tag = "policy", content = "count", rename_all = "camelCase")]
// Every variant carries an `i32`, so `count` is an integer in the schema.
#[cel(
    rule = "self.policy != 'last' || self.count <= 100",
    message = "keep at most the last 100 backups"
)]
pub enum Retention {
    /// The last N backups.
    Last(i32),
    /// The backups of the last N days.
    Days(i32),
}

/// A port by number or by name: `8080` or `"http"`.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum PortRef {
    /// A port number.
    Number(i32),
    /// A named port.
    Name(String),
}

/// A database backup.
#[derive(CustomResource, CelValidate, Serialize, Deserialize, Clone, Debug)]
#[kube(
    group = "backup.example.com",
    version = "v1",
    kind = "Backup",
    namespaced
)]
pub struct BackupSpec {
    /// Where to write.
    pub destination: Destination,
    /// When to run.
    pub schedule: Schedule,
    /// What to keep.
    pub retention: Retention,
    /// The database's port. `type(self)` tells an integer from a string.
    #[cel(
        rule = "type(self) == string || (self > 0 && self <= 65535)",
        message = "a port number is 1 to 65535"
    )]
    pub port: PortRef,
}

fn main() {
    // The CRD: kube's own schema rewriting cannot make internally or adjacently tagged enums
    // structural (kube-rs issue 1279); the derive merges their variants into one object, and
    // the apiserver's CRD-creation checks accept it.
    let crd = serde_json::to_value(Backup::crd()).expect("the CRD serializes");
    let report = crd_cel::crd::check_crd(&crd, &Default::default()).expect("a CRD");
    assert!(report.accepted(), "{}", report.text());
    // A validator from the manifest, to show that it agrees with the Rust types on every case.
    let manifest = Validator::from_crd(&crd, None).expect("a CRD with a schema");
    let agree = |spec: &BackupSpec| {
        let backup = Backup::new("nightly", spec.clone());
        let object = serde_json::to_value(&backup).expect("serializes");
        let out = manifest.validate_request(&object, None, Endpoint::Resource);
        assert_eq!(backup.validate().err().unwrap_or_default(), out.errors);
    };

    let good = BackupSpec {
        destination: Destination::S3 {
            bucket: BucketName("db-backups".into()),
            region: "eu-west-1".into(),
        },
        schedule: Schedule::Cron {
            expression: "0 3 * * *".into(),
        },
        retention: Retention::Last(7),
        port: PortRef::Number(5432),
    };
    // What the rules see is the JSON serde writes.
    println!(
        "a valid spec, as the apiserver gets it: {}",
        serde_json::to_string(&good).expect("serializes")
    );
    assert!(good.validate().is_ok());

    let cases = [
        (
            "an S3 bucket with an underscore, bucket and region swapped",
            BackupSpec {
                destination: Destination::S3 {
                    bucket: BucketName("eu_west_1".into()),
                    region: "eu_west_1".into(),
                },
                ..good.clone()
            },
            "[destination: Invalid value: bucket and region look swapped, \
             destination.s3.bucket: Invalid value: \"eu_west_1\": not an S3 bucket name]",
        ),
        (
            "a cron expression of four fields",
            BackupSpec {
                schedule: Schedule::Cron {
                    expression: "0 3 * *".into(),
                },
                ..good.clone()
            },
            "schedule: Invalid value: a cron expression has five fields",
        ),
        (
            "an interval of 7 minutes",
            BackupSpec {
                schedule: Schedule::Interval { minutes: 7 },
                ..good.clone()
            },
            "schedule: Invalid value: intervals are whole multiples of 5 minutes",
        ),
        (
            "an interval of 0 minutes",
            BackupSpec {
                schedule: Schedule::Interval { minutes: 0 },
                ..good.clone()
            },
            "schedule: Invalid value: at least 5 minutes apart",
        ),
        (
            "keep the last 365",
            BackupSpec {
                retention: Retention::Last(365),
                ..good.clone()
            },
            "retention: Invalid value: keep at most the last 100 backups",
        ),
        (
            "port 70000",
            BackupSpec {
                port: PortRef::Number(70000),
                ..good.clone()
            },
            "port: Invalid value: 70000: a port number is 1 to 65535",
        ),
    ];
    for (what, spec, expected) in cases {
        let errors = spec.validate().expect_err(what);
        println!("{what}: {errors}");
        assert_eq!(errors.to_string(), expected, "{what}");
        agree(&spec);
    }

    // Other variants pass the same rules: a volume, an interval of 30 minutes, 365 days, a
    // named port.
    let other = BackupSpec {
        destination: Destination::Volume("backup-claim".into()),
        schedule: Schedule::Interval { minutes: 30 },
        retention: Retention::Days(365),
        port: PortRef::Name("postgres".into()),
    };
    println!(
        "other variants: {}",
        serde_json::to_string(&other).expect("serializes")
    );
    assert!(other.validate().is_ok(), "{:?}", other.validate());
    agree(&other);
    agree(&good);
    println!("enums: every verdict is as expected");
}
