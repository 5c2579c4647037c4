//! The derive's output names everything by absolute path and triggers no lint: it compiles with
//! the prelude's names shadowed and with warnings denied (as serde's and thiserror's hygiene
//! tests do).
#![deny(warnings, missing_docs, unused_qualifications, unused_results, trivial_casts)]
#![deny(trivial_numeric_casts, unreachable_pub, unused_import_braces, unsafe_code)]

mod shadowed {
    #![allow(dead_code)]
    use serde::{Deserialize, Serialize};

    // Every prelude name the expansion could reach for, shadowed (but `Some` and `None`:
    // schemars' own derive, which the expansion runs on its shadow type, uses the prelude's).
    type Result = ();
    type Option = ();
    struct Ok;
    struct Err;
    struct Box;
    struct Vec;
    struct Default;
    struct Clone;
    struct Send;
    struct Sized;
    struct Sync;
    mod core {}
    mod std {}
    mod alloc {}
    mod schemars {}
    mod serde_json {}

    /// A spec with every kind of rule and key (kube's `CustomResource` is not hygienic itself,
    /// so the root is derived below, outside the shadows).
    #[derive(crd_cel::CelValidate, Serialize, Deserialize, ::std::clone::Clone, Debug)]
    #[cel(rule = "self.a <= 10", message = "at most 10", reason = "FieldValueForbidden", field_path = ".a")]
    #[cel(rule = "self.a == oldSelf.a", message_expression = "self.a > 5 ? 'a is large' : 'a is small'")]
    pub struct HygienicSpec {
        /// A number.
        #[cel(rule = "self >= 0")]
        pub a: i32,
        /// Items.
        #[cel(list_type = "map", list_map_keys = ["name"], max_items = 4)]
        pub items: ::std::vec::Vec<Item>,
        /// A choice.
        pub choice: Choice,
        /// Optional.
        #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
        pub label: ::std::option::Option<::std::string::String>,
    }

    /// An item.
    #[derive(crd_cel::CelValidate, Serialize, Deserialize, ::std::clone::Clone, Debug)]
    pub struct Item {
        /// The key.
        #[cel(rule = "self.size() < 10")]
        pub name: ::std::string::String,
    }

    /// A data-carrying enum.
    #[derive(crd_cel::CelValidate, Serialize, Deserialize, ::std::clone::Clone, Debug)]
    #[serde(tag = "kind")]
    #[cel(rule = "self.kind != 'B' || self.n > 0")]
    pub enum Choice {
        /// A.
        A,
        /// B.
        B {
            /// n.
            n: i64,
        },
    }

    /// A generic type.
    #[derive(crd_cel::CelValidate, Serialize, Deserialize, ::std::clone::Clone, Debug)]
    #[cel(rule = "self.min <= self.max")]
    pub struct Range<T> {
        /// Lower.
        pub min: T,
        /// Upper.
        pub max: T,
    }
}

/// Types written inside a `macro_rules!` body (one source, instantiated per API version, as
/// operators do): their tokens carry the macro's hygiene, which the derive's locals must share.
macro_rules! versioned {
    ($name:ident, $max:literal) => {
        /// A versioned part.
        #[derive(crd_cel::CelValidate, serde::Serialize, serde::Deserialize, Clone, Debug)]
        #[cel(rule = "self.size <= 10", field_path = ".size")]
        pub struct $name {
            /// A size.
            #[cel(rule = "self >= 0")]
            pub size: i32,
            /// Ports.
            #[cel(list_type = "map", list_map_keys = ["name"], max_items = $max)]
            pub ports: Vec<shadowed::Item>,
        }
    };
}
versioned!(PartV1, 4);
versioned!(PartV2, 8);

/// The kube root over the shadowed spec's parts.
#[derive(kube::CustomResource, crd_cel::CelValidate, serde::Serialize, serde::Deserialize, Clone, Debug)]
#[kube(group = "example.com", version = "v1", kind = "Hygienic", validation = "self.spec.inner.a >= 0")]
pub struct HygienicRootSpec {
    /// The shadowed spec.
    pub inner: shadowed::HygienicSpec,
    /// A generic type's instantiation.
    pub range: shadowed::Range<i64>,
    /// A type from a `macro_rules!` body.
    pub part_v1: PartV1,
    /// The other instantiation.
    pub part_v2: PartV2,
}

/// A root whose status is named by a bare path (kube's darling reads `status = Path` as well
/// as a string) and whose fields are not snake case, allowed where the user allows them: the
/// derive's copies of the type add no lint of their own.
#[derive(kube::CustomResource, crd_cel::CelValidate, serde::Serialize, serde::Deserialize, Clone, Debug)]
#[kube(group = "example.com", version = "v1", kind = "Camel", status = CamelStatus)]
#[allow(non_snake_case)]
pub struct CamelSpec {
    /// A camel-case field.
    #[cel(rule = "self >= 0")]
    pub poolMode: i32,
}

/// The status (rustc reads `non_snake_case` on the struct, not on a field).
#[derive(crd_cel::CelValidate, serde::Serialize, serde::Deserialize, Clone, Debug)]
#[allow(non_snake_case)]
pub struct CamelStatus {
    /// A camel-case field.
    pub destinationPath: Option<String>,
}

/// A deprecated type, still used where the user allows it.
#[deprecated(note = "use something else")]
#[derive(crd_cel::CelValidate, serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct Old {
    /// A field.
    pub n: i32,
}

/// A struct holding the deprecated type, and a deprecated field, with `deprecated` allowed.
#[allow(deprecated)]
#[derive(crd_cel::CelValidate, serde::Serialize, serde::Deserialize, Clone, Debug)]
pub struct HoldsOld {
    /// The deprecated type.
    #[cel(rule = "self.n >= 0")]
    pub old: Old,
    /// A deprecated field.
    #[deprecated(note = "gone soon")]
    #[serde(default)]
    pub legacy: i32,
}

fn main() {
    #[allow(deprecated)]
    let held = HoldsOld { old: Old { n: 1 }, legacy: 0 };
    assert!(crd_cel::CelValidate::validate(&held).is_ok());
    let camel = Camel::new("c", CamelSpec { poolMode: 1 });
    assert!(crd_cel::CelValidate::validate(&camel).is_ok());
    let report = crd_cel::crd::check_resource::<Camel>(&Default::default());
    assert!(report.unwrap().accepted());
    let report = crd_cel::crd::check_resource::<Hygienic>(&Default::default());
    assert!(report.unwrap().accepted());
    crd_cel_tests::assert_cli_accepts_resource::<Hygienic>();
}
