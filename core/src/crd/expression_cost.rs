//! A rule over the apiserver's per-expression cost limit at cardinality 1: its cost error, and
//! one help line per bound the node or one of its fields lacks (`maxLength`, `maxItems`,
//! `maxProperties`, the `maxLength` of a list's string items) with the largest value that would
//! make the rule fit, found by re-estimating the rule with the bound set.

use crate::ast;
use crate::check;
use crate::cost::{PER_EXPRESSION_LIMIT, push_cost_message};
use crate::crd::rule_name::push_rule_name;
use crate::model::{Property, Schema, Type};
use crate::msg::Buf;

/// The apiserver's per-expression cost error, then which fields of the node are unbounded, the
/// attribute that bounds each and the largest value that fits.
pub(crate) const fn cost_error(
    ast: &ast::Ast<'_>,
    node: &check::Node<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    cost: u64,
) -> Buf<4096> {
    let schema = node.schema;
    let mut m = Buf::<4096>::new();
    push_rule_name(&mut m, target, index, place);
    m.push(" is rejected by the apiserver: Forbidden: ");
    push_cost_message(
        match target {
            check::Target::Rule => "estimated rule cost",
            check::Target::MessageExpression => "estimated messageExpression cost",
        },
        cost,
        PER_EXPRESSION_LIMIT,
        &mut m,
    );
    m.push("\nnote: one evaluation is estimated at ");
    m.push_u64(cost);
    m.push(" (the limit is 10000000 times the number of times the node can occur)");
    let sizing = Sizing { ast, target, node };
    let mut found = false;
    found |= bound_help(&sizing, None, place, &mut m);
    let mut i = 0;
    while i < schema.properties.len() {
        let p = &schema.properties[i];
        let mut field = Buf::<256>::new();
        field.push(place);
        field.push(".");
        field.push(p.name);
        found |= bound_help(&sizing, Some(i), field.as_str(), &mut m);
        i += 1;
    }
    if !found {
        // Only the node and its own fields are sized here: what is unbounded may sit deeper
        // (a list's items' fields, a type of another crate, such as k8s-openapi's).
        m.push("\nhelp: the node and its own fields are bounded: the unbounded strings or lists the rule reads are deeper (list items' fields, other crates' types): read less of them (`size()` rather than a scan of each string), bound them where they are declared, or bound the enclosing list; nested loops multiply");
    }
    m.finish()
}

/// What re-estimating a rule with a bound added needs (the help sizes each missing bound).
struct Sizing<'s, 'a> {
    ast: &'s ast::Ast<'a>,
    target: check::Target,
    node: &'s check::Node<'a>,
}

/// A bound a schema node can lack.
#[derive(Clone, Copy)]
enum Bound {
    Items,
    Length,
    Properties,
    /// `maxLength` of a list's string items.
    ItemLength,
}

const ANY: Schema<'static> = Schema::of(Type::Any);
const NO_PROPERTY: Property<'static> = Property {
    name: "",
    required: false,
    schema: &ANY,
};

impl Sizing<'_, '_> {
    /// The estimate with `bound` set to `n` on the node (`prop` `None`) or on its property
    /// `prop`; `None` when the rule then fails to check or the node is too wide to copy.
    const fn estimate(&self, prop: Option<usize>, bound: Bound, n: u64) -> Option<u64> {
        let parent = self.node.schema;
        let s = match prop {
            Some(i) => parent.properties[i].schema,
            None => parent,
        };
        let items;
        let mut bounded = *s;
        match bound {
            Bound::Items => bounded.max_items = Some(n),
            Bound::Length => bounded.max_length = Some(n),
            Bound::Properties => bounded.max_properties = Some(n),
            Bound::ItemLength => match s.items {
                Some(i) => {
                    items = Schema {
                        max_length: Some(n),
                        ..*i
                    };
                    bounded.items = Some(&items);
                }
                None => return None,
            },
        }
        let mut properties = [NO_PROPERTY; 64];
        let copied;
        let schema = match prop {
            None => &bounded,
            Some(i) => {
                let len = parent.properties.len();
                if len > properties.len() {
                    return None;
                }
                let mut k = 0;
                while k < len {
                    properties[k] = parent.properties[k];
                    k += 1;
                }
                properties[i].schema = &bounded;
                copied = Schema {
                    properties: properties.split_at(len).0,
                    ..*parent
                };
                &copied
            }
        };
        let node = check::Node {
            schema,
            ..*self.node
        };
        let report = check::check(self.ast, self.target, &node);
        match report.cost {
            Some(c) if report.is_ok() => Some(c.max),
            _ => None,
        }
    }

