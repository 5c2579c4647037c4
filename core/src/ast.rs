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

use cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr as CelExpr, IdedExpr, ListExpr, LiteralValue,
    MapExpr, SourceInfo,
};

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
/// prediction fails (`crd_cel::__private::check_predicted`). A byte string is one token for
/// rustc to lex, type-check and borrow-check, where the word arrays are hundreds.
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
pub const PACKED_WORDS_MAX: usize = crate::check::MAX_NODES * (NODE_WORDS + 4);

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
const SPARE_WORD: usize = 7;

/// Capacity of a qualified name buffer ([`Ast::qualified_name`]).
pub const QUALIFIED_MAX: usize = 128;

/// [`Ast::qualified_type`]: `google.protobuf.Duration`.
pub const QUALIFIED_DURATION: u32 = 1;
/// [`Ast::qualified_type`]: `google.protobuf.Timestamp`.
pub const QUALIFIED_TIMESTAMP: u32 = 2;

/// A stored declaration id: index + 1, 0 for none.
const fn decl_at(id: u32) -> Option<usize> {
    if id == 0 { None } else { Some(id as usize - 1) }
}

const fn append(out: &mut [u8; QUALIFIED_MAX], len: &mut usize, s: &[u8]) -> bool {
    if *len + s.len() > out.len() {
        return false;
    }
    let mut i = 0;
    while i < s.len() {
        out[*len] = s[i];
        *len += 1;
        i += 1;
    }
    true
}

/// `&b[start..start + len]` (panics when out of bounds) by slice patterns, which const
/// evaluation runs without calls: `split_at` and range indexing cost some thirty calls each,
/// most of them debug-assertion checks.
pub const fn subslice(b: &[u8], start: usize, len: usize) -> &[u8] {
    let total = b.len();
    assert!(
        start <= total && len <= total - start,
        "text range out of bounds"
    );
    let mut t = b;
    let mut k = start;
    while k >= 32 {
        if let [
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            rest @ ..,
        ] = t
        {
            t = rest;
        }
        k -= 32;
    }
    if k >= 16 {
        if let [_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, rest @ ..] = t {
            t = rest;
        }
        k -= 16;
    }
    if k >= 8 {
        if let [_, _, _, _, _, _, _, _, rest @ ..] = t {
            t = rest;
        }
        k -= 8;
    }
    if k >= 4 {
        if let [_, _, _, _, rest @ ..] = t {
            t = rest;
        }
        k -= 4;
    }
    if k >= 2 {
        if let [_, _, rest @ ..] = t {
            t = rest;
        }
        k -= 2;
    }
    if k >= 1
        && let [_, rest @ ..] = t
    {
        t = rest;
    }
    // Then drop what follows the range from the end, the same way.
    let mut d = total - start - len;
    while d >= 32 {
        if let [
            rest @ ..,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
            _,
        ] = t
        {
            t = rest;
        }
        d -= 32;
    }
    if d >= 16 {
        if let [rest @ .., _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _] = t {
            t = rest;
        }
        d -= 16;
    }
    if d >= 8 {
        if let [rest @ .., _, _, _, _, _, _, _, _] = t {
            t = rest;
        }
        d -= 8;
    }
    if d >= 4 {
        if let [rest @ .., _, _, _, _] = t {
            t = rest;
        }
        d -= 4;
    }
    if d >= 2 {
        if let [rest @ .., _, _] = t {
            t = rest;
        }
        d -= 2;
    }
    if d >= 1
        && let [rest @ .., _] = t
    {
        t = rest;
    }
    t
}

// Packed-field reads as macros, not functions: in const evaluation a call costs more than
// the read it would wrap, and node decoding is a large part of a check's fixed cost.
macro_rules! str_at {
    ($b:expr, $i:expr) => {{
        let i: usize = $i;
        Str {
            start: $b[i],
            len: $b[i + 1],
        }
    }};
}

macro_rules! refs_at {
    ($b:expr, $i:expr) => {{
        let i: usize = $i;
        Refs {
            start: $b[i],
            len: $b[i + 1],
        }
    }};
}

