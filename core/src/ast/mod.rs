//! A parsed CEL expression as plain constant data, the checker's input.
//!
//! The derive parses each rule at expansion time and emits the result as an [`Ast`] constant;
//! the runtime builds the same structure in an [`AstBuf`]. Nodes are stored in post-order
//! (children before their parent, and for a comprehension: range, accumulator init, condition,
//! step, result, then the comprehension), so the checker can type them with a single forward
//! pass: no recursion, which const evaluation limits to a few frames.
//!
//! Strings and child lists are ranges into shared pools ([`Ast::text`], [`Ast::refs`]), which
//! keeps every node `Copy` and free of lifetimes.

mod decode;
mod pack;
mod slice;

pub use pack::AstBuf;
pub use slice::subslice;

/// Capacity of the checker's per-node tables: rules with more nodes are reported as too large.
pub const MAX_NODES: usize = 1024;

/// A byte range of [`Ast::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Str {
    /// First byte.
    pub start: u32,
    /// Length in bytes.
    pub len: u32,
}

/// A range of [`Ast::refs`]: node indices (or, for maps, `key, value, optional` triples).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refs {
    /// First entry.
    pub start: u32,
    /// Number of entries.
    pub len: u32,
}

/// Which comprehension variable a [`Expr::Local`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// The (first) iteration variable.
    Iter,
    /// The second iteration variable of a two-variable comprehension.
    Iter2,
    /// The accumulator (`@result` in macro expansions).
    Accu,
}

/// An expression node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expr {
    /// `null`.
    Null,
    /// A bool literal.
    Bool(bool),
    /// An int literal.
    Int(i64),
    /// A uint literal.
    Uint(u64),
    /// A double literal.
    Double(f64),
    /// A string literal (its value, in [`Ast::text`]).
    String(Str),
    /// A bytes literal (its value, in [`Ast::text`]).
    Bytes(Str),
    /// An identifier that is not a comprehension variable (`self`, `oldSelf`, `int`, ...).
    Ident(Str),
    /// A comprehension variable, resolved lexically at lowering time.
    Local {
        /// The variable's name.
        name: Str,
        /// Which variable of the comprehension.
        var: Var,
        /// The comprehension's iteration range node.
        range: u32,
        /// The comprehension's accumulator init node.
        init: u32,
        /// Whether the comprehension has two iteration variables.
        two_vars: bool,
    },
    /// `operand.field`, or `has(operand.field)` when `test`.
    Select {
        /// The operand node.
        operand: u32,
        /// The field name.
        field: Str,
        /// A presence test (`has()`).
        test: bool,
    },
    /// A function call, global or member (`target`), operators included (`_+_`).
    Call {
        /// The function name.
        function: Str,
        /// The receiver of a member call.
        target: Option<u32>,
        /// The argument nodes.
        args: Refs,
    },
    /// A list literal.
    List {
        /// The element nodes.
        elements: Refs,
        /// Positions (not node indices) of the `?`-optional elements.
        optional: Refs,
    },
    /// A map literal: `entries` holds `key, value, optional (0|1)` triples.
    Map {
        /// The entry triples.
        entries: Refs,
    },
    /// A message literal (`Foo{a: 1}`): the Kubernetes environment declares no message types.
    Struct {
        /// The type name.
        name: Str,
    },
    /// Marks the expansion of a macro that exists only from compatibility version `since`
    /// (`optMap`, the two-variable comprehensions, `sortBy`); the expansion follows it.
    Macro {
        /// The macro's name.
        name: Str,
        /// The first compatibility minor version that has it.
        since: u8,
    },
    /// A comprehension (the expansion of `all`, `exists`, `map`, ...).
    Comprehension {
        /// The iteration range node.
        range: u32,
        /// The accumulator init node.
        init: u32,
        /// The loop condition node.
        cond: u32,
        /// The loop step node.
        step: u32,
        /// The result node.
        result: u32,
        /// Whether there is a second iteration variable.
        two_vars: bool,
    },
}

/// A node and where it is in the source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// Offset of the node in the source, in code points (cel-go's location).
    pub offset: u32,
    /// The expression.
    pub expr: Expr,
}

/// A lowered expression: the root is the last node.
///
/// Nodes and refs are stored packed (`u32` words, [`NODE_WORDS`] per node), so that the derive
/// emits each expression as two integer arrays and a byte string: rustc type-checks those in
/// well under a millisecond, where a tree of struct literals costs milliseconds per rule. Words
/// rather than bytes: const evaluation reads a word with one index where four bytes took some
/// thirty steps, and decoding was the largest part of a small check.
#[derive(Debug, Clone, Copy)]
pub struct Ast<'a> {
    /// The expression source.
    pub source: &'a str,
    /// The nodes in post-order, packed ([`Ast::node`] decodes one).
    pub nodes: &'a [u32],
    /// Child indices and map entry triples.
    pub refs: &'a [u32],
    /// Names and literal values.
    pub text: &'a [u8],
}

/// An [`Ast`] with its words as one little-endian byte string (nodes, then refs): the form
/// the derive emits for a rule it checked natively, whose const item decodes it only when the
/// prediction fails (`crd::expression::check_predicted`). A byte string is one token
/// for rustc to lex, type-check and borrow-check, where the word arrays are hundreds.
#[derive(Debug, Clone, Copy)]
pub struct PackedAst<'a> {
    /// The expression source.
    pub source: &'a str,
    /// The node words then the ref words, four bytes each.
    pub words: &'a [u8],
    /// How many of the words are node words.
    pub node_words: usize,
    /// Names and literal values.
    pub text: &'a [u8],
}

/// Capacity of [`Words`]: the nodes of the largest checked expression and their refs.
pub const PACKED_WORDS_MAX: usize = MAX_NODES * (NODE_WORDS + 4);

/// The words of a [`PackedAst`], decoded.
pub struct Words {
    buf: [u32; PACKED_WORDS_MAX],
}

impl<'a> PackedAst<'a> {
    /// Decodes the words (panics beyond [`PACKED_WORDS_MAX`], which the derive never emits).
    pub const fn unpack(&self) -> Words {
        let mut buf = [0u32; PACKED_WORDS_MAX];
        let b = self.words;
        let mut i = 0;
        while i * 4 < b.len() {
            let k = i * 4;
            buf[i] = b[k] as u32
                | (b[k + 1] as u32) << 8
                | (b[k + 2] as u32) << 16
                | (b[k + 3] as u32) << 24;
            i += 1;
        }
        Words { buf }
    }

    /// The expression, reading `words` (from [`PackedAst::unpack`]).
    pub const fn ast<'w>(&self, words: &'w Words) -> Ast<'w>
    where
        'a: 'w,
    {
        let (nodes, rest) = words.buf.split_at(self.node_words);
        let (refs, _) = rest.split_at(self.words.len() / 4 - self.node_words);
        Ast {
            source: self.source,
            nodes,
            refs,
            text: self.text,
        }
    }
}

/// Words per packed node: offset, tag, five payload words and the spare word.
pub const NODE_WORDS: usize = 8;

/// The packed word no node kind's payload uses: name resolution ([`Ast::call_decls`]).
pub(crate) const SPARE_WORD: usize = 7;

/// Capacity of a qualified name buffer ([`Ast::qualified_name`]).
pub const QUALIFIED_MAX: usize = 128;

/// [`Ast::qualified_type`]: `google.protobuf.Duration`.
pub const QUALIFIED_DURATION: u32 = 1;
/// [`Ast::qualified_type`]: `google.protobuf.Timestamp`.
pub const QUALIFIED_TIMESTAMP: u32 = 2;
