//! Evaluation of a planned program on views of a Rust value ([`crate::eval::view`]) instead of
//! CEL values: nothing is built, fields are read in place.
//!
//! It answers only what it can answer exactly: the subset of programs [`ViewProgram::plan`] takes
//! (field and index selection, `has()`, scalar comparisons and arithmetic, `size`,
//! `contains`/`startsWith`/`endsWith`, `matches`, `in`, `?:`, `&&`/`||`/`!`, equality of
//! scalars, objects, maps and lists, the comprehensions of `all`, `exists` and `exists_one`,
//! and library functions of scalars with a bool or number result), on values of plain schema
//! nodes. Everything else, and every evaluation error (a missing field, an overflow, a kind it
//! does not compare), is a [`Miss`]: the caller evaluates the rule on CEL values, which gives
//! cel-go's result and error. So where it answers, it answers as the interpreter does, and
//! where the interpreter would answer with an error it does not answer. It counts no cost: the
//! caller charges the rule's estimated maximum, which bounds it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

use super::super::function::Impl;
use super::super::value::Value;
use super::super::view::{ListView, MapView, ObjView, RuleAt, Sites, ViewRef};
use super::Program;
use super::ir::{Base, Fold, OLD_SELF, Op, QualKind, SELF};
use crate::eval::go::regex::GoRegex;
use crate::model::Type;
use crate::tree::{ListKind, SchemaNode, StringFormat, is_type_or_object_meta, name_eq};
use crd_cel_core::size::MAX_REQUEST_SIZE_BYTES;

/// The most variable slots (`self`, `oldSelf` and comprehension variables) a viewed program
/// may use: its frame lives on the stack. Three nested or successive comprehensions (each
/// takes three).
const MAX_SLOTS: usize = 11;

/// A value during viewed evaluation (and in the code the derive generates per rule,
/// `eval/interp/derived.rs`).
#[derive(Clone, Copy)]
pub enum V<'a> {
    /// A bool.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A uint.
    Uint(u64),
    /// A double.
    Double(f64),
    /// A string.
    Str(&'a str),
    /// A duration, in nanoseconds.
    Duration(i64),
    /// An object of declared properties, and its node.
    Obj(&'a dyn ObjView, &'a SchemaNode),
    /// A map, and its values' node.
    Map(&'a dyn MapView, &'a SchemaNode),
    /// A list and its node (not its items').
    List(&'a dyn ListView, &'a SchemaNode),
    /// A constant list of scalars.
    Consts(&'a [C]),
    /// A list built by the rule (a list literal, a `filter`'s result) of which only the length
    /// is known: `size` answers for it, and `+` of two lists; nothing else does.
    Counted(usize),
    /// A list literal of bools (at most 64, bit `i` the `i`-th): iterated by comprehensions
    /// (`[has(self.a), has(self.b)].filter(x, x).size() == 1`), sized, appended to.
    Bools(u64, u8),
    /// An unset variable slot.
    Unset,
}

/// A constant scalar (or list of them).
#[derive(Debug)]
pub enum C {
    /// A bool.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A uint.
    Uint(u64),
    /// A double.
    Double(f64),
    /// A string.
    Str(Arc<str>),
    /// A duration, in nanoseconds.
    Duration(i64),
    /// A list.
    List(Box<[C]>),
}

impl V<'_> {
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            V::Bool(_) | V::Int(_) | V::Uint(_) | V::Double(_) | V::Str(_) | V::Duration(_)
        )
    }
}

