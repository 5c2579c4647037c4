//! What the apiservers of older releases print differently, in one place: `Validator` keeps
//! the release it answers for (`with_kubernetes_version`), and the stages that write these
//! texts ask here. Each difference names the release it ended with; the oracle built against
//! those releases (`tests/oracle`, `conformance --kubernetes-version`) is the reference.

use super::{BadValue, FieldError};
use serde_json::Value as Json;

/// `field.TooLong`'s detail (the total size of annotations). Up to 1.31 "must have at most N
/// bytes"; from 1.32 "may not be more than N bytes"; from 1.34 "1 byte" in the singular
/// (`k8s.io/apimachinery/pkg/util/validation/field/errors.go`).
pub(crate) fn too_long(max: u64, minor: u8) -> String {
    if minor <= 31 {
        format!("must have at most {max} bytes")
    } else if max == 1 && minor >= 34 {
        format!("may not be more than {max} byte")
    } else {
        format!("may not be more than {max} bytes")
    }
}

/// The detail of a schema's `maxLength` error. Up to 1.31 apiextensions reported it with
/// `field.TooLongMaxLength` ("may not be longer than N"); from 1.32 with `field.TooLong`.
pub(crate) fn too_long_max_length(max: u64, minor: u8) -> String {
    if minor <= 31 {
        format!("may not be longer than {max}")
    } else {
        too_long(max, minor)
    }
}

/// Whether a status update's schema errors are at `status.x` (from 1.31) or, as before, at
/// `x` (`ValidateStatusUpdate` passed a nil path).
pub(crate) fn status_errors_under_status(minor: u8) -> bool {
    minor >= 31
}

/// The `format` a node's validator keeps at release 1.`minor`
/// (`StripUnsupportedFormatsPostProcessorForVersion` in apiextensions' `validation/formats.go`):
/// from 1.36 `int32`/`int64` on integers, `float`/`double` on numbers and the string formats
/// on strings only; before, the string formats whatever the type, and no numeric format.
pub(crate) fn kept_format<'a>(
    ty: Option<&str>,
    format: Option<&'a str>,
    minor: u8,
) -> Option<&'a str> {
    let f = format.filter(|f| !f.is_empty())?;
    let keep = if minor >= 36 {
        match ty {
            None | Some("string") => is_string_format(f, minor),
            Some("integer") => matches!(f, "int32" | "int64"),
            Some("number") => matches!(f, "float" | "double"),
            Some(_) => false,
        }
    } else {
        is_string_format(f, minor)
    };
    keep.then_some(f)
}

/// The string formats the apiserver keeps (names normalized as go-openapi does: `-` removed);
/// `k8s-short-name` and `k8s-long-name` from compatibility version 1.34 (apiserver 1.35).
fn is_string_format(f: &str, minor: u8) -> bool {
    match f.replace('-', "").as_str() {
        "bsonobjectid" | "uri" | "email" | "hostname" | "ipv4" | "ipv6" | "cidr" | "mac"
        | "uuid" | "uuid3" | "uuid4" | "uuid5" | "isbn" | "isbn10" | "isbn13" | "creditcard"
        | "ssn" | "hexcolor" | "rgbcolor" | "byte" | "password" | "date" | "duration"
        | "datetime" => true,
        "k8sshortname" | "k8slongname" => minor >= 35,
        _ => false,
    }
}

/// Whether kube-openapi's number validator knows the schema's type and format (from 1.36): it
/// then checks that the value and the bounds fit them (`Checked value must be of type integer
/// with format int32`) and compares them natively; before, it had neither.
pub(crate) fn number_validator_typed(minor: u8) -> bool {
    minor >= 36
}

/// Up to 1.33 apimachinery printed a nil value as "null" and compound values in Go syntax
/// (`field.Error.ErrorBody`).
pub(crate) fn adapt_values(errors: &mut [FieldError], minor: u8) {
    if minor > 33 {
        return;
    }
    for e in errors {
        if let BadValue::Value(v @ (Json::Null | Json::Object(_) | Json::Array(_))) = &e.value {
            e.value = BadValue::GoSyntax(v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_kept_per_release() {
        assert_eq!(
            kept_format(Some("integer"), Some("int32"), 36),
            Some("int32")
        );
        assert_eq!(kept_format(Some("integer"), Some("int32"), 35), None);
        assert_eq!(kept_format(Some("integer"), Some("date-time"), 36), None);
        assert_eq!(
            kept_format(Some("integer"), Some("date-time"), 34),
            Some("date-time")
        );
        assert_eq!(
            kept_format(Some("string"), Some("k8s-short-name"), 34),
            None
        );
        assert_eq!(
            kept_format(Some("string"), Some("k8s-short-name"), 35),
            Some("k8s-short-name")
        );
        assert_eq!(kept_format(Some("boolean"), Some("byte"), 37), None);
    }

    #[test]
    fn too_long_per_release() {
        assert_eq!(too_long_max_length(63, 31), "may not be longer than 63");
        assert_eq!(too_long_max_length(63, 32), "may not be more than 63 bytes");
        assert_eq!(too_long_max_length(1, 33), "may not be more than 1 bytes");
        assert_eq!(too_long_max_length(1, 34), "may not be more than 1 byte");
        assert_eq!(too_long(262144, 30), "must have at most 262144 bytes");
    }
}
