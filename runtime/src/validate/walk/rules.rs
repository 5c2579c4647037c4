//! A node's rules: evaluated in order against the shared budget, each failure turned into the
//! apiserver's error (`validation.go`'s `validateExpressions`), or into a warning when
//! ratcheting lets an unchanged node keep it.

use serde_json::Value as Json;

use super::{Data, Ratchet, Walk};
use crate::eval::error::ErrorKind;
use crate::eval::value::Value;
use crate::model::Reason;
use crate::tree::SchemaNode;
use crate::validate::path::Path;
use crate::validate::{BadValue, CompiledRule, ErrorType, FieldError, go_quoted};

/// `MaxEvaluatedMessageExpressionSizeBytes`.
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

impl Walk<'_> {
    fn out_of_budget(&mut self, path: &Path<'_>, s: &SchemaNode) {
        self.remaining = -1;
        if self.fail_fast() {
            return;
        }
        self.errors.push(FieldError {
            kind: ErrorType::Invalid,
            path: path.field(),
            value: BadValue::TypeName(s.type_name()),
            detail: "validation failed due to running out of cost budget, no further validation rules will be run".into(),
        });
        self.stopped = true;
    }

    fn invalid(&mut self, path: &Path<'_>, s: &SchemaNode, detail: impl FnOnce() -> String) {
        if self.fail_fast() {
            return;
        }
        self.errors.push(FieldError {
            kind: ErrorType::Invalid,
            path: path.field(),
            value: BadValue::TypeName(s.type_name()),
            detail: detail(),
        });
    }

    pub(super) fn rules(
        &mut self,
        s: &SchemaNode,
        path: &Path<'_>,
        new: Data<'_>,
        value: &Value,
        old: Option<Data<'_>>,
        ratchet: Option<&Ratchet<'_>>,
    ) {
        if self.remaining <= 0 {
            self.out_of_budget(path, s);
            return;
        }
        let nodes = self.nodes;
        for rule in nodes.rules(s) {
            let program = match rule.program() {
                Ok(p) => p,
                Err(detail) => {
                    self.invalid(path, s, || format!("rule compile error: {detail}"));
                    if self.stopped {
                        return;
                    }
                    continue;
                }
            };
            let transition = program.uses_old_self();
            // The old value is converted wherever a rule or message reads `oldSelf`; a rule that
            // does not read it only needs to know whether there is one.
            let old_value = old.map(|o| o.value().unwrap_or(&Value::Null));
            let optional_old = rule.optional_old_self.then(|| match old_value {
                Some(o) => Value::some(o.clone()),
                None => Value::Optional(None),
            });
            let old_self = optional_old.as_ref().or(old_value);
            if transition && old_self.is_none() {
                continue;
            }
            let ev = program.eval_for(
                value,
                old_self,
                self.opts.per_call_limit,
                self.kubernetes_minor,
            );
            if ev.cost > self.remaining.max(0) as u64 {
                self.out_of_budget(path, s);
                return;
            }
            self.remaining -= ev.cost as i64;
            // What error texts name the rule by, worked out only for an error.
            let shown = || rule.shown();
            match ev.result {
                Ok(Value::Bool(true)) => {}
                Err(e) if e.kind == ErrorKind::NoSuchOverload => self.invalid(path, s, || {
                    format!("'{e}': call arguments did not match a supported operator, function or macro signature for rule: {}", shown())
                }),
                Err(e) if e.kind == ErrorKind::CostLimit => {
                    self.invalid(path, s, || {
                        format!("'{e}': no further validation rules will be run due to call cost exceeds limit for rule: {}", shown())
                    });
                    self.remaining = -1;
                    self.stopped = true;
                }
                Err(e) => self.invalid(path, s, || format!("{e} evaluating rule: {}", shown())),
                Ok(_) => {
                    let may_ratchet = !transition && ratchet.is_some_and(Ratchet::unchanged);
                    self.failure(s, rule, path, new, value, old_self, may_ratchet);
                }
            }
            if self.stopped {
                return;
            }
        }
    }

    /// A rule that evaluated to false (`validation.go`, `fieldErrorForReason`).
    #[allow(clippy::too_many_arguments)]
    fn failure(
        &mut self,
        s: &SchemaNode,
        rule: &CompiledRule,
        path: &Path<'_>,
        new: Data<'_>,
        value: &Value,
        old_self: Option<&Value>,
        may_ratchet: bool,
    ) {
        if self.fail_fast() {
            return;
        }
        let with_field_path;
        let path = match &rule.field_path {
            Some(fp) => {
                with_field_path = Path::Child(path, fp);
                &with_field_path
            }
            None => path,
        };
        let mut detail = None;
        if let Some(p) = rule.message_program() {
            let ev = p.eval_for(
                value,
                old_self,
                self.opts.per_call_limit,
                self.kubernetes_minor,
            );
            let expr = rule.message_expression.as_deref().unwrap_or_default();
            if ev.cost > self.remaining.max(0) as u64 {
                let e = FieldError {
                    kind: ErrorType::Invalid,
                    path: path.field(),
                    value: BadValue::TypeName(s.type_name()),
                    detail: "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".into(),
                };
                self.report(e, may_ratchet);
                self.remaining = -1;
                self.stopped = true;
                return;
            }
            self.remaining -= ev.cost as i64;
            match ev.result {
                Err(e) if e.kind == ErrorKind::CostLimit => {
                    let e = FieldError {
                        kind: ErrorType::Invalid,
                        path: path.field(),
                        value: BadValue::TypeName(s.type_name()),
                        detail: format!(
                            "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                            go_quoted(expr)
                        ),
                    };
                    self.report(e, may_ratchet);
                    self.remaining = -1;
                    self.stopped = true;
                    return;
                }
                // Soft failures fall back to the message (the apiserver only logs them).
                Ok(Value::String(m)) => {
                    let m = m.trim();
                    if !m.is_empty() && m.len() <= MAX_MESSAGE_BYTES && !m.contains('\n') {
                        detail = Some(m.to_owned());
                    }
                }
                _ => {}
            }
        }
        let detail = detail.unwrap_or_else(|| match &rule.message {
            Some(m) => m.trim().to_owned(),
            None => format!("failed rule: {}", rule.rule.trim()),
        });
        let kind = match rule.reason {
            None | Some(Reason::FieldValueInvalid) => ErrorType::Invalid,
            Some(Reason::FieldValueForbidden) => ErrorType::Forbidden,
            Some(Reason::FieldValueRequired) => ErrorType::Required,
            Some(Reason::FieldValueDuplicate) => ErrorType::Duplicate,
        };
        // >= 1.35: objects and arrays omit the value, scalars show it; before, every failure
        // shows the schema type (`Invalid value: "object"`). Only JSON data is reported.
        let bad = match new.json() {
            _ if self.kubernetes_minor <= 34 => BadValue::TypeName(s.type_name()),
            Some(Json::Object(_) | Json::Array(_)) | None => BadValue::Omitted,
            Some(raw) => BadValue::Value(raw.clone()),
        };
        let e = match kind {
            // field.Required and field.Forbidden carry an empty value.
            ErrorType::Required | ErrorType::Forbidden => FieldError {
                kind,
                path: path.field(),
                value: BadValue::Value(Json::String(String::new())),
                detail,
            },
            ErrorType::Duplicate => FieldError {
                kind,
                path: path.field(),
                value: bad,
                detail: String::new(),
            },
            _ => FieldError {
                kind,
                path: path.field(),
                value: bad,
                detail,
            },
        };
        self.report(e, may_ratchet);
    }

    fn report(&mut self, e: FieldError, may_ratchet: bool) {
        if may_ratchet {
            self.warnings.push(e.to_string());
        } else {
            self.errors.push(e);
        }
    }
}
