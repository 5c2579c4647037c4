//! A checked expression: the lowered AST with the type of each node and the overloads each call
//! matched (cel-go's checked AST, its type and reference maps). The checker fills it in; the
//! cost estimator reads it after a successful check, so the two meet only here.

use crate::ast::{Ast, MAX_NODES, Node, QUALIFIED_MAX, Str};
use crate::decl::Function;
use crate::model::Schema;
use crate::types::{TyId, Types};

/// The type slot of a namespace qualifier (`optional` in `optional.none()`): not an expression.
pub(crate) const SKIP: TyId = u16::MAX - 2;

/// Per-node results of a check, indexed by node.
pub(crate) struct TypedAst<'a> {
    pub(crate) ast: Ast<'a>,
    /// The nodes, decoded once: const evaluation pays for every byte a decode reads.
    pub(crate) nodes: [Node; MAX_NODES],
    /// The name or text of each identifier, field selection, call and string literal, sliced
    /// once (empty for other nodes): subslicing is costly in const evaluation.
    pub(crate) names: [&'a [u8]; MAX_NODES],
    pub(crate) t: Types<'a>,
    pub(crate) ty: [TyId; MAX_NODES],
    /// Per call node: bit `k` set when overload `k` of the function matched (cel-go's reference
    /// map, which the estimator prices overload by overload).
    pub(crate) ov: [u16; MAX_NODES],
    /// The schema of the rule's node and whether it is a resource root (the size estimator
    /// walks paths from it).
    pub(crate) schema: &'a Schema<'a>,
    pub(crate) resource_root: bool,
    /// The releases whose estimates it must fit (`check::Node::releases`).
    pub(crate) releases: crate::release::Releases,
}

impl TypedAst<'_> {
    /// `a.b` + `.f` as `a.b.f` when `target` spells a qualified name.
    pub(crate) const fn qualified_name(
        &self,
        target: u32,
        function: Str,
        out: &mut [u8; QUALIFIED_MAX],
    ) -> Option<usize> {
        self.ast.qualified_name(target, function, out)
    }

    /// The declaration call node `n` resolves to (its qualified name when the qualifier was
    /// marked), at any version.
    pub(crate) const fn call_decl(&self, n: u32, target: Option<u32>) -> Option<&'static Function> {
        let (plain, qualified) = self.ast.call_decls(n);
        let k = match target {
            Some(t) if self.ty[t as usize] == SKIP => qualified,
            _ => plain,
        };
        match k {
            Some(k) => Some(&crate::env::FUNCTIONS[k]),
            None => None,
        }
    }
}
