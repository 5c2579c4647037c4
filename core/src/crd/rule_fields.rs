//! The rule field checks the apiserver runs on every `x-kubernetes-validations` entry before it
//! compiles anything (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`), as data: the derive reports them on the attribute
//! at expansion time, the CLI prints them with the rule's path. One implementation, the
//! apiserver's order and texts.

use crate::crd::field_path::valid_field_path;
use crate::model::{Reason, Schema};
use core::fmt;

/// The field of a validation rule an error is reported at (`x-kubernetes-validations[i].<field>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleField {
    /// `rule`.
    Rule,
    /// `message`.
    Message,
    /// `messageExpression`.
    MessageExpression,
    /// `reason`.
    Reason,
    /// `fieldPath`.
    FieldPath,
    /// `optionalOldSelf`.
    OptionalOldSelf,
}

impl RuleField {
    /// The JSON name, the last segment of the error's path.
    pub const fn as_str(self) -> &'static str {
        match self {
            RuleField::Rule => "rule",
            RuleField::Message => "message",
            RuleField::MessageExpression => "messageExpression",
            RuleField::Reason => "reason",
            RuleField::FieldPath => "fieldPath",
            RuleField::OptionalOldSelf => "optionalOldSelf",
        }
    }
}

/// The kind of a field error (apimachinery's `field.ErrorType`), as far as rule checks use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `Required value`.
    Required,
    /// `Invalid value`.
    Invalid,
    /// `Unsupported value`.
    Unsupported,
}

impl ErrorKind {
    /// The text that opens the error body (`field.ErrorType.String()`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Required => "Required value",
            ErrorKind::Invalid => "Invalid value",
            ErrorKind::Unsupported => "Unsupported value",
        }
    }

    /// The `reason` of the Status cause (`FieldValueRequired`, ...).
    pub const fn reason(self) -> &'static str {
        match self {
            ErrorKind::Required => "FieldValueRequired",
            ErrorKind::Invalid => "FieldValueInvalid",
            ErrorKind::Unsupported => "FieldValueNotSupported",
        }
    }
}

/// The value an error shows (`Invalid value: "<value>": ...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadValue<'a> {
    /// No value is shown (`Required value: ...`).
    None,
    /// A string, shown Go-quoted.
    Str(&'a str),
    /// A boolean.
    Bool(bool),
}

/// What is wrong with a rule field: callers match on this (the derive's hints), never on the
/// text, which [`Problem::detail`] gives as the apiserver words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Problem {
    /// An empty `rule`.
    RuleNotSpecified,
    /// A `message` or `fieldPath` that is only white space.
    Blank,
    /// A `message` or `fieldPath` with a line break.
    LineBreak,
    /// A rule with a line break has no `message`.
    MessageRequired,
    /// A `messageExpression` that is only white space.
    MessageExpressionBlank,
    /// A `reason` that is not one of the four.
    UnsupportedReason,
    /// A `fieldPath` that does not resolve in the schema.
    InvalidPath,
    /// `optionalOldSelf` on a rule that does not use `oldSelf`.
    OldSelfUnused,
}

impl Problem {
    /// The apiserver's detail text.
    pub const fn detail(self) -> &'static str {
        match self {
            Problem::RuleNotSpecified => "rule is not specified",
            Problem::Blank => "must be non-empty if specified",
            Problem::LineBreak => "must not contain line breaks",
            Problem::MessageRequired => "message must be specified if rule contains line breaks",
            Problem::MessageExpressionBlank => "messageExpression must be non-empty if specified",
            Problem::UnsupportedReason => SUPPORTED_REASONS,
            Problem::InvalidPath => "must be a valid path",
            Problem::OldSelfUnused => OPTIONAL_OLD_SELF_UNUSED,
        }
    }
}

/// One rule field error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleFieldError<'a> {
    /// The field it is reported at.
    pub field: RuleField,
    /// The error type.
    pub kind: ErrorKind,
    /// The value shown.
    pub value: BadValue<'a>,
    /// What is wrong.
    pub problem: Problem,
}

impl RuleFieldError<'_> {
    /// The detail (`rule is not specified`, `must be a valid path`, ...).
    pub const fn detail(&self) -> &'static str {
        self.problem.detail()
    }

    /// The error as the apiserver prints it after the path (`field.Error.ErrorBody`):
    /// `Invalid value: "   ": must be non-empty if specified`.
    pub fn body(&self) -> String {
        let mut s = self.kind.as_str().to_owned();
        match self.value {
            BadValue::None => {}
            BadValue::Str(v) => {
                s.push_str(": ");
                s.push_str(&go_quote(v));
            }
            BadValue::Bool(b) => {
                s.push_str(": ");
                s.push_str(if b { "true" } else { "false" });
            }
        }
        s.push_str(": ");
        s.push_str(self.detail());
        s
    }
}

