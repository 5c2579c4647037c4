//! The CRD-wide cost limits (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`), walked over a resource root's model and
//! the estimated costs the derive computed for every rule in it: each expression's cost times
//! how many times its node can occur in one object must stay within 10,000,000, and the sum over
//! the whole schema within 100,000,000. A type's derive can only check its rules at cardinality
//! 1; the root's derive sees the whole tree and checks these ([`check_crd_costs`]).

use crate::cost::{
    EXPENSIVE, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT, cardinality, child_factor, push_cost_message,
};
use crate::model::{Costs, Schema};
use crate::msg::Buf;

/// How many expressions of each kind a report keeps (the apiserver lists the 4 largest).
pub const KEPT: usize = 4;
/// Capacity of a path from the root (`spec.ports[*].name`).
pub const PATH_LEN: usize = 256;
/// Deeper than any real schema (recursive types nest without end).
const MAX_DEPTH: u32 = 32;

/// One expression and what it contributes.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The node's path from the root, `[*]` for list items and map values.
    pub path: Buf<PATH_LEN>,
    /// The rule.
    pub rule: &'static str,
    /// Whether the figure is the rule's messageExpression's.
    pub message_expression: bool,
    /// One evaluation's estimated cost.
    pub cost: u64,
    /// How many times the node can occur in one object.
    pub cardinality: u64,
    /// Whether a list or map above the node has no bound (the cardinality is then the
    /// apiserver's estimate from the maximum request size).
    pub unbounded: bool,
    /// `cost × cardinality` (messageExpressions: `cost`), what counts against the limits.
    pub total: u64,
}

impl Entry {
    const EMPTY: Entry = Entry {
        path: Buf::new(),
        rule: "",
        message_expression: false,
        cost: 0,
        cardinality: 0,
        unbounded: false,
        total: 0,
    };
}

/// The CRD-time cost findings for one schema.
#[derive(Clone, Copy)]
pub struct Report {
    /// The sum over all expressions (saturating).
    pub total: u64,
    /// Expressions over the per-expression limit only because of their cardinality (the
    /// type's own check already rejects those over it at cardinality 1), the first [`KEPT`].
    pub over: [Entry; KEPT],
    /// How many of `over` are set.
    pub over_len: usize,
    /// How many expressions are over, in all.
    pub over_count: usize,
    /// The most expensive expressions (at least 1% of the per-CRD limit), largest first.
    pub expensive: [Entry; KEPT],
    /// How many of `expensive` are set.
    pub expensive_len: usize,
}

impl Report {
    /// Whether the apiserver accepts the schema's costs.
    pub const fn is_ok(&self) -> bool {
        self.over_count == 0 && self.total <= PER_CRD_LIMIT
    }

    const fn record(&mut self, e: Entry) {
        self.total = self.total.saturating_add(e.total);
        if e.total >= EXPENSIVE {
            // Insert by descending total, keeping the earlier one first on ties.
            let mut at = self.expensive_len;
            while at > 0 && self.expensive[at - 1].total < e.total {
                at -= 1;
            }
            if at < KEPT {
                let mut k = if self.expensive_len < KEPT {
                    self.expensive_len
                } else {
                    KEPT - 1
                };
                while k > at {
                    self.expensive[k] = self.expensive[k - 1];
                    k -= 1;
                }
                self.expensive[at] = e;
                if self.expensive_len < KEPT {
                    self.expensive_len += 1;
                }
            }
        }
        if !e.message_expression && e.cost <= PER_EXPRESSION_LIMIT && e.total > PER_EXPRESSION_LIMIT
        {
            if self.over_len < KEPT {
                self.over[self.over_len] = e;
                self.over_len += 1;
            }
            self.over_count += 1;
        }
    }
}

/// Walks a resource root's model beside its costs.
pub const fn check(model: &Schema<'static>, costs: &Costs<'static>) -> Report {
    let mut report = Report {
        total: 0,
        over: [Entry::EMPTY; KEPT],
        over_len: 0,
        over_count: 0,
        expensive: [Entry::EMPTY; KEPT],
        expensive_len: 0,
    };
    let mut path = Buf::new();
    walk(model, costs, Some(1), &mut path, &mut report, 0);
    report
}

/// Whether `costs` has no rule anywhere (the costs of types without rules, `Costs::NONE`).
const fn costs_nothing(costs: &Costs<'static>) -> bool {
    costs.rules.before.is_none()
        && costs.rules.own.is_empty()
        && costs.properties.is_empty()
        && costs.flatten.is_empty()
        && costs.items.is_none()
        && costs.additional_properties.is_none()
}

