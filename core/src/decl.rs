//! Function declarations as constant data: what the checker resolves calls against.
//!
//! A declaration is written with type *patterns* ([`P`]) that may mention type parameters
//! (`A`, `B`), which the checker instantiates with fresh type variables per call, as cel-go does.
//! Every overload carries the Kubernetes compatibility version range it exists in
//! (`k8s.io/apiserver/pkg/cel/environment/base.go`), so one table serves every targeted
//! Kubernetes version.

/// A type pattern in a declaration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum P {
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
    List(&'static P),
    /// `map(K, V)`.
    Map(&'static P, &'static P),
    /// `optional_type(T)`.
    Optional(&'static P),
    /// `type(T)`: the type of a type value.
    Type(&'static P),
    /// A type parameter of the overload: 0 is `A`, 1 is `B`, ...
    Param(u8),
    /// An opaque type of a Kubernetes library.
    Opaque(Opaque),
}

/// The opaque types the Kubernetes libraries declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opaque {
    /// `kubernetes.URL` (URLs library).
    Url,
    /// `net.IP` (IP library).
    Ip,
    /// `net.CIDR` (CIDR library).
    Cidr,
    /// `kubernetes.Quantity` (Quantity library).
    Quantity,
    /// `kubernetes.Semver` (Semver library).
    Semver,
    /// `kubernetes.NamedFormat` (Format library).
    Format,
    /// `kubernetes.authorization.Authorizer` (Authz library).
    Authorizer,
    /// `kubernetes.authorization.PathCheck`.
    PathCheck,
    /// `kubernetes.authorization.GroupCheck`.
    GroupCheck,
    /// `kubernetes.authorization.ResourceCheck`.
    ResourceCheck,
    /// `kubernetes.authorization.Decision`.
    Decision,
}

impl Opaque {
    /// The type name cel-go prints for it.
    pub const fn name(self) -> &'static str {
        match self {
            Opaque::Url => "kubernetes.URL",
            Opaque::Ip => "net.IP",
            Opaque::Cidr => "net.CIDR",
            Opaque::Quantity => "kubernetes.Quantity",
            Opaque::Semver => "kubernetes.Semver",
            Opaque::Format => "kubernetes.NamedFormat",
            Opaque::Authorizer => "kubernetes.authorization.Authorizer",
            Opaque::PathCheck => "kubernetes.authorization.PathCheck",
            Opaque::GroupCheck => "kubernetes.authorization.GroupCheck",
            Opaque::ResourceCheck => "kubernetes.authorization.ResourceCheck",
            Opaque::Decision => "kubernetes.authorization.Decision",
        }
    }
}

/// Where an overload exists: compatibility versions `since <= compat < until` (minor versions of
/// Kubernetes 1.x). `since: 0` means "from the start".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    /// The first compatibility minor version that has the overload.
    pub since: u8,
    /// The first compatibility minor version that no longer has it (`u8::MAX`: never removed).
    pub until: u8,
}

impl Versions {
    /// Present in every version.
    pub const ALWAYS: Versions = Versions {
        since: 0,
        until: u8::MAX,
    };

    /// Present from compatibility version `1.since` on.
    pub const fn since(since: u8) -> Versions {
        Versions {
            since,
            until: u8::MAX,
        }
    }

    /// Present in `since <= compat < until`.
    pub const fn range(since: u8, until: u8) -> Versions {
        Versions { since, until }
    }

    /// Whether the overload exists at compatibility version `1.compat`.
    pub const fn contains(self, compat: u8) -> bool {
        self.since <= compat && compat < self.until
    }
}

/// One overload of a function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overload {
    /// cel-go's overload id (`add_int64`, `string_contains_string`, ...), for reference and for
    /// the cost estimator.
    pub id: &'static str,
    /// A member overload (`x.f(y)`): the receiver is `args[0]`.
    pub member: bool,
    /// Argument patterns (receiver first for member overloads).
    pub args: &'static [P],
    /// Result pattern.
    pub result: P,
    /// The compatibility versions that declare it.
    pub versions: Versions,
    /// How many distinct type parameters `args` mention (what instantiating them consumes).
    pub arg_params: u16,
    /// `args.len()`, stored: the checker tests it for every overload of every call, and in
    /// const evaluation a slice length is two calls.
    pub argc: u16,
    /// The outer kinds ([`pattern_kind`]) of the first two argument patterns ([`KIND_ANY`] for
    /// none), stored: the checker rejects most overloads of a call by these alone, with a table
    /// lookup each, before looking at the patterns.
    pub kinds: [u8; 2],
}

/// A pattern (or argument type) any argument may be assigned to (`dyn`, a type parameter):
/// never rejected by its outer kind. The other kind codes: [`pattern_kind`].
pub const KIND_ANY: u8 = 0;
/// The kind code of `null_type`.
pub const KIND_NULL: u8 = 1;
/// The kind code of `list(_)`.
pub const KIND_LIST: u8 = 10;
/// The kind code of `map(_, _)`.
pub const KIND_MAP: u8 = 11;
/// The kind code of `optional_type(_)`.
pub const KIND_OPTIONAL: u8 = 12;
/// The kind code of `type(_)`.
pub const KIND_TYPE: u8 = 13;
/// The kind code of the first opaque type; opaque type `o` is `KIND_OPAQUE + o as u8`.
pub const KIND_OPAQUE: u8 = 14;
/// The kind code of object types (argument types only: no pattern is an object type), after
/// every opaque type's.
pub const KIND_OBJECT: u8 = KIND_OPAQUE + opaque_count();
/// Number of kind codes.
pub const KINDS: usize = KIND_OBJECT as usize + 1;

