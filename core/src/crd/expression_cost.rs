//! A rule over the apiserver's per-expression cost limit at cardinality 1: its cost error, and
//! one help line per unbounded list, map or string the rule reads that drives the estimate
//! (bounding it lowers it), wherever it is below the rule's node: the attribute that bounds it
//! and the largest value that would make the rule fit, found by re-estimating the rule with the
//! bound set; or, for a field a k8s-openapi type declares, that no bound can be added there and
//! what can be done instead.
//!
//! What the rule reads is what the estimator sizes: the schema node each identifier, selection,
//! comprehension variable and index leads to (`cost::schema_nodes`), so the help names exactly
//! the lists, maps and strings the estimate was computed from.

use crate::ast::{self, Expr, Var};
use crate::check;
use crate::cost::{PER_EXPRESSION_LIMIT, push_cost_message, schema_nodes};
use crate::crd::rule_name::push_rule_name;
use crate::model::{Property, Schema, Type};
use crate::msg::Buf;
use crate::typed::{SKIP, TypedAst};
use crate::types::Ty;

/// The apiserver's per-expression cost error, then the unbounded lists, maps and strings the
/// rule reads that drive the estimate: where each is, the attribute that bounds it and the
/// largest value that fits.
pub(crate) const fn cost_error(
    ast: &ast::Ast<'_>,
    node: &check::Node<'_>,
    target: check::Target,
    place: &str,
    index: usize,
    cost: u64,
) -> Buf<4096> {
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
    let found = match check::checked(ast, node) {
        Some(mut typed) => {
            let read = reads(&mut typed);
            push_reads(&sizing, &typed, &read, place, cost, &mut m)
        }
        None => Found::NONE,
    };
    if found.foreign {
        m.push("\nhelp: k8s-openapi's types cannot be given bounds where they are declared: read less of them (`size()`, `has()`, `==`, `startsWith()`, `endsWith()` or a map lookup rather than `contains()` or `matches()` on each string; one item, `[0]`, rather than every one; no loop inside a loop), or give the field a schema with the bounds (`#[schemars(schema_with = ..)]`): see \"Rules over pod templates\" in crd_cel::guide::foreign_types");
    } else if !found.any {
        m.push("\nhelp: no missing bound drives the estimate: lower the bounds of the lists, maps and strings the rule reads, or read less of them (`size()` rather than a scan of each string, one item rather than every one); nested loops multiply");
    }
    m.finish()
}

/// What the help lines named.
#[derive(Clone, Copy)]
struct Found {
    /// A line was written.
    any: bool,
    /// One named a field of a k8s-openapi type.
    foreign: bool,
}

impl Found {
    const NONE: Found = Found {
        any: false,
        foreign: false,
    };
}

/// How deep below the rule's node the help follows what the rule reads.
const MAX_DEPTH: usize = 16;
/// How many distinct unbounded nodes the help considers.
const MAX_READS: usize = 8;

/// One step from a schema node to a node below it.
#[derive(Clone, Copy)]
enum Step<'a> {
    /// The property the rule selects with this name (as the rule spells it).
    Field(&'a [u8]),
    /// A list's items.
    Items,
    /// A map's values.
    Values,
}

/// The steps from the rule's node to a node the rule reads.
#[derive(Clone, Copy)]
struct Steps<'a> {
    steps: [Step<'a>; MAX_DEPTH],
    len: usize,
}