impl fmt::Display for RuleFieldError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field.as_str(), self.body())
    }
}

/// The fields of one validation rule as written (an unknown `reason` is kept as text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RuleInput<'a> {
    /// `rule`.
    pub rule: &'a str,
    /// `message` (`None` and `""` are the same to the apiserver).
    pub message: Option<&'a str>,
    /// `messageExpression`.
    pub message_expression: Option<&'a str>,
    /// `reason`, as written.
    pub reason: Option<&'a str>,
    /// `fieldPath`.
    pub field_path: Option<&'a str>,
    /// `optionalOldSelf`.
    pub optional_old_self: Option<bool>,
}

/// The detail of the `reason` error: the supported values, sorted as the apiserver lists them.
pub const SUPPORTED_REASONS: &str = "supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"";

/// `[\n\r]`, the apiserver's line break test for CRD rules.
fn has_line_break(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

/// The rule field checks of `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`, in the apiserver's order.
///
/// The first four checks form an if/else chain (only the first that applies is reported), the
/// others are independent. `schema` is the node holding the rule: with it a non-empty
/// `fieldPath` is resolved (`must be a valid path`); without it (the derive at expansion time,
/// which does not know the field types) that check is left to the caller.
pub fn check_rule_fields<'a>(
    r: &RuleInput<'a>,
    schema: Option<&Schema<'_>>,
) -> Vec<RuleFieldError<'a>> {
    let mut out = Vec::new();
    let mut push = |field, kind, value, problem| {
        out.push(RuleFieldError {
            field,
            kind,
            value,
            problem,
        })
    };
    let rule = r.rule.trim();
    let message = r.message.unwrap_or("");
    let trimmed_message = message.trim();
    if rule.is_empty() {
        push(
            RuleField::Rule,
            ErrorKind::Required,
            BadValue::None,
            Problem::RuleNotSpecified,
        );
    } else if !message.is_empty() && trimmed_message.is_empty() {
        push(
            RuleField::Message,
            ErrorKind::Invalid,
            BadValue::Str(message),
            Problem::Blank,
        );
    } else if has_line_break(trimmed_message) {
        push(
            RuleField::Message,
            ErrorKind::Invalid,
            BadValue::Str(message),
            Problem::LineBreak,
        );
    } else if has_line_break(rule) && trimmed_message.is_empty() {
        push(
            RuleField::Message,
            ErrorKind::Required,
            BadValue::None,
            Problem::MessageRequired,
        );
    }
    if let Some(me) = r.message_expression
        && !me.is_empty()
        && me.trim().is_empty()
    {
        push(
            RuleField::MessageExpression,
            ErrorKind::Required,
            BadValue::None,
            Problem::MessageExpressionBlank,
        );
    }
    if let Some(reason) = r.reason
        && Reason::parse(reason).is_none()
    {
        push(
            RuleField::Reason,
            ErrorKind::Unsupported,
            BadValue::Str(reason),
            Problem::UnsupportedReason,
        );
    }
    if let Some(fp) = r.field_path
        && !fp.is_empty()
    {
        if fp.trim().is_empty() {
            push(
                RuleField::FieldPath,
                ErrorKind::Invalid,
                BadValue::Str(fp),
                Problem::Blank,
            );
        }
        if has_line_break(fp) {
            push(
                RuleField::FieldPath,
                ErrorKind::Invalid,
                BadValue::Str(fp),
                Problem::LineBreak,
            );
        }
        if let Some(s) = schema
            && valid_field_path(s, fp).is_err()
        {
            push(
                RuleField::FieldPath,
                ErrorKind::Invalid,
                BadValue::Str(fp),
                Problem::InvalidPath,
            );
        }
    }
    out
}

/// The apiserver's detail for `optionalOldSelf` on a rule that does not use `oldSelf`.
pub const OPTIONAL_OLD_SELF_UNUSED: &str = "may not be set if oldSelf is not used in rule";

/// The check after compilation (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`): `optionalOldSelf` may be set only on a
/// rule that uses `oldSelf`. A rule that failed to compile counts as not using it.
pub fn check_optional_old_self<'a>(
    r: &RuleInput<'a>,
    uses_old_self: bool,
) -> Option<RuleFieldError<'a>> {
    match r.optional_old_self {
        Some(b) if !uses_old_self => Some(RuleFieldError {
            field: RuleField::OptionalOldSelf,
            kind: ErrorKind::Invalid,
            value: BadValue::Bool(b),
            problem: Problem::OldSelfUnused,
        }),
        _ => None,
    }
}