impl C {
    fn of(v: &Value) -> Option<C> {
        Some(match v {
            Value::Bool(b) => C::Bool(*b),
            Value::Int(i) => C::Int(*i),
            Value::Uint(u) => C::Uint(*u),
            Value::Double(d) => C::Double(*d),
            Value::String(s) => C::Str(s.clone()),
            Value::Duration(d) => C::Duration(d.nanos),
            Value::List(l) => C::List(
                l.items
                    .iter()
                    .map(|v| match C::of(v)? {
                        C::List(_) => None,
                        c => Some(c),
                    })
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    fn v(&self) -> V<'_> {
        match self {
            C::Bool(b) => V::Bool(*b),
            C::Int(i) => V::Int(*i),
            C::Uint(u) => V::Uint(*u),
            C::Double(d) => V::Double(*d),
            C::Str(s) => V::Str(s),
            C::Duration(d) => V::Duration(*d),
            C::List(l) => V::Consts(l),
        }
    }
}

/// The functions a viewed program calls, resolved when it is planned (the derive's generated
/// code names them too).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy)]
pub enum F {
    Size,
    Not,
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    StartsWith,
    EndsWith,
    In,
    Duration,
}

impl F {
    /// Each function, in the order of [`crd_cel_core::env::VIEWED_FUNCTIONS`], which names them
    /// (the derive's code for a rule names a function by its index here).
    pub const ALL: [F; 17] = [
        F::Size,
        F::Not,
        F::Neg,
        F::Add,
        F::Sub,
        F::Mul,
        F::Div,
        F::Rem,
        F::Lt,
        F::Le,
        F::Gt,
        F::Ge,
        F::Contains,
        F::StartsWith,
        F::EndsWith,
        F::In,
        F::Duration,
    ];

    /// The function named `name`, if the viewed evaluation implements it.
    fn of(name: &str) -> Option<F> {
        let names = crd_cel_core::env::VIEWED_FUNCTIONS;
        names.iter().position(|n| *n == name).map(|i| F::ALL[i])
    }
}

#[derive(Debug)]
enum Q {
    /// `.f`: the property name on objects, the raw name on maps.
    Field {
        property: Option<Arc<str>>,
        raw: Arc<str>,
        /// Where the property was last found ([`property_of`]).
        at: AtomicU64,
    },
    Const(C),
    Op(usize),
}

#[derive(Debug)]
enum VOp {
    Const(C),
    Attr {
        base: Base,
        quals: Box<[Q]>,
        test: bool,
    },
    Call1(F, usize),
    Call2(F, usize, usize),
    /// A call of any other function on scalars, through its library implementation (the
    /// overload the checker resolved, as the interpreter calls it), whose result is a scalar
    /// other than a string.
    Lib(Impl, Box<[usize]>),
    Eq(usize, usize, bool),
    And(usize, usize),
    Or(usize, usize),
    Cond(usize, usize, usize),
    NotStrictlyFalse(usize),
    Matches(usize, Arc<GoRegex>),
    InSet(usize, Box<[C]>),
    /// A list literal: its elements evaluated, its length kept ([`V::Counted`]).
    List(Box<[usize]>),
    Fold(Fold),
}

/// Why a viewed evaluation gives no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Miss {
    /// An evaluation error, a result that is not a bool, or values it does not compare.
    Unknown,
    /// A value the rule reads has no view (a type without one, or one the schema node does
    /// not describe): the same on every object of the type.
    Unviewable,
}

/// A program planned for views: the same operations as its [`Program`], with calls resolved.
#[derive(Debug)]
pub(crate) struct ViewProgram {
    ops: Vec<VOp>,
    root: usize,
    /// A value the rule read had no view ([`Miss::Unviewable`]): it recurs on every object
    /// of the type, so the rule runs on values from then on.
    pub(crate) unviewable: AtomicBool,
    /// The entry of a struct's table of rules the derive wrote as Rust that this rule was
    /// last bound to, and the table last found without it (`derived.rs`' `bind`).
    pub(crate) derived: AtomicPtr<RuleAt>,
    pub(crate) underived: AtomicPtr<RuleAt>,
    /// The memos of the read sites of the derive's code for the rule.
    pub(crate) sites: Sites,
}

impl ViewProgram {
    /// The program for views, if every op of `p` is one the viewed evaluation implements.
    pub(crate) fn plan(p: &Program) -> Option<ViewProgram> {
        if p.slots > MAX_SLOTS {
            return None;
        }
        let ops = p
            .ops
            .iter()
            .map(plan::plan_op)
            .collect::<Option<Vec<_>>>()?;
        if !plan::counted_lists_only_sized(&ops, p.root) {
            return None;
        }
        Some(ViewProgram {
            ops,
            root: p.root,
            unviewable: AtomicBool::new(false),
            derived: AtomicPtr::new(std::ptr::null_mut()),
            underived: AtomicPtr::new(std::ptr::null_mut()),
            sites: Sites::new(),
        })
    }

    /// The rule's result on `this` (the value of `node`) and `old` (its old value), read in
    /// place: `Ok(b)` when the program gives the bool `b` without any error, `Err` when it
    /// would give anything else or the viewed evaluation cannot tell (evaluate it on values
    /// then).
    pub(crate) fn eval(
        &self,
        this: ViewRef<'_>,
        old: Option<ViewRef<'_>>,
        node: &SchemaNode,
    ) -> Result<bool, Miss> {
        let mut ev = Viewed {
            ops: &self.ops,
            frame: [V::Unset; MAX_SLOTS],
            unviewable: false,
        };
        let out = ev.run(self.root, this, old, node);
        match out {
            Some(V::Bool(b)) => Ok(b),
            _ if ev.unviewable => Err(Miss::Unviewable),
            _ => Err(Miss::Unknown),
        }
    }
}

/// `view` as the value the JSON conversion gives for `node`: `Some(None)` when it is absent,
/// `None` when the view cannot tell (a kind the node does not hold, a node whose conversion
/// is not the plain one).
// Into the derive's code for each rule in release builds; a debug build would copy it into
// every rule.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn lift<'a>(view: ViewRef<'a>, node: &'a SchemaNode) -> Option<Option<V<'a>>> {
    if !node.plain {
        return None;
    }
    Some(Some(match (view, node.ty) {
        // A `null` is hidden from the rules as an absent value is.
        (ViewRef::Absent | ViewRef::Null, _) => return Some(None),
        (ViewRef::Bool(b), Type::Boolean) => V::Bool(b),
        (ViewRef::Int(i), Type::Integer) => V::Int(i),
        (ViewRef::Double(d), Type::Number) => V::Double(d),
        // The cost estimate a rule is charged assumes no string is longer than a request
        // (`MAX_REQUEST_SIZE_BYTES`): a longer one is left to the interpreter's count.
        (ViewRef::Str(s), Type::String)
            if node.format == StringFormat::Plain && (s.len() as u64) < MAX_REQUEST_SIZE_BYTES =>
        {
            V::Str(s)
        }
        (ViewRef::Obj(o), Type::Object) if node.additional_properties.is_none() => V::Obj(o, node),
        (ViewRef::Map(m), Type::Object) if node.properties.is_empty() => {
            V::Map(m, node.additional_properties.as_deref()?)
        }
        (ViewRef::List(l), Type::Array) if node.items.is_some() => V::List(l, node),
        _ => return None,
    }))
}

/// `node`'s property `name`, found by its index where `at` remembers one for this node (a
/// program runs on the nodes of one tree, whose ids are distinct), so that a field read does
/// not compare names along the properties each time.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn property_of<'n>(
    node: &'n SchemaNode,
    name: &str,
    at: &AtomicU64,
) -> Option<&'n SchemaNode> {
    let key = (node.id as u64 + 1) << 32;
    let seen = at.load(Ordering::Relaxed);
    if seen >> 32 == key >> 32 {
        return node
            .properties
            .get((seen & 0xffff_ffff) as usize)
            .map(|(_, c)| c);
    }
    let i = node.properties.iter().position(|(n, _)| name_eq(n, name))?;
    if let Ok(index) = u32::try_from(i) {
        at.store(key | u64::from(index), Ordering::Relaxed);
    }
    Some(&node.properties[i].1)
}

