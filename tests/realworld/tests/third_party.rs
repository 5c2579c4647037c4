//! With crd-cel's `chrono`, `uuid`, `url` and `semver` features, these crates' types have
//! build-time models, each equal to the schema schemars generates for it.

use crd_cel::CelSchema;
use crd_cel::schema::{compare, generate};

fn assert_agrees<T: CelSchema + schemars::JsonSchema>() {
    let json = generate::<T>();
    let diffs = compare(&T::MODEL, &json).unwrap();
    assert!(
        diffs.is_empty(),
        "{}: {diffs:?}",
        std::any::type_name::<T>()
    );
    assert!(!T::MODEL.contains_unknown());
}

#[test]
fn models_agree_with_schemars() {
    assert_agrees::<chrono::DateTime<chrono::Utc>>();
    assert_agrees::<chrono::DateTime<chrono::FixedOffset>>();
    assert_agrees::<chrono::NaiveDate>();
    assert_agrees::<chrono::NaiveDateTime>();
    assert_agrees::<chrono::NaiveTime>();
    assert_agrees::<chrono::Weekday>();
    assert_agrees::<uuid::Uuid>();
    assert_agrees::<url::Url>();
    assert_agrees::<semver::Version>();
}