macro_rules! wide {
    ($b:expr, $i:expr) => {{
        let i: usize = $i;
        ($b[i] as u64) | (($b[i + 1] as u64) << 32)
    }};
}

impl<'a> Ast<'a> {
    /// The bytes of a text range.
    pub const fn str(&self, s: Str) -> &'a [u8] {
        subslice(self.text, s.start as usize, s.len as usize)
    }

    /// The text range as `&str` (ranges always hold whole UTF-8 strings, except bytes literals).
    pub const fn text_str(&self, s: Str) -> &'a str {
        match core::str::from_utf8(self.str(s)) {
            Ok(s) => s,
            Err(_) => "",
        }
    }

    /// The `i`th entry of a refs range.
    pub const fn r(&self, refs: Refs, i: u32) -> u32 {
        self.refs[(refs.start + i) as usize]
    }

    /// Number of nodes.
    pub const fn len(&self) -> usize {
        self.nodes.len() / NODE_WORDS
    }

    /// Whether there are no nodes.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of the root node.
    pub const fn root(&self) -> u32 {
        (self.len() - 1) as u32
    }

    /// The function declarations ([`crate::env::FUNCTIONS`] indices) call node `i` names:
    /// by its own name, and as the qualified name its target spells (`optional.of`), each
    /// `None` when no declaration has that name at any version.
    pub const fn call_decls(&self, i: u32) -> (Option<usize>, Option<usize>) {
        let w = self.nodes[i as usize * NODE_WORDS + SPARE_WORD];
        (decl_at(w & 0xffff), decl_at(w >> 16))
    }

    /// The qualified type select node `i` spells with its operands
    /// ([`QUALIFIED_DURATION`], [`QUALIFIED_TIMESTAMP`]; 0: none).
    pub const fn qualified_type(&self, i: u32) -> u32 {
        self.nodes[i as usize * NODE_WORDS + SPARE_WORD]
    }

    /// `a.b` + `.f` as `a.b.f` in `out` when `target` is a select chain ending in an
    /// identifier (cel-go resolves such chains as one qualified name); its length.
    pub const fn qualified_name(
        &self,
        target: u32,
        function: Str,
        out: &mut [u8; QUALIFIED_MAX],
    ) -> Option<usize> {
        // Collect segments from the outermost select down to the identifier.
        let mut segs = [Str { start: 0, len: 0 }; 8];
        let mut count = 0;
        let mut n = target;
        loop {
            if count >= 8 {
                return None;
            }
            match self.node(n).expr {
                Expr::Ident(name) => {
                    segs[count] = name;
                    count += 1;
                    break;
                }
                Expr::Select {
                    operand,
                    field,
                    test: false,
                } => {
                    segs[count] = field;
                    count += 1;
                    n = operand;
                }
                _ => return None,
            }
        }
        let mut len = 0;
        let mut k = count;
        while k > 0 {
            k -= 1;
            if !append(out, &mut len, self.str(segs[k])) || !append(out, &mut len, b".") {
                return None;
            }
        }
        if !append(out, &mut len, self.str(function)) {
            return None;
        }
        Some(len)
    }

    /// Where node `i` is in the source (code points).
    pub const fn offset(&self, i: u32) -> u32 {
        self.nodes[i as usize * NODE_WORDS]
    }

    /// Node `i`, decoded.
    pub const fn node(&self, i: u32) -> Node {
        let b = self.nodes;
        let base = i as usize * NODE_WORDS;
        let tag = b[base + 1];
        let flag = (tag >> 8) & 0xff;
        let expr = match tag & 0xff {
            0 => Expr::Null,
            1 => Expr::Bool(flag != 0),
            2 => Expr::Int(wide!(b, base + 2) as i64),
            3 => Expr::Uint(wide!(b, base + 2)),
            4 => Expr::Double(f64::from_bits(wide!(b, base + 2))),
            5 => Expr::String(str_at!(b, base + 2)),
            6 => Expr::Bytes(str_at!(b, base + 2)),
            7 => Expr::Ident(str_at!(b, base + 2)),
            8 => Expr::Local {
                name: str_at!(b, base + 2),
                var: match flag & 3 {
                    0 => Var::Iter,
                    1 => Var::Iter2,
                    _ => Var::Accu,
                },
                range: b[base + 2 + 2],
                init: b[base + 2 + 3],
                two_vars: flag & 4 != 0,
            },
            9 => Expr::Select {
                operand: b[base + 2],
                field: str_at!(b, base + 2 + 1),
                test: flag != 0,
            },
            10 => Expr::Call {
                function: str_at!(b, base + 2),
                target: if flag != 0 {
                    Some(b[base + 2 + 2])
                } else {
                    None
                },
                args: refs_at!(b, base + 2 + 3),
            },
            11 => Expr::List {
                elements: refs_at!(b, base + 2),
                optional: refs_at!(b, base + 2 + 2),
            },
            12 => Expr::Map {
                entries: refs_at!(b, base + 2),
            },
            13 => Expr::Struct {
                name: str_at!(b, base + 2),
            },
            14 => Expr::Macro {
                name: str_at!(b, base + 2),
                since: flag as u8,
            },
            _ => Expr::Comprehension {
                range: b[base + 2],
                init: b[base + 2 + 1],
                cond: b[base + 2 + 2],
                step: b[base + 2 + 3],
                result: b[base + 2 + 4],
                two_vars: flag != 0,
            },
        };
        Node {
            offset: b[base],
            expr,
        }
    }
}