    const fn fits(&self, prop: Option<usize>, bound: Bound, n: u64) -> bool {
        match self.estimate(prop, bound, n) {
            Some(c) => c <= PER_EXPRESSION_LIMIT,
            None => false,
        }
    }

    /// The largest value of `bound` (at most the request size) at which the rule fits the
    /// per-expression limit, the other bounds as they are; `None` if none does.
    const fn largest(&self, prop: Option<usize>, bound: Bound) -> Option<u64> {
        const MAX: u64 = 3 * 1024 * 1024;
        if !self.fits(prop, bound, 1) {
            return None;
        }
        let (mut lo, mut hi) = (1, MAX);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.fits(prop, bound, mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }
}

/// `N` of a help line: the largest value that fits, or why there is none.
const fn push_largest<const N: usize>(
    sizing: &Sizing<'_, '_>,
    prop: Option<usize>,
    bound: Bound,
    m: &mut Buf<N>,
) {
    match sizing.largest(prop, bound) {
        Some(n) => {
            m.push(" with N at most ");
            m.push_u64(n);
            m.push(" (the other bounds as they are)");
        }
        None => m.push(" (no N fits while the other fields stay as they are: bound them too)"),
    }
}

/// One `help:` line per missing bound of the node or its property `prop` (named `what`), with
/// the largest value that would fit; whether there was one.
const fn bound_help<const N: usize>(
    sizing: &Sizing<'_, '_>,
    prop: Option<usize>,
    what: &str,
    m: &mut Buf<N>,
) -> bool {
    let s = match prop {
        Some(i) => sizing.node.schema.properties[i].schema,
        None => sizing.node.schema,
    };
    let mut found = false;
    match s.ty {
        Type::String
            if s.max_length.is_none() && s.enum_values.is_empty() && s.format.is_none() =>
        {
            m.push("\nhelp: `");
            m.push(what);
            m.push("` is a string without maxLength (sized at 3145726): add #[schemars(length(max = N))]");
            push_largest(sizing, prop, Bound::Length, m);
            found = true;
        }
        Type::Array => {
            if s.max_items.is_none() {
                m.push("\nhelp: `");
                m.push(what);
                m.push("` is a list without maxItems: add #[cel(max_items = N)] (or #[schemars(length(max = N))])");
                push_largest(sizing, prop, Bound::Items, m);
                found = true;
            }
            if let Some(items) = s.items
                && matches!(items.ty, Type::String)
                && items.max_length.is_none()
                && items.enum_values.is_empty()
                && items.format.is_none()
            {
                m.push("\nhelp: the items of `");
                m.push(what);
                m.push("` are strings without maxLength: add #[schemars(inner(length(max = N)))]");
                push_largest(sizing, prop, Bound::ItemLength, m);
                found = true;
            }
        }
        Type::Object if s.additional_properties.is_some() && s.max_properties.is_none() => {
            m.push("\nhelp: `");
            m.push(what);
            m.push("` is a map without maxProperties: add #[cel(max_properties = N)]");
            push_largest(sizing, prop, Bound::Properties, m);
            found = true;
        }
        _ => {}
    }
    found
}
