//! Type checks of rules at `cargo build`: each rule (and messageExpression) is lowered to the
//! checker's AST here and emitted as a constant, with one `const _` item per expression that
//! runs the const checker on the model of the node the rule is on (ARCHITECTURE.md decision 1).
//!
//! When the model of the node is predicted ([`crate::predict`]) as far as the rule reads it, the
//! checker runs here first, natively; a rule that passes becomes a constant that only compares
//! the real node's fingerprint with the prediction's, falling back to the const checker when
//! they differ. Every error still comes from the const checker, with its message and span.

use crate::attr::RuleAttr;
use crate::predict::Predicted;
use crd_cel_core::ast::{Ast, AstBuf, Expr};
use crd_cel_core::check::Target;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// The lowered expression as an `Ast` constant expression: two integer arrays and a byte
/// string, which rustc type-checks far faster than a tree of struct literals.
fn ast_tokens(ast: &AstBuf, p: &TokenStream) -> TokenStream {
    let source = &ast.source;
    let nodes = words(&ast.packed_nodes);
    let refs = words(&ast.refs);
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
    /// The `let`s binding `__cel_node`, spanned at `span` like the code that uses it: a local
    /// resolves only where its use has the hygiene of its binding, and tokens from a
    /// `macro_rules!` body carry that macro's.
    pub fn bind(&self, p: &TokenStream, span: proc_macro2::Span) -> TokenStream {
        match self {
            NodeRef::Model(ty) => quote_spanned! {span=>
                let __cel_model = <#ty as #p::CelSchema>::MODEL;
                let __cel_node = &__cel_model;
            },
            NodeRef::Property(ty, k) => quote_spanned! {span=>
                let __cel_node = <#ty as #p::CelSchema>::MODEL.properties[#k].schema;
            },
            NodeRef::Expr(node) => quote_spanned! {span=>
                const __CEL_NODE: #p::Schema<'static> = #node;
                let __cel_node = &__CEL_NODE;
            },
        }
    }
}