impl<'a> Steps<'a> {
    const ROOT: Steps<'static> = Steps {
        steps: [Step::Items; MAX_DEPTH],
        len: 0,
    };

    /// `self` and one more step; `None` past [`MAX_DEPTH`].
    const fn then(mut self, step: Step<'a>) -> Option<Steps<'a>> {
        if self.len == MAX_DEPTH {
            return None;
        }
        self.steps[self.len] = step;
        self.len += 1;
        Some(self)
    }

    const fn same(&self, other: &Steps<'_>) -> bool {
        if self.len != other.len {
            return false;
        }
        let mut i = 0;
        while i < self.len {
            let same = match (self.steps[i], other.steps[i]) {
                (Step::Field(a), Step::Field(b)) => crate::model::bytes_eq(a, b),
                (Step::Items, Step::Items) | (Step::Values, Step::Values) => true,
                _ => false,
            };
            if !same {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// A node the rule reads, located: the steps to it, the schema node after each step, and for
/// each `Field` step the property taken.
#[derive(Clone, Copy)]
struct Read<'a> {
    at: Steps<'a>,
    /// `chain[i]`: the node after `i` steps (`chain[0]` the rule's node).
    chain: [&'a Schema<'a>; MAX_DEPTH + 1],
    /// For a `Field` step: the property, and its index among the parent's own properties
    /// (`None` for a property of a flattened node, which the help cannot re-estimate).
    props: [Option<(&'a Property<'a>, Option<usize>)>; MAX_DEPTH],
    /// The expression node that reads it (the help quotes it).
    reader: u32,
}

impl<'a> Read<'a> {
    const fn target(&self) -> &'a Schema<'a> {
        self.chain[self.at.len]
    }
}

/// The unbounded nodes the rule reads, in the order it reads them, each once.
struct Reads<'a> {
    found: [Option<Read<'a>>; MAX_READS],
    len: usize,
}

/// Whether a node lacks the bound that sizes it in the estimator: a list's `maxItems`, a map's
/// `maxProperties`, a string's `maxLength` (strings of an enum or a fixed-size format are
/// bounded without one).
const fn unbounded(s: &Schema<'_>) -> bool {
    if s.int_or_string {
        return false;
    }
    match s.ty {
        Type::String => {
            s.max_length.is_none()
                && s.enum_values.is_empty()
                && !matches!(
                    s.format,
                    Some(f) if crate::model::str_eq(f, "date")
                        || crate::model::str_eq(f, "date-time")
                        || crate::model::str_eq(f, "duration")
                )
        }
        Type::Array => s.max_items.is_none(),
        Type::Object => s.additional_properties.is_some() && s.max_properties.is_none(),
        _ => false,
    }
}

/// The unbounded nodes the checked rule reads: each node the estimator sizes from the schema,
/// and the items of each list it reads (functions of a whole list, `join()`, size its items).
const fn reads<'a>(typed: &mut TypedAst<'a>) -> Reads<'a> {
    let nodes = schema_nodes(typed);
    let root = typed.schema;
    let mut out = Reads {
        found: [None; MAX_READS],
        len: 0,
    };
    let mut k = 0;
    let len_k = typed.ast.len();
    while k < len_k {
        if let Some(s) = nodes[k] {
            let items = match (s.ty, s.items) {
                (Type::Array, Some(items))
                    if matches!(items.ty, Type::String) && unbounded(items) =>
                {
                    Some(items)
                }
                _ => None,
            };
            if (unbounded(s) || items.is_some())
                && let Some(at) = steps_to(typed, k as u32, 0)
            {
                if unbounded(s) {
                    add(&mut out, root, at, k as u32, s);
                }
                if let Some(items) = items
                    && let Some(at) = at.then(Step::Items)
                {
                    add(&mut out, root, at, k as u32, items);
                }
            }
        }
        k += 1;
    }
    out
}

/// Adds the node at `at` unless it is there already or cannot be located as the estimator
/// located `s`.
const fn add<'a>(
    out: &mut Reads<'a>,
    root: &'a Schema<'a>,
    at: Steps<'a>,
    reader: u32,
    s: &'a Schema<'a>,
) {
    if out.len == MAX_READS {
        return;
    }
    let mut i = 0;
    while i < out.len {
        if let Some(r) = &out.found[i]
            && r.at.same(&at)
        {
            return;
        }
        i += 1;
    }
    if let Some(r) = locate(root, at, reader)
        && same_node(r.target(), s)
    {
        out.found[out.len] = Some(r);
        out.len += 1;
    }
}