/// `bounded`: the product of the ancestors' factors, `None` once one is unbounded.
const fn walk(
    model: &Schema<'static>,
    costs: &Costs<'static>,
    bounded: Option<u64>,
    path: &mut Buf<PATH_LEN>,
    report: &mut Report,
    depth: u32,
) {
    // Nothing below has a rule with a cost (a k8s-openapi type, whose model is thousands of
    // nodes): walking it in const evaluation would cost build time and add nothing.
    if depth > MAX_DEPTH || costs_nothing(costs) {
        return;
    }
    let card = cardinality(bounded, model);
    let rules = model.validations;
    let len_i = rules.len();
    let mut i = 0;
    while i < len_i {
        if let Some(rule) = rules.get(i) {
            let c = costs.rules.get(i);
            report.record(Entry {
                path: *path,
                rule: rule.rule,
                message_expression: false,
                cost: c.rule,
                cardinality: card,
                unbounded: bounded.is_none(),
                total: crate::cost::times_cardinality(c.rule, card),
            });
            if c.message_expression > 0 {
                report.record(Entry {
                    path: *path,
                    rule: rule.rule,
                    message_expression: true,
                    cost: c.message_expression,
                    cardinality: card,
                    unbounded: bounded.is_none(),
                    total: c.message_expression,
                });
            }
        }
        i += 1;
    }
    let below = match (bounded, child_factor(model)) {
        (Some(b), Some(f)) => Some(crate::cost::times_cardinality(b, f)),
        _ => None,
    };
    let mark = path.len();
    let len_p = model.properties.len();
    let mut p = 0;
    while p < len_p {
        let prop = &model.properties[p];
        let child = if p < costs.properties.len() {
            costs.properties[p]
        } else {
            &Costs::NONE
        };
        if mark > 0 {
            path.push(".");
        }
        path.push(prop.name);
        walk(prop.schema, child, below, path, report, depth + 1);
        path.truncate(mark);
        p += 1;
    }
    let len_f = model.flatten.len();
    let mut f = 0;
    while f < len_f {
        let child = if f < costs.flatten.len() {
            costs.flatten[f]
        } else {
            &Costs::NONE
        };
        walk(model.flatten[f], child, bounded, path, report, depth + 1);
        f += 1;
    }
    if let Some(items) = model.items {
        let child = match costs.items {
            Some(c) => c,
            None => &Costs::NONE,
        };
        path.push("[*]");
        walk(items, child, below, path, report, depth + 1);
        path.truncate(mark);
    }
    if let Some(values) = model.additional_properties {
        let child = match costs.additional_properties {
            Some(c) => c,
            None => &Costs::NONE,
        };
        path.push("[*]");
        walk(values, child, below, path, report, depth + 1);
        path.truncate(mark);
    }
}

/// The root's CRD-wide cost check (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`): every expression's estimated cost times
/// how many times its node can occur in one object within 10,000,000, and their sum within
/// 100,000,000. The error is the apiserver's messages and what to bound, which the root's
/// derive panics with (a compile error at the derive).
// The message is returned by value: a `const fn` cannot box it, and it is built only on error.
#[allow(clippy::result_large_err)]
pub const fn check_crd_costs(
    model: &Schema<'static>,
    costs: &Costs<'static>,
    root: &str,
) -> Result<(), Buf<8192>> {
    let report = check(model, costs);
    if report.is_ok() {
        return Ok(());
    }
    let mut m = Buf::<8192>::new();
    let mut i = 0;
    while i < report.over_len {
        let e = &report.over[i];
        if i > 0 {
            m.push("\n");
        }
        m.push("CEL rule `");
        m.push(e.rule);
        m.push("` at `");
        push_path(&e.path, &mut m);
        m.push("` of `");
        m.push(root);
        m.push("` is rejected by the apiserver: Forbidden: ");
        push_cost_message("estimated rule cost", e.total, PER_EXPRESSION_LIMIT, &mut m);
        m.push("\nnote: one evaluation is estimated at ");
        m.push_u64(e.cost);
        m.push(", and the node can occur ");
        m.push_u64(e.cardinality);
        m.push(" times in one object");
        if e.unbounded {
            m.push(" (a list or map on its path has no maxItems/maxProperties, so the apiserver divides the maximum request size by the node's minimum size)");
        } else {
            m.push(
                " (the product of the maxItems/maxProperties of the lists and maps on its path)",
            );
        }
        m.push("\nhelp: bound the lists and maps on the path (`[*]`) with #[cel(max_items = ..)] / #[cel(max_properties = ..)] so that their product is at most ");
        m.push_u64(match PER_EXPRESSION_LIMIT.checked_div(e.cost) {
            Some(n) => n,
            None => 0,
        });
        m.push(", or make the rule cheaper (bound the strings it reads with #[schemars(length(max = ..))])");
        i += 1;
    }
    if report.over_count > report.over_len {
        m.push("\nnote: ");
        m.push_u64((report.over_count - report.over_len) as u64);
        m.push(" more rules are over the limit");
    }
    if report.total > PER_CRD_LIMIT {
        if report.over_len > 0 {
            m.push("\n");
        }
        m.push("`");
        m.push(root);
        m.push("` is rejected by the apiserver: Forbidden: ");
        push_cost_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            report.total,
            PER_CRD_LIMIT,
            &mut m,
        );
        m.push("\nnote: the estimated total is ");
        m.push_u64(report.total);
        m.push(
            "; the expressions that contribute most (one evaluation x occurrences in one object):",
        );
        let mut k = 0;
        while k < report.expensive_len {
            let e = &report.expensive[k];
            m.push("\n  ");
            if e.message_expression {
                m.push("messageExpression of ");
            }
            m.push("`");
            m.push(e.rule);
            m.push("` at `");
            push_path(&e.path, &mut m);
            m.push("`: ");
            m.push_u64(e.cost);
            if !e.message_expression {
                m.push(" x ");
                m.push_u64(e.cardinality);
            }
            m.push(" = ");
            m.push_u64(e.total);
            k += 1;
        }
        m.push("\nhelp: bound the lists, maps and strings these rules read or sit under (#[cel(max_items = ..)], #[cel(max_properties = ..)], #[schemars(length(max = ..))]) until the total is at most 100000000");
    }
    Err(m.finish())
}