/// `view` lifted when present.
#[inline(always)]
pub(crate) fn present<'a>(view: ViewRef<'a>, node: &'a SchemaNode) -> Option<V<'a>> {
    lift(view, node).flatten()
}

struct Viewed<'a> {
    ops: &'a [VOp],
    frame: [V<'a>; MAX_SLOTS],
    /// A value read had no view ([`Miss::Unviewable`]).
    unviewable: bool,
}

impl<'a> Viewed<'a> {
    fn run(
        &mut self,
        root: usize,
        this: ViewRef<'a>,
        old: Option<ViewRef<'a>>,
        node: &'a SchemaNode,
    ) -> Option<V<'a>> {
        self.frame[SELF] = self.present(this, node)?;
        if let Some(old) = old {
            self.frame[OLD_SELF] = self.present(old, node)?;
        }
        self.eval(root)
    }

    /// [`lift`], noting a value without a view.
    fn lift(&mut self, view: ViewRef<'a>, node: &'a SchemaNode) -> Option<Option<V<'a>>> {
        let lifted = lift(view, node);
        self.unviewable |= lifted.is_none();
        lifted
    }

    /// [`present`], noting a value without a view.
    fn present(&mut self, view: ViewRef<'a>, node: &'a SchemaNode) -> Option<V<'a>> {
        self.lift(view, node)?
    }

    fn eval(&mut self, op: usize) -> Option<V<'a>> {
        let ops = self.ops;
        match &ops[op] {
            VOp::Const(c) => Some(c.v()),
            VOp::Attr { base, quals, test } => self.attr(base, quals, *test),
            VOp::Call1(f, a) => {
                let a = self.eval(*a)?;
                call1(*f, a)
            }
            VOp::Call2(f, a, b) => {
                let (a, b) = (self.eval(*a)?, self.eval(*b)?);
                call2(*f, a, b)
            }
            VOp::Lib(call, args) => self.lib(*call, args),
            VOp::Eq(a, b, ne) => {
                let (a, b) = (self.eval(*a)?, self.eval(*b)?);
                Some(V::Bool(self.equal(a, b, 0)? != *ne))
            }
            VOp::And(a, b) | VOp::Or(a, b) => {
                // cel-go's commutative `&&`/`||`: either side's absorbing value (false, true)
                // is the result, whatever the other side is (an error included); else an
                // error on either side is.
                let is_and = matches!(ops[op], VOp::And(..));
                let mut unknown = false;
                for term in [*a, *b] {
                    match self.eval(term) {
                        Some(V::Bool(x)) if x != is_and => return Some(V::Bool(x)),
                        Some(V::Bool(_)) => {}
                        _ => unknown = true,
                    }
                }
                (!unknown).then_some(V::Bool(is_and))
            }
            VOp::Cond(c, t, f) => match self.eval(*c)? {
                V::Bool(true) => self.eval(*t),
                V::Bool(false) => self.eval(*f),
                _ => None,
            },
            VOp::NotStrictlyFalse(a) => match self.eval(*a)? {
                V::Bool(b) => Some(V::Bool(b)),
                _ => None,
            },
            VOp::Matches(target, regex) => match self.eval(*target)? {
                V::Str(s) => Some(V::Bool(regex.is_match(s))),
                _ => None,
            },
            VOp::InSet(arg, set) => self.in_set(*arg, set),
            VOp::List(elements) => built_list(elements.len(), |k| self.eval(elements[k])),
            VOp::Fold(f) => self.fold(*f),
        }
    }

    // The rarer operations are functions of their own: `eval` recurses for every operation,
    // and a large body makes each of its calls pay a large frame.

    #[inline(never)]
    fn lib(&mut self, call: Impl, args: &[usize]) -> Option<V<'a>> {
        let mut values = Vec::with_capacity(args.len());
        for &a in args {
            values.push(match self.eval(a)? {
                V::Bool(b) => Value::Bool(b),
                V::Int(i) => Value::Int(i),
                V::Uint(u) => Value::Uint(u),
                V::Double(d) => Value::Double(d),
                V::Str(s) => Value::string(s),
                _ => return None,
            });
        }
        match call(&values).ok()? {
            Value::Bool(b) => Some(V::Bool(b)),
            Value::Int(i) => Some(V::Int(i)),
            Value::Uint(u) => Some(V::Uint(u)),
            Value::Double(d) => Some(V::Double(d)),
            _ => None,
        }
    }

    #[inline(never)]
    fn in_set(&mut self, arg: usize, set: &[C]) -> Option<V<'a>> {
        let v = self.eval(arg)?;
        member(v, |v| {
            set.iter().any(|m| scalar_eq(m.v(), v).unwrap_or(false))
        })
    }

    fn attr(&mut self, base: &Base, quals: &[Q], test: bool) -> Option<V<'a>> {
        let mut value = match base {
            Base::Var(slot) => match self.frame[*slot] {
                V::Unset => return None,
                v => v,
            },
            Base::Op(op) => self.eval(*op)?,
        };
        let last = quals.len().checked_sub(1);
        for (k, q) in quals.iter().enumerate() {
            let presence = test && Some(k) == last;
            let found = match (q, value) {
                (Q::Field { property, at, .. }, V::Obj(o, node)) => {
                    let name = property.as_deref()?;
                    if node.type_meta && is_type_or_object_meta(name) {
                        return None;
                    }
                    match property_of(node, name, at) {
                        Some(child) => self.lift(o.cel_field(name), child)?,
                        None => None,
                    }
                }
                (Q::Field { raw, .. }, V::Map(m, values)) => self.lift(m.cel_get(raw), values)?,
                (Q::Field { .. }, _) => return None,
                (Q::Const(c), _) => self.index(value, c.v(), presence)?,
                (Q::Op(o), _) => {
                    let i = self.eval(*o)?;
                    self.index(value, i, presence)?
                }
            };
            if presence {
                return Some(V::Bool(found.is_some()));
            }
            // A missing field or key is an evaluation error.
            value = found?;
        }
        Some(value)
    }

    /// `value[index]`: `Some(None)` for a map key that is not there.
    fn index(&mut self, value: V<'a>, index: V<'_>, presence: bool) -> Option<Option<V<'a>>> {
        match (value, index) {
            (V::Map(m, values), V::Str(key)) => self.lift(m.cel_get(key), values),
            (V::List(l, list), V::Int(i)) if !presence => {
                let i = usize::try_from(i).ok().filter(|&i| i < l.cel_len())?;
                Some(Some(self.present(l.cel_item(i), items_of(list)?)?))
            }
            _ => None,
        }
    }

    #[inline(never)]
    fn fold(&mut self, f: Fold) -> Option<V<'a>> {
        let Fold {
            range,
            init,
            cond,
            step,
            result,
            iter,
            iter2,
            accu,
        } = f;
        let range = self.eval(range)?;
        self.frame[accu] = self.eval(init)?;
        match range {
            V::List(l, list) => {
                let items = items_of(list)?;
                for i in 0..l.cel_len() {
                    let item = self.present(l.cel_item(i), items)?;
                    if !self.item(f, i, item)? {
                        break;
                    }
                }
            }
            // A list literal of bools: each bit.
            V::Bools(bits, n) => {
                for i in 0..usize::from(n) {
                    if !self.item(f, i, bool_item(bits, i))? {
                        break;
                    }
                }
            }
            V::Map(m, values) => {
                let mut keys = Vec::with_capacity(m.cel_len());
                m.cel_keys(&mut keys);
                for key in keys {
                    self.frame[iter] = V::Str(key);
                    if let Some(second) = iter2 {
                        self.frame[second] = self.present(m.cel_get(key), values)?;
                    }
                    if !self.next(cond, step, accu)? {
                        break;
                    }
                }
            }
            _ => return None,
        }
        let out = self.eval(result)?;
        self.frame[accu] = V::Unset;
        Some(out)
    }

    /// A list comprehension's turn on item `i`, its variables bound (the index and the item
    /// with two): `false` when its condition ends the loop.
    fn item(&mut self, f: Fold, i: usize, item: V<'a>) -> Option<bool> {
        match f.iter2 {
            Some(second) => {
                self.frame[f.iter] = V::Int(i64::try_from(i).ok()?);
                self.frame[second] = item;
            }
            None => self.frame[f.iter] = item,
        }
        self.next(f.cond, f.step, f.accu)
    }

    /// One turn of a comprehension: `false` when its condition ends the loop.
    fn next(&mut self, cond: usize, step: usize, accu: usize) -> Option<bool> {
        if let V::Bool(false) = self.eval(cond)? {
            return Some(false);
        }
        self.frame[accu] = self.eval(step)?;
        Some(true)
    }
}

