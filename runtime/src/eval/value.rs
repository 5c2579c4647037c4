//! CEL values as the apiserver's rules see them.
//!
//! Lists carry their `x-kubernetes-list-type`, because `==` and `+` on a set or map list (as the
//! left operand) follow the apiserver's list semantics (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`); maps carry whether
//! they are schema objects, because objects treat null-valued and unknown fields as absent but
//! count them in equality (`k8s.io/apiserver/pkg/cel/common/equality.go`). Everything is `Arc`-backed so binding `self` to a node is a
//! reference count, not a copy.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::error::EvalError;
use super::time::{Duration, Timestamp};
pub use crate::tree::{ListKind, name_eq};

/// A CEL value.
#[derive(Clone, Debug)]
pub enum Value {
    /// `null`.
    Null,
    /// `bool`.
    Bool(bool),
    /// `int`.
    Int(i64),
    /// `uint`.
    Uint(u64),
    /// `double`.
    Double(f64),
    /// `string`.
    String(Arc<str>),
    /// `bytes`.
    Bytes(Arc<[u8]>),
    /// `google.protobuf.Duration`.
    Duration(Duration),
    /// `google.protobuf.Timestamp`.
    Timestamp(Timestamp),
    /// `list(T)`, with its list type.
    List(Arc<List>),
    /// `map(K, V)`, or a schema object.
    Map(Arc<Map>),
    /// `optional_type(T)`: `None` is `optional.none()`.
    Optional(Option<Arc<Value>>),
    /// A type value (`int`, `type(x)`).
    Type(Arc<str>),
    /// A value of a Kubernetes library type (quantity, URL, IP, CIDR, semver, ...).
    Opaque(Arc<dyn Opaque>),
    /// Data under `x-kubernetes-preserve-unknown-fields` with no type: only equality works.
    Unknown(Arc<serde_json::Value>),
    /// Data the schema does not allow (`k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`): an error when a rule touches it.
    Error(Arc<EvalError>),
}

/// A value of a library type (the Kubernetes quantity, URL, IP, ...).
pub trait Opaque: fmt::Debug + Send + Sync + Any {
    /// The CEL type name (`kubernetes.Quantity`, `net.IP`, ...).
    fn type_name(&self) -> &'static str;
    /// `self == other` with another value of any opaque type, as the library type's Go `Equal`
    /// answers it: `false` or `no such overload` across types, and an error where the apiserver
    /// has one (a quantity made by `add`/`sub` on the right of `==`).
    fn equals(&self, other: &dyn Opaque) -> Result<bool, EvalError>;
    /// For downcasting.
    fn as_any(&self) -> &dyn Any;
    /// `string(x)`, for the types that convert to a string (`net.IP`, `net.CIDR`); `None` gives
    /// `no such overload`.
    fn to_cel_string(&self) -> Option<String> {
        None
    }
    /// The size cel-go's cost model reads from a `Sizer` value (`net.IP`: 4 or 16 bytes,
    /// `net.CIDR`: the prefix length in bytes, rounded up); `None` for the others (size 1).
    fn cost_size(&self) -> Option<u64> {
        None
    }
}

/// A list value.
#[derive(Clone, Debug)]
pub struct List {
    /// The elements, in order.
    pub items: Vec<Value>,
    /// How `==` and `+` treat it when it is the left operand.
    pub kind: ListKind,
}

/// A map key (CEL allows `int`, `uint`, `bool` and `string` keys).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// An `int` key.
    Int(i64),
    /// A `uint` key.
    Uint(u64),
    /// A `bool` key.
    Bool(bool),
    /// A `string` key.
    String(Arc<str>),
}

impl Key {
    /// The key of a value, if the value may be a key.
    pub fn of(v: &Value) -> Option<Key> {
        Some(match v {
            Value::Int(i) => Key::Int(*i),
            Value::Uint(u) => Key::Uint(*u),
            Value::Bool(b) => Key::Bool(*b),
            Value::String(s) => Key::String(s.clone()),
            _ => return None,
        })
    }

    /// The key as a value.
    pub fn to_value(&self) -> Value {
        match self {
            Key::Int(i) => Value::Int(*i),
            Key::Uint(u) => Value::Uint(*u),
            Key::Bool(b) => Value::Bool(*b),
            Key::String(s) => Value::String(s.clone()),
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Int(i) => write!(f, "{i}"),
            Key::Uint(u) => write!(f, "{u}"),
            Key::Bool(b) => write!(f, "{b}"),
            Key::String(s) => f.write_str(s),
        }
    }
}

/// Above this many entries a map keeps a hash index (small objects are faster scanned).
const INDEX_ABOVE: usize = 12;

