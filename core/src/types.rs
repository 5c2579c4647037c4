//! CEL types as the checker builds them: a fixed-capacity arena of [`Ty`] entries addressed by
//! [`TyId`], with cel-go's type-variable substitution (`checker/mapping.go`) and assignability
//! (`checker/types.go`), written as `const fn`.

use crate::decl::Opaque;
pub use crate::model::bytes_eq;
use crate::model::{Property, Schema, Type};

/// Index of a type in the arena.
pub type TyId = u16;

/// Arena capacity. A rule needing more is reported, never cut short silently. Kept small: every
/// check initializes its arrays, which is most of what a check costs in const evaluation.
pub const MAX_TYPES: usize = 1024;
/// Capacity of the object type name table.
pub const MAX_NAMES: usize = 256;
/// Capacity of the substitution undo trail.
const MAX_TRAIL: usize = 512;
/// Guard for the recursive type walks (types nest as deep as the schema does).
const MAX_TYPE_DEPTH: u32 = 64;

/// A CEL type.
#[derive(Debug, Clone, Copy)]
pub enum Ty<'a> {
    /// The error type (after a reported error; assignable to anything).
    Error,
    /// `dyn`.
    Dyn,
    /// `null_type`.
    Null,
    /// `bool`.
    Bool,
    /// `int`.
    Int,
    /// `uint`.
    Uint,
    /// `double`.
    Double,
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `google.protobuf.Duration`.
    Duration,
    /// `google.protobuf.Timestamp`.
    Timestamp,
    /// `list(T)`.
    List(TyId),
    /// `map(K, V)`.
    Map(TyId, TyId),
    /// `optional_type(T)` (an opaque type in cel-go).
    Optional(TyId),
    /// `type(T)`.
    Type(TyId),
    /// An opaque library type.
    Opaque(Opaque),
    /// An object type made from a schema node.
    Object {
        /// The node.
        schema: &'a Schema<'a>,
        /// A resource root: `apiVersion`, `kind`, `metadata` are implicit.
        root: bool,
        /// The type name, in the name table.
        name: u16,
    },
    /// A type variable.
    Var(u16),
}

/// The type kinds cel-go's assignability rules dispatch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Error.
    Error,
    /// Dyn.
    Dyn,
    /// Null.
    Null,
    /// A primitive or well-known type, compared by kind.
    Scalar(u8),
    /// list.
    List,
    /// map.
    Map,
    /// opaque (optional and the library types).
    Opaque,
    /// type.
    Type,
    /// struct (objects).
    Struct,
    /// type parameter.
    Param,
}

/// Fixed ids of the simple types (the arena starts with them).
pub mod id {
    use super::TyId;
    /// `error`.
    pub const ERROR: TyId = 0;
    /// `dyn`.
    pub const DYN: TyId = 1;
    /// `null_type`.
    pub const NULL: TyId = 2;
    /// `bool`.
    pub const BOOL: TyId = 3;
    /// `int`.
    pub const INT: TyId = 4;
    /// `uint`.
    pub const UINT: TyId = 5;
    /// `double`.
    pub const DOUBLE: TyId = 6;
    /// `string`.
    pub const STRING: TyId = 7;
    /// `bytes`.
    pub const BYTES: TyId = 8;
    /// `google.protobuf.Duration`.
    pub const DURATION: TyId = 9;
    /// `google.protobuf.Timestamp`.
    pub const TIMESTAMP: TyId = 10;
    /// Number of predefined types.
    pub const COUNT: usize = 11;
}

/// A name-table entry: `parent.segment`, or the root name when `parent` is `u16::MAX`.
#[derive(Debug, Clone, Copy)]
struct Name<'a> {
    parent: u16,
    segment: &'a [u8],
}

/// The schema of the `metadata` CEL sees on a resource root (`k8s.io/apiserver/pkg/cel/common/schemas.go`): only `name` and
/// `generateName`, bounded as in 1.37 for cost.
pub static META: Schema<'static> = Schema {
    properties: &[
        Property {
            name: "name",
            required: false,
            schema: &Schema {
                max_length: Some(253),
                ..Schema::of(Type::String)
            },
        },
        Property {
            name: "generateName",
            required: false,
            schema: &Schema {
                max_length: Some(252),
                ..Schema::of(Type::String)
            },
        },
    ],
    ..Schema::of(Type::Object)
};