/// A map-list item's key tuple, compared as the list-type check compares keys.
#[derive(PartialEq)]
enum KeyPart<'a> {
    Str(&'a str),
    Int(i64),
    Bool(bool),
}

impl<'a> Viewed<'a> {
    /// A list's items (of node `items`) as scalars, `None` if one is not or two are equal.
    fn scalars(&mut self, l: &'a dyn ListView, items: &'a SchemaNode) -> Option<Vec<V<'a>>> {
        let mut out = Vec::with_capacity(l.cel_len());
        for i in 0..l.cel_len() {
            let v = self.present(l.cel_item(i), items)?;
            if !v.is_scalar() || out.iter().any(|p| scalar_eq(*p, v) != Some(false)) {
                return None;
            }
            out.push(v);
        }
        Some(out)
    }

    /// The key tuples of a map list's items, `None` if a key field is missing or not a
    /// string, int or bool, or two items share a tuple.
    fn map_keys(
        &mut self,
        l: &'a dyn ListView,
        items: &'a SchemaNode,
        keys: &[std::sync::Arc<str>],
    ) -> Option<Vec<Vec<KeyPart<'a>>>> {
        let mut out: Vec<Vec<KeyPart<'a>>> = Vec::with_capacity(l.cel_len());
        for i in 0..l.cel_len() {
            let V::Obj(o, node) = self.present(l.cel_item(i), items)? else {
                return None;
            };
            let mut tuple = Vec::with_capacity(keys.len());
            for key in keys {
                let child = node.property(key)?;
                tuple.push(match self.present(o.cel_field(key), child)? {
                    V::Str(s) => KeyPart::Str(s),
                    V::Int(n) => KeyPart::Int(n),
                    V::Bool(b) => KeyPart::Bool(b),
                    _ => return None,
                });
            }
            if out.contains(&tuple) {
                return None;
            }
            out.push(tuple);
        }
        Some(out)
    }
}

