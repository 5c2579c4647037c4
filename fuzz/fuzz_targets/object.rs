//! Object bytes (JSON or YAML) -> `Validator::from_crd(CRD).validate_request`, create, and
//! update when the input holds a second object after a NUL byte. The first byte picks the CRD
//! and the endpoint (the resource or `/status`).
#![no_main]

#[path = "common.rs"]
mod common;

use crd_cel::Validator;
use crd_cel::validate::Endpoint;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::LazyLock;

static VALIDATORS: LazyLock<Vec<Validator>> = LazyLock::new(|| {
    common::crds()
        .iter()
        .filter_map(|crd| Validator::from_crd(crd, None).ok())
        .collect()
});

fn decode(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice(bytes)
        .ok()
        .or_else(|| serde_yaml::from_slice(bytes).ok())
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let validators = &*VALIDATORS;
    let validator = &validators[usize::from(selector & 0x7f) % validators.len()];
    let endpoint = if selector & 0x80 != 0 {
        Endpoint::Status
    } else {
        Endpoint::Resource
    };
    let (new, old) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let Some(new) = decode(new) else {
        return;
    };
    let old = old.and_then(decode);
    let outcome = validator.validate_request(&new, old.as_ref(), endpoint);
    let _ = outcome.is_valid();
});
