//! `'static` values for the predicted models: `Schema` borrows everything it points to, and a
//! prediction lives as long as the process. Each distinct value is allocated once and shared,
//! so a long-lived proc-macro server (rust-analyzer's) that expands the same types again and
//! again holds one copy of each, not one per expansion.
//!
//! Children are interned before their parents, so a node is identified by its own fields and
//! the addresses of its (already unique) children: no deep comparison.

use crd_cel_core::model::{Property, Rules, Schema};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

thread_local! {
    static STRS: RefCell<HashSet<&'static str>> = RefCell::default();
    static STR_LISTS: RefCell<HashMap<Vec<&'static str>, &'static [&'static str]>> =
        RefCell::default();
    static SCHEMAS: RefCell<HashMap<String, &'static Schema<'static>>> = RefCell::default();
    static PROPERTIES: RefCell<HashMap<String, &'static [Property<'static>]>> =
        RefCell::default();
}

/// `s`, shared.
pub fn str(s: &str) -> &'static str {
    STRS.with(|set| {
        let mut set = set.borrow_mut();
        match set.get(s) {
            Some(v) => v,
            None => {
                let v: &'static str = Box::leak(s.to_owned().into_boxed_str());
                set.insert(v);
                v
            }
        }
    })
}

/// A list of strings, shared (each string interned too).
pub fn strs<S: AsRef<str>>(items: &[S]) -> &'static [&'static str] {
    let items: Vec<&'static str> = items.iter().map(|s| str(s.as_ref())).collect();
    STR_LISTS.with(|m| {
        *m.borrow_mut()
            .entry(items.clone())
            .or_insert_with(|| Box::leak(items.into_boxed_slice()))
    })
}

fn addr<T: ?Sized>(r: &T) -> usize {
    r as *const T as *const () as usize
}

fn rules_key(r: &Rules<'_>, out: &mut String) {
    let _ = write!(
        out,
        "r{:?}/{}/{}",
        r.before.map(addr),
        addr(r.own),
        r.own.len()
    );
}

/// A node shared: `s`'s children must be interned (or constants) already.
pub fn schema(s: Schema<'static>) -> &'static Schema<'static> {
    // Every field of `Schema` (destructured, so that a new one cannot be forgotten here).
    let Schema {
        ty,
        format,
        nullable,
        has_default,
        enum_values,
        max_length,
        min_length,
        max_items,
        min_items,
        max_properties,
        min_properties,
        minimum,
        maximum,
        pattern,
        properties,
        properties_fingerprint,
        flatten,
        items,
        additional_properties,
        list_type,
        list_map_keys,
        map_type,
        int_or_string,
        preserve_unknown_fields,
        embedded_resource,
        validations,
    } = &s;
    let mut key = format!(
        "{ty:?}{format:?}{nullable}{has_default}{}/{}{max_length:?}{min_length:?}{max_items:?}\
         {min_items:?}{max_properties:?}{min_properties:?}{minimum:?}{maximum:?}{pattern:?}\
         {}/{}{}/{}{:?}{:?}{list_type:?}{}/{}{map_type:?}{int_or_string}\
         {preserve_unknown_fields}{embedded_resource}{:?}",
        addr(*enum_values),
        enum_values.len(),
        addr(*properties),
        properties.len(),
        addr(*flatten),
        flatten.len(),
        items.map(addr),
        additional_properties.map(addr),
        addr(*list_map_keys),
        list_map_keys.len(),
        properties_fingerprint.map(addr),
    );
    rules_key(validations, &mut key);
    SCHEMAS.with(|m| {
        *m.borrow_mut()
            .entry(key)
            .or_insert_with(|| Box::leak(Box::new(s)))
    })
}

/// An object's properties, shared (names and schemas interned already).
pub fn properties(props: Vec<Property<'static>>) -> &'static [Property<'static>] {
    let mut key = String::new();
    for p in &props {
        let _ = write!(key, "{}:{}:{};", addr(p.name), p.required, addr(p.schema));
    }
    PROPERTIES.with(|m| {
        *m.borrow_mut()
            .entry(key)
            .or_insert_with(|| Box::leak(props.into_boxed_slice()))
    })
}