impl Ast<'_> {
    /// Each node's parent (`None` for the root). A macro marker's expansion has no parent:
    /// the marker does not link it.
    pub fn parents(&self) -> Vec<Option<u32>> {
        let n = self.len();
        let mut parent: Vec<Option<u32>> = vec![None; n];
        let mut link = |child: u32, p: u32| {
            if let Some(slot) = parent.get_mut(child as usize) {
                *slot = Some(p);
            }
        };
        for i in 0..n as u32 {
            match self.node(i).expr {
                Expr::Select { operand, .. } => link(operand, i),
                Expr::Call { target, args, .. } => {
                    if let Some(t) = target {
                        link(t, i);
                    }
                    for k in 0..args.len {
                        link(self.r(args, k), i);
                    }
                }
                Expr::List { elements, .. } => {
                    for k in 0..elements.len {
                        link(self.r(elements, k), i);
                    }
                }
                Expr::Map { entries } => {
                    let mut k = 0;
                    while k + 1 < entries.len {
                        link(self.r(entries, k), i);
                        link(self.r(entries, k + 1), i);
                        k += 3;
                    }
                }
                Expr::Comprehension {
                    range,
                    init,
                    cond,
                    step,
                    result,
                    ..
                } => {
                    for c in [range, init, cond, step, result] {
                        link(c, i);
                    }
                }
                _ => {}
            }
        }
        parent
    }
}

