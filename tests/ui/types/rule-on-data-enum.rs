// A data-carrying enum's model is built from its variants at compile time, so a rule on the
// enum that reads into a variant is checked by the build: here the internally tagged enum is
// one object with the tag and every variant's fields.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[cel(rule = "self.kind != 'git' || self.ulr.startsWith('https://')")]
enum Source {
    Git { url: String },
    Local { path: String },
}

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cel(rule = "!has(self.bucket) || self.bucket.name.size() > 1")]
#[cel(rule = "!has(self.volume) || self.volume.size > 0")]
enum Storage {
    Volume(Volume),
    Bucket { name: String },
}

#[derive(CelValidate, Serialize, Deserialize)]
struct Volume {
    size: String,
}

fn main() {}
