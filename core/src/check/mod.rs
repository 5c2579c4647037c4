//! The CEL type checker (cel-go's `checker/checker.go`, with the apiserver's schema types of
//! `k8s.io/apiserver/pkg/cel/common/schemas.go`): one implementation, written as
//! `const fn`, run by the derive in `const` items at `cargo build` and at runtime on schemas read
//! from CRD manifests.

mod calls;
mod checker;
mod report;
mod suggest;
#[cfg(test)]
mod tests;
mod validators;

pub use crate::ast::MAX_NODES;
pub use crate::names::{RESERVED, escaped_is, selected_property};
pub(crate) use checker::checked;
pub use checker::{check, resolve_overloads};
pub use report::{Issue, Report, render_issue};

use crate::model::Schema;

/// What an expression is checked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A `rule`: must be `bool`.
    Rule,
    /// A `messageExpression`: must be `string`.
    MessageExpression,
}

pub use crate::release::{CEL_GO_0_29, NEWEST_KUBERNETES_MINOR, OLDEST_KUBERNETES_MINOR, Releases};

/// The schema node a rule is attached to, and the environment it is compiled in.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    /// The node's schema (`self`).
    pub schema: &'a Schema<'a>,
    /// Whether the node is a resource root (the CRD root or `x-kubernetes-embedded-resource`):
    /// `apiVersion`, `kind` and `metadata.name`/`generateName` are then implicit (`k8s.io/apiserver/pkg/cel/common/schemas.go`).
    pub resource_root: bool,
    /// `optionalOldSelf: true`: `oldSelf` is `optional_type(T)`.
    pub optional_old_self: bool,
    /// The Kubernetes compatibility minor version the expression compiles against (`k8s.io/apiserver/pkg/cel/environment/base.go`): new
    /// rules on apiserver 1.N compile at 1.(N-1).
    pub compat: u8,
    /// The Kubernetes releases whose cost estimate the rule must fit (the estimator changed
    /// in 1.37): the derive's, every release from its target on; a CRD checked for one
    /// release, that one.
    pub releases: Releases,
    /// The name of the node's object type in messages (the apiserver's `selfType<N>` and path).
    pub type_name: &'a str,
}

impl<'a> Node<'a> {
    /// A node that is not a resource root, compiled at the newest compatibility version.
    pub const fn new(schema: &'a Schema<'a>) -> Self {
        Node {
            schema,
            resource_root: false,
            optional_old_self: false,
            compat: DEFAULT_COMPAT,
            releases: Releases::only(NEWEST_KUBERNETES_MINOR),
            type_name: "selfType<N>",
        }
    }
}

/// The compatibility version new rules compile at on the newest supported apiserver (1.37).
pub const DEFAULT_COMPAT: u8 = NEWEST_KUBERNETES_MINOR - 1;

/// The compatibility version targeted by the invoking crate's `k8s-1-NN` features (crd-cel's,
/// which it forwards to the derive): [`compat_for`] of which are enabled there.
#[macro_export]
macro_rules! target_compat {
    () => {
        $crate::check::compat_for([
            cfg!(feature = "k8s-1-30"),
            cfg!(feature = "k8s-1-31"),
            cfg!(feature = "k8s-1-32"),
            cfg!(feature = "k8s-1-33"),
            cfg!(feature = "k8s-1-34"),
            cfg!(feature = "k8s-1-35"),
            cfg!(feature = "k8s-1-36"),
        ])
    };
}

/// The compatibility version new rules compile at for the oldest Kubernetes enabled among
/// `[1.30, 1.31, ..., 1.36]` (crd-cel's `k8s-1-NN` features), [`DEFAULT_COMPAT`] for none.
pub const fn compat_for(enabled: [bool; 7]) -> u8 {
    let mut i = 0;
    while i < enabled.len() {
        if enabled[i] {
            return 29 + i as u8;
        }
        i += 1;
    }
    DEFAULT_COMPAT
}

/// The overload cel-go's checker resolves one call to (its reference map entry), which its
/// planner and runtime cost tracker read: the runtime plans and costs calls by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// Not a call, or a call the checker resolves to no declared overload (the operators the
    /// planner special-cases, the comprehension helpers).
    Unresolved,
    /// One overload: cel-go's id for it (`add_string`, `string_format`, ...).
    One(&'static str),
    /// Several overloads (an argument of type `dyn`): cel-go calls the function's own dispatch,
    /// and its cost tracker sees no overload id.
    Many,
}

/// What a successful check learned about the expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// The checked expression references `oldSelf` (a transition rule).
    pub uses_old_self: bool,
    /// The apiserver's estimated cost of one evaluation (`CompilationResult.MaxCost`).
    pub max_cost: u64,
}

/// Why an expression was rejected, with the apiserver's detail text as `Display`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// Parse or type-check issues, rendered as cel-go does (`ERROR: <input>:1:6: ...`).
    Compilation {
        /// Rule or messageExpression.
        target: Target,
        /// The rendered issues.
        issues: String,
    },
    /// The expression type-checks but has the wrong result type.
    WrongType {
        /// Rule (must be bool) or messageExpression (must be string).
        target: Target,
    },
    /// The node has no CEL type, so no rule can be compiled on it.
    UntypedNode,
    /// Program planning failed on a constant (`program instantiation failed: ...`).
    Program {
        /// Rule or messageExpression.
        target: Target,
        /// The planner's error.
        detail: String,
    },
    /// A construct crd-cel cannot check yet: failing closed rather than passing unchecked.
    Unsupported {
        /// Rule or messageExpression.
        target: Target,
        /// What is not supported.
        what: String,
    },
}