impl Node {
    /// The packed form ([`NODE_WORDS`] words) that [`Ast::node`] decodes.
    pub fn pack(&self, out: &mut Vec<u32>) {
        let mut w = [0u32; NODE_WORDS];
        w[0] = self.offset;
        let s2 = |w: &mut [u32; NODE_WORDS], k: usize, s: Str| {
            w[2 + k] = s.start;
            w[3 + k] = s.len;
        };
        let r2 = |w: &mut [u32; NODE_WORDS], k: usize, r: Refs| {
            w[2 + k] = r.start;
            w[3 + k] = r.len;
        };
        let wide = |w: &mut [u32; NODE_WORDS], v: u64| {
            w[2] = v as u32;
            w[3] = (v >> 32) as u32;
        };
        let (tag, flag) = match self.expr {
            Expr::Null => (0, 0),
            Expr::Bool(b) => (1, u32::from(b)),
            Expr::Int(i) => {
                wide(&mut w, i as u64);
                (2, 0)
            }
            Expr::Uint(u) => {
                wide(&mut w, u);
                (3, 0)
            }
            Expr::Double(d) => {
                wide(&mut w, d.to_bits());
                (4, 0)
            }
            Expr::String(s) => {
                s2(&mut w, 0, s);
                (5, 0)
            }
            Expr::Bytes(s) => {
                s2(&mut w, 0, s);
                (6, 0)
            }
            Expr::Ident(s) => {
                s2(&mut w, 0, s);
                (7, 0)
            }
            Expr::Local {
                name,
                var,
                range,
                init,
                two_vars,
            } => {
                s2(&mut w, 0, name);
                w[4] = range;
                w[5] = init;
                let v = match var {
                    Var::Iter => 0,
                    Var::Iter2 => 1,
                    Var::Accu => 2,
                };
                (8, v | if two_vars { 4 } else { 0 })
            }
            Expr::Select {
                operand,
                field,
                test,
            } => {
                w[2] = operand;
                s2(&mut w, 1, field);
                (9, u32::from(test))
            }
            Expr::Call {
                function,
                target,
                args,
            } => {
                s2(&mut w, 0, function);
                w[4] = target.unwrap_or(0);
                r2(&mut w, 3, args);
                (10, u32::from(target.is_some()))
            }
            Expr::List { elements, optional } => {
                r2(&mut w, 0, elements);
                r2(&mut w, 2, optional);
                (11, 0)
            }
            Expr::Map { entries } => {
                r2(&mut w, 0, entries);
                (12, 0)
            }
            Expr::Struct { name } => {
                s2(&mut w, 0, name);
                (13, 0)
            }
            Expr::Macro { name, since } => {
                s2(&mut w, 0, name);
                (14, u32::from(since))
            }
            Expr::Comprehension {
                range,
                init,
                cond,
                step,
                result,
                two_vars,
            } => {
                w[2] = range;
                w[3] = init;
                w[4] = cond;
                w[5] = step;
                w[6] = result;
                (15, u32::from(two_vars))
            }
        };
        w[1] = tag | (flag << 8);
        out.extend_from_slice(&w);
    }
}

/// An owned [`Ast`], built from the `cel` crate's parse tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AstBuf {
    /// The expression source.
    pub source: String,
    /// The nodes in post-order.
    pub nodes: Vec<Node>,
    /// Child indices and map entry triples.
    pub refs: Vec<u32>,
    /// Names and literal values.
    pub text: Vec<u8>,
    /// `nodes`, packed (`refs` are words already).
    pub packed_nodes: Vec<u32>,
}