/// A string quoted as Go's `%q` (`strconv.Quote`) prints it, which is how the apiserver shows
/// string values in field errors ([`crate::go::quote`]).
pub use crate::go::quote as go_quote;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Property, Type};

    fn texts(r: RuleInput<'_>, schema: Option<&Schema<'_>>) -> Vec<String> {
        check_rule_fields(&r, schema)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn rule(rule: &str) -> RuleInput<'_> {
        RuleInput {
            rule,
            ..RuleInput::default()
        }
    }

    const STR: Schema<'static> = Schema::of(Type::String);
    const OBJ: Schema<'static> = Schema {
        properties: &[Property {
            name: "a",
            required: false,
            schema: &STR,
        }],
        ..Schema::of(Type::Object)
    };

    #[test]
    fn first_four_checks_are_a_chain() {
        assert_eq!(
            texts(rule("  "), None),
            ["rule: Required value: rule is not specified"]
        );
        // An empty rule hides the message checks.
        assert_eq!(
            texts(
                RuleInput {
                    message: Some("  "),
                    ..rule("")
                },
                None
            ),
            ["rule: Required value: rule is not specified"]
        );
        assert_eq!(
            texts(
                RuleInput {
                    message: Some("   "),
                    ..rule("true")
                },
                None
            ),
            ["message: Invalid value: \"   \": must be non-empty if specified"]
        );
        assert_eq!(
            texts(
                RuleInput {
                    message: Some(" must be\npositive "),
                    ..rule("true &&\ntrue")
                },
                None
            ),
            ["message: Invalid value: \" must be\\npositive \": must not contain line breaks"]
        );
        assert_eq!(
            texts(
                RuleInput {
                    message: Some("a\rb"),
                    ..rule("true")
                },
                None
            ),
            ["message: Invalid value: \"a\\rb\": must not contain line breaks"]
        );
        assert_eq!(
            texts(rule("true &&\ntrue"), None),
            ["message: Required value: message must be specified if rule contains line breaks"]
        );
        // `message: ""` is no message.
        assert_eq!(
            texts(
                RuleInput {
                    message: Some(""),
                    ..rule("true &&\r\ntrue")
                },
                None
            ),
            ["message: Required value: message must be specified if rule contains line breaks"]
        );
        // Line breaks around the rule are trimmed away.
        assert!(texts(rule("\n true \n"), None).is_empty());
        assert!(
            texts(
                RuleInput {
                    message: Some("ok"),
                    ..rule("true &&\ntrue")
                },
                None
            )
            .is_empty()
        );
    }

    #[test]
    fn independent_checks() {
        assert_eq!(
            texts(
                RuleInput {
                    message_expression: Some("  "),
                    reason: Some("FieldValueBogus"),
                    ..rule("")
                },
                None
            ),
            [
                "rule: Required value: rule is not specified",
                "messageExpression: Required value: messageExpression must be non-empty if specified",
                "reason: Unsupported value: \"FieldValueBogus\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
            ]
        );
        assert!(
            texts(
                RuleInput {
                    message_expression: Some(""),
                    reason: Some("FieldValueForbidden"),
                    ..rule("true")
                },
                None
            )
            .is_empty()
        );
    }

    #[test]
    fn field_path_checks() {
        assert_eq!(
            texts(
                RuleInput {
                    field_path: Some(" \n "),
                    ..rule("true")
                },
                Some(&OBJ)
            ),
            [
                "fieldPath: Invalid value: \" \\n \": must be non-empty if specified",
                "fieldPath: Invalid value: \" \\n \": must not contain line breaks",
                "fieldPath: Invalid value: \" \\n \": must be a valid path",
            ]
        );
        assert_eq!(
            texts(
                RuleInput {
                    field_path: Some(".nope"),
                    ..rule("true")
                },
                Some(&OBJ)
            ),
            ["fieldPath: Invalid value: \".nope\": must be a valid path"]
        );
        // Without a schema the path is not resolved.
        assert!(
            texts(
                RuleInput {
                    field_path: Some(".nope"),
                    ..rule("true")
                },
                None
            )
            .is_empty()
        );
        assert!(
            texts(
                RuleInput {
                    field_path: Some(".a"),
                    ..rule("true")
                },
                Some(&OBJ)
            )
            .is_empty()
        );
        assert!(
            texts(
                RuleInput {
                    field_path: Some(""),
                    ..rule("true")
                },
                Some(&OBJ)
            )
            .is_empty()
        );
    }

    #[test]
    fn optional_old_self() {
        let r = RuleInput {
            optional_old_self: Some(true),
            ..rule("self.a != ''")
        };
        assert_eq!(
            check_optional_old_self(&r, false).map(|e| e.to_string()),
            Some("optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule".to_owned())
        );
        assert_eq!(check_optional_old_self(&r, true), None);
        assert_eq!(check_optional_old_self(&rule("true"), false), None);
    }
}
