//! Reading the packed form: node decoding in `const fn`, text and child ranges.

use super::slice::subslice_bytes;
use super::{Ast, Expr, NODE_WORDS, Node, QUALIFIED_MAX, Refs, SPARE_WORD, Str, Var};

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
        subslice_bytes(self.text, s.start as usize, s.len as usize)
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
    /// ([`QUALIFIED_DURATION`](super::QUALIFIED_DURATION),
    /// [`QUALIFIED_TIMESTAMP`](super::QUALIFIED_TIMESTAMP); 0: none).
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
    /// Whether the expression refers to `oldSelf`, which makes a rule a transition rule: the
    /// apiserver's `UsesOldSelf` (`apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`)
    /// looks for the name `oldSelf` in the checked AST's reference map, where cel-go records
    /// every identifier it resolves, a comprehension variable of that name too. So
    /// `[1].all(oldSelf, oldSelf > 0)` refers to it and `[1].all(oldSelf, true)` does not (a
    /// macro's variable is not an identifier node until its body reads it), while
    /// `optMap(oldSelf, ..)` and `transformMap(oldSelf, ..)` always do (their expansions read
    /// the variable). The checker's `uses_old_self` of [`Checked`](crate::check::Checked) is the
    /// same answer, found while checking.
    pub fn references_old_self(&self) -> bool {
        (0..self.len() as u32).any(|i| match self.node(i).expr {
            Expr::Ident(name) | Expr::Local { name, .. } => self.str(name) == b"oldSelf",
            _ => false,
        })
    }

    /// The node that has `n` as a direct child (`None` for the root), in constant evaluation:
    /// post-order puts it after `n`, so a scan forward finds it. [`Ast::parents`] gives every
    /// node's at once.
    pub const fn parent_of(&self, n: u32) -> Option<u32> {
        // The words read in place rather than each node decoded (what [`Ast::node`] would
        // give, field for field): the in-format test walks every parent of a literal, and in
        // const evaluation a decode costs a hundred statements.
        let b = self.nodes;
        let len = b.len() / NODE_WORDS;
        let mut i = n as usize + 1;
        while i < len {
            let base = i * NODE_WORDS;
            let tag = b[base + 1];
            let is_parent = match tag & 0xff {
                // Select: the operand.
                9 => b[base + 2] == n,
                // Call: the target (when the flag says there is one), then the arguments.
                10 => {
                    ((tag >> 8) & 0xff != 0 && b[base + 4] == n)
                        || Self::refs_hold(self, refs_at!(b, base + 5), 1, n)
                }
                // List: the elements.
                11 => Self::refs_hold(self, refs_at!(b, base + 2), 1, n),
                // Map: the keys and the values.
                12 => {
                    let entries = refs_at!(b, base + 2);
                    Self::refs_hold(self, entries, 3, n)
                        || (entries.len > 1
                            && Self::refs_hold(
                                self,
                                Refs {
                                    start: entries.start + 1,
                                    len: entries.len - 1,
                                },
                                3,
                                n,
                            ))
                }
                // The leaves, identifiers, locals, struct literals and macro markers.
                0..=8 | 13 | 14 => false,
                // Comprehension: range, init, condition, step, result.
                _ => {
                    b[base + 2] == n
                        || b[base + 3] == n
                        || b[base + 4] == n
                        || b[base + 5] == n
                        || b[base + 6] == n
                }
            };
            if is_parent {
                return Some(i as u32);
            }
            i += 1;
        }
        None
    }

    /// [`Ast::parent_of`] by decoding each node, as it was written first: what the tests
    /// compare it with.
    #[cfg(test)]
    pub(crate) const fn parent_of_decoded(&self, n: u32) -> Option<u32> {
        let ast = self;
        let mut i = n as usize + 1;
        while i < ast.len() {
            let is_parent = match ast.node(i as u32).expr {
                Expr::Select { operand, .. } => operand == n,
                Expr::Call { target, args, .. } => {
                    matches!(target, Some(t) if t == n) || Self::refs_hold(self, args, 1, n)
                }
                Expr::List { elements, .. } => Self::refs_hold(self, elements, 1, n),
                Expr::Map { entries } => {
                    Self::refs_hold(self, entries, 3, n)
                        || (entries.len > 1
                            && Self::refs_hold(
                                ast,
                                Refs {
                                    start: entries.start + 1,
                                    len: entries.len - 1,
                                },
                                3,
                                n,
                            ))
                }
                Expr::Comprehension {
                    range,
                    init,
                    cond,
                    step,
                    result,
                    ..
                } => range == n || init == n || cond == n || step == n || result == n,
                _ => false,
            };
            if is_parent {
                return Some(i as u32);
            }
            i += 1;
        }
        None
    }

    /// Whether every `stride`-th entry of `refs` (from the first) includes `n`.
    const fn refs_hold(
        ast: &crate::ast::Ast<'_>,
        refs: crate::ast::Refs,
        stride: u32,
        n: u32,
    ) -> bool {
        let mut k = 0;
        while k < refs.len {
            if ast.r(refs, k) == n {
                return true;
            }
            k += stride;
        }
        false
    }

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

#[cfg(test)]
mod tests {
    /// `parent_of` reading words in place finds the parent decoding finds, for every node of
    /// expressions of every kind of node with children.
    #[test]
    fn parent_of_reads_as_decoding_does() {
        for source in [
            "self.a.b == 1 && has(self.c) || !self.d",
            "self.names.all(n, n.size() < 64 && n.matches('^[a-z]+$'))",
            "self.tags.all(k, self.tags[k].size() <= 16)",
            "[1, 2, self.x].exists(i, i > 0) ? {'a': 1, 'b': self.y} : {}",
            "self.?label.orValue('') != 'x' && [?self.?a, 1].size() == 1",
            "optional.of(1).hasValue() && 'x'.format([1, 'y']) == ''",
            "self.items.filter(i, i.weight > 10).map(i, i.key).size() <= 3",
            "self.m.transformMap(k, v, v + 1).size() == {'a': {?'b': optional.none()}}.size()",
            "duration('1s') < google.protobuf.Duration{seconds: 1} || int(self.s) > 1",
        ] {
            let buf = crate::syntax::parse_ast(source).unwrap();
            let ast = buf.as_ast();
            for n in 0..ast.len() as u32 {
                assert_eq!(
                    ast.parent_of(n),
                    ast.parent_of_decoded(n),
                    "{source}: node {n}"
                );
            }
        }
    }
}
