//! crd-cel's answers in the shapes the Go oracle (`tests/oracle`) prints, so that the two can be
//! compared field by field: by the tests over recorded expectations, and by the differential
//! fuzzer (`tests/difffuzz`), which runs both on generated input through `bin/mirror.rs`.

use crd_cel::check::{self, Node, Target};
use crd_cel::schema::{OwnedSchema, SchemaArena};
use crd_cel::validate::{Options, Validator};
use serde_json::{Value, json};

/// The Kubernetes release the mirror answers for: `CRD_CEL_KUBERNETES_VERSION` (`1.34`), set
/// when it runs beside an oracle built for an older release (`tests/oracle/oracle134`), else
/// the newest.
pub fn release() -> u8 {
    std::env::var("CRD_CEL_KUBERNETES_VERSION")
        .ok()
        .and_then(|v| v.strip_prefix("1.").and_then(|m| m.parse().ok()))
        .unwrap_or(check::NEWEST_KUBERNETES_MINOR)
}

/// The Kubernetes compatibility version a probe group's `env` names (`oracle probe`'s spelling:
/// absent or `new@DefaultCompatibilityVersion` for the default, the release's minus one;
/// `new@1.N` for another).
pub fn probe_compat(env: Option<&str>) -> Result<u8, String> {
    match env {
        None | Some("new@DefaultCompatibilityVersion") => Ok(release() - 1),
        Some(e) => e
            .strip_prefix("new@1.")
            .and_then(|m| m.parse().ok())
            .ok_or_else(|| format!("unsupported env {e:?}")),
    }
}

/// `oracle probe`: every rule of every group compiled on the group's schema as the apiserver
/// compiles a CRD node's rules (`cel.Compile`), in the oracle's output shape: `error` and
/// `messageExpressionError` (the error detail), `transitionRule` and `maxCost` for accepted
/// rules.
pub fn probe(input: &Value) -> Result<Value, String> {
    let mut groups = Vec::new();
    for group in input["groups"].as_array().ok_or("no groups")? {
        let name = group["name"].as_str().unwrap_or_default();
        let owned =
            OwnedSchema::from_json(&group["schema"]).map_err(|e| format!("group {name}: {e}"))?;
        let arena = SchemaArena::new();
        let schema = owned.with_model(&arena);
        let compat = probe_compat(group["env"].as_str())?;
        let resource_root = group["isResourceRoot"].as_bool().unwrap_or(false);
        let mut results = Vec::new();
        for rule in group["rules"].as_array().ok_or("no rules")? {
            let source = rule["rule"].as_str().ok_or("a rule without text")?;
            let node = Node {
                resource_root,
                optional_old_self: rule["optionalOldSelf"].as_bool().unwrap_or(false),
                compat,
                releases: check::Releases::only(release()),
                ..Node::new(schema)
            };
            let mut out = json!({ "rule": source, "maxCost": 0 });
            for key in ["messageExpression", "optionalOldSelf"] {
                if let Some(v) = rule.get(key) {
                    out[key] = v.clone();
                }
            }
            match check::check_source(source, Target::Rule, &node) {
                Ok(checked) => {
                    if checked.uses_old_self {
                        out["transitionRule"] = json!(true);
                    }
                    out["maxCost"] = json!(checked.max_cost);
                    // The apiserver compiles a messageExpression only when its rule compiled.
                    if let Some(me) = rule["messageExpression"].as_str()
                        && let Err(e) = check::check_source(me, Target::MessageExpression, &node)
                    {
                        out["messageExpressionError"] = json!(e.to_string());
                    }
                }
                Err(e) => out["error"] = json!(e.to_string()),
            }
            results.push(out);
        }
        groups.push(json!({ "name": name, "results": results }));
    }
    Ok(json!({ "groups": groups }))
}

/// A harness field of the case, else of the vector.
fn harness<'a>(vector: &'a Value, case: &'a Value, key: &str) -> Option<&'a Value> {
    case.get("harnessOverride")
        .and_then(|h| h.get(key))
        .or_else(|| vector.get("harness").and_then(|h| h.get(key)))
}

