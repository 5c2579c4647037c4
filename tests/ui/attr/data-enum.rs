use crd_cel::CelValidate;
use serde::{Deserialize, Serialize};

#[derive(CelValidate, Serialize, Deserialize)]
enum Source {
    Git { url: String },
    Local,
}

fn main() {}