/// The schema nodes along `at` from `root`, as the estimator's field steps find them.
const fn locate<'a>(root: &'a Schema<'a>, at: Steps<'a>, reader: u32) -> Option<Read<'a>> {
    let mut r = Read {
        at,
        chain: [root; MAX_DEPTH + 1],
        props: [None; MAX_DEPTH],
        reader,
    };
    let mut i = 0;
    while i < at.len {
        let s = r.chain[i];
        let next = match at.steps[i] {
            Step::Items => match (s.ty, s.items) {
                (Type::Array, Some(items)) => items,
                _ => return None,
            },
            Step::Values => match (s.ty, s.additional_properties) {
                (Type::Object, Some(values)) => values,
                _ => return None,
            },
            Step::Field(f) => {
                if !matches!(s.ty, Type::Object) || s.additional_properties.is_some() {
                    return None;
                }
                let p = match crate::names::find_property(s, f, false, 0) {
                    Some(p) => p,
                    None => return None,
                };
                let mut own = None;
                let mut k = 0;
                while k < s.properties.len() {
                    if crate::model::str_eq(s.properties[k].name, p.name) {
                        own = Some(k);
                    }
                    k += 1;
                }
                r.props[i] = Some((p, own));
                p.schema
            }
        };
        r.chain[i + 1] = next;
        i += 1;
    }
    Some(r)
}

/// Whether `a` and `b` look like the same node (the help locates again what the estimator
/// found, and names nothing it is not sure of).
const fn same_node(a: &Schema<'_>, b: &Schema<'_>) -> bool {
    a.ty as u8 == b.ty as u8
        && a.properties.len() == b.properties.len()
        && a.items.is_some() == b.items.is_some()
        && a.additional_properties.is_some() == b.additional_properties.is_some()
        && a.max_items.is_none() == b.max_items.is_none()
        && a.max_length.is_none() == b.max_length.is_none()
        && a.max_properties.is_none() == b.max_properties.is_none()
}

/// The steps from the rule's node to what node `n` reads, as the estimator walks its paths
/// (`cost::estimate`): an identifier reads the rule's node, a selection one field further, a
/// comprehension variable an item of its range (a list) or a value (a map, the second variable),
/// an index an item or value of its operand, an accumulator what its init reads; a step from a
/// node without a path lands on the rule's node (cel-go's quirk). `None`: no path.
const fn steps_to<'a>(typed: &mut TypedAst<'a>, n: u32, depth: u32) -> Option<Steps<'a>> {
    if depth > 64 {
        return None;
    }
    let k = n as usize;
    match typed.nodes[k].expr {
        Expr::Ident(_) if typed.ty[k] != SKIP => Some(Steps::ROOT),
        Expr::Select {
            operand,
            test: false,
            ..
        } if typed.ty[k] != SKIP => {
            if typed.ty[operand as usize] == SKIP {
                return Some(Steps::ROOT);
            }
            let step = Step::Field(typed.names[k]);
            match steps_to(typed, operand, depth + 1) {
                Some(s) => s.then(step),
                None => Some(Steps::ROOT),
            }
        }
        Expr::Local {
            var: Var::Accu,
            init,
            ..
        } => steps_to(typed, init, depth + 1),
        Expr::Local {
            var,
            range,
            two_vars,
            ..
        } => {
            let base = match steps_to(typed, range, depth + 1) {
                Some(s) => s,
                None => return Some(Steps::ROOT),
            };
            let step = match (container(typed, range), var, two_vars) {
                (Container::List, Var::Iter, false) | (Container::List, Var::Iter2, _) => {
                    Step::Items
                }
                (Container::Map, Var::Iter2, _) => Step::Values,
                // Indices and keys are not schema nodes.
                _ => return None,
            };
            base.then(step)
        }
        Expr::Call {
            target: None, args, ..
        } if args.len == 2 && crate::model::bytes_eq(typed.names[k], b"_[_]") => {
            let operand = typed.ast.r(args, 0);
            let step = match container(typed, operand) {
                Container::List => Step::Items,
                Container::Map => Step::Values,
                Container::Other => return None,
            };
            match steps_to(typed, operand, depth + 1) {
                Some(s) => s.then(step),
                None => Some(Steps::ROOT),
            }
        }
        _ => None,
    }
}