/// The items' node of a list node.
#[inline]
pub(crate) fn items_of(list: &SchemaNode) -> Option<&SchemaNode> {
    list.items.as_deref()
}

/// How deep [`Viewed::equal`] compares before it leaves the answer to built values.
const MAX_EQUAL_DEPTH: u32 = 32;

impl<'a> Viewed<'a> {
    /// CEL's `==` on two values of one schema node, as the interpreter's `equals` gives it
    /// on their conversions: objects by declared property (a `null` and an absent field
    /// differ, as entries of the object), maps by key, lists by their list type. `None` for
    /// values of different nodes or kinds, an object with entries the schema does not
    /// declare, and whatever has no view.
    fn equal(&mut self, a: V<'a>, b: V<'a>, depth: u32) -> Option<bool> {
        if depth > MAX_EQUAL_DEPTH {
            return None;
        }
        match (a, b) {
            (V::Obj(x, n), V::Obj(y, m)) if std::ptr::eq(n, m) && !n.type_meta => {
                let (mut xs, mut ys) = (0, 0);
                let mut equal = true;
                for (name, child) in &n.properties {
                    let (p, q) = (x.cel_field(name), y.cel_field(name));
                    xs += usize::from(!matches!(p, ViewRef::Absent));
                    ys += usize::from(!matches!(q, ViewRef::Absent));
                    equal &= match (p, q) {
                        (ViewRef::Absent, ViewRef::Absent) | (ViewRef::Null, ViewRef::Null) => true,
                        (ViewRef::Absent | ViewRef::Null, _)
                        | (_, ViewRef::Absent | ViewRef::Null) => false,
                        (p, q) => {
                            let (p, q) = (self.present(p, child)?, self.present(q, child)?);
                            self.equal(p, q, depth + 1)?
                        }
                    };
                }
                // Entries the schema does not declare are compared by the interpreter.
                (xs == x.cel_count() && ys == y.cel_count()).then_some(equal)
            }
            (V::Map(x, n), V::Map(y, m)) if std::ptr::eq(n, m) => {
                if x.cel_len() != y.cel_len() {
                    return Some(false);
                }
                let mut keys = Vec::with_capacity(x.cel_len());
                x.cel_keys(&mut keys);
                let mut equal = true;
                for key in keys {
                    let p = self.present(x.cel_get(key), n)?;
                    equal &= match y.cel_get(key) {
                        ViewRef::Absent => false,
                        q => {
                            let q = self.present(q, n)?;
                            self.equal(p, q, depth + 1)?
                        }
                    };
                }
                Some(equal)
            }
            (V::List(x, n), V::List(y, m)) if std::ptr::eq(n, m) => {
                let items = items_of(n)?;
                let len = x.cel_len();
                if len != y.cel_len() {
                    return Some(false);
                }
                let mut equal = true;
                match &n.list_kind {
                    ListKind::Plain => {
                        for i in 0..len {
                            let (p, q) = (x.cel_item(i), y.cel_item(i));
                            let (p, q) = (self.present(p, items)?, self.present(q, items)?);
                            equal &= self.equal(p, q, depth + 1)?;
                        }
                    }
                    // The same scalars in any order; with a repeated item (an invalid set)
                    // the interpreter's set comparison is left to it.
                    ListKind::Set => {
                        let (xs, ys) = (self.scalars(x, items)?, self.scalars(y, items)?);
                        equal = ys
                            .iter()
                            .all(|q| xs.iter().any(|p| scalar_eq(*p, *q) == Some(true)));
                    }
                    // The item of each key on both sides equal; with a repeated key (an
                    // invalid map list) the interpreter's comparison is left to it.
                    ListKind::Map(keys) => {
                        let xk = self.map_keys(x, items, keys)?;
                        let yk = self.map_keys(y, items, keys)?;
                        for (j, key) in yk.iter().enumerate() {
                            let Some(i) = xk.iter().position(|k| k == key) else {
                                return Some(false);
                            };
                            let p = self.present(x.cel_item(i), items)?;
                            let q = self.present(y.cel_item(j), items)?;
                            equal &= self.equal(p, q, depth + 1)?;
                        }
                    }
                }
                Some(equal)
            }
            (a, b) if a.is_scalar() && b.is_scalar() => scalar_eq(a, b),
            _ => None,
        }
    }
}