const fn push_path<const N: usize>(path: &Buf<{ PATH_LEN }>, m: &mut Buf<N>) {
    if path.is_empty() {
        m.push("(root)");
    } else {
        m.push(path.as_str());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CostList, ExprCosts, Property, Rule, Rules, Type};

    const ITEM: Schema<'static> = Schema {
        max_length: Some(5000),
        validations: Rules::new(&[Rule::new("self.contains('keyword')")]),
        ..Schema::of(Type::String)
    };
    const ITEM_COSTS: Costs<'static> = Costs {
        rules: CostList::new(&[ExprCosts {
            rule: 2001,
            message_expression: 7,
        }]),
        ..Costs::NONE
    };

    const fn list(max_items: Option<u64>) -> Schema<'static> {
        Schema {
            max_items,
            items: Some(&ITEM),
            ..Schema::of(Type::Array)
        }
    }
    const LIST_COSTS: Costs<'static> = Costs {
        items: Some(&ITEM_COSTS),
        ..Costs::NONE
    };

    #[test]
    fn multiplies_by_the_ancestors_bounds_and_sums() {
        const BIG: Schema<'static> = list(Some(100_000));
        const ROOT: Schema<'static> = Schema {
            properties: &[Property {
                name: "keywords",
                required: true,
                schema: &BIG,
            }],
            ..Schema::of(Type::Object)
        };
        const ROOT_COSTS: Costs<'static> = Costs {
            properties: &[&LIST_COSTS],
            ..Costs::NONE
        };
        let r = check(&ROOT, &ROOT_COSTS);
        // `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/celcoststability_test.go` example 9: 2,001 x 100,000; the messageExpression is not multiplied.
        assert_eq!(r.over_count, 1);
        assert_eq!(r.over[0].total, 200_100_000);
        assert_eq!(r.over[0].path.as_str(), "keywords[*]");
        assert!(!r.over[0].unbounded);
        assert_eq!(r.total, 200_100_007);
        assert_eq!(r.expensive_len, 1);
        assert!(!r.is_ok());
    }

    #[test]
    fn unbounded_ancestor_uses_the_request_size_estimate() {
        const OPEN: Schema<'static> = list(None);
        const ROOT: Schema<'static> = Schema {
            properties: &[Property {
                name: "keywords",
                required: true,
                schema: &OPEN,
            }],
            ..Schema::of(Type::Object)
        };
        const ROOT_COSTS: Costs<'static> = Costs {
            properties: &[&LIST_COSTS],
            ..Costs::NONE
        };
        let r = check(&ROOT, &ROOT_COSTS);
        assert!(r.over[0].unbounded);
        // R / (MinSerializedSize(string) + 1) = 3,145,728 / 3.
        assert_eq!(r.over[0].cardinality, 1_048_576);
    }

    #[test]
    fn within_limits_is_ok_and_lists_nothing() {
        const SMALL: Schema<'static> = list(Some(4997));
        const ROOT: Schema<'static> = Schema {
            properties: &[Property {
                name: "keywords",
                required: true,
                schema: &SMALL,
            }],
            ..Schema::of(Type::Object)
        };
        const ROOT_COSTS: Costs<'static> = Costs {
            properties: &[&LIST_COSTS],
            ..Costs::NONE
        };
        let r = check(&ROOT, &ROOT_COSTS);
        assert!(r.is_ok());
        assert_eq!(r.over_count, 0);
        assert_eq!(r.total, 2001 * 4997 + 7);
    }
}