enum Container {
    List,
    Map,
    Other,
}

/// The checked type of node `n`, as a container.
const fn container(typed: &mut TypedAst<'_>, n: u32) -> Container {
    let t = typed.t.substitute(typed.ty[n as usize], true);
    match typed.t.tys[t as usize] {
        Ty::List(_) => Container::List,
        Ty::Map(..) => Container::Map,
        _ => Container::Other,
    }
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
}

const fn bound_of(s: &Schema<'_>) -> Bound {
    match s.ty {
        Type::Array => Bound::Items,
        Type::Object => Bound::Properties,
        _ => Bound::Length,
    }
}

const ANY: Schema<'static> = Schema::of(Type::Any);
const NO_PROPERTY: Property<'static> = Property {
    name: "",
    required: false,
    schema: &ANY,
};

/// The widest object the help copies to re-estimate a rule.
const MAX_PROPERTIES: usize = 64;

impl Sizing<'_, '_> {
    /// The estimate with the bound of the node `r` reads set to `n`; `None` when the rule then
    /// fails to check, or a node on the way is too wide to copy or a flattened one's property.
    const fn estimate(&self, r: &Read<'_>, n: u64) -> Option<u64> {
        let target = r.target();
        let mut bounded = *target;
        match bound_of(target) {
            Bound::Items => bounded.max_items = Some(n),
            Bound::Length => bounded.max_length = Some(n),
            Bound::Properties => bounded.max_properties = Some(n),
        }
        self.rebuild(r, r.at.len, &bounded)
    }

    /// The estimate with `child` in place of the node after `level` steps: each node above it
    /// copied, pointing at the copy below it, up to the rule's node.
    const fn rebuild(&self, r: &Read<'_>, level: usize, child: &Schema<'_>) -> Option<u64> {
        if level == 0 {
            let node = check::Node {
                schema: child,
                ..*self.node
            };
            let report = check::check(self.ast, self.target, &node);
            return match report.cost {
                Some(c) if report.is_ok() => Some(c.max),
                _ => None,
            };
        }
        let parent = r.chain[level - 1];
        let mut copy = *parent;
        let mut properties = [NO_PROPERTY; MAX_PROPERTIES];
        match r.at.steps[level - 1] {
            Step::Items => copy.items = Some(child),
            Step::Values => copy.additional_properties = Some(child),
            Step::Field(_) => {
                let i = match r.props[level - 1] {
                    Some((_, Some(i))) => i,
                    _ => return None,
                };
                let len = parent.properties.len();
                if len > MAX_PROPERTIES {
                    return None;
                }
                let mut k = 0;
                while k < len {
                    properties[k] = parent.properties[k];
                    k += 1;
                }
                properties[i].schema = child;
                copy.properties = properties.split_at(len).0;
                // The copy's properties differ from the ones the cached fingerprint is of.
                copy.properties_fingerprint = None;
            }
        }
        self.rebuild(r, level - 1, &copy)
    }

    /// The estimate with the list `r` reads bounded to `n` items of at most `length`
    /// characters (its items are strings).
    const fn estimate_list(&self, r: &Read<'_>, n: u64, length: u64) -> Option<u64> {
        let list = r.target();
        let items = match list.items {
            Some(items) => items,
            None => return None,
        };
        let bounded_items = Schema {
            max_length: Some(length),
            ..*items
        };
        let bounded = Schema {
            max_items: Some(n),
            items: Some(&bounded_items),
            ..*list
        };
        self.rebuild(r, r.at.len, &bounded)
    }

    /// Whether the rule fits the per-expression limit with the bound of `r` set to `n` (and,
    /// with `items_length`, the list's string items bounded to it).
    const fn fits(&self, r: &Read<'_>, n: u64, items_length: Option<u64>) -> bool {
        let cost = match items_length {
            Some(length) => self.estimate_list(r, n, length),
            None => self.estimate(r, n),
        };
        match cost {
            Some(c) => c <= PER_EXPRESSION_LIMIT,
            None => false,
        }
    }

