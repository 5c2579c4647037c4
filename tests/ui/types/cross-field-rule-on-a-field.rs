// A rule comparing fields written on one of them: on a field, `self` is the field (an int),
// and the hint says where the rule belongs.
use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BackupSpec {
    #[cel(rule = "self >= self.verifyLast", message = "keep at least what is verified")]
    keep: i32,
    verify_last: i32,
}

fn main() {}