impl core::fmt::Display for CheckError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CheckError::Compilation {
                target: Target::Rule,
                issues,
            } => write!(f, "compilation failed: {issues}"),
            CheckError::Compilation {
                target: Target::MessageExpression,
                issues,
            } => write!(f, "messageExpression compilation failed: {issues}"),
            CheckError::WrongType {
                target: Target::Rule,
            } => f.write_str("cel expression must evaluate to a bool"),
            CheckError::WrongType {
                target: Target::MessageExpression,
            } => f.write_str("messageExpression must evaluate to a string"),
            CheckError::Program {
                target: Target::Rule,
                detail,
            } => write!(f, "program instantiation failed: {detail}"),
            CheckError::Program {
                target: Target::MessageExpression,
                detail,
            } => write!(f, "messageExpression instantiation failed: {detail}"),
            CheckError::UntypedNode => f.write_str(UNTYPED_NODE),
            CheckError::Unsupported { what, .. } => {
                write!(f, "not supported by crd-cel yet: {what}")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Parses and type-checks `source` as the apiserver does at CRD creation, against `node`.
pub fn check_source(source: &str, target: Target, node: &Node<'_>) -> Result<Checked, CheckError> {
    let ast = crate::syntax::parse_ast(source).map_err(|e| CheckError::Compilation {
        target,
        issues: e.to_string(),
    })?;
    check_parsed(&ast.as_ast(), target, node)
}

/// [`check_source`] of an expression already parsed (`ast`, from [`crate::syntax::parse_ast`]
/// of `ast.source`): what a caller that parses a repeated rule text once checks each use with.
pub fn check_parsed(
    ast: &crate::ast::Ast<'_>,
    target: Target,
    node: &Node<'_>,
) -> Result<Checked, CheckError> {
    let source = ast.source;
    let ast = *ast;
    let report = check(&ast, target, node);
    if report.type_checked && report.total > 0 && report.unsupported.is_none() && !report.deferred {
        // Issues of the validators the checker runs (homogeneous literals, format strings):
        // cel-go runs the literal validators beside them and reports all, by position.
        return Err(CheckError::Compilation {
            target,
            issues: validator_issues(source, &ast, node.compat, &report),
        });
    }
    let checked = report.into_result(source, target);
    if !matches!(checked, Ok(_) | Err(CheckError::WrongType { .. })) {
        return checked;
    }
    // The apiserver's order: the checker's issues, then the literal validators' (cel-go runs
    // them on expressions that type-checked, as part of compiling), then the result type, then
    // program planning.
    let mut issues = Vec::new();
    let mut program = None;
    for issue in crate::literals::check(&ast, node.compat) {
        match issue {
            crate::literals::LiteralIssue::Compile { offset, message } => {
                let mut out = crate::msg::Buf::<{ 4 * 1024 + 512 }>::new();
                render_issue(source, offset, &message, &mut out);
                issues.push(out.as_str().to_owned());
            }
            crate::literals::LiteralIssue::Program(detail) => program = Some(detail),
        }
    }
    if !issues.is_empty() {
        return Err(CheckError::Compilation {
            target,
            issues: issues.join("\n"),
        });
    }
    let checked = checked?;
    if let Some(detail) = program {
        return Err(CheckError::Program { target, detail });
    }
    Ok(checked)
}

/// The issues of a type-checked expression's validators, the checker's and the literal ones,
/// rendered in position order as cel-go's `ToDisplayString` does.
fn validator_issues(
    source: &str,
    ast: &crate::ast::Ast<'_>,
    compat: u8,
    report: &Report,
) -> String {
    let mut issues: Vec<(u32, String)> = report.issues[..report.kept]
        .iter()
        .map(|i| (i.offset, i.message.as_str().to_owned()))
        .collect();
    for issue in crate::literals::check(ast, compat) {
        if let crate::literals::LiteralIssue::Compile { offset, message } = issue {
            issues.push((offset, message));
        }
    }
    issues.sort_by_key(|(offset, _)| *offset);
    let mut out = Vec::with_capacity(issues.len() + 1);
    for (offset, message) in &issues {
        let mut buf = crate::msg::Buf::<{ 4 * 1024 + 512 }>::new();
        render_issue(source, *offset, message, &mut buf);
        out.push(buf.as_str().to_owned());
    }
    if report.total > report.kept {
        out.push(format!(
            "{} more errors were truncated",
            report.total - report.kept
        ));
    }
    out.join("\n")
}

/// crd-cel's hints for an expression the checker rejects (`help: did you mean 'image'?`, the
/// fields there are, a function available at a newer version), as the derive prints them at
/// `cargo build`; `None` when there are none or the expression does not parse.
pub fn hints(source: &str, target: Target, node: &Node<'_>) -> Option<String> {
    let ast = crate::syntax::parse_ast(source).ok()?;
    let report = check(&ast.as_ast(), target, node);
    let help = report.help.as_str().trim_end();
    (!help.is_empty()).then(|| help.to_owned())
}

/// The apiserver's detail for rules on a node without a CEL type.
pub const UNTYPED_NODE: &str = "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations";

/// Issues kept in full (cel-go lists up to 100; crd-cel keeps the first ones and counts the rest).
pub const MAX_ISSUES: usize = 8;
/// Capacity of one issue message.
pub const ISSUE_LEN: usize = 256;
/// Capacity of the help text.
pub const HELP_LEN: usize = 512;