    /// The largest bound (at most the request size) at which the rule fits the per-expression
    /// limit, the other bounds as they are; `None` if none does.
    const fn largest(&self, r: &Read<'_>) -> Option<u64> {
        self.largest_with(r, None)
    }

    /// [`Self::largest`] for a list of strings bounded to `length`.
    const fn largest_list(&self, r: &Read<'_>, length: u64) -> Option<u64> {
        self.largest_with(r, Some(length))
    }

    const fn largest_with(&self, r: &Read<'_>, items_length: Option<u64>) -> Option<u64> {
        const MAX: u64 = 3 * 1024 * 1024;
        if !self.fits(r, 1, items_length) {
            return None;
        }
        let (mut lo, mut hi) = (1, MAX);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.fits(r, mid, items_length) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }
}

/// One `help:` line per unbounded node the rule reads whose bound would lower `cost`.
const fn push_reads<const N: usize>(
    sizing: &Sizing<'_, '_>,
    typed: &TypedAst<'_>,
    read: &Reads<'_>,
    place: &str,
    cost: u64,
    m: &mut Buf<N>,
) -> Found {
    let mut found = Found::NONE;
    let mut i = 0;
    while i < read.len {
        if let Some(r) = &read.found[i] {
            // Only what drives the estimate: what, bounded to one, lowers it (or cannot be
            // re-estimated, so might).
            let at_one = sizing.estimate(r, 1);
            let drives = match at_one {
                Some(c) => c < cost,
                None => true,
            };
            if drives {
                found.any = true;
                found.foreign |= push_read(sizing, typed, r, place, at_one.is_some(), m);
            }
        }
        i += 1;
    }
    found
}

/// What an unbounded node is, for its help line.
#[derive(Clone, Copy)]
enum Kind {
    List,
    Map,
    String,
    /// A list's items, strings.
    ItemStrings,
    /// A map's values, strings.
    ValueStrings,
}

/// The help line of one unbounded node `r` (`sizable`: the rule can be re-estimated with its
/// bound set); whether a k8s-openapi type declares it.
const fn push_read<const N: usize>(
    sizing: &Sizing<'_, '_>,
    typed: &TypedAst<'_>,
    r: &Read<'_>,
    place: &str,
    sizable: bool,
    m: &mut Buf<N>,
) -> bool {
    let len = r.at.len;
    let last = if len > 0 {
        Some(r.at.steps[len - 1])
    } else {
        None
    };
    let kind = match (r.target().ty, last) {
        (Type::Array, _) => Kind::List,
        (Type::Object, _) => Kind::Map,
        (_, Some(Step::Items)) => Kind::ItemStrings,
        (_, Some(Step::Values)) => Kind::ValueStrings,
        _ => Kind::String,
    };
    m.push("\nhelp: ");
    match kind {
        Kind::ItemStrings | Kind::ValueStrings => {
            m.push(match kind {
                Kind::ItemStrings => "the items of `",
                _ => "the values of `",
            });
            // Named after the list or map.
            push_path(r, len - 1, place, m);
            m.push("` are strings without maxLength");
        }
        Kind::List | Kind::Map | Kind::String => {
            m.push("`");
            push_path(r, len, place, m);
            m.push("`");
            // Deeper than the node's own fields: how the rule reaches it.
            if len >= 2 {
                let mut text = Buf::<256>::new();
                if push_text(typed, r.reader, &mut text, 0) {
                    m.push(" (`");
                    m.push(text.as_str());
                    m.push("` in the rule)");
                }
            }
            m.push(match kind {
                Kind::List => " is a list without maxItems",
                Kind::Map => " is a map without maxProperties",
                _ => " is a string without maxLength (sized at 3145726)",
            });
        }
    }
    // The type that declares it: the object holding the last field on the way (none: the
    // rule's own field or type).
    let mut last_field = None;
    let mut k = 0;
    while k < len {
        if let Step::Field(_) = r.at.steps[k] {
            last_field = Some(k);
        }
        k += 1;
    }
    if let Some(k) = last_field
        && !(k == 0 && sizing.node.resource_root)
        && let Some(name) = crate::model::k8s::type_name_of(r.chain[k])
    {
        m.push(", declared in k8s-openapi's `");
        m.push(name);
        m.push("`, where no bound can be added");
        return true;
    }
    m.push(match kind {
        Kind::List => ": add #[cel(max_items = N)] (or #[schemars(length(max = N))])",
        Kind::Map => ": add #[cel(max_properties = N)]",
        Kind::String => ": add #[schemars(length(max = N))]",
        Kind::ItemStrings => ": add #[schemars(inner(length(max = N)))]",
        Kind::ValueStrings => ": bound the map, or give it a value type with maxLength",
    });
    if matches!(kind, Kind::ValueStrings) {
        return false;
    }
    if !sizable {
        m.push(" (crd-cel cannot re-estimate the rule with it set: a flattened or very wide type is on the way)");
        return false;
    }
    match sizing.largest(r) {
        Some(n) => {
            m.push(" with N at most ");
            m.push_u64(n);
            m.push(" (the other bounds as they are)");
        }
        None => {
            m.push(" (no N fits while the other fields stay as they are: bound them too)");
            // The strings of a list: bounds for both that fit, so that the user does not
            // have to guess one and rebuild to learn the other.
            if matches!(kind, Kind::ItemStrings) {
                let mut list = *r;
                list.at.len -= 1;
                if list.target().max_items.is_none() {
                    push_list_pairs(sizing, &list, m);
                }
            }
        }
    }
    false
}

