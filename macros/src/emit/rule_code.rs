//! A struct's rules written as Rust (`ObjView::cel_rules` and `cel_rule`), for the typed fast
//! path: each rule's expression as calls of the viewed interpreter's operations
//! (`__private::rule`, the runtime's `eval/interp/derived.rs`), composed as the interpreter
//! composes them, with the struct's own fields read through its own `cel_field`, statically
//! dispatched and inlined, where the interpreter reads them through a virtual call. In release
//! builds only (`cfg(not(debug_assertions))`): type-checking the code costs build time per rule.
//!
//! The code answers only what the viewed interpreter would answer, and the walk asks the
//! interpreter whenever it does not, so a rule is written only in the subset written here
//! (literals, `self`, selections and `has()`, the interpreter's scalar operators and
//! functions, `==`, `&&`/`||`/`?:`, `matches` with a constant pattern, `in` a list of string
//! literals, list literals known by their length (`filter`'s), one-variable comprehensions)
//! and never when it reads `oldSelf` (the walk's code for binding a transition rule's old
//! value, measured, cost every rule's call more than the code saves on the few transition
//! rules); any other rule is left to the interpreter. The walk binds a node's rule to this code by the rule's text, on the struct
//! it runs on, so a rule listed here that the schema does not carry is never run.

use super::*;
use crd_cel_core::ast::{Ast, Expr, Var};

/// The most AST nodes of a rule written as Rust.
const MAX_NODES: usize = 64;

/// A rule of the struct, where it is written.
struct Written {
    /// The field's JSON name, `None` for the struct's own rules.
    property: Option<String>,
    rule: String,
}

