//! Error accumulation (serde_derive's `Ctxt`): every stage records errors and keeps going, so the
//! user sees all bad attributes of a type in one build. Warnings are kept beside them: what the
//! derive accepts, as schemars and kube do, but what cannot mean what its author meant.

use std::cell::RefCell;

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;

pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
    warnings: RefCell<Vec<(Span, String)>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            warnings: RefCell::new(Vec::new()),
        }
    }

    /// Records a warning at `span`: the build goes on, the compiler shows `msg`.
    pub fn warn(&self, span: Span, msg: impl std::fmt::Display) {
        self.warnings.borrow_mut().push((span, msg.to_string()));
    }

    /// The warnings recorded, as items whose compilation shows them. A stable proc macro has
    /// no warning of its own to emit, so each is the use of a `#[deprecated]` item whose note is
    /// the message, spanned at what it is about (`#![allow(deprecated)]` on the module silences
    /// it, and `#![deny(warnings)]` makes it an error like any other warning).
    pub fn warnings(&self) -> TokenStream {
        self.warnings
            .borrow()
            .iter()
            .map(|(span, msg)| {
                quote_spanned! {*span=>
                    const _: () = {
                        #[deprecated(note = #msg)]
                        struct CelValidateWarning;
                        _ = CelValidateWarning;
                    };
                }
            })
            .collect()
    }

    pub fn error_spanned_by<T: quote::ToTokens>(&self, tokens: T, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }

    pub fn push(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("BUG: Ctxt used after check")
            .push(err);
    }

    /// Consumes the context, combining the errors into one.
    pub fn check(self) -> Result<(), syn::Error> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("BUG: Ctxt checked twice");
        let mut iter = errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("BUG: Ctxt dropped without check()");
        }
    }
}