/// CEL's `==` on two viewed values ([`Viewed::equal`]) outside an evaluation.
pub(crate) fn equal<'a>(a: V<'a>, b: V<'a>) -> Option<bool> {
    if a.is_scalar() && b.is_scalar() {
        return scalar_eq(a, b);
    }
    let mut ev = Viewed {
        ops: &[],
        frame: [V::Unset; MAX_SLOTS],
        unviewable: false,
    };
    ev.equal(a, b, 0)
}

/// `==` on two scalars of one kind (`None`: anything else, left to the interpreter).
#[inline(always)]
fn scalar_eq(a: V<'_>, b: V<'_>) -> Option<bool> {
    Some(match (a, b) {
        (V::Bool(a), V::Bool(b)) => a == b,
        (V::Int(a), V::Int(b)) => a == b,
        (V::Uint(a), V::Uint(b)) => a == b,
        (V::Double(a), V::Double(b)) => a == b,
        (V::Str(a), V::Str(b)) => a == b,
        (V::Duration(a), V::Duration(b)) => a == b,
        _ => return None,
    })
}

/// The ordering of two scalars of one kind (`None`: unordered, or anything else).
#[inline(always)]
fn scalar_cmp(a: V<'_>, b: V<'_>) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (V::Bool(a), V::Bool(b)) => Some(a.cmp(&b)),
        (V::Int(a), V::Int(b)) => Some(a.cmp(&b)),
        (V::Uint(a), V::Uint(b)) => Some(a.cmp(&b)),
        (V::Double(a), V::Double(b)) => a.partial_cmp(&b),
        (V::Str(a), V::Str(b)) => Some(a.cmp(b)),
        (V::Duration(a), V::Duration(b)) => Some(a.cmp(&b)),
        _ => None,
    }
}

