// A data-carrying enum's variants merge into one schema node, so neither a variant nor a
// variant's field is a node of its own: the error says where the rule goes instead.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Storage {
    #[cel(rule = "has(self.bucket)")]
    S3 {
        #[cel(rule = "self.size() > 2")]
        bucket: String,
    },
    Disk {
        size: i64,
    },
}

fn main() {}