/// A plain string node (the implicit `apiVersion` and `kind`).
pub static PLAIN_STRING: Schema<'static> = Schema::of(Type::String);

/// The arena, the substitutions and the object type names of one check.
pub struct Types<'a> {
    pub(crate) tys: [Ty<'a>; MAX_TYPES],
    len: usize,
    /// `subst[v]`: what type variable arena entry `v` is bound to (`u16::MAX`: free).
    subst: [TyId; MAX_TYPES],
    trail: [(TyId, TyId); MAX_TRAIL],
    trail_len: usize,
    names: [Name<'a>; MAX_NAMES],
    names_len: usize,
    vars: u16,
    /// Set when a capacity was exceeded: the check result can't be trusted and is reported.
    pub overflow: bool,
    /// Set when the expression reached a [`Type::Unknown`] node (typed `dyn` here): its
    /// verdict needs the generated schema.
    pub unknown: bool,
}

const FREE: TyId = u16::MAX;

impl<'a> Types<'a> {
    /// An arena holding the predefined types, and `root` as the name of the root object type.
    pub const fn new(root: &'a str) -> Self {
        let mut t = Types {
            tys: [Ty::Error; MAX_TYPES],
            len: id::COUNT,
            subst: [FREE; MAX_TYPES],
            trail: [(0, 0); MAX_TRAIL],
            trail_len: 0,
            names: [Name {
                parent: u16::MAX,
                segment: b"",
            }; MAX_NAMES],
            names_len: 1,
            vars: 0,
            overflow: false,
            unknown: false,
        };
        t.tys[id::DYN as usize] = Ty::Dyn;
        t.tys[id::NULL as usize] = Ty::Null;
        t.tys[id::BOOL as usize] = Ty::Bool;
        t.tys[id::INT as usize] = Ty::Int;
        t.tys[id::UINT as usize] = Ty::Uint;
        t.tys[id::DOUBLE as usize] = Ty::Double;
        t.tys[id::STRING as usize] = Ty::String;
        t.tys[id::BYTES as usize] = Ty::Bytes;
        t.tys[id::DURATION as usize] = Ty::Duration;
        t.tys[id::TIMESTAMP as usize] = Ty::Timestamp;
        t.names[0].segment = root.as_bytes();
        t
    }

    /// The type behind an id.
    pub const fn get(&self, t: TyId) -> Ty<'a> {
        self.tys[t as usize]
    }

    /// A mark for [`Types::rollback`]: arena length and undo trail length.
    pub const fn mark(&self) -> (usize, usize) {
        (self.len, self.trail_len)
    }

    /// Drops the types allocated and undoes the substitutions made since `mark`.
    pub const fn rollback(&mut self, mark: (usize, usize)) {
        while self.trail_len > mark.1 {
            self.trail_len -= 1;
            let (v, old) = self.trail[self.trail_len];
            self.subst[v as usize] = old;
        }
        let mut i = mark.0;
        while i < self.len {
            self.subst[i] = FREE;
            i += 1;
        }
        self.len = mark.0;
    }

    /// Allocates a type (capacity overflow is recorded and yields `error`).
    pub const fn alloc(&mut self, ty: Ty<'a>) -> TyId {
        if self.len >= MAX_TYPES {
            self.overflow = true;
            return id::ERROR;
        }
        self.tys[self.len] = ty;
        self.len += 1;
        (self.len - 1) as TyId
    }

    /// Consumes `n` type variable numbers without allocating (an overload rejected early).
    pub const fn skip_vars(&mut self, n: u16) {
        self.vars = self.vars.saturating_add(n);
    }

    /// A fresh type variable.
    pub const fn fresh(&mut self) -> TyId {
        let v = self.vars;
        self.vars += 1;
        self.alloc(Ty::Var(v))
    }

    /// `list(elem)`.
    pub const fn list(&mut self, elem: TyId) -> TyId {
        self.alloc(Ty::List(elem))
    }

    /// `map(k, v)`.
    pub const fn map(&mut self, k: TyId, v: TyId) -> TyId {
        self.alloc(Ty::Map(k, v))
    }

    /// `optional_type(t)`.
    pub const fn optional(&mut self, t: TyId) -> TyId {
        self.alloc(Ty::Optional(t))
    }

    /// `type(t)`.
    pub const fn type_of(&mut self, t: TyId) -> TyId {
        self.alloc(Ty::Type(t))
    }

    /// A child name `parent.segment` in the name table.
    pub const fn child_name(&mut self, parent: u16, segment: &'a [u8]) -> u16 {
        if self.names_len >= MAX_NAMES {
            self.overflow = true;
            return 0;
        }
        self.names[self.names_len] = Name { parent, segment };
        self.names_len += 1;
        (self.names_len - 1) as u16
    }

    const fn bind(&mut self, var: TyId, to: TyId) {
        if self.trail_len >= MAX_TRAIL {
            self.overflow = true;
            return;
        }
        self.trail[self.trail_len] = (var, self.subst[var as usize]);
        self.trail_len += 1;
        self.subst[var as usize] = to;
    }

    /// The kind cel-go dispatches on.
    pub const fn kind(&self, t: TyId) -> Kind {
        match self.tys[t as usize] {
            Ty::Error => Kind::Error,
            Ty::Dyn => Kind::Dyn,
            Ty::Null => Kind::Null,
            Ty::Bool => Kind::Scalar(0),
            Ty::Int => Kind::Scalar(1),
            Ty::Uint => Kind::Scalar(2),
            Ty::Double => Kind::Scalar(3),
            Ty::String => Kind::Scalar(4),
            Ty::Bytes => Kind::Scalar(5),
            Ty::Duration => Kind::Scalar(6),
            Ty::Timestamp => Kind::Scalar(7),
            Ty::List(_) => Kind::List,
            Ty::Map(..) => Kind::Map,
            Ty::Optional(_) | Ty::Opaque(_) => Kind::Opaque,
            Ty::Type(_) => Kind::Type,
            Ty::Object { .. } => Kind::Struct,
            Ty::Var(_) => Kind::Param,
        }
    }

    const fn kind_eq(a: Kind, b: Kind) -> bool {
        match (a, b) {
            (Kind::Scalar(x), Kind::Scalar(y)) => x == y,
            (Kind::Error, Kind::Error)
            | (Kind::Dyn, Kind::Dyn)
            | (Kind::Null, Kind::Null)
            | (Kind::List, Kind::List)
            | (Kind::Map, Kind::Map)
            | (Kind::Opaque, Kind::Opaque)
            | (Kind::Type, Kind::Type)
            | (Kind::Struct, Kind::Struct)
            | (Kind::Param, Kind::Param) => true,
            _ => false,
        }
    }

    /// `dyn` (cel-go's `isDyn`).
    pub const fn is_dyn(&self, t: TyId) -> bool {
        matches!(self.tys[t as usize], Ty::Dyn)
    }

    /// `dyn` or `error`.
    pub const fn is_dyn_or_error(&self, t: TyId) -> bool {
        matches!(self.tys[t as usize], Ty::Dyn | Ty::Error)
    }

    /// The current binding of a type variable.
    const fn find(&self, t: TyId) -> Option<TyId> {
        match self.tys[t as usize] {
            Ty::Var(_) => {
                let s = self.subst[t as usize];
                if s == FREE { None } else { Some(s) }
            }
            _ => None,
        }
    }

    const fn names_eq(&self, a: u16, b: u16) -> bool {
        let mut a = a;
        let mut b = b;
        let mut guard = 0;
        while guard < MAX_NAMES {
            if a == b {
                return true;
            }
            if a == u16::MAX || b == u16::MAX {
                return false;
            }
            let na = self.names[a as usize];
            let nb = self.names[b as usize];
            if !bytes_eq(na.segment, nb.segment) {
                return false;
            }
            a = na.parent;
            b = nb.parent;
            guard += 1;
        }
        false
    }

    /// cel-go's `IsExactType`.
    pub const fn exact(&self, a: TyId, b: TyId) -> bool {
        self.exact_at(a, b, 0)
    }

    const fn exact_at(&self, a: TyId, b: TyId, depth: u32) -> bool {
        if a == b {
            return true;
        }
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        let d = depth + 1;
        match (self.tys[a as usize], self.tys[b as usize]) {
            (Ty::List(x), Ty::List(y))
            | (Ty::Optional(x), Ty::Optional(y))
            | (Ty::Type(x), Ty::Type(y)) => self.exact_at(x, y, d),
            (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
                self.exact_at(k1, k2, d) && self.exact_at(v1, v2, d)
            }
            (Ty::Opaque(x), Ty::Opaque(y)) => x as u8 == y as u8,
            (Ty::Object { name: x, .. }, Ty::Object { name: y, .. }) => self.names_eq(x, y),
            (Ty::Var(x), Ty::Var(y)) => x == y,
            _ => match (self.kind(a), self.kind(b)) {
                (Kind::Scalar(x), Kind::Scalar(y)) => x == y,
                (Kind::Dyn, Kind::Dyn) | (Kind::Null, Kind::Null) | (Kind::Error, Kind::Error) => {
                    true
                }
                _ => false,
            },
        }
    }

    /// The type with every bound variable replaced (cel-go's `substitute`); free variables
    /// become `dyn` when `to_dyn`.
    pub const fn substitute(&mut self, t: TyId, to_dyn: bool) -> TyId {
        // Most types have nothing to substitute: answered here without the walk's call.
        match self.tys[t as usize] {
            Ty::Var(_) | Ty::List(_) | Ty::Optional(_) | Ty::Type(_) | Ty::Map(..) => {
                self.substitute_at(t, to_dyn, 0)
            }
            _ => t,
        }
    }

    const fn substitute_at(&mut self, t: TyId, to_dyn: bool, depth: u32) -> TyId {
        if depth > MAX_TYPE_DEPTH {
            self.overflow = true;
            return id::ERROR;
        }
        let d = depth + 1;
        let ty = self.tys[t as usize];
        // `find`, inline.
        if let Ty::Var(_) = ty {
            let s = self.subst[t as usize];
            if s != FREE {
                return self.substitute_at(s, to_dyn, d);
            }
        }
        match ty {
            Ty::Var(_) => {
                if to_dyn {
                    id::DYN
                } else {
                    t
                }
            }
            Ty::List(e) => {
                let e2 = self.substitute_at(e, to_dyn, d);
                if e2 == e { t } else { self.list(e2) }
            }
            Ty::Optional(e) => {
                let e2 = self.substitute_at(e, to_dyn, d);
                if e2 == e { t } else { self.optional(e2) }
            }
            Ty::Type(e) => {
                let e2 = self.substitute_at(e, to_dyn, d);
                if e2 == e { t } else { self.type_of(e2) }
            }
            Ty::Map(k, v) => {
                let k2 = self.substitute_at(k, to_dyn, d);
                let v2 = self.substitute_at(v, to_dyn, d);
                if k2 == k && v2 == v {
                    t
                } else {
                    self.map(k2, v2)
                }
            }
            _ => t,
        }
    }

    /// cel-go's `isAssignable(t1, t2)`: on success the substitutions are kept, on failure
    /// undone.
    pub const fn assignable(&mut self, t1: TyId, t2: TyId) -> bool {
        let mark = self.trail_len;
        if self.assignable_at(t1, t2, 0) {
            true
        } else {
            self.undo_to(mark);
            false
        }
    }

    /// [`Types::assignable`] over two lists of equal length.
    pub const fn assignable_list(&mut self, l1: &[TyId], l2: &[TyId], n: usize) -> bool {
        let len_i = n;
        if len_i > l1.len() || len_i > l2.len() {
            return false;
        }
        let mark = self.trail_len;
        let mut i = 0;
        while i < len_i {
            if !self.assignable_at(l1[i], l2[i], 0) {
                self.undo_to(mark);
                return false;
            }
            i += 1;
        }
        true
    }

    const fn undo_to(&mut self, mark: usize) {
        while self.trail_len > mark {
            self.trail_len -= 1;
            let (v, old) = self.trail[self.trail_len];
            self.subst[v as usize] = old;
        }
    }

    const fn assignable_at(&mut self, t1: TyId, t2: TyId, depth: u32) -> bool {
        if depth > MAX_TYPE_DEPTH {
            self.overflow = true;
            return false;
        }
        let d = depth + 1;
        // Each type is read once and tested by pattern (cel-go tests its kind): in const
        // evaluation a `kind` call per test cost more than the rest of this function.
        // Nothing below allocates, so the reads stay valid.
        let ty1 = self.tys[t1 as usize];
        let ty2 = self.tys[t2 as usize];
        if let Ty::Var(_) = ty2 {
            let (valid, has_sub) = self.valid_substitution(t1, t2, d);
            if valid {
                return true;
            }
            if has_sub {
                return false;
            }
        }
        if let Ty::Var(_) = ty1 {
            let (valid, _) = self.valid_substitution(t2, t1, d);
            return valid;
        }
        if matches!(ty1, Ty::Dyn | Ty::Error) || matches!(ty2, Ty::Dyn | Ty::Error) {
            return true;
        }
        if let Ty::Null = ty1 {
            return self.null_assignable(t2);
        }
        if let Ty::Null = ty2 {
            return self.null_assignable(t1);
        }
        match ty1 {
            Ty::Bool
            | Ty::Int
            | Ty::Uint
            | Ty::Double
            | Ty::String
            | Ty::Bytes
            | Ty::Duration
            | Ty::Timestamp
            | Ty::Object { .. } => self.exact_at(t2, t1, d),
            Ty::Type(_) => matches!(ty2, Ty::Type(_)),
            Ty::List(a) => match ty2 {
                Ty::List(b) => self.assignable_at(a, b, d),
                _ => false,
            },
            Ty::Map(k1, v1) => match ty2 {
                Ty::Map(k2, v2) => self.assignable_at(k1, k2, d) && self.assignable_at(v1, v2, d),
                _ => false,
            },
            Ty::Optional(a) => match ty2 {
                Ty::Optional(b) => self.assignable_at(a, b, d),
                _ => false,
            },
            Ty::Opaque(a) => match ty2 {
                Ty::Opaque(b) => a as u8 == b as u8,
                _ => false,
            },
            _ => self.less_specific(t1, t2, d),
        }
    }

    const fn null_assignable(&self, t: TyId) -> bool {
        matches!(
            self.kind(t),
            Kind::Opaque | Kind::Struct | Kind::Null | Kind::Scalar(6) | Kind::Scalar(7)
        )
    }

    /// cel-go's `isValidTypeSubstitution(t1, t2)` with `t2` a type variable.
    const fn valid_substitution(&mut self, t1: TyId, t2: TyId, d: u32) -> (bool, bool) {
        if Self::kind_eq(self.kind(t1), self.kind(t2)) && self.exact_at(t1, t2, d) {
            return (true, true);
        }
        if let Some(sub) = self.find(t2) {
            if Self::kind_eq(self.kind(t1), self.kind(sub)) && self.exact_at(t1, sub, d) {
                return (true, true);
            }
            if self.assignable_at(t1, sub, d) {
                let general = self.most_general(t1, sub, d);
                if self.not_referenced_in(t2, general, d) {
                    self.bind(t2, general);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1, d) {
            self.bind(t2, t1);
            return (true, false);
        }
        (false, false)
    }

    const fn not_referenced_in(&self, t: TyId, within: TyId, d: u32) -> bool {
        if d > MAX_TYPE_DEPTH {
            return false;
        }
        if self.exact_at(t, within, d) {
            return false;
        }
        match self.tys[within as usize] {
            Ty::Var(_) => match self.find(within) {
                None => true,
                Some(s) => self.not_referenced_in(t, s, d + 1),
            },
            Ty::List(e) | Ty::Optional(e) | Ty::Type(e) => self.not_referenced_in(t, e, d + 1),
            Ty::Map(k, v) => {
                self.not_referenced_in(t, k, d + 1) && self.not_referenced_in(t, v, d + 1)
            }
            _ => true,
        }
    }

    /// cel-go's `mostGeneral`.
    pub const fn most_general(&self, a: TyId, b: TyId, d: u32) -> TyId {
        if self.less_specific(a, b, d) { a } else { b }
    }

    /// cel-go's `isEqualOrLessSpecific`.
    const fn less_specific(&self, t1: TyId, t2: TyId, d: u32) -> bool {
        if d > MAX_TYPE_DEPTH {
            return false;
        }
        let d = d + 1;
        if self.is_dyn(t1) || matches!(self.kind(t1), Kind::Param) {
            return true;
        }
        if self.is_dyn(t2) || matches!(self.kind(t2), Kind::Param) {
            return false;
        }
        if !Self::kind_eq(self.kind(t1), self.kind(t2)) {
            return false;
        }
        match (self.tys[t1 as usize], self.tys[t2 as usize]) {
            (Ty::Optional(a), Ty::Optional(b)) | (Ty::List(a), Ty::List(b)) => {
                self.less_specific(a, b, d)
            }
            (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
                self.less_specific(k1, k2, d) && self.less_specific(v1, v2, d)
            }
            (Ty::Type(_), Ty::Type(_)) => true,
            _ => self.exact_at(t1, t2, d),
        }
    }

    /// Writes the type as cel-go's `FormatCELType` does.
    pub const fn format<const N: usize>(&self, t: TyId, out: &mut crate::msg::Buf<N>) {
        self.format_at(t, out, 0)
    }

    const fn format_at<const N: usize>(&self, t: TyId, out: &mut crate::msg::Buf<N>, depth: u32) {
        if depth > MAX_TYPE_DEPTH {
            out.push("...");
            return;
        }
        let d = depth + 1;
        match self.tys[t as usize] {
            Ty::Error => out.push("!error!"),
            Ty::Dyn => out.push("dyn"),
            Ty::Null => out.push("null"),
            Ty::Bool => out.push("bool"),
            Ty::Int => out.push("int"),
            Ty::Uint => out.push("uint"),
            Ty::Double => out.push("double"),
            Ty::String => out.push("string"),
            Ty::Bytes => out.push("bytes"),
            Ty::Duration => out.push("duration"),
            Ty::Timestamp => out.push("timestamp"),
            Ty::List(e) => {
                out.push("list(");
                self.format_at(e, out, d);
                out.push(")");
            }
            Ty::Map(k, v) => {
                out.push("map(");
                self.format_at(k, out, d);
                out.push(", ");
                self.format_at(v, out, d);
                out.push(")");
            }
            Ty::Optional(e) => {
                out.push("optional_type(");
                self.format_at(e, out, d);
                out.push(")");
            }
            Ty::Type(e) => {
                out.push("type(");
                self.format_at(e, out, d);
                out.push(")");
            }
            Ty::Opaque(o) => out.push(o.name()),
            Ty::Object { name, .. } => self.format_name(name, out, 0),
            Ty::Var(v) => {
                out.push("_var");
                out.push_u64(v as u64);
            }
        }
    }

    const fn format_name<const N: usize>(&self, name: u16, out: &mut crate::msg::Buf<N>, d: u32) {
        let n = self.names[name as usize];
        if n.parent != u16::MAX && d < MAX_NAMES as u32 {
            self.format_name(n.parent, out, d + 1);
            out.push(".");
        }
        out.push_bytes(n.segment);
    }

    /// The CEL type of a schema node (`k8s.io/apiserver/pkg/cel/common/schemas.go`), `None` when the node is not visible to
    /// CEL. Object types are named `name`.
    pub const fn of_schema(&mut self, s: &'a Schema<'a>, name: u16, root: bool) -> Option<TyId> {
        self.of_schema_at(s, name, root, 0)
    }

    const fn of_schema_at(
        &mut self,
        s: &'a Schema<'a>,
        name: u16,
        root: bool,
        depth: u32,
    ) -> Option<TyId> {
        if depth > MAX_TYPE_DEPTH {
            self.overflow = true;
            return None;
        }
        if s.int_or_string {
            return Some(id::DYN);
        }
        match s.ty {
            Type::Any => None,
            Type::Unknown => {
                self.unknown = true;
                Some(id::DYN)
            }
            Type::Boolean => Some(id::BOOL),
            Type::Integer => Some(id::INT),
            Type::Number => Some(id::DOUBLE),
            Type::String => Some(match s.format {
                Some(f) => {
                    let f = f.as_bytes();
                    if matches!(f, b"byte") {
                        id::BYTES
                    } else if matches!(f, b"duration") {
                        id::DURATION
                    } else if matches!(f, b"date") || matches!(f, b"date-time") {
                        id::TIMESTAMP
                    } else {
                        id::STRING
                    }
                }
                None => id::STRING,
            }),
            Type::Array => match s.items {
                Some(items) => {
                    let n = self.child_name(name, b"@idx");
                    match self.of_schema_at(items, n, items.embedded_resource, depth + 1) {
                        Some(e) => Some(self.list(e)),
                        None => None,
                    }
                }
                None => None,
            },
            Type::Object => match s.additional_properties {
                Some(values) if !s.additional_properties_any() => {
                    let n = self.child_name(name, b"@elem");
                    match self.of_schema_at(values, n, values.embedded_resource, depth + 1) {
                        Some(v) => Some(self.map(id::STRING, v)),
                        None => None,
                    }
                }
                _ => Some(self.alloc(Ty::Object {
                    schema: s,
                    root: root || s.embedded_resource,
                    name,
                })),
            },
        }
    }
}