/// The list `r` reads holds strings that no bound alone lets the rule fit with: the largest
/// number of items that fits with the strings bounded to a few usual lengths, the longest two
/// that fit.
const fn push_list_pairs<const N: usize>(sizing: &Sizing<'_, '_>, r: &Read<'_>, m: &mut Buf<N>) {
    // A URL, a name or path, a label.
    const LENGTHS: [u64; 3] = [2048, 256, 63];
    let mut shown = 0;
    let mut i = 0;
    while i < LENGTHS.len() && shown < 2 {
        if let Some(n) = sizing.largest_list(r, LENGTHS[i]) {
            m.push(if shown == 0 {
                "\nhelp: bounds that fit together: "
            } else {
                ", or "
            });
            m.push("#[cel(max_items = ");
            m.push_u64(n);
            m.push(")] with #[schemars(inner(length(max = ");
            m.push_u64(LENGTHS[i]);
            m.push(")))]");
            shown += 1;
        }
        i += 1;
    }
}

/// `place` and the first `len` steps of `r` as a schema path: `.name` per field (its JSON
/// name), `[*]` per item or value.
const fn push_path<const N: usize>(r: &Read<'_>, len: usize, place: &str, m: &mut Buf<N>) {
    m.push(place);
    let mut i = 0;
    while i < len {
        match (r.at.steps[i], r.props[i]) {
            (Step::Field(_), Some((p, _))) => {
                m.push(".");
                m.push(p.name);
            }
            (Step::Field(f), None) => {
                m.push(".");
                m.push_bytes(f);
            }
            (Step::Items | Step::Values, _) => m.push("[*]"),
        }
        i += 1;
    }
}