/// One case of a `runtime`-mode vector (`tests/cases/README.md`) through crd-cel's validator,
/// in the shape of one case of `oracle eval`'s output: `result`, `errors` (field, type, detail,
/// message), `warnings`, `runtimeCost`, `remainingBudget`.
pub fn runtime_case(vector: &Value, case: &Value) -> Result<Value, String> {
    let mut schema = case
        .get("schema")
        .or_else(|| vector.get("schema"))
        .cloned()
        .ok_or("no schema")?;
    if let Some(rule) = case.get("rule") {
        schema["x-kubernetes-validations"] = json!([{ "rule": rule }]);
    } else if let Some(rules) = case.get("rules") {
        schema["x-kubernetes-validations"] = rules.clone();
    }
    let object = case
        .get("object")
        .or_else(|| vector.get("object"))
        .cloned()
        .unwrap_or(Value::Null);
    let old = case
        .get("oldObject")
        .or_else(|| vector.get("oldObject"))
        .cloned()
        .unwrap_or(Value::Null);
    let resource = harness(vector, case, "isResourceRoot").and_then(Value::as_bool) == Some(true);
    let root = harness(vector, case, "rootPath")
        .and_then(Value::as_str)
        .unwrap_or("root");
    let budget = harness(vector, case, "costBudget")
        .and_then(Value::as_i64)
        .unwrap_or(10_000_000);
    let opts = Options {
        root_path: (root != "<nil>").then(|| root.to_owned()),
        budget,
        per_call_limit: harness(vector, case, "perCallLimit")
            .and_then(Value::as_u64)
            .unwrap_or(1_000_000),
        ratcheting: harness(vector, case, "ratcheting").and_then(Value::as_bool) == Some(true),
    };
    let validator = Validator::from_schema_json(&schema, resource)
        .map_err(|e| e.to_string())?
        .with_kubernetes_version(release());
    let old = (!old.is_null()).then_some(&old);
    let out = validator.validate(&object, old, &opts);
    let errors: Vec<Value> = out
        .errors
        .errors
        .iter()
        .map(|e| {
            json!({
                "field": e.path,
                "type": e.kind.as_str(),
                "detail": e.detail,
                "message": e.to_string(),
            })
        })
        .collect();
    Ok(json!({
        "result": if errors.is_empty() { "pass" } else { "error" },
        "errors": errors,
        "warnings": out.warnings,
        "runtimeCost": budget - out.remaining_budget,
        "remainingBudget": out.remaining_budget,
    }))
}

/// `oracle eval` for a `runtime`-mode vector: every case through [`runtime_case`]; a case that
/// cannot run is `{"error": ...}`.
pub fn eval(vector: &Value) -> Value {
    let cases: Vec<Value> = vector["cases"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|case| runtime_case(vector, case).unwrap_or_else(|e| json!({ "error": e })))
        .collect();
    json!({ "id": vector["id"], "cases": cases })
}

/// The strings of a JSON array (other items as JSON text), sorted: warnings compare as sets.
pub fn sorted_strings(v: Option<&Value>) -> Vec<String> {
    let mut out: Vec<String> = v
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// crd-cel's result of a runtime case against the oracle's: result, every error (field, type,
/// message, in any order), warnings, and the runtime cost figures the oracle recorded. Empty
/// when they are the same.
pub fn compare_with_oracle(actual: &Value, oracle: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if actual["result"] != oracle["result"] {
        out.push(format!(
            "result {} (oracle {})",
            actual["result"], oracle["result"]
        ));
    }
    let key = |e: &Value| {
        format!(
            "{} | {} | {}",
            e["field"].as_str().unwrap_or_default(),
            e["type"].as_str().unwrap_or_default(),
            e["message"].as_str().unwrap_or_default()
        )
    };
    let errors = |v: &Value| -> Vec<String> {
        let mut e: Vec<String> = v
            .get("errors")
            .and_then(Value::as_array)
            .map(|v| v.iter().map(key).collect())
            .unwrap_or_default();
        e.sort();
        e
    };
    let (a, o) = (errors(actual), errors(oracle));
    if a != o {
        out.push(format!("errors {a:?} (oracle {o:?})"));
    }
    let (a, o) = (
        sorted_strings(actual.get("warnings")),
        sorted_strings(oracle.get("warnings")),
    );
    if a != o {
        out.push(format!("warnings {a:?} (oracle {o:?})"));
    }
    for k in ["runtimeCost", "remainingBudget"] {
        if let Some(want) = oracle.get(k)
            && actual[k] != *want
        {
            out.push(format!("{k} {} (oracle {want})", actual[k]));
        }
    }
    out
}
