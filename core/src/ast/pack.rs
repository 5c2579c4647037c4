//! Writing the packed form: [`Node::pack`] and the owned [`AstBuf`].

use super::{Ast, Expr, NODE_WORDS, Node, PACKED_WORDS_MAX, Refs, Str, Var};

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

    /// The words of [`PackedAst::words`](super::PackedAst::words); `None` beyond what
    /// [`PackedAst::unpack`](super::PackedAst::unpack) holds.
    pub fn packed_bytes(&self) -> Option<Vec<u8>> {
        let words = self.packed_nodes.iter().chain(&self.refs);
        (self.packed_nodes.len() + self.refs.len() <= PACKED_WORDS_MAX)
            .then(|| words.flat_map(|w| w.to_le_bytes()).collect())
    }

    /// Packs `nodes` into `packed_nodes` (the spare words left 0 for the lowering to fill).
    pub(crate) fn pack_nodes(&mut self) {
        self.packed_nodes.clear();
        for n in &self.nodes {
            n.pack(&mut self.packed_nodes);
        }
    }
}