impl AstBuf {
    /// The borrowed form.
    pub fn as_ast(&self) -> Ast<'_> {
        Ast {
            source: &self.source,
            nodes: &self.packed_nodes,
            refs: &self.refs,
            text: &self.text,
        }
    }

    /// The words of [`PackedAst::words`]; `None` beyond what [`PackedAst::unpack`] holds.
    pub fn packed_bytes(&self) -> Option<Vec<u8>> {
        let words = self.packed_nodes.iter().chain(&self.refs);
        (self.packed_nodes.len() + self.refs.len() <= PACKED_WORDS_MAX)
            .then(|| words.flat_map(|w| w.to_le_bytes()).collect())
    }

    fn pack(&mut self) {
        self.packed_nodes.clear();
        for n in &self.nodes {
            n.pack(&mut self.packed_nodes);
        }
        self.resolve_names();
    }

    /// Writes the name resolution that needs no types into each node's spare word: the
    /// declaration a call names (plainly and as a qualified name, `optional.of`) and the
    /// qualified type a select chain spells (`google.protobuf.Duration`). Done here, natively,
    /// so the const checker looks declarations up by index instead of searching by name.
    fn resolve_names(&mut self) {
        let mut spare = Vec::new();
        {
            let ast = self.as_ast();
            for i in 0..ast.len() {
                let word = match ast.node(i as u32).expr {
                    Expr::Call {
                        function, target, ..
                    } => {
                        let plain = crate::env::find_index(ast.str(function));
                        let mut buf = [0u8; QUALIFIED_MAX];
                        let qualified = target
                            .and_then(|t| ast.qualified_name(t, function, &mut buf))
                            .and_then(|len| crate::env::find_index(&buf[..len]));
                        let id = |k: Option<usize>| k.map_or(0, |k| k as u32 + 1);
                        id(plain) | (id(qualified) << 16)
                    }
                    Expr::Select {
                        operand,
                        field,
                        test: false,
                    } => {
                        let mut buf = [0u8; QUALIFIED_MAX];
                        match ast.qualified_name(operand, field, &mut buf) {
                            Some(len) if &buf[..len] == b"google.protobuf.Duration" => {
                                QUALIFIED_DURATION
                            }
                            Some(len) if &buf[..len] == b"google.protobuf.Timestamp" => {
                                QUALIFIED_TIMESTAMP
                            }
                            _ => 0,
                        }
                    }
                    _ => 0,
                };
                spare.push(word);
            }
        }
        for (i, w) in spare.into_iter().enumerate() {
            if let Some(dst) = self.packed_nodes.get_mut(i * NODE_WORDS + SPARE_WORD) {
                *dst = w;
            }
        }
    }

    /// Lowers a parse tree. `info` gives node offsets.
    pub fn lower(source: &str, expr: &IdedExpr, info: &SourceInfo) -> AstBuf {
        let mut l = Lowering {
            buf: AstBuf {
                source: source.to_owned(),
                ..AstBuf::default()
            },
            info,
            scopes: Vec::new(),
            synthetic: std::collections::HashMap::new(),
            next_id: 1 << 48,
        };
        l.expr(expr);
        l.buf.pack();
        l.buf
    }
}

struct Scope {
    vars: Vec<(String, Var)>,
    range: u32,
    init: u32,
    two_vars: bool,
}

struct Lowering<'i> {
    buf: AstBuf,
    info: &'i SourceInfo,
    scopes: Vec<Scope>,
    /// Offsets of the nodes this lowering synthesizes when it expands a macro.
    synthetic: std::collections::HashMap<u64, u32>,
    next_id: u64,
}

