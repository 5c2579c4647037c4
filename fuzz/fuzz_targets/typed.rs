//! JSON bytes decoded into the example types (`WebApp`, and the realworld `Workload` with a
//! pod template, enums, flatten and generics) -> the derive's `validate()`, and
//! `validate_update()` when a second object follows a NUL byte.
#![no_main]

use crd_cel::CelValidate;
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeOwned;

fn run<T: CelValidate + DeserializeOwned>(new: &[u8], old: Option<&[u8]>) {
    let Ok(new) = serde_json::from_slice::<T>(new) else {
        return;
    };
    match old.map(serde_json::from_slice::<T>) {
        Some(Ok(old)) => {
            let _ = new.validate_update(&old).map_err(|e| e.to_string());
        }
        _ => {
            let _ = new.validate().map_err(|e| e.to_string());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let (new, old) = match rest.iter().position(|&b| b == 0) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if selector & 1 == 0 {
        run::<crd_cel_examples::WebApp>(new, old);
    } else {
        run::<crd_cel_realworld::crd::Workload>(new, old);
    }
});