/// One `const _` per rule and messageExpression of `rules`, checking them against `node`.
/// `place` names the node in messages (`WebAppSpec`, `WebAppSpec.replicas`); `resource_root`
/// is true for the kube root type.
///
/// `generic`: the container has type parameters, so the checks are associated constants of an
/// inherent impl (`Checks::items`, evaluated for each instantiation when its `COSTS` is, which
/// the kube root's CRD-wide cost check does), costs name them through `Self::`, and the
/// `fieldPath` checks, which must be free constants, are left to the apiserver's CRD checks.
#[allow(clippy::too_many_arguments)]
pub fn checks(
    rules: &[RuleAttr],
    node: &NodeRef,
    predicted: Option<&Predicted>,
    p: &TokenStream,
    place: &str,
    resource_root: bool,
    generic: bool,
    costs: &mut Vec<TokenStream>,
) -> Checks {
    let mut out = TokenStream::new();
    let mut free = TokenStream::new();
    let mut expr_costs = Vec::new();
    // Every expression's AST and native check first: the fingerprint the checked ones share
    // covers what any of them reads.
    let mut exprs = Vec::new();
    // Whether each rule refers to `oldSelf`, from its AST as the checker and the apiserver
    // decide it (`None`: a syntax error, reported already).
    let mut old_self_used = vec![None; rules.len()];
    for (i, r) in rules.iter().enumerate() {
        let optional_old_self = r.optional_old_self.as_ref().is_some_and(|b| b.value);
        let sources = std::iter::once((r.rule.value(), r.rule.span(), Target::Rule)).chain(
            r.message_expression
                .iter()
                .map(|m| (m.value(), m.span(), Target::MessageExpression)),
        );
        for (source, span, target) in sources {
            // Syntax errors were reported at expansion already; nothing to type-check then.
            let Ok(parsed) = crate::check::take_parsed(&source) else {
                continue;
            };
            if target == Target::Rule {
                old_self_used[i] = Some(parsed.as_ast().references_old_self());
            }
            // Constant arguments need no types: checked here, with the newest environment's
            // words (older targets reject the same constants, at program planning).
            let literal = crd_cel_core::literals::check(
                &parsed.as_ast(),
                crd_cel_core::check::DEFAULT_COMPAT,
            );
            let literal = literal_message(&source, &literal, i, place);
            let native = match predicted {
                Some(node) if !resource_root && literal.is_none() => {
                    native_check(&parsed, node, target, place, optional_old_self)
                }
                _ => None,
            };
            exprs.push(Expression {
                rule: i,
                source,
                span,
                target,
                parsed,
                literal,
                native,
            });
        }
    }
    let deep = exprs
        .iter()
        .filter_map(|e| e.native.as_ref().map(|n| n.deep))
        .fold(0, |a, b| a | b);
    // The real node's fingerprint over those reads (one constant for all of them) and the
    // prediction's.
    let shape = quote::format_ident!("__CEL_SHAPE_{}", ident_part(place));
    let predicted_fingerprint = match predicted {
        Some(predicted) if exprs.iter().any(|e| e.native.is_some()) => {
            let bind = node.bind(p, proc_macro2::Span::call_site());
            out.extend(quote! {
                const #shape: u64 = {
                    #bind
                    #p::fingerprint::of_node(__cel_node, #deep)
                };
            });
            crd_cel_core::fingerprint::of_node(predicted.schema, deep)
        }
        _ => 0,
    };
    let mut exprs = exprs.into_iter().peekable();
    for (i, r) in rules.iter().enumerate() {
        // The names of the constants holding this rule's estimates (0 when not checked).
        let mut rule_cost = quote!(0);
        let mut message_cost = quote!(0);
        if let Some(fp) = r.field_path.as_ref().filter(|_| !generic) {
            let args = quote_spanned!(fp.span()=> __cel_node, #fp);
            let bind = node.bind(p, fp.span());
            out.extend(const_check(fp.span(), p, "check_field_path", &bind, args));
        }
        let optional_old_self = r.optional_old_self.as_ref().is_some_and(|b| b.value);
        // `optionalOldSelf` (either value) is rejected on a rule that does not use `oldSelf`.
        if let (Some(oos), Some(used)) = (&r.optional_old_self, old_self_used[i]) {
            let value = oos.value;
            let args = quote_spanned!(oos.span=> #used, #value, #place, #i);
            free.extend(const_check(
                oos.span,
                p,
                "check_optional_old_self",
                &TokenStream::new(),
                args,
            ));
        }
        while let Some(Expression {
            source,
            span,
            target,
            parsed,
            literal,
            native,
            ..
        }) = exprs.next_if(|e| e.rule == i)
        {
            if let Some(msg) = literal {
                out.extend(quote_spanned! {span=> ::core::compile_error! { #msg } });
                continue;
            }
            let index = i;
            let target_tokens = match target {
                Target::Rule => quote!(Rule),
                Target::MessageExpression => quote!(MessageExpression),
            };
            // A named constant (rustc evaluates every free constant, used or not): the check,
            // whose value is the estimated cost the type's `CEL_RULE_COSTS` lists.
            // Named after the rule, so that rustc's "evaluation of `..` failed" says which.
            let name = quote::format_ident!(
                "__CEL_{}RULE_{}_{}{}",
                if resource_root { "ROOT_" } else { "" },
                ident_part(place),
                i,
                if target == Target::MessageExpression {
                    "_MESSAGE"
                } else {
                    ""
                }
            );
            let bind = node.bind(p, span);
            let call = match (native, parsed.packed_bytes()) {
                (Some(Prediction { cost, .. }), Some(words)) => {
                    let (words, node_words, text) = (
                        Literal::byte_string(&words),
                        parsed.packed_nodes.len(),
                        Literal::byte_string(&parsed.text),
                    );
                    // The AST inline rather than a constant of its own: one body less per
                    // rule for rustc to build, borrow-check, evaluate and validate.
                    quote_spanned! {span=>
                        use #p::check_predicted as __cel_check;
                        #bind
                        __cel_check(&#p::ast::PackedAst {
                            source: #source, words: #words, node_words: #node_words, text: #text,
                        }, __cel_node, #p::check::Target::#target_tokens, #place, #index, #optional_old_self,
                            #p::Prediction { compat: #COMPAT, node: #shape, predicted: #predicted_fingerprint, cost: #cost })
                    }
                }
                _ => {
                    let ast = ast_tokens(&parsed, p);
                    quote_spanned! {span=>
                        const AST: #p::ast::Ast<'static> = #ast;
                        use #p::check_expression as __cel_check;
                        #bind
                        __cel_check(&AST, __cel_node, #p::check::Target::#target_tokens, #place, #index, #resource_root, #optional_old_self)
                    }
                }
            };
            // Lints allowed on the enclosing block (`emit`).
            out.extend(quote_spanned! {span=>
                const #name: u64 = {
                    // The check is called through a local name, and panics here with the
                    // message it returns, so that rustc reports a failed evaluation at this
                    // span (the rule's literal), not the derive's, and with no frames of the
                    // check's functions.
                    match { #call } {
                        ::core::result::Result::Ok(__cel_cost) => __cel_cost,
                        ::core::result::Result::Err(__cel_message) => {
                            ::core::panic!("{}", __cel_message.as_str())
                        }
                    }
                };
            });
            let is_message = target == Target::MessageExpression;
            let named = if generic {
                quote!(Self::#name)
            } else {
                quote!(#name)
            };
            if is_message {
                message_cost = named;
            } else {
                rule_cost = named;
            }
            if generic {
                continue;
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
        free,
        costs: expr_costs,
    }
}

/// What [`checks`] emits.
pub struct Checks {
    /// Items that need no node (free constants in either case).
    pub free: TokenStream,
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

/// `place` (`WebAppSpec.replicas`, JSON names) as part of an identifier: one derive's constants
/// are told apart by their place and index, so names depend on nothing but the type's source.
/// `_` stands for `.`; any other character that cannot appear in an identifier is spelled by its
/// code point, so distinct places stay distinct.
fn ident_part(place: &str) -> String {
    let mut out = String::with_capacity(place.len());
    for c in place.chars() {
        match c {
            '.' => out.push('_'),
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c),
            c => out.push_str(&format!("_u{:x}_", c as u32)),
        }
    }
    out
}

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

/// The compatibility version the derive checks at: crd-cel forwards its `k8s-1-NN` features
/// here, so this is the runtime's `TARGET_COMPAT` (the const item compares them all the same).
const COMPAT: u8 = crd_cel_core::target_compat!();

/// One rule or messageExpression, parsed and checked for what needs no types.
struct Expression {
    /// The index of its rule.
    rule: usize,
    source: String,
    span: proc_macro2::Span,
    target: Target,
    parsed: AstBuf,
    /// The compile error of its constant arguments, if any.
    literal: Option<String>,
    /// What checking it natively found, when it could and it passed.
    native: Option<Prediction>,
}

/// What a native check found and assumed.
struct Prediction {
    /// The properties whose subtrees it read (`fingerprint::of_node`'s `deep`).
    deep: u64,
    cost: u64,
}

/// `const _: () = { use <p>::<check> as __cel_check; <prelude> __cel_check(<args>) };`, spanned
/// at `span` (the `args` too, by the caller). The function is called through a local name so
/// that the call, where rustc reports a failed const evaluation, carries this span rather than
/// the derive's.
pub fn const_check(
    span: proc_macro2::Span,
    p: &TokenStream,
    check: &str,
    prelude: &TokenStream,
    args: TokenStream,
) -> TokenStream {
    let check = syn::Ident::new(check, span);
    quote_spanned! {span=>
        #[allow(long_running_const_eval)]
        const _: () = {
            use #p::#check as __cel_check;
            #prelude
            // The check returns its message and the panic is here: rustc reports the failure
            // in this item, with no frames of the check's functions.
            if let ::core::result::Result::Err(__cel_message) = __cel_check(#args) {
                ::core::panic!("{}", __cel_message.as_str())
            }
        };
    }
}

/// Type-checks `ast` here, on the predicted model of its node, when what the rule reads of the
/// node is predicted (see [`crate::predict`]) and the rule passes within the cost limit. Any
/// other outcome (including every error, whose message and span the const check gives) is left
/// to the const item.
fn native_check(
    ast: &AstBuf,
    node: &Predicted,
    target: Target,
    place: &str,
    optional_old_self: bool,
) -> Option<Prediction> {
    let ast = ast.as_ast();
    let deep = read_mask(&ast, node)?;
    let checked = crd_cel_core::check::Node {
        schema: node.schema,
        resource_root: false,
        optional_old_self,
        compat: COMPAT,
        releases: crd_cel_core::check::Releases::from(COMPAT + 1),
        type_name: place,
    };
    let report = crd_cel_core::check::check(&ast, target, &checked);
    let cost = match (report.is_ok(), report.cost) {
        (true, Some(c)) if c.max <= crd_cel_core::cost::PER_EXPRESSION_LIMIT => c.max,
        _ => return None,
    };
    Some(Prediction { deep, cost })
}

/// The properties of the node whose subtrees the check can read (the `deep` mask of
/// `fingerprint::of_node`), when each is predicted whole: for an object node, the properties
/// `self.f`, `self.?f` and `has(self.f)` name (and the same on `oldSelf`) if that is all the
/// rule reads of it; otherwise all of them, if the node is complete. `None` when the rule reads
/// something that is not predicted.
fn read_mask(ast: &Ast<'_>, node: &Predicted) -> Option<u64> {
    // The fields read, when that is all: a fingerprint over the whole node could cover much
    // more (a type nesting others), and costs in const evaluation what it covers.
    fields_read(ast, node).or(node.complete.then_some(u64::MAX))
}

fn fields_read(ast: &Ast<'_>, node: &Predicted) -> Option<u64> {
    let s = node.schema;
    if s.ty != crd_cel_core::Type::Object
        || s.additional_properties.is_some()
        || !s.flatten.is_empty()
    {
        return None;
    }
    let parents = ast.parents();
    let mut mask = 0u64;
    for i in 0..ast.len() as u32 {
        let Expr::Ident(name) = ast.node(i).expr else {
            continue;
        };
        if !matches!(ast.str(name), b"self" | b"oldSelf") {
            continue;
        }
        let field = match ast.node(parents[i as usize]?).expr {
            Expr::Select { operand, field, .. } if operand == i => ast.str(field),
            Expr::Call {
                function,
                target: None,
                args,
            } if ast.str(function) == b"_?._" && args.len == 2 && ast.r(args, 0) == i => {
                match ast.node(ast.r(args, 1)).expr {
                    Expr::String(f) => ast.str(f),
                    _ => return None,
                }
            }
            _ => return None,
        };
        // The checker's own lookup, so that this is the property it reads.
        let p = crd_cel_core::check::selected_property(s, field, COMPAT)?;
        let k = s.properties.iter().position(|q| std::ptr::eq(q, p))?;
        if k >= 64 || node.complete_props & (1 << k) == 0 {
            return None;
        }
        mask |= 1 << k;
    }
    Some(mask)
}
