//! Type checks of rules at `cargo build`: each rule (and messageExpression) is lowered to the
//! checker's AST here and emitted as a constant, with one `const _` item per expression that
//! runs the const checker on the model of the node the rule is on (ARCHITECTURE.md decision 1).

use crate::attr::RuleAttr;
use crd_cel_core::ast::AstBuf;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// The lowered expression as an `Ast` constant expression: two integer arrays and a byte
/// string, which rustc type-checks far faster than a tree of struct literals.
fn ast_tokens(ast: &AstBuf, p: &TokenStream) -> TokenStream {
    let source = &ast.source;
    let nodes = words(&ast.packed_nodes);
    let refs = words(&ast.packed_refs);
    let text = Literal::byte_string(&ast.text);
    quote!(#p::ast::Ast { source: #source, nodes: #nodes, refs: #refs, text: #text })
}

/// `&[w0, w1, ...]`, parsed from one string: a token per integer built one by one costs more
/// in the (unoptimised) derive than rustc spends on the array.
fn words(w: &[u32]) -> TokenStream {
    let mut s = String::with_capacity(w.len() * 3 + 3);
    s.push_str("&[");
    for x in w {
        s.push_str(&x.to_string());
        s.push(',');
    }
    s.push(']');
    s.parse().expect("BUG: integer list tokens")
}

/// How a const check reaches the schema node it checks against.
///
/// Nodes are read out of the type's `MODEL` into locals rather than bound as a constant per
/// check: rustc validates the value of every constant, walking the whole schema tree behind
/// it, which for a type deep in a CRD cost more than the check itself.
pub enum NodeRef {
    /// `<T as CelSchema>::MODEL` (rules on the type itself).
    Model(TokenStream),
    /// The schema of property `k` of `<T as CelSchema>::MODEL` (rules on a field).
    Property(TokenStream, usize),
    /// A node expression of its own (newtype and flattened fields), bound as a constant so
    /// that the borrows inside it are promoted.
    Expr(TokenStream),
}

impl NodeRef {
    /// Statements binding `__cel_node: &Schema<'static>` inside a constant's initializer.
    pub fn bind(&self, p: &TokenStream) -> TokenStream {
        match self {
            NodeRef::Model(ty) => quote! {
                let __cel_model = <#ty as #p::CelSchema>::MODEL;
                let __cel_node = &__cel_model;
            },
            NodeRef::Property(ty, k) => quote! {
                let __cel_node = <#ty as #p::CelSchema>::MODEL.properties[#k].schema;
            },
            NodeRef::Expr(node) => quote! {
                const __CEL_NODE: #p::Schema<'static> = #node;
                let __cel_node = &__CEL_NODE;
            },
        }
    }
}

/// One `const _` per rule and messageExpression of `rules`, checking them against `node`.
/// `place` names the node in messages (`WebAppSpec`, `WebAppSpec.replicas`); `resource_root`
/// is true for the kube root type.
pub fn checks(
    rules: &[RuleAttr],
    node: &NodeRef,
    p: &TokenStream,
    place: &str,
    resource_root: bool,
    costs: &mut Vec<TokenStream>,
) -> Checks {
    let mut out = TokenStream::new();
    let mut expr_costs = Vec::new();
    let bind = node.bind(p);
    for (i, r) in rules.iter().enumerate() {
        // The names of the constants holding this rule's estimates (0 when not checked).
        let mut rule_cost = quote!(0);
        let mut message_cost = quote!(0);
        if let Some(fp) = &r.field_path {
            out.extend(quote_spanned! {fp.span()=>
                #[allow(long_running_const_eval)]
                const _: () = {
                    #bind
                    use #p::check_field_path as __cel_check;
                    __cel_check(__cel_node, #fp)
                };
            });
        }
        let optional_old_self = r.optional_old_self.as_ref().is_some_and(|b| b.value);
        let exprs = std::iter::once((r.rule.value(), r.rule.span(), quote!(Rule))).chain(
            r.message_expression
                .iter()
                .map(|m| (m.value(), m.span(), quote!(MessageExpression))),
        );
        for (source, span, target) in exprs {
            // Syntax errors were reported at expansion already; nothing to type-check then.
            let Ok(ast) = crate::check::take_parsed(&source) else {
                continue;
            };
            // Constant arguments need no types: checked here, with the newest environment's
            // words (older targets reject the same constants, at program planning).
            let literal =
                crd_cel_core::literals::check(&ast.as_ast(), crd_cel_core::check::DEFAULT_COMPAT);
            if let Some(msg) = literal_message(&source, &literal, i, place) {
                out.extend(quote_spanned! {span=> ::core::compile_error! { #msg } });
                continue;
            }
            let ast = ast_tokens(&ast, p);
            let index = i;
            // A named constant (rustc evaluates every free constant, used or not): the check,
            // whose value is the estimated cost the type's `CEL_RULE_COSTS` lists.
            let name = quote::format_ident!(
                "__CEL_COST_{}",
                COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            );
            out.extend(quote_spanned! {span=>
                #[allow(long_running_const_eval, non_upper_case_globals)]
                const #name: u64 = {
                    const AST: #p::ast::Ast<'static> = #ast;
                    #bind
                    // Called through a local name so that rustc reports a failed evaluation at
                    // this span (the rule's literal), not the derive's.
                    use #p::check_expression as __cel_check;
                    __cel_check(&AST, __cel_node, #p::check::Target::#target, #place, #index, #resource_root, #optional_old_self)
                };
            });
            let is_message = target.to_string() == "MessageExpression";
            if is_message {
                message_cost = quote!(#name);
            } else {
                rule_cost = quote!(#name);
            }
            costs.push(quote! {
                #p::RuleCost {
                    place: #place,
                    index: #index,
                    expression: #source,
                    message_expression: #is_message,
                    max_cost: #name,
                }
            });
        }
        expr_costs.push(quote! {
            #p::ExprCosts { rule: #rule_cost, message_expression: #message_cost }
        });
    }
    Checks {
        items: out,
        costs: expr_costs,
    }
}

/// What [`checks`] emits.
pub struct Checks {
    /// The `const` items.
    pub items: TokenStream,
    /// An `ExprCosts` expression per rule, in order (the estimates the items compute).
    pub costs: Vec<TokenStream>,
}

/// `ExprCosts` of rules that are not checked (generic types): unknown, counted as 0.
pub fn unchecked_costs(rules: &[RuleAttr], p: &TokenStream) -> Vec<TokenStream> {
    rules
        .iter()
        .map(|_| quote!(#p::ExprCosts { rule: 0, message_expression: 0 }))
        .collect()
}

/// Names the cost constants apart within one expansion (and across, harmlessly).
static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn literal_message(
    source: &str,
    issues: &[crd_cel_core::literals::LiteralIssue],
    index: usize,
    place: &str,
) -> Option<String> {
    use crd_cel_core::literals::LiteralIssue;
    let mut compile = Vec::new();
    for issue in issues {
        match issue {
            LiteralIssue::Compile { offset, message } => {
                let mut buf = crd_cel_core::msg::Buf::<4096>::new();
                crd_cel_core::check::render_issue(source, *offset, message, &mut buf);
                compile.push(buf.as_str().to_owned());
            }
            LiteralIssue::Program(detail) => {
                return Some(format!(
                    "CEL rule #{index} on `{place}` is rejected by the apiserver: program instantiation failed: {detail}"
                ));
            }
        }
    }
    (!compile.is_empty()).then(|| {
        format!(
            "CEL rule #{index} on `{place}` is rejected by the apiserver: compilation failed: {}\nhelp: durations use Go syntax (`1h30m`, `90s`; no `d`), timestamps RFC 3339 (`2024-01-01T00:00:00Z`), regexes RE2",
            compile.join("\n")
        )
    })
}