/// `v in` a constant set (the planner's set lookup, exact-kind membership as the interpreter's):
/// answered for scalars only, `contains` telling whether `v` is a member.
#[inline(always)]
pub(crate) fn member<'a>(v: V<'a>, contains: impl FnOnce(V<'a>) -> bool) -> Option<V<'a>> {
    v.is_scalar().then(|| V::Bool(contains(v)))
}

/// A list literal's value on views, its `n` elements given by `element`: its bools when every
/// element is one (at most 64), else its length alone.
#[inline]
pub(crate) fn built_list<'a>(
    n: usize,
    mut element: impl FnMut(usize) -> Option<V<'a>>,
) -> Option<V<'a>> {
    let mut bits = 0u64;
    let mut bools = n <= 64;
    for k in 0..n {
        match element(k)? {
            V::Bool(b) if bools => bits |= u64::from(b) << k,
            _ => bools = false,
        }
    }
    Some(match bools {
        true => V::Bools(bits, n as u8),
        false => V::Counted(n),
    })
}

/// Item `i` of a [`V::Bools`].
#[inline]
pub(crate) fn bool_item(bits: u64, i: usize) -> V<'static> {
    V::Bool(bits >> i & 1 == 1)
}

/// The length of a list the rule built, or of a constant one.
fn built_len(v: V<'_>) -> Option<usize> {
    match v {
        V::Consts(l) => Some(l.len()),
        V::Counted(n) => Some(n),
        V::Bools(_, n) => Some(n.into()),
        _ => None,
    }
}

#[inline]
fn size(n: usize) -> Option<V<'static>> {
    Some(V::Int(i64::try_from(n).ok()?))
}

