//! The operations of viewed evaluation (`viewed.rs`) as functions, for the code the derive
//! generates for each rule of a struct: a rule's expression written as Rust, with the struct's
//! own fields read through its own (inlined) `cel_field` in place of a virtual call.
//!
//! The generated code composes these functions exactly as the viewed interpreter composes its
//! operations, so it answers what that interpreter answers: `Some(bool)` where it would give
//! that bool, `None` wherever it would not answer (an error, a value it does not compare, a
//! value without a view), and the walk then asks the interpreter. Like the interpreter, it
//! counts no cost: the walk charges the rule's estimated maximum.

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use super::viewed::{self, F, V};
use crate::eval::view::ViewRef;
pub use crate::eval::view::{RuleAt, Sites};
use crate::tree::{SchemaNode, is_type_or_object_meta};

/// `node`'s property `name`, as the interpreter finds it.
#[inline(always)]
fn child<'n>(node: &'n SchemaNode, name: &str, sites: &Sites, k: usize) -> Option<&'n SchemaNode> {
    match sites.get(k) {
        Some(at) => viewed::property_of(node, name, at),
        None => node.property(name),
    }
}

/// `self`: `view`, the value of `node` (a struct, or the field a field's rule is on; rules run
/// where it is present).
#[inline(always)]
pub fn this<'a>(view: ViewRef<'a>, node: &'a SchemaNode) -> Option<V<'a>> {
    viewed::present(view, node)
}

/// `self.name` where `self` is the struct of `node` and `view` its field serialized as
/// `name`: `Some(None)` when the field is absent (or `null`), `None` when the interpreter would
/// not answer.
#[inline(always)]
pub fn own<'a>(
    node: &'a SchemaNode,
    name: &str,
    sites: &Sites,
    k: usize,
    view: ViewRef<'a>,
) -> Option<Option<V<'a>>> {
    if node.type_meta && is_type_or_object_meta(name) {
        return None;
    }
    match child(node, name, sites, k) {
        Some(c) => viewed::lift(view, c),
        None => Some(None),
    }
}

/// `v.name` (an object's property or a map's key): `Some(None)` when absent.
#[inline(always)]
pub fn field<'a>(v: V<'a>, name: &str, sites: &Sites, k: usize) -> Option<Option<V<'a>>> {
    match v {
        V::Obj(o, node) => {
            if node.type_meta && is_type_or_object_meta(name) {
                return None;
            }
            match child(node, name, sites, k) {
                Some(c) => viewed::lift(o.cel_field(name), c),
                None => Some(None),
            }
        }
        V::Map(m, values) => viewed::lift(m.cel_get(name), values),
        _ => None,
    }
}

/// A selection's value: a missing field or key is an evaluation error.
#[inline(always)]
pub fn present<'a>(found: Option<Option<V<'a>>>) -> Option<V<'a>> {
    found?
}

/// `has(..)`'s value.
#[inline(always)]
pub fn has(found: Option<Option<V<'_>>>) -> Option<V<'static>> {
    Some(V::Bool(found?.is_some()))
}

/// A call of one argument.
#[inline(always)]
pub fn call1(f: F, a: V<'_>) -> Option<V<'_>> {
    viewed::call1(f, a)
}

/// A call of two arguments (a member call's receiver first).
#[inline(always)]
pub fn call2<'a>(f: F, a: V<'a>, b: V<'a>) -> Option<V<'a>> {
    viewed::call2(f, a, b)
}

/// `a == b` (`!=` when `ne`).
pub fn equal<'a>(a: V<'a>, b: V<'a>, ne: bool) -> Option<V<'a>> {
    Some(V::Bool(viewed::equal(a, b)? != ne))
}

/// Whether `a` decides `a && b` (`a || b` when `or`) whatever `b` is: the generated code then
/// does not evaluate `b`, as the interpreter does not.
#[inline(always)]
pub fn absorbs(or: bool, a: Option<V<'_>>) -> bool {
    matches!(a, Some(V::Bool(x)) if x == or)
}

/// `a && b` (`||` when `or`) where `a` does not decide it ([`absorbs`]): `b`'s absorbing value
/// is the result, whatever `a` is; else an error on either side is.
#[inline(always)]
pub fn logic<'a>(or: bool, a: Option<V<'a>>, b: Option<V<'a>>) -> Option<V<'a>> {
    match (a, b) {
        (_, Some(V::Bool(x))) if x == or => Some(V::Bool(x)),
        (Some(V::Bool(_)), Some(V::Bool(_))) => Some(V::Bool(!or)),
        _ => None,
    }
}

/// `@not_strictly_false(a)`, as the viewed interpreter answers it (a bool, else no answer).
#[inline(always)]
pub fn bool_of(a: Option<V<'_>>) -> Option<V<'static>> {
    match a? {
        V::Bool(b) => Some(V::Bool(b)),
        _ => None,
    }
}

/// A rule's result: its bool.
#[inline(always)]
pub fn result(v: Option<V<'_>>) -> Option<bool> {
    match v? {
        V::Bool(b) => Some(b),
        _ => None,
    }
}

/// A comprehension of one variable over `range` (a list's items, a map's keys): `step` runs
/// per element until it returns `Some(false)` (the condition ended the loop); `None` from it
/// is no answer.
#[inline(always)]
pub fn each<'a>(range: V<'a>, mut step: impl FnMut(V<'a>) -> Option<bool>) -> Option<()> {
    match range {
        V::List(l, list) => {
            let items = viewed::items_of(list)?;
            for i in 0..l.cel_len() {
                let item = viewed::present(l.cel_item(i), items)?;
                if !step(item)? {
                    break;
                }
            }
        }
        V::Bools(bits, n) => {
            for i in 0..usize::from(n) {
                if !step(viewed::bool_item(bits, i))? {
                    break;
                }
            }
        }
        // The keys in the order `cel_keys` gives them, without collecting them.
        V::Map(m, _) => {
            let mut answered = true;
            m.cel_entries(&mut |key, _| match step(V::Str(key)) {
                Some(more) => more,
                None => {
                    answered = false;
                    false
                }
            });
            answered.then_some(())?;
        }
        _ => return None,
    }
    Some(())
}

/// A list literal of the values `elements`, as the viewed interpreter builds it.
#[inline(always)]
pub fn list<'a>(elements: &[Option<V<'a>>]) -> Option<V<'a>> {
    viewed::built_list(elements.len(), |k| elements[k])
}