/// How many opaque types there are: the match names each, so that one added to [`Opaque`]
/// cannot be forgotten (its kind code would be taken for an object's).
const fn opaque_count() -> u8 {
    let last = Opaque::Decision;
    match last {
        Opaque::Url
        | Opaque::Ip
        | Opaque::Cidr
        | Opaque::Quantity
        | Opaque::Semver
        | Opaque::Format
        | Opaque::Authorizer
        | Opaque::PathCheck
        | Opaque::GroupCheck
        | Opaque::ResourceCheck
        | Opaque::Decision => last as u8 + 1,
    }
}

/// The outer kind of a pattern: [`KIND_ANY`] for `dyn` and parameters, 1 to 9 for `null_type`,
/// `bool`, `int`, `uint`, `double`, `string`, `bytes`, `duration`, `timestamp`, then the
/// `KIND_*` codes.
pub const fn pattern_kind(p: &P) -> u8 {
    match p {
        P::Dyn | P::Param(_) => KIND_ANY,
        P::Null => KIND_NULL,
        P::Bool => 2,
        P::Int => 3,
        P::Uint => 4,
        P::Double => 5,
        P::String => 6,
        P::Bytes => 7,
        P::Duration => 8,
        P::Timestamp => 9,
        P::List(_) => KIND_LIST,
        P::Map(..) => KIND_MAP,
        P::Optional(_) => KIND_OPTIONAL,
        P::Type(_) => KIND_TYPE,
        P::Opaque(o) => KIND_OPAQUE + *o as u8,
    }
}

/// [`pattern_kind`] of the first two patterns of `args` ([`KIND_ANY`] where there is none).
pub const fn arg_kinds(args: &[P]) -> [u8; 2] {
    [
        if !args.is_empty() {
            pattern_kind(&args[0])
        } else {
            KIND_ANY
        },
        if args.len() > 1 {
            pattern_kind(&args[1])
        } else {
            KIND_ANY
        },
    ]
}

/// How many distinct type parameters the patterns mention.
pub const fn count_arg_params(args: &[P]) -> u16 {
    let mut seen = [false; 4];
    let mut n = 0;
    let mut i = 0;
    let len_i = args.len();
    while i < len_i {
        n += count_params(&args[i], &mut seen, 0);
        i += 1;
    }
    n
}

const fn count_params(p: &P, seen: &mut [bool; 4], depth: u32) -> u16 {
    if depth > 16 {
        return 0;
    }
    match *p {
        P::Param(i) => {
            let i = i as usize % 4;
            if seen[i] {
                0
            } else {
                seen[i] = true;
                1
            }
        }
        P::List(e) | P::Optional(e) | P::Type(e) => count_params(e, seen, depth + 1),
        P::Map(k, v) => count_params(k, seen, depth + 1) + count_params(v, seen, depth + 1),
        _ => 0,
    }
}

/// A function and all its overloads (global and member alike, as cel-go groups them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Function {
    /// The function name as the parser produces it (`_+_`, `size`, `sets.contains`, ...).
    pub name: &'static str,
    /// The overloads.
    pub overloads: &'static [Overload],
    /// `first[k]`: bit `o` set when overload `o` may take a first argument (the receiver of a
    /// member call) of outer kind `k` (see [`pattern_kind`]), and for the overloads whose
    /// arguments mention type parameters ([`Overload::arg_params`]), whose rejection the
    /// checker must count: the overloads it looks at for a call. All bits for a function of
    /// more than 64 overloads. Built once with the table ([`Function::new`]).
    pub first: [u64; KINDS],
}

impl Function {
    /// A function entry, with its [`Function::first`] masks.
    pub const fn new(name: &'static str, overloads: &'static [Overload]) -> Function {
        let mut first = [0u64; KINDS];
        let len_o = overloads.len();
        if len_o > 64 {
            first = [u64::MAX; KINDS];
        } else {
            let mut o = 0;
            while o < len_o {
                let ov = &overloads[o];
                let mut k = 0;
                while k < KINDS {
                    if ov.arg_params != 0 || !cannot_kinds(k as u8, ov.kinds[0]) {
                        first[k] |= 1 << o;
                    }
                    k += 1;
                }
                o += 1;
            }
        }
        Function {
            name,
            overloads,
            first,
        }
    }
}

/// Whether an argument of outer kind `arg` can never be assigned to a pattern of outer kind
/// `param` (codes of [`pattern_kind`], and [`KIND_OBJECT`] for arguments): the checker's
/// `cannot_assign`, which decides on these alone (a test compares the two).
pub const fn cannot_kinds(arg: u8, param: u8) -> bool {
    const DURATION: u8 = 8;
    const TIMESTAMP: u8 = 9;
    let opaque = param >= KIND_OPAQUE && param < KIND_OBJECT;
    if param == KIND_ANY {
        return false;
    }
    if param == KIND_NULL {
        return !(arg == KIND_ANY
            || arg == KIND_NULL
            || arg == KIND_OPTIONAL
            || (arg >= KIND_OPAQUE && arg < KIND_OBJECT)
            || arg == KIND_OBJECT
            || arg == DURATION
            || arg == TIMESTAMP);
    }
    if arg == KIND_ANY {
        return false;
    }
    if arg == KIND_NULL {
        return !(param == KIND_OPTIONAL || opaque || param == DURATION || param == TIMESTAMP);
    }
    if arg == KIND_OBJECT {
        return true;
    }
    arg != param
}
