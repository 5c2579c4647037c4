//! cel-go's macro expansions the `cel` parser leaves as calls, written as parse-tree rewrites
//! the lowering then lowers like any other expression.

use super::lower::Lowering;
use cel::common::ast::{
    CallExpr, ComprehensionExpr, Expr as CelExpr, IdedExpr, ListExpr, LiteralValue, MapExpr,
};

impl Lowering<'_> {
    /// cel-go's expansions of the macros the `cel` parser leaves as calls: the two-variable
    /// comprehensions (`ext/comprehensions.go`), `optMap`/`optFlatMap` (`cel/optional.go`) and
    /// `sortBy` (`ext/lists.go`). Returns the marker (macro name, first compatibility version)
    /// and the expansion, or `None` for any other call.
    pub(super) fn macro_expansion(
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
                // `cel.bind(@__sortBy_input__, target, @__sortBy_input__.@sortByAssociatedKeys(
                // @__sortBy_input__.map(var, key)))`: the target is evaluated once, into the
                // bind's accumulator (ext/lists.go `sortByMacro`).
                let input = || "@__sortBy_input__".to_owned();
                let accu = || "@result".to_owned();
                let l = b.list(vec![key]);
                let step = b.call("_+_", vec![b.ident(&accu()), l]);
                let init = b.list(vec![]);
                let cond = b.bool(true);
                let result = b.ident(&accu());
                let keys = b.comprehension(
                    b.ident(&input()),
                    var,
                    None,
                    "@result",
                    init,
                    cond,
                    step,
                    result,
                );
                let sorted = b.member(b.ident(&input()), "@sortByAssociatedKeys", vec![keys]);
                let bind = b.comprehension(
                    b.list(vec![]),
                    "#unused".to_owned(),
                    None,
                    &input(),
                    target.clone(),
                    b.bool(false),
                    b.ident(&input()),
                    sorted,
                );
                Some((marker, bind))
            }
            _ => None,
        };
        self.next_id = b.next.get();
        self.synthetic.extend(b.offsets.into_inner());
        expansion
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