/// A map value or a schema object.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Key, Value)>,
    index: Option<HashMap<Key, usize>>,
    /// A schema object (declared properties) rather than a map.
    pub object: bool,
    /// Entries of the raw data that are not in `entries` (unknown fields, null-valued
    /// properties): they count in equality's size comparison (`k8s.io/apiserver/pkg/cel/common/equality.go`).
    hidden: usize,
    /// Unknown fields kept for equality under preserve-unknown-fields.
    unknown: Vec<(Arc<str>, Arc<serde_json::Value>)>,
}

impl Map {
    /// A map of these entries (keys unique).
    pub fn new(entries: Vec<(Key, Value)>) -> Map {
        let mut m = Map {
            entries,
            ..Map::default()
        };
        m.reindex();
        m
    }

    /// A schema object: its visible fields, how many raw entries are hidden, and the unknown
    /// fields that take part in equality.
    pub fn object(
        entries: Vec<(Key, Value)>,
        hidden: usize,
        unknown: Vec<(Arc<str>, Arc<serde_json::Value>)>,
    ) -> Map {
        let mut m = Map {
            entries,
            index: None,
            object: true,
            hidden,
            unknown,
        };
        m.reindex();
        m
    }

    fn reindex(&mut self) {
        self.index = (self.entries.len() > INDEX_ABOVE).then(|| {
            self.entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i))
                .collect()
        });
    }

    /// The visible entries, in order.
    pub fn entries(&self) -> &[(Key, Value)] {
        &self.entries
    }

    /// Number of visible entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no visible entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of raw entries (`size()` and equality count these).
    pub fn raw_len(&self) -> usize {
        self.entries.len() + self.hidden
    }

    /// The value at a key, with CEL's numeric key equivalence (`m[1u]` finds key `1`).
    pub fn get(&self, key: &Key) -> Option<&Value> {
        if let Some(v) = self.get_exact(key) {
            return Some(v);
        }
        let alt = match key {
            Key::Int(i) => u64::try_from(*i).ok().map(Key::Uint),
            Key::Uint(u) => i64::try_from(*u).ok().map(Key::Int),
            _ => None,
        }?;
        self.get_exact(&alt)
    }

    fn get_exact(&self, key: &Key) -> Option<&Value> {
        match &self.index {
            Some(ix) => ix.get(key).map(|&i| &self.entries[i].1),
            None => self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        }
    }

    /// The value of a string key.
    pub fn get_str(&self, key: &str) -> Option<&Value> {
        match &self.index {
            Some(_) => self.get(&Key::String(key.into())),
            None => self
                .entries
                .iter()
                .find(|(k, _)| matches!(k, Key::String(s) if name_eq(s, key)))
                .map(|(_, v)| v),
        }
    }

    /// Unknown fields kept for equality.
    pub fn unknown(&self) -> &[(Arc<str>, Arc<serde_json::Value>)] {
        &self.unknown
    }
}

impl Value {
    /// A string value.
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }

    /// A plain list value.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Arc::new(List {
            items,
            kind: ListKind::Plain,
        }))
    }

    /// `optional.of(v)`.
    pub fn some(v: Value) -> Value {
        Value::Optional(Some(Arc::new(v)))
    }

    /// The CEL type name of the value, as cel-go prints it in `no such overload` details and
    /// `type()` results.
    pub fn type_name(&self) -> &str {
        match self {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::Double(_) => "double",
            Value::String(_) => "string",
            Value::Bytes(_) => "bytes",
            Value::Duration(_) => "google.protobuf.Duration",
            Value::Timestamp(_) => "google.protobuf.Timestamp",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Optional(_) => "optional_type",
            Value::Type(_) => "type",
            Value::Opaque(o) => o.type_name(),
            Value::Unknown(_) => "unknown",
            Value::Error(_) => "error",
        }
    }

    /// `size()` as cel-go's `Sizer` reports it: code points, bytes, elements, raw entries.
    pub fn size(&self) -> Option<i64> {
        Some(match self {
            Value::String(s) => s.chars().count() as i64,
            Value::Bytes(b) => b.len() as i64,
            Value::List(l) => l.items.len() as i64,
            Value::Map(m) => m.raw_len() as i64,
            _ => return None,
        })
    }

    /// The size cel-go's runtime cost uses (`actualSize`): [`Value::size`], through a present
    /// optional, else 1.
    pub fn cost_size(&self) -> u64 {
        match self {
            Value::Optional(Some(v)) => v.cost_size(),
            Value::Opaque(o) => o.cost_size().unwrap_or(1),
            _ => self.size().map_or(1, |s| s as u64),
        }
    }

    /// The error this value stands for, if it is one.
    pub fn as_error(&self) -> Option<&EvalError> {
        match self {
            Value::Error(e) => Some(e),
            _ => None,
        }
    }
}