impl Lowering<'_> {
    fn text(&mut self, bytes: &[u8]) -> Str {
        let start = self.buf.text.len() as u32;
        self.buf.text.extend_from_slice(bytes);
        Str {
            start,
            len: bytes.len() as u32,
        }
    }

    fn refs(&mut self, items: &[u32]) -> Refs {
        let start = self.buf.refs.len() as u32;
        self.buf.refs.extend_from_slice(items);
        Refs {
            start,
            len: items.len() as u32,
        }
    }

    /// Whether the source right before node `id` (a macro call's `(`) ends with `name`.
    fn follows_name(&self, id: u64, name: &str) -> bool {
        let offset = self.offset(id) as usize;
        let before: String = self.buf.source.chars().take(offset).collect();
        before.trim_end().ends_with(name) && self.buf.source.chars().nth(offset) == Some('(')
    }

    fn offset(&self, id: u64) -> u32 {
        match self.synthetic.get(&id) {
            Some(&o) => o,
            None => self.info.offset_for(id).map(|(s, _)| s).unwrap_or(0),
        }
    }

    fn push(&mut self, id: u64, expr: Expr) -> u32 {
        let offset = self.offset(id);
        self.buf.nodes.push(Node { offset, expr });
        (self.buf.nodes.len() - 1) as u32
    }

    fn expr(&mut self, e: &IdedExpr) -> u32 {
        let expr = match &e.expr {
            CelExpr::Unspecified => Expr::Null,
            CelExpr::Literal(lit) => match lit {
                LiteralValue::Null => Expr::Null,
                LiteralValue::Boolean(b) => Expr::Bool(*b.inner()),
                LiteralValue::Int(i) => Expr::Int(*i.inner()),
                LiteralValue::UInt(u) => Expr::Uint(*u.inner()),
                LiteralValue::Double(d) => Expr::Double(*d.inner()),
                LiteralValue::String(s) => Expr::String(self.text(s.inner().as_bytes())),
                LiteralValue::Bytes(b) => Expr::Bytes(self.text(b.inner())),
            },
            CelExpr::Ident(name) => self.ident(name),
            CelExpr::Select(sel) => {
                let operand = self.expr(&sel.operand);
                let field = self.text(sel.field.as_bytes());
                Expr::Select {
                    operand,
                    field,
                    test: sel.test,
                }
            }
            CelExpr::Call(call) if self.macro_expansion(e.id, call).is_some() => {
                let (marker, expanded) = self.macro_expansion(e.id, call).unwrap_or_default();
                let name = self.text(marker.0.as_bytes());
                self.push(
                    e.id,
                    Expr::Macro {
                        name,
                        since: marker.1,
                    },
                );
                return self.expr(&expanded);
            }
            CelExpr::Call(call) => {
                let target = call.target.as_ref().map(|t| self.expr(t));
                let args: Vec<u32> = call.args.iter().map(|a| self.expr(a)).collect();
                let function = self.text(call.func_name.as_bytes());
                let args = self.refs(&args);
                Expr::Call {
                    function,
                    target,
                    args,
                }
            }
            CelExpr::List(list) => {
                let elems: Vec<u32> = list.elements.iter().map(|a| self.expr(a)).collect();
                let optional: Vec<u32> = list.optional_indices.iter().map(|&i| i as u32).collect();
                let elements = self.refs(&elems);
                let optional = self.refs(&optional);
                Expr::List { elements, optional }
            }
            CelExpr::Map(map) => {
                let mut triples = Vec::new();
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        let k = self.expr(&me.key);
                        let v = self.expr(&me.value);
                        triples.extend_from_slice(&[k, v, u32::from(me.optional)]);
                    }
                }
                let entries = self.refs(&triples);
                Expr::Map { entries }
            }
            CelExpr::Struct(s) => Expr::Struct {
                name: self.text(s.type_name.as_bytes()),
            },
            CelExpr::Comprehension(c) => {
                // The `cel` parser also expands `existsOne(x, p)`, which cel-go's parser does
                // not know (an undeclared function): mark it so the checker rejects it.
                if !self.synthetic.contains_key(&e.id) && self.follows_name(e.id, "existsOne") {
                    let name = self.text(b"existsOne");
                    self.push(
                        e.id,
                        Expr::Macro {
                            name,
                            since: u8::MAX,
                        },
                    );
                }
                let range = self.expr(&c.iter_range);
                let init = self.expr(&c.accu_init);
                let two_vars = c.iter_var2.is_some();
                // The accumulator is visible in the condition, step and result; the iteration
                // variables only in the condition and step (cel-go's scopes).
                self.scopes.push(Scope {
                    vars: vec![(c.accu_var.clone(), Var::Accu)],
                    range,
                    init,
                    two_vars,
                });
                let mut iter_vars = vec![(c.iter_var.clone(), Var::Iter)];
                if let Some(v2) = &c.iter_var2 {
                    iter_vars.push((v2.clone(), Var::Iter2));
                }
                self.scopes.push(Scope {
                    vars: iter_vars,
                    range,
                    init,
                    two_vars,
                });
                let cond = self.expr(&c.loop_cond);
                let step = self.expr(&c.loop_step);
                self.scopes.pop();
                let result = self.expr(&c.result);
                self.scopes.pop();
                Expr::Comprehension {
                    range,
                    init,
                    cond,
                    step,
                    result,
                    two_vars,
                }
            }
        };
        self.push(e.id, expr)
    }

    /// cel-go's expansions of the macros the `cel` parser leaves as calls: the two-variable
    /// comprehensions (`ext/comprehensions.go`), `optMap`/`optFlatMap` (`cel/optional.go`) and
    /// `sortBy` (`ext/lists.go`). Returns the marker (macro name, first compatibility version)
    /// and the expansion, or `None` for any other call.
    fn macro_expansion(
        &mut self,
        id: u64,
        call: &CallExpr,
    ) -> Option<((&'static str, u8), IdedExpr)> {
        let target = call.target.as_deref()?;
        // The declaration says which macro this is and from which version it exists.
        let declared = crate::env::find_macro_any_version(
            call.func_name.as_bytes(),
            true,
            call.args.len() as u8,
        )?;
        let marker = (declared.name, declared.versions.since);
        let ident = |e: &IdedExpr| match &e.expr {
            CelExpr::Ident(n) => Some(n.clone()),
            _ => None,
        };
        let f = call.func_name.as_str();
        let n = call.args.len();
        let offset = self.offset(id);
        let b = Builder {
            next: std::cell::Cell::new(self.next_id),
            offsets: std::cell::RefCell::new(Vec::new()),
            offset,
        };
        let two_var =
            || -> Option<(String, String)> { Some((ident(&call.args[0])?, ident(&call.args[1])?)) };
        let expansion = match (f, n) {
            ("all" | "exists" | "exists_one" | "existsOne", 3) => {
                let (k, v) = two_var()?;
                let pred = call.args[2].clone();
                let accu = || "@result".to_owned();
                let (init, cond, step, result) = match f {
                    "all" => (
                        b.bool(true),
                        b.call("@not_strictly_false", vec![b.ident(&accu())]),
                        b.call("_&&_", vec![b.ident(&accu()), pred]),
                        b.ident(&accu()),
                    ),
                    "exists" => {
                        let not = b.call("!_", vec![b.ident(&accu())]);
                        (
                            b.bool(false),
                            b.call("@not_strictly_false", vec![not]),
                            b.call("_||_", vec![b.ident(&accu()), pred]),
                            b.ident(&accu()),
                        )
                    }
                    _ => {
                        let plus = b.call("_+_", vec![b.ident(&accu()), b.int(1)]);
                        (
                            b.int(0),
                            b.bool(true),
                            b.call("_?_:_", vec![pred, plus, b.ident(&accu())]),
                            b.call("_==_", vec![b.ident(&accu()), b.int(1)]),
                        )
                    }
                };
                let comp = b.comprehension(
                    target.clone(),
                    k,
                    Some(v),
                    "@result",
                    init,
                    cond,
                    step,
                    result,
                );
                Some((marker, comp))
            }
            ("transformList" | "transformMap" | "transformMapEntry", 3 | 4) => {
                let (k, v) = two_var()?;
                let expr = call.args[n - 1].clone();
                let filter = (n == 4).then(|| call.args[2].clone());
                let accu = || "@result".to_owned();
                let (init, add) = match f {
                    "transformList" => {
                        let l = b.list(vec![expr]);
                        (b.list(vec![]), b.call("_+_", vec![b.ident(&accu()), l]))
                    }
                    "transformMap" => {
                        let key = b.ident(&k);
                        (
                            b.map(),
                            b.call("cel.@mapInsert", vec![b.ident(&accu()), key, expr]),
                        )
                    }
                    _ => (
                        b.map(),
                        b.call("cel.@mapInsert", vec![b.ident(&accu()), expr]),
                    ),
                };
                let step = match filter {
                    Some(filter) => b.call("_?_:_", vec![filter, add, b.ident(&accu())]),
                    None => add,
                };
                let cond = b.bool(true);
                let result = b.ident(&accu());
                let comp = b.comprehension(
                    target.clone(),
                    k,
                    Some(v),
                    "@result",
                    init,
                    cond,
                    step,
                    result,
                );
                Some((marker, comp))
            }
            ("optMap" | "optFlatMap", 2) => {
                let var = ident(&call.args[0])?;
                let body = call.args[1].clone();
                let has = b.member(target.clone(), "hasValue", vec![]);
                let value = b.member(target.clone(), "value", vec![]);
                let empty = b.list(vec![]);
                let cond = b.bool(false);
                let step = b.ident(&var);
                // `cel.bind(var, target.value(), body)`: the variable is the accumulator.
                let bind = b.comprehension(
                    empty,
                    "#unused".to_owned(),
                    None,
                    &var,
                    value,
                    cond,
                    step,
                    body,
                );
                let some = if f == "optMap" {
                    b.call("optional.of", vec![bind])
                } else {
                    bind
                };
                let none = b.call("optional.none", vec![]);
                Some((marker, b.call("_?_:_", vec![has, some, none])))
            }
            ("sortBy", 2) => {
                let var = ident(&call.args[0])?;
                let key = call.args[1].clone();
                // target.map(var, key), expanded as the map macro is.
                let accu = || "@result".to_owned();
                let l = b.list(vec![key]);
                let step = b.call("_+_", vec![b.ident(&accu()), l]);
                let init = b.list(vec![]);
                let cond = b.bool(true);
                let result = b.ident(&accu());
                let keys = b.comprehension(
                    target.clone(),
                    var,
                    None,
                    "@result",
                    init,
                    cond,
                    step,
                    result,
                );
                Some((
                    marker,
                    b.member(target.clone(), "@sortByAssociatedKeys", vec![keys]),
                ))
            }
            _ => None,
        };
        self.next_id = b.next.get();
        self.synthetic.extend(b.offsets.into_inner());
        expansion
    }

    fn ident(&mut self, name: &str) -> Expr {
        for scope in self.scopes.iter().rev() {
            if let Some((_, var)) = scope.vars.iter().rev().find(|(n, _)| n == name) {
                let (var, range, init, two_vars) = (*var, scope.range, scope.init, scope.two_vars);
                return Expr::Local {
                    name: self.text(name.as_bytes()),
                    var,
                    range,
                    init,
                    two_vars,
                };
            }
        }
        Expr::Ident(self.text(name.as_bytes()))
    }
}

