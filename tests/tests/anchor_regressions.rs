//! One test per divergence from the apiserver measured in kube-rs 5's `validate_cel()`
//! (ARCHITECTURE.md, "What the anchor does"), each asserting the apiserver's verdict through
//! crd-cel's derived `CelValidate`. (The compile-time ones, a syntax error, an undefined field,
//! a type error and a non-bool rule shipping in the CRD, are trybuild cases in `tests/ui`.)

use std::collections::BTreeSet;

use crd_cel::{CelValidate, ErrorType};
use serde::{Deserialize, Serialize};

/// kube-cel compares a `set` list in order: `self.tags == ['b', 'a']` is false for `[a, b]`
/// there, and `!=` passes (fail-open). The apiserver compares sets ignoring order.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.tags == ['b', 'a']",
    message = "tags must be exactly a and b"
)]
struct SetEquality {
    #[cel(list_type = "set")]
    tags: BTreeSet<String>,
}

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(rule = "self.tags != ['b', 'a']", message = "tags must not be a and b")]
struct SetInequality {
    #[cel(list_type = "set")]
    tags: BTreeSet<String>,
}

#[test]
fn set_lists_compare_without_order() {
    let tags = BTreeSet::from(["a".to_owned(), "b".to_owned()]);
    assert_eq!(SetEquality { tags: tags.clone() }.validate(), Ok(()));
    let err = SetInequality { tags }.validate().unwrap_err();
    assert_eq!(
        err.to_string(),
        "<nil>: Invalid value: tags must not be a and b"
    );
}

/// kube-cel pairs list items by index for every list in transition rules; the apiserver pairs
/// the items of a `map` list by key, so reordering is not a change.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct Ports {
    #[cel(list_type = "map", list_map_keys = ["name"])]
    ports: Vec<Port>,
}

#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.port == oldSelf.port",
    message = "a port's number is immutable"
)]
struct Port {
    name: String,
    port: i32,
}

fn port(name: &str, port: i32) -> Port {
    Port {
        name: name.into(),
        port,
    }
}

#[test]
fn map_list_items_correlate_by_key() {
    let old = Ports {
        ports: vec![port("a", 1), port("b", 2)],
    };
    let reordered = Ports {
        ports: vec![port("b", 2), port("a", 1)],
    };
    assert_eq!(reordered.validate_update(&old), Ok(()));
    let changed = Ports {
        ports: vec![port("b", 3), port("a", 1), port("c", 9)],
    };
    let err = changed.validate_update(&old).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ports[0]: Invalid value: a port's number is immutable",
        "only b changed; c is new and has no oldSelf"
    );
}

/// kube-cel's optionalOldSelf does not work; the apiserver runs such a rule on create too, with
/// `oldSelf` `optional.none()`.
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
struct Version {
    #[cel(
        rule = "!oldSelf.hasValue() || self >= oldSelf.value()",
        message = "the version may not go down",
        optional_old_self
    )]
    version: i64,
    #[cel(
        rule = "oldSelf.hasValue() || self == 'initial'",
        message = "new objects start in the initial phase",
        optional_old_self
    )]
    phase: String,
}

#[test]
fn optional_old_self_runs_on_create_and_update() {
    let v = |version, phase: &str| Version {
        version,
        phase: phase.into(),
    };
    assert_eq!(v(1, "initial").validate(), Ok(()));
    let err = v(1, "running").validate().unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"phase: Invalid value: "running": new objects start in the initial phase"#
    );
    assert_eq!(v(2, "running").validate_update(&v(1, "initial")), Ok(()));
    let err = v(1, "running")
        .validate_update(&v(2, "running"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "version: Invalid value: 1: the version may not go down"
    );
}

/// kube-cel escapes `_` wrongly; the apiserver leaves a single `_` alone and writes `__` as
/// `__underscores__` (k8s.io/apiserver/pkg/cel/escaping.go).
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.max_size >= self.min__underscores__size",
    message = "max_size below min__size"
)]
#[cel(
    rule = "self.__namespace__ != 'kube-system'",
    message = "not in kube-system"
)]
struct Escaping {
    max_size: i32,
    #[serde(rename = "min__size")]
    min_size: i32,
    namespace: String,
}

#[test]
fn property_names_are_escaped_as_the_apiserver_does() {
    let ok = Escaping {
        max_size: 2,
        min_size: 1,
        namespace: "default".into(),
    };
    assert_eq!(ok.validate(), Ok(()));
    let bad = Escaping {
        max_size: 0,
        min_size: 1,
        namespace: "kube-system".into(),
    };
    let err = bad.validate().unwrap_err();
    assert_eq!(
        err.to_string(),
        "[<nil>: Invalid value: max_size below min__size, <nil>: Invalid value: not in kube-system]"
    );
}

/// kube-cel has no runtime cost limit (a 4M-iteration rule ran for a second); the apiserver
/// cancels an evaluation past 1,000,000 cost units and stops validating. (This rule's static
/// estimate, about 7M with at most 1000 items, is under the CRD-time limit of 10M, so it is
/// accepted at `cargo build` and only the runtime limit stops it.)
#[derive(CelValidate, Serialize, Deserialize, Clone, Debug)]
#[cel(
    rule = "self.items.all(x, self.items.all(y, x + y >= 0))",
    message = "quadratic"
)]
#[cel(rule = "false", message = "never evaluated: validation stopped")]
struct Expensive {
    #[cel(max_items = 1000)]
    items: Vec<i64>,
}

#[test]
fn the_per_call_cost_limit_cuts_off_expensive_rules() {
    let small = Expensive {
        items: vec![1, 2, 3],
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        small.errors.len(),
        1,
        "only the `false` rule fails: {small}"
    );
    let err = Expensive {
        items: (0..1000).collect(),
    }
    .validate()
    .unwrap_err();
    assert_eq!(err.errors.len(), 1, "{err}");
    assert_eq!(err.errors[0].kind, ErrorType::Invalid);
    assert_eq!(
        err.to_string(),
        "<nil>: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: quadratic"
    );
}