/// `cel_rules` and `cel_rule` of the struct's `ObjView` impl (nothing when no rule is
/// written). `named` are the JSON names `cel_field` answers for.
pub(super) fn methods(
    cont: &Container,
    fields: &[Field],
    named: &[&str],
    p: &TokenStream,
) -> TokenStream {
    let mut rules: Vec<Written> = Vec::new();
    let mut add = |property: Option<&str>, rule: String| {
        if !rules
            .iter()
            .any(|w| w.property.as_deref() == property && w.rule == rule)
        {
            rules.push(Written {
                property: property.map(str::to_owned),
                rule,
            });
        }
    };
    for r in &cont.cel.rules {
        add(None, r.rule.value());
    }
    for f in fields {
        if named.contains(&f.name.as_str()) {
            for r in &f.cel.rules {
                add(Some(&f.name), r.rule.value());
            }
        }
    }
    let mut statics = Vec::new();
    let mut table = Vec::new();
    let mut arms = Vec::new();
    for w in &rules {
        let Some(ast) = crate::check::parsed(&w.rule) else {
            continue;
        };
        let ast = ast.as_ast();
        // A long expression is left to the interpreter: its code would cost build time (and
        // nest blocks deeply) for what few rules are.
        if ast.is_empty() || ast.len() > MAX_NODES || ast.references_old_self() {
            continue;
        }
        let mut code = Gen {
            ast,
            p,
            own: match w.property {
                None => named,
                Some(_) => &[],
            },
            statics: Vec::new(),
            next: statics.len(),
            sites: 0,
            labels: 0,
        };
        let Some(body) = code.expr(ast.root()) else {
            continue;
        };
        let this = match &w.property {
            None => quote!(__r::this(#p::ViewRef::Obj(self), __cel_node)),
            // A field's rule runs on the field's node.
            Some(name) => {
                quote!(__r::this(<Self as #p::ObjView>::cel_field(self, #name), __cel_node))
            }
        };
        statics.append(&mut code.statics);
        let i = arms.len();
        arms.push(quote! {
            #i => {
                let __cel_self = #this?;
                __r::result(#body)
            }
        });
        let property = match &w.property {
            Some(name) => quote!(#p::Some(#name)),
            None => quote!(#p::None),
        };
        let rule = &w.rule;
        table.push(quote!(__r::RuleAt { property: #property, rule: #rule }));
    }
    if arms.is_empty() {
        return TokenStream::new();
    }
    let n = table.len();
    // Release builds only: a debug `cargo build` would type-check each rule's code (some
    // 7 million rustc instructions per rule, against the 3 ms per rule the build budget
    // allows), and the views and the interpreter give the same verdicts.
    quote! {
        #[cfg(not(debug_assertions))]
        #[inline]
        fn cel_rules(&self) -> &'static [#p::rule::RuleAt] {
            use #p::rule as __r;
            static __CEL_RULES: [__r::RuleAt; #n] = [#(#table),*];
            &__CEL_RULES
        }

        #[cfg(not(debug_assertions))]
        #[allow(clippy::all, unused_parens)]
        #[inline]
        fn cel_rule(
            &self,
            __cel_i: usize,
            __cel_node: &#p::rule::SchemaNode,
            __cel_sites: &#p::rule::Sites,
        ) -> #p::Option<bool> {
            use #p::rule as __r;
            #(#statics)*
            match __cel_i {
                #(#arms)*
                _ => #p::None,
            }
        }
    }
}

/// Writes one expression: each node as an expression of type `Option<V>` (`None`: the
/// interpreter would not answer); a missing value leaves its labeled block with `None`.
struct Gen<'a> {
    ast: Ast<'a>,
    p: &'a TokenStream,
    /// The JSON names of the struct's fields `cel_field` answers for, when `self` is the struct.
    own: &'a [&'a str],
    statics: Vec<TokenStream>,
    /// The number of the next static.
    next: usize,
    /// The number of read sites so far.
    sites: usize,
    /// The number of labels so far.
    labels: usize,
}

impl Gen<'_> {
    /// The next read site of the rule (its memo in the rule's `Sites`).
    fn site(&mut self) -> usize {
        self.sites += 1;
        self.sites - 1
    }

    /// A block label for the next expression that stops at a missing value.
    fn label(&mut self) -> syn::Lifetime {
        self.labels += 1;
        syn::Lifetime::new(
            &format!("'__cel_{}", self.labels),
            proc_macro2::Span::call_site(),
        )
    }

    /// `value` (an `Option<V>`) unwrapped in the block `label`, whose value is `None` (no
    /// answer) when it is `None`: the generated code has no closures, which would cost build
    /// time per rule.
    fn take(&self, label: &syn::Lifetime, value: TokenStream) -> TokenStream {
        let p = self.p;
        quote!(match #value {
            #p::Some(__cel_v) => __cel_v,
            #p::None => break #label #p::None,
        })
    }

    fn text(&self, s: crd_cel_core::ast::Str) -> Option<&str> {
        std::str::from_utf8(self.ast.str(s)).ok()
    }

    fn expr(&mut self, i: u32) -> Option<TokenStream> {
        let p = self.p;
        let some = |v: TokenStream| quote!(#p::Some(__r::V::#v));
        Some(match self.ast.node(i).expr {
            Expr::Bool(b) => some(quote!(Bool(#b))),
            // Through the bits: a negative literal is two tokens, and `i64::MIN`'s magnitude
            // is no `i64`.
            Expr::Int(n) => {
                let bits = proc_macro2::Literal::u64_suffixed(n as u64);
                some(quote!(Int(#bits as i64)))
            }
            Expr::Uint(n) => {
                let n = proc_macro2::Literal::u64_suffixed(n);
                some(quote!(Uint(#n)))
            }
            Expr::Double(d) => {
                let bits = proc_macro2::Literal::u64_suffixed(d.to_bits());
                some(quote!(Double(f64::from_bits(#bits))))
            }
            Expr::String(s) => {
                let s = self.text(s)?;
                some(quote!(Str(#s)))
            }
            Expr::Ident(name) if self.ast.str(name) == b"self" => quote!(#p::Some(__cel_self)),
            // A list the rule builds (`filter`'s `[x]` and `[]`, `[has(self.a), ..]`): as the
            // viewed interpreter builds it, its bools kept, else its length.
            Expr::List { elements, optional } if optional.len == 0 => {
                let mut each = Vec::with_capacity(elements.len as usize);
                for k in 0..elements.len {
                    each.push(self.expr(self.ast.r(elements, k))?);
                }
                quote!(__r::list(&[#(#each),*]))
            }
            Expr::Local {
                var: var @ (Var::Iter | Var::Accu),
                range,
                ..
            } => {
                let v = local(range, var);
                quote!(#p::Some(#v))
            }
            Expr::Select {
                operand,
                field,
                test,
            } => {
                let name = self.text(field)?.to_owned();
                // An escaped name (`a__dot__b`) is left to the interpreter's unescaping.
                if name.contains("__") {
                    return None;
                }
                let k = self.site();
                let own = match self.ast.node(operand).expr {
                    Expr::Ident(s) if self.ast.str(s) == b"self" => {
                        self.own.iter().find(|n| **n == name)
                    }
                    _ => None,
                };
                let found = match own {
                    Some(_) => {
                        let p = self.p;
                        quote!(__r::own(__cel_node, #name, __cel_sites, #k, <Self as #p::ObjView>::cel_field(self, #name)))
                    }
                    None => {
                        let operand = self.expr(operand)?;
                        let l = self.label();
                        let operand = self.take(&l, operand);
                        quote!(#l: { __r::field(#operand, #name, __cel_sites, #k) })
                    }
                };
                match test {
                    true => quote!(__r::has(#found)),
                    false => quote!(__r::present(#found)),
                }
            }
            Expr::Call {
                function,
                target,
                args,
            } => {
                let function = self.text(function)?.to_owned();
                let mut all = Vec::new();
                all.extend(target);
                all.extend((0..args.len).map(|k| self.ast.r(args, k)));
                self.call(&function, &all)?
            }
            Expr::Comprehension {
                range,
                init,
                cond,
                step,
                result,
                two_vars: false,
            } => {
                let (it, acc) = (local(range, Var::Iter), local(range, Var::Accu));
                let [range_e, init, cond, step, result] =
                    [range, init, cond, step, result].map(|n| self.expr(n));
                let (range_e, init, cond, step, result) = (range_e?, init?, cond?, step?, result?);
                let l = self.label();
                let (range_e, init) = (self.take(&l, range_e), self.take(&l, init));
                // The loop's body is the one closure: `each` calls it per element.
                quote!(#l: {
                    let __cel_range = #range_e;
                    #[allow(unused_assignments)]
                    let mut #acc = #init;
                    if __r::each(__cel_range, |#it| {
                        match #cond {
                            #p::Some(__r::V::Bool(false)) => return #p::Some(false),
                            #p::Some(_) => {}
                            #p::None => return #p::None,
                        }
                        #acc = #step?;
                        #p::Some(true)
                    })
                    .is_none()
                    {
                        break #l #p::None;
                    }
                    #result
                })
            }
            _ => return None,
        })
    }

    /// A call of `function` on `args` (a member call's receiver first).
    fn call(&mut self, function: &str, args: &[u32]) -> Option<TokenStream> {
        let p = self.p;
        if let ("matches", [s, pattern]) = (function, args) {
            let Expr::String(pattern) = self.ast.node(*pattern).expr else {
                return None;
            };
            let pattern = self.text(pattern)?.to_owned();
            let s = self.expr(*s)?;
            let re = format_ident!("__CEL_RE_{}", self.next);
            self.next += 1;
            self.statics
                .push(quote!(static #re: __r::Pattern = __r::Pattern::new();));
            let l = self.label();
            let s = self.take(&l, s);
            return Some(quote!(#l: { __r::matches(&#re, #pattern, #s) }));
        }
        // `x in ['a', 'b']`: membership in a list of string literals (the planner's set).
        if let ("@in", [x, list]) = (function, args)
            && let Expr::List {
                elements, optional, ..
            } = self.ast.node(*list).expr
            && optional.len == 0
        {
            let mut strs = Vec::with_capacity(elements.len as usize);
            for k in 0..elements.len {
                let Expr::String(s) = self.ast.node(self.ast.r(elements, k)).expr else {
                    return None;
                };
                strs.push(self.text(s)?.to_owned());
            }
            let x = self.expr(*x)?;
            let l = self.label();
            let x = self.take(&l, x);
            return Some(quote!(#l: { __r::in_strs(#x, &[#(#strs),*]) }));
        }
        let mut values = Vec::with_capacity(args.len());
        for &a in args {
            values.push(self.expr(a)?);
        }
        Some(match (function, &values[..]) {
            // The right side only when the left one does not decide.
            ("_&&_" | "_||_", [a, b]) => {
                let or = function == "_||_";
                quote!({
                    let __cel_left = #a;
                    match __r::absorbs(#or, __cel_left) {
                        true => __cel_left,
                        false => __r::logic(#or, __cel_left, #b),
                    }
                })
            }
            ("_?_:_", [c, t, f]) => {
                quote!(match #c {
                    #p::Some(__r::V::Bool(true)) => #t,
                    #p::Some(__r::V::Bool(false)) => #f,
                    _ => #p::None,
                })
            }
            ("@not_strictly_false", [a]) => quote!(__r::bool_of(#a)),
            ("_==_" | "_!=_", [a, b]) => {
                let ne = function == "_!=_";
                let l = self.label();
                let (a, b) = (self.take(&l, a.clone()), self.take(&l, b.clone()));
                quote!(#l: { __r::equal(#a, #b, #ne) })
            }
            (f, [a]) => {
                let f = self.function(f)?;
                let l = self.label();
                let a = self.take(&l, a.clone());
                quote!(#l: { __r::call1(#f, #a) })
            }
            (f, [a, b]) => {
                let f = self.function(f)?;
                let l = self.label();
                let (a, b) = (self.take(&l, a.clone()), self.take(&l, b.clone()));
                quote!(#l: { __r::call2(#f, #a, #b) })
            }
            _ => return None,
        })
    }

    /// The viewed interpreter's function `name` (`F::ALL[i]`, by its index in
    /// `VIEWED_FUNCTIONS`); other calls are the interpreter's.
    fn function(&self, name: &str) -> Option<TokenStream> {
        let i = crd_cel_core::env::VIEWED_FUNCTIONS
            .iter()
            .position(|n| *n == name)?;
        Some(quote!(__r::F::ALL[#i]))
    }
}

/// The variable of the comprehension over `range`.
fn local(range: u32, var: Var) -> syn::Ident {
    match var {
        Var::Accu => format_ident!("__cel_acc_{range}"),
        _ => format_ident!("__cel_it_{range}"),
    }
}