/// `v in [..]` where the list is of string literals: the planner makes it a set, which the
/// viewed interpreter answers as its `member` does (scalars only, exact kind).
#[inline(always)]
pub fn in_strs<'a>(v: V<'a>, set: &[&str]) -> Option<V<'a>> {
    viewed::member(v, |v| matches!(v, V::Str(s) if set.contains(&s)))
}

/// A constant pattern's compiled regex, compiled on first use.
pub struct Pattern(OnceLock<Option<Arc<crate::eval::go::regex::GoRegex>>>);

impl Pattern {
    /// Not compiled yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Pattern {
        Pattern(OnceLock::new())
    }
}

/// `s.matches(pattern)` with a constant pattern (one that does not compile: no answer).
#[inline(always)]
pub fn matches<'a>(re: &Pattern, pattern: &str, s: V<'a>) -> Option<V<'a>> {
    let re =
        re.0.get_or_init(|| crate::eval::go::regex::compiled_regex(pattern).ok())
            .as_ref()?;
    match s {
        V::Str(s) => Some(V::Bool(re.is_match(s))),
        _ => None,
    }
}

/// Runs the derive's code for the rule `rule` (planned as `viewed`) of `node`, written on the
/// struct `o` (`property` `None`, `node` is `o`'s) or on its field `property` (`node` is the
/// field's): `None` when `o`'s type has no code for that rule, or the code does not answer.
///
/// The entry found is remembered in `viewed` by address: an address within `o`'s own table
/// is an entry of that table, so the index it gives runs `o`'s code for that text; a table
/// without the rule is remembered too, so that it is not searched on every object.
#[inline(always)]
pub(crate) fn bind(
    viewed: &viewed::ViewProgram,
    rule: &str,
    o: &dyn crate::eval::view::ObjView,
    node: &SchemaNode,
    property: Option<&str>,
) -> Option<bool> {
    let table = o.cel_rules();
    if table.is_empty() {
        return None;
    }
    let start = table.as_ptr();
    let bound = viewed.derived.load(Ordering::Relaxed);
    let i = match (bound as usize).checked_sub(start as usize) {
        Some(offset) if offset < std::mem::size_of_val(table) => {
            offset / std::mem::size_of::<RuleAt>()
        }
        _ if std::ptr::eq(viewed.underived.load(Ordering::Relaxed), start) => return None,
        _ => match table
            .iter()
            .position(|r| r.property == property && r.rule == rule)
        {
            Some(i) => {
                viewed
                    .derived
                    .store(std::ptr::from_ref(&table[i]).cast_mut(), Ordering::Relaxed);
                i
            }
            None => {
                viewed.underived.store(start.cast_mut(), Ordering::Relaxed);
                return None;
            }
        },
    };
    o.cel_rule(i, node, &viewed.sites)
}

/// Whether each answer of the derive's code is checked against the viewed interpreter and
/// the interpreter on built values, for tests (`__private::cross_check_derived`).
pub(crate) static CROSS_CHECK: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

thread_local! {
    /// What the cross-check saw on this thread: answers checked, and each disagreement.
    pub(crate) static CROSS_CHECKED: std::cell::RefCell<(u64, Vec<String>)> =
        const { std::cell::RefCell::new((0, Vec::new())) };
}
