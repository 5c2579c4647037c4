//! Read analysis: which parts of `self` an expression can read, so the typed fast path builds
//! only those.

use crd_cel_core::ast::{Ast, Expr, Var};

pub use crate::tree::Need;

/// See [`Program::self_need`](super::Program::self_need). Every node of the expression counts, planned or folded away, so
/// the answer can only over-approximate what evaluation reads; anything but a field selection
/// (`has()` included) or a comprehension range reads the whole value.
pub(super) fn self_need(ast: &Ast<'_>) -> Need {
    need_of(ast, b"self")
}

/// What the expression reads of `oldSelf`, as [`self_need`] reads `self` (an optional
/// `oldSelf` is read whole: its `value()` or `?.` is no field selection).
pub(super) fn old_self_need(ast: &Ast<'_>) -> Need {
    need_of(ast, b"oldSelf")
}

/// What the expression reads of the variable `var`.
fn need_of(ast: &Ast<'_>, var: &[u8]) -> Need {
    let n = ast.len();
    let parent = ast.parents();
    fn usage(ast: &Ast<'_>, parent: &[Option<u32>], i: u32, depth: u32) -> Need {
        let Some(p) = parent.get(i as usize).copied().flatten() else {
            return Need::Whole;
        };
        if depth > 64 {
            return Need::Whole;
        }
        match ast.node(p).expr {
            // `has(self.f)` needs `f` present: built whole.
            Expr::Select {
                operand,
                field,
                test,
            } if operand == i => Need::Fields(vec![(
                ast.text_str(field).into(),
                if test {
                    Need::Whole
                } else {
                    usage(ast, parent, p, depth + 1)
                },
            )]),
            Expr::Comprehension {
                range,
                init,
                two_vars: false,
                ..
            } if range == i => {
                let mut item = Need::Fields(Vec::new());
                for l in 0..ast.len() as u32 {
                    if let Expr::Local {
                        var: Var::Iter,
                        range: r,
                        init: n,
                        ..
                    } = ast.node(l).expr
                        && (r, n) == (range, init)
                    {
                        item = item.merge(usage(ast, parent, l, depth + 1));
                    }
                }
                Need::Items(Box::new(item))
            }
            _ => Need::Whole,
        }
    }
    let mut need = Need::Fields(Vec::new());
    for i in 0..n as u32 {
        if matches!(ast.node(i).expr, Expr::Ident(s) if ast.str(s) == var) {
            need = need.merge(usage(ast, &parent, i, 0));
        }
    }
    need
}
