//! The type check of one rule or `messageExpression` against the model of its node, as the
//! apiserver compiles it at CRD creation: the const item the derive writes for every rule calls
//! [`check_expression`] (or [`check_predicted`] for a rule the derive already checked natively)
//! and a rejected rule is a compile error at its literal, with the apiserver's message and
//! crd-cel's help.

use crate::ast;
use crate::check;
use crate::cost::PER_EXPRESSION_LIMIT;
use crate::crd::expression_cost::cost_error;
use crate::crd::rule_name::push_rule_name;
use crate::model::Schema;
use crate::msg::Buf;

/// The message of a rejected rule or `messageExpression` ([`check_expression`]'s error).
pub type Rejection = Buf<16384>;

/// Const check behind every `#[cel(rule = ..)]` and `message_expression`: type-checks the
/// expression against the model of its node, as the apiserver does at CRD creation. Returns the
/// apiserver's estimated cost of one evaluation, or the apiserver's message and crd-cel's help
/// when it rejects the expression (its cost error when that cost alone is over the
/// per-expression limit), which the derive's const item panics with (a compile error at the
/// rule's literal). `compat` is the compatibility version new rules
/// compile at (the runtime's `TARGET_COMPAT`, from its `k8s-1-NN` features).
#[allow(clippy::too_many_arguments)]
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_expression(
    ast: &ast::Ast<'_>,
    schema: &Schema<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    resource_root: bool,
    optional_old_self: bool,
    compat: u8,
) -> Result<u64, Rejection> {
    let node = check::Node {
        schema,
        resource_root,
        optional_old_self,
        compat,
        // The derive's CRD must be accepted on every release from its target on.
        releases: check::Releases::from(compat + 1),
        type_name: if resource_root { "selfType<N>" } else { place },
    };
    let report = check::check(ast, target, &node);
    // The rule reads a node known only by its generated schema: it is checked against that
    // schema by the test the derive generates and by `crd_cel::check_rules`.
    if report.deferred {
        return Ok(0);
    }
    if report.is_ok() {
        let cost = match report.cost {
            Some(c) => c.max,
            None => 0,
        };
        // A rule's node occurs once per value of the type that declares it, so within the
        // type its cardinality is 1: what one evaluation costs is a lower bound of the
        // apiserver's figure wherever the type is used (`crd-cel check` on the generated CRD
        // applies the ancestors' maxItems/maxProperties exactly).
        if cost > PER_EXPRESSION_LIMIT {
            // Built in a smaller buffer than the type check's message (what it cuts stays cut).
            let mut m = Rejection::new();
            m.push(cost_error(ast, &node, target, place, index, cost).as_str());
            return Err(m);
        }
        return Ok(cost);
    }
    let mut m = Rejection::new();
    push_rule_name(&mut m, target, index, place);
    if let Some(what) = report.unsupported {
        m.push(" cannot be checked: not supported by crd-cel yet: ");
        m.push(what);
        m.push("\nhelp: remove the rule or rewrite it without this construct; please report it");
        return Err(m.finish());
    }
    m.push(" is rejected by the apiserver: ");
    if report.untyped_node {
        m.push(check::UNTYPED_NODE);
        m.push("\nhelp: the field's type has no CEL type (e.g. serde_json::Value, a bare x-kubernetes-preserve-unknown-fields node); put the rule on the containing type");
        return Err(m.finish());
    }
    if report.total > 0 {
        m.push(match target {
            check::Target::Rule => "compilation failed: ",
            check::Target::MessageExpression => "messageExpression compilation failed: ",
        });
        report.render(ast.source, &mut m);
    } else {
        m.push(match target {
            check::Target::Rule => "cel expression must evaluate to a bool",
            check::Target::MessageExpression => "messageExpression must evaluate to a string",
        });
    }
    if !report.help.is_empty() {
        m.push("\n");
        m.push(report.help.as_str());
    }
    if compat_hint(&report, compat) {
        m.push("\nnote: checked for Kubernetes 1.");
        m.push_u64(compat as u64 + 1);
        m.push(" (new rules compile at compatibility version 1.");
        m.push_u64(compat as u64);
        m.push("); choose the target with the crd-cel features `k8s-1-NN`");
    }
    Err(m.finish())
}

/// The const item of a rule the derive type-checked natively, against the model it predicted
/// from the source (`crd-cel-macros`' `predict`): `cost`, its estimate, when the real node has
/// the prediction's fingerprint over what the rule reads (and what the node's other such rules
/// read) and the targeted Kubernetes is the one it was checked for (`compat`); otherwise the
/// const check, as for any other rule.
#[allow(clippy::too_many_arguments)]
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_predicted(
    ast: &ast::PackedAst<'_>,
    schema: &Schema<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    optional_old_self: bool,
    prediction: Prediction,
    compat: u8,
) -> Result<u64, Rejection> {
    if prediction.compat == compat && prediction.node == prediction.predicted {
        return Ok(prediction.cost);
    }
    let words = ast.unpack();
    check_expression(
        &ast.ast(&words),
        schema,
        target,
        place,
        index,
        false,
        optional_old_self,
        compat,
    )
}

/// What the derive's native check of a rule found, and what it assumed (see
/// [`check_predicted`]).
#[derive(Clone, Copy)]
pub struct Prediction {
    /// The compatibility version it checked at.
    pub compat: u8,
    /// The real node's fingerprint over what the node's natively checked rules read
    /// ([`crate::fingerprint::of_node`]), computed once per node.
    pub node: u64,
    /// The same fingerprint of the predicted node.
    pub predicted: u64,
    /// The estimated cost it computed.
    pub cost: u64,
}

const fn compat_hint(report: &check::Report, compat: u8) -> bool {
    report.total > 0 && compat != check::DEFAULT_COMPAT
}
