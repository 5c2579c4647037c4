//! Differential test of the derive against schemars (issue 29, item 3): random CRD types in the
//! shapes real operators write (see `build.rs`), each derived with `CelValidate` and with
//! `JsonSchema`. For every type: the derive's build-time model describes the schema the type
//! generates exactly, every rule is accepted by the apiserver's CRD-creation checks, and the
//! schema is schemars' own plus the rules (and crd-cel's documented structural rewrites).
//!
//! `DIFFTYPES_SEED=S DIFFTYPES_COUNT=N cargo test -p crd-cel-difftypes` runs another sample;
//! `run.sh` runs many seeds (README.md).

use serde_json::Value;

include!(concat!(env!("OUT_DIR"), "/types.rs"));

/// One generated top-level type.
pub struct Case {
    /// Its name (`T3`).
    pub name: &'static str,
    /// The seed it was generated from.
    pub seed: u64,
    /// Whether an enum is anywhere in it (crd-cel rewrites some enums schemars renders).
    pub has_enum: bool,
    /// The schema of the `CelValidate` type.
    pub cel: fn() -> Result<Value, String>,
    /// The schema of the `JsonSchema` type.
    pub js: fn() -> Result<Value, String>,
    /// The derive's model against the generated schema, then the CRD-creation checks of every
    /// rule: the problems found.
    pub check: fn() -> Vec<String>,
}

fn schema_of<T: schemars::JsonSchema>() -> Result<Value, String> {
    crd_cel::schema::try_generate::<T>()
}

fn check<T: crd_cel::__private::CelSchema + schemars::JsonSchema>() -> Vec<String> {
    checked::<T>(false)
}

fn check_root<T: crd_cel::__private::CelSchema + schemars::JsonSchema>() -> Vec<String> {
    checked::<T>(true)
}

fn checked<T: crd_cel::__private::CelSchema + schemars::JsonSchema>(root: bool) -> Vec<String> {
    let mut out = Vec::new();
    match crd_cel::__private::model_disagreement::<T>(root) {
        Ok(d) => out.extend(d.iter().map(|d| format!("model: {d}"))),
        Err(e) => out.push(format!("no schema: {e}")),
    }
    let opts = Default::default();
    let report = if root {
        crd_cel::crd::check_resource::<T>(&opts)
    } else {
        crd_cel::crd::check_type::<T>(&opts)
    };
    match report {
        Ok(r) => out.extend(r.errors.iter().map(|e| format!("rule: {e}"))),
        Err(e) => out.push(format!("the rules cannot be checked: {e}")),
    }
    out
}

/// `x-kubernetes-validations` removed (the `JsonSchema` twin lacks the `#[cel]` rules), and
/// schemars' `uniqueItems` dropped, as kube's schema transform and crd-cel drop it.
pub fn normalize(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = serde_json::Map::new();
            for (k, v) in o {
                match k.as_str() {
                    "x-kubernetes-validations" => {}
                    "uniqueItems" if v == &Value::Bool(true) => {}
                    _ => {
                        out.insert(k.clone(), normalize(v));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

/// Where `cel` differs from `js` (both normalized), by path. A node where schemars' output is
/// not structural (`anyOf`/`oneOf`/`allOf`: enums), which crd-cel rewrites into what it means to
/// the apiserver, is not compared below itself.
pub fn differences(cel: &Value, js: &Value, path: &str, out: &mut Vec<String>) {
    match (cel, js) {
        (_, Value::Object(j))
            if ["anyOf", "oneOf", "allOf"]
                .iter()
                .any(|k| j.contains_key(*k)) => {}
        (Value::Object(c), Value::Object(j)) => {
            for k in c.keys().chain(j.keys().filter(|k| !c.contains_key(*k))) {
                match (c.get(k), j.get(k)) {
                    (Some(a), Some(b)) => differences(a, b, &format!("{path}.{k}"), out),
                    (a, b) => out.push(format!("{path}.{k}: CelValidate {a:?}, JsonSchema {b:?}")),
                }
            }
        }
        (Value::Array(c), Value::Array(j)) if c.len() == j.len() => {
            for (i, (a, b)) in c.iter().zip(j).enumerate() {
                differences(a, b, &format!("{path}[{i}]"), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{path}: CelValidate {a}, JsonSchema {b}")),
    }
}

/// What schemars' default functions and predicates the generated types name.
pub fn d_i32() -> i32 {
    7
}
/// See [`d_i32`].
pub fn d_opt_i32() -> Option<i32> {
    Some(7)
}
/// See [`d_i32`].
pub fn d_bool() -> bool {
    true
}
/// See [`d_i32`].
pub fn d_opt_bool() -> Option<bool> {
    Some(true)
}
/// See [`d_i32`].
pub fn d_string() -> String {
    "x".into()
}
/// See [`d_i32`].
pub fn d_opt_string() -> Option<String> {
    Some("x".into())
}
/// Skips the default of [`d_i32`] (so no `default` is written).
pub fn is_d_i32(v: &i32) -> bool {
    *v == 7
}
/// Skips nothing schemars' default is (`Some(7)` is written).
pub fn is_d_opt_i32(v: &Option<i32>) -> bool {
    v.is_none()
}
/// See [`is_d_i32`].
pub fn is_d_bool(v: &bool) -> bool {
    *v
}
/// See [`is_d_opt_i32`].
pub fn is_d_opt_bool(v: &Option<bool>) -> bool {
    v.is_none()
}
/// See [`is_d_i32`].
pub fn is_d_string(v: &str) -> bool {
    v == "x"
}
/// See [`is_d_opt_i32`].
pub fn is_d_opt_string(v: &Option<String>) -> bool {
    v.is_none()
}
/// A `schema_with` function: a string.
pub fn any_string(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string"})
}
/// A `schema_with` function: any object, kept whole.
pub fn preserve(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_type_agrees_with_schemars() {
        let cases = cases();
        let mut failures = Vec::new();
        for c in &cases {
            let mut problems = (c.check)();
            if std::env::var("DIFFTYPES_SHOW").is_ok_and(|s| s.split(',').any(|n| n == c.name)) {
                let show = |r: Result<Value, String>| match r {
                    Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_default(),
                    Err(e) => e,
                };
                eprintln!("{} CelValidate: {}", c.name, show((c.cel)()));
                eprintln!("{} JsonSchema: {}", c.name, show((c.js)()));
            }
            match ((c.cel)(), (c.js)()) {
                (Ok(cel), Ok(js)) => {
                    differences(&normalize(&cel), &normalize(&js), c.name, &mut problems);
                }
                (Err(e), _) => problems.push(format!("no CelValidate schema: {e}")),
                // kube's structural rewriting panics on some enums schemars renders (kube-rs
                // issue 1279): upstream has no CRD to compare with; crd-cel's was checked above.
                (Ok(_), Err(_)) if c.has_enum => {}
                (Ok(_), Err(e)) => problems.push(format!("no JsonSchema schema: {e}")),
            }
            if !problems.is_empty() {
                failures.push(format!(
                    "{} (seed {}):\n  {}",
                    c.name,
                    c.seed,
                    problems.join("\n  ")
                ));
            }
        }
        eprintln!("difftypes: {} types compared", cases.len());
        assert!(
            failures.is_empty(),
            "{} of {} generated types disagree:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
    }
}