/// The rule's text for a chain of selections from an identifier or a comprehension variable
/// (`c.image`, `self.spec.containers`); `false` for anything else.
const fn push_text<const N: usize>(
    typed: &TypedAst<'_>,
    n: u32,
    out: &mut Buf<N>,
    depth: u32,
) -> bool {
    if depth > 32 {
        return false;
    }
    match typed.nodes[n as usize].expr {
        Expr::Ident(name) | Expr::Local { name, .. } => {
            out.push_bytes(typed.ast.str(name));
            true
        }
        Expr::Select {
            operand,
            test: false,
            ..
        } => {
            if !push_text(typed, operand, out, depth + 1) {
                return false;
            }
            out.push(".");
            out.push_bytes(typed.names[n as usize]);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::check::{DEFAULT_COMPAT, Target};
    use crate::crd::expression::check_expression;
    use crate::model::k8s::api::core::v1::POD_TEMPLATE_SPEC;
    use crate::model::{Property, Schema, Type};

    /// The message of a rule rejected on `schema` (the derive's const check, run natively).
    fn rejection(rule: &str, schema: &Schema<'_>, place: &str) -> String {
        let ast = crate::syntax::parse_ast(rule).unwrap();
        let m = check_expression(
            &ast.as_ast(),
            schema,
            Target::Rule,
            place,
            0,
            false,
            false,
            DEFAULT_COMPAT,
        )
        .unwrap_err();
        m.as_str().to_owned()
    }

    fn helps(m: &str) -> Vec<&str> {
        m.lines().filter(|l| l.starts_with("help: ")).collect()
    }

    #[test]
    fn a_scan_into_a_pod_template_names_the_k8s_fields_it_reads() {
        let m = rejection(
            "!has(self.spec) || self.spec.containers.all(c, has(c.image) && c.image.contains('@sha256:'))",
            &POD_TEMPLATE_SPEC,
            "BackupSpec.template",
        );
        let h = helps(&m);
        assert_eq!(h.len(), 3, "{m}");
        assert_eq!(
            h[0],
            "help: `BackupSpec.template.spec.containers` (`self.spec.containers` in the rule) is a list without maxItems, declared in k8s-openapi's `PodSpec`, where no bound can be added"
        );
        assert_eq!(
            h[1],
            "help: `BackupSpec.template.spec.containers[*].image` (`c.image` in the rule) is a string without maxLength (sized at 3145726), declared in k8s-openapi's `Container`, where no bound can be added"
        );
        assert!(
            h[2].starts_with("help: k8s-openapi's types cannot be given bounds"),
            "{m}"
        );
    }

    static STRING: Schema<'static> = Schema::of(Type::String);
    static TARGET: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "name",
                required: true,
                schema: &STRING,
            },
            Property {
                name: "weight",
                required: false,
                schema: &Schema::of(Type::Integer),
            },
        ],
        ..Schema::of(Type::Object)
    };
    static TARGETS: Schema<'static> = Schema {
        items: Some(&TARGET),
        ..Schema::of(Type::Array)
    };
    static NOTE: Schema<'static> = Schema::of(Type::String);
    static SPEC: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "targets",
                required: true,
                schema: &TARGETS,
            },
            Property {
                name: "note",
                required: false,
                schema: &NOTE,
            },
        ],
        ..Schema::of(Type::Object)
    };

    #[test]
    fn own_fields_below_the_node_get_the_attribute_and_the_largest_bound() {
        let m = rejection("self.targets.all(t, t.name.contains('x'))", &SPEC, "Spec");
        let h = helps(&m);
        // `note` is unbounded too, but the rule does not read it.
        assert_eq!(h.len(), 2, "{m}");
        assert!(
            h[0].starts_with("help: `Spec.targets` is a list without maxItems: add #[cel(max_items = N)] (or #[schemars(length(max = N))])"),
            "{m}"
        );
        assert!(
            h[1].starts_with("help: `Spec.targets[*].name` (`t.name` in the rule) is a string without maxLength (sized at 3145726): add #[schemars(length(max = N))]"),
            "{m}"
        );
        assert!(!m.contains("k8s-openapi"), "{m}");
    }

    #[test]
    fn a_bounded_read_that_is_too_big_gets_the_general_help() {
        static BIG: Schema<'static> = Schema {
            items: Some(&Schema {
                max_length: Some(1000),
                ..Schema::of(Type::String)
            }),
            max_items: Some(5000),
            ..Schema::of(Type::Array)
        };
        let m = rejection("self.all(x, self.all(y, x == y))", &BIG, "Spec.names");
        let h = helps(&m);
        assert_eq!(h.len(), 1, "{m}");
        assert!(h[0].starts_with("help: no missing bound drives"), "{m}");
    }
}