#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn call1(f: F, a: V<'_>) -> Option<V<'_>> {
    match (f, a) {
        (F::Size, V::Str(s)) => size(s.chars().count()),
        (F::Size, V::List(l, _)) => size(l.cel_len()),
        (F::Size, V::Map(m, _)) => size(m.cel_len()),
        (F::Size, V::Consts(l)) => size(l.len()),
        (F::Size, V::Counted(n)) => size(n),
        (F::Size, V::Bools(_, n)) => size(n.into()),
        (F::Not, V::Bool(b)) => Some(V::Bool(!b)),
        (F::Neg, V::Int(i)) => Some(V::Int(i.checked_neg()?)),
        (F::Neg, V::Double(d)) => Some(V::Double(-d)),
        // The interpreter's conversion.
        (F::Duration, V::Str(s)) => Some(V::Duration(crate::eval::stdlib::duration_nanos(s)?)),
        (F::Duration, V::Duration(d)) => Some(V::Duration(d)),
        (F::Duration, V::Int(i)) => Some(V::Duration(i)),
        _ => None,
    }
}

/// A call of two evaluated arguments (a member call's receiver first). Int overflow, division
/// by zero and `MIN / -1` are errors: `checked_*` gives `None` for each.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(crate) fn call2<'a>(f: F, a: V<'a>, b: V<'a>) -> Option<V<'a>> {
    use std::cmp::Ordering::{Greater, Less};
    Some(match (f, a, b) {
        (F::Lt | F::Le | F::Gt | F::Ge, a, b) => {
            let ord = scalar_cmp(a, b)?;
            V::Bool(match f {
                F::Lt => ord == Less,
                F::Le => ord != Greater,
                F::Gt => ord == Greater,
                _ => ord != Less,
            })
        }
        (F::Add, V::Int(a), V::Int(b)) => V::Int(a.checked_add(b)?),
        // Lists of known lengths (a comprehension's accumulator starts as the constant `[]`).
        (F::Add, a @ (V::Consts(_) | V::Counted(_) | V::Bools(..)), b)
            if matches!(b, V::Consts(_) | V::Counted(_) | V::Bools(..)) =>
        {
            V::Counted(built_len(a)?.checked_add(built_len(b)?)?)
        }
        (F::Sub, V::Int(a), V::Int(b)) => V::Int(a.checked_sub(b)?),
        (F::Mul, V::Int(a), V::Int(b)) => V::Int(a.checked_mul(b)?),
        (F::Div, V::Int(a), V::Int(b)) => V::Int(a.checked_div(b)?),
        (F::Rem, V::Int(a), V::Int(b)) => V::Int(a.checked_rem(b)?),
        (F::Add, V::Uint(a), V::Uint(b)) => V::Uint(a.checked_add(b)?),
        (F::Sub, V::Uint(a), V::Uint(b)) => V::Uint(a.checked_sub(b)?),
        (F::Mul, V::Uint(a), V::Uint(b)) => V::Uint(a.checked_mul(b)?),
        (F::Div, V::Uint(a), V::Uint(b)) => V::Uint(a.checked_div(b)?),
        (F::Rem, V::Uint(a), V::Uint(b)) => V::Uint(a.checked_rem(b)?),
        (F::Add, V::Double(a), V::Double(b)) => V::Double(a + b),
        (F::Sub, V::Double(a), V::Double(b)) => V::Double(a - b),
        (F::Mul, V::Double(a), V::Double(b)) => V::Double(a * b),
        (F::Div, V::Double(a), V::Double(b)) => V::Double(a / b),
        (F::Contains, V::Str(s), V::Str(t)) => V::Bool(s.contains(t)),
        (F::StartsWith, V::Str(s), V::Str(t)) => V::Bool(s.starts_with(t)),
        (F::EndsWith, V::Str(s), V::Str(t)) => V::Bool(s.ends_with(t)),
        (F::In, v, V::List(l, list)) => {
            let items = items_of(list)?;
            let mut found = false;
            for i in 0..l.cel_len() {
                found |= scalar_eq(v, present(l.cel_item(i), items)?)?;
            }
            V::Bool(found)
        }
        (F::In, v, V::Consts(items)) => {
            let mut found = false;
            for item in items {
                found |= scalar_eq(v, item.v())?;
            }
            V::Bool(found)
        }
        (F::In, V::Str(k), V::Map(m, _)) => match m.cel_get(k) {
            ViewRef::Absent => V::Bool(false),
            ViewRef::Opaque => return None,
            _ => V::Bool(true),
        },
        _ => return None,
    })
}

mod plan;
#[cfg(test)]
mod tests;