/// Builds parse-tree nodes for macro expansions, all located at the macro call.
struct Builder {
    next: std::cell::Cell<u64>,
    offsets: std::cell::RefCell<Vec<(u64, u32)>>,
    offset: u32,
}

impl Builder {
    fn node(&self, expr: CelExpr) -> IdedExpr {
        let id = self.next.get();
        self.next.set(id + 1);
        self.offsets.borrow_mut().push((id, self.offset));
        IdedExpr { id, expr }
    }

    fn bool(&self, b: bool) -> IdedExpr {
        self.node(CelExpr::Literal(LiteralValue::Boolean(b.into())))
    }

    fn int(&self, i: i64) -> IdedExpr {
        self.node(CelExpr::Literal(LiteralValue::Int(i.into())))
    }

    fn ident(&self, name: &str) -> IdedExpr {
        self.node(CelExpr::Ident(name.to_owned()))
    }

    fn call(&self, f: &str, args: Vec<IdedExpr>) -> IdedExpr {
        self.node(CelExpr::Call(CallExpr {
            func_name: f.to_owned(),
            target: None,
            args,
        }))
    }

    fn member(&self, target: IdedExpr, f: &str, args: Vec<IdedExpr>) -> IdedExpr {
        self.node(CelExpr::Call(CallExpr {
            func_name: f.to_owned(),
            target: Some(Box::new(target)),
            args,
        }))
    }

    fn list(&self, elements: Vec<IdedExpr>) -> IdedExpr {
        self.node(CelExpr::List(ListExpr::new(elements)))
    }

    fn map(&self) -> IdedExpr {
        self.node(CelExpr::Map(MapExpr::default()))
    }

    #[allow(clippy::too_many_arguments)]
    fn comprehension(
        &self,
        range: IdedExpr,
        iter_var: String,
        iter_var2: Option<String>,
        accu_var: &str,
        init: IdedExpr,
        cond: IdedExpr,
        step: IdedExpr,
        result: IdedExpr,
    ) -> IdedExpr {
        self.node(CelExpr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: range,
            iter_var,
            iter_var2,
            accu_var: accu_var.to_owned(),
            accu_init: init,
            loop_cond: cond,
            loop_step: step,
            result,
        })))
    }
}
