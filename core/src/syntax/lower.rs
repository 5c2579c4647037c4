//! Lowering the `cel` crate's parse tree to the checker's [`Ast`](crate::ast::Ast): post-order
//! nodes, resolved locals, cel-go's macro expansions ([`super::expand`]) and the name
//! resolution that needs no types, packed into an [`AstBuf`].

use crate::ast::{
    AstBuf, Expr, NODE_WORDS, Node, QUALIFIED_DURATION, QUALIFIED_MAX, QUALIFIED_TIMESTAMP, Refs,
    SPARE_WORD, Str, Var,
};
use cel::common::ast::{EntryExpr, Expr as CelExpr, IdedExpr, LiteralValue, SourceInfo};

/// Lowers a parse tree. `info` gives node offsets.
pub(crate) fn lower(source: &str, expr: &IdedExpr, info: &SourceInfo) -> AstBuf {
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
    l.buf.pack_nodes();
    resolve_names(&mut l.buf);
    l.buf
}

/// Writes the name resolution that needs no types into each node's spare word: the
/// declaration a call names (plainly and as a qualified name, `optional.of`) and the
/// qualified type a select chain spells (`google.protobuf.Duration`). Done here, natively,
/// so the const checker looks declarations up by index instead of searching by name.
fn resolve_names(buf: &mut AstBuf) {
    let mut spare = Vec::new();
    {
        let ast = buf.as_ast();
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
        if let Some(dst) = buf.packed_nodes.get_mut(i * NODE_WORDS + SPARE_WORD) {
            *dst = w;
        }
    }
}

pub(super) struct Scope {
    vars: Vec<(String, Var)>,
    range: u32,
    init: u32,
    two_vars: bool,
}

pub(super) struct Lowering<'i> {
    pub(super) buf: AstBuf,
    pub(super) info: &'i SourceInfo,
    pub(super) scopes: Vec<Scope>,
    /// Offsets of the nodes this lowering synthesizes when it expands a macro.
    pub(super) synthetic: std::collections::HashMap<u64, u32>,
    pub(super) next_id: u64,
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

    /// Node `id`'s offset in code points, cel-go's unit. The parser records byte offsets (its
    /// input stream indexes UTF-8 bytes), so they are converted here, once per node.
    pub(super) fn offset(&self, id: u64) -> u32 {
        match self.synthetic.get(&id) {
            Some(&o) => o,
            None => self
                .info
                .offset_for(id)
                .map(|(s, _)| code_points_before(&self.buf.source, s))
                .unwrap_or(0),
        }
    }

    fn push(&mut self, id: u64, expr: Expr) -> u32 {
        let mut offset = self.offset(id);
        // A negative number literal starts at its sign in cel-go (the literal's context); the
        // `cel` parser places it at the digits.
        let negative = match expr {
            Expr::Int(i) => i < 0,
            Expr::Double(d) => d.is_sign_negative(),
            _ => false,
        };
        if negative {
            offset = self.sign_before(offset);
        }
        self.buf.nodes.push(Node { offset, expr });
        (self.buf.nodes.len() - 1) as u32
    }

    /// The offset of the `-` before the number at `offset` (spaces may separate them), or
    /// `offset` when there is none.
    fn sign_before(&self, offset: u32) -> u32 {
        let before: Vec<char> = self.buf.source.chars().take(offset as usize).collect();
        let mut k = before.len();
        while k > 0 && before[k - 1].is_whitespace() {
            k -= 1;
        }
        if k > 0 && before[k - 1] == '-' {
            (k - 1) as u32
        } else {
            offset
        }
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

/// How many code points of `source` start before byte `byte`.
fn code_points_before(source: &str, byte: u32) -> u32 {
    let byte = byte as usize;
    if source.is_ascii() {
        return byte.min(source.len()) as u32;
    }
    source.char_indices().take_while(|&(i, _)| i < byte).count() as u32
}
