//! What the server makes of a patch, computed locally for crd-cel: RFC 7386 JSON merge patch,
//! and server-side apply of a configuration one field manager owns entirely.

use serde_json::Value;

/// RFC 7386: `patch` merged into `target` (`null` removes a key; a non-object replaces).
pub fn merge_patch(target: &Value, patch: &Value) -> Value {
    let Value::Object(p) = patch else {
        return patch.clone();
    };
    let mut out = match target {
        Value::Object(t) => t.clone(),
        _ => serde_json::Map::new(),
    };
    for (k, v) in p {
        if v.is_null() {
            out.remove(k);
        } else {
            let merged = merge_patch(out.get(k).unwrap_or(&Value::Null), v);
            out.insert(k.clone(), merged);
        }
    }
    Value::Object(out)
}

/// The object server-side apply makes of `config` when one field manager applied every field
/// of the stored object (`stored`) and applies `config` now: `config`'s fields, with the stored
/// metadata the server keeps (uid, resourceVersion, creationTimestamp, generation,
/// managedFields) under `config`'s metadata, and the stored `status` (an apply to the main
/// resource does not change it).
pub fn apply_owned(stored: &Value, config: &Value) -> Value {
    let mut out = config.clone();
    let mut metadata = stored.get("metadata").cloned().unwrap_or(Value::Null);
    if let (Value::Object(m), Some(Value::Object(c))) = (&mut metadata, config.get("metadata")) {
        for (k, v) in c {
            m.insert(k.clone(), v.clone());
        }
    }
    out["metadata"] = metadata;
    if let Some(status) = stored.get("status") {
        out["status"] = status.clone();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // RFC 7386's appendix A, in part.
    #[test]
    fn merge_patch_is_rfc_7386() {
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": "b"}),
                json!({"b": "c"}),
                json!({"a": "b", "b": "c"}),
            ),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": {"b": "c"}}),
                json!({"a": {"b": "d", "c": null}}),
                json!({"a": {"b": "d"}}),
            ),
            (
                json!({"e": null}),
                json!({"a": 1}),
                json!({"e": null, "a": 1}),
            ),
            (
                json!([1, 2]),
                json!({"a": "b", "c": null}),
                json!({"a": "b"}),
            ),
        ];
        for (target, patch, want) in cases {
            assert_eq!(merge_patch(&target, &patch), want, "{target} + {patch}");
        }
    }

    #[test]
    fn apply_keeps_the_servers_metadata_and_status() {
        let stored = json!({"metadata": {"name": "a", "uid": "u", "resourceVersion": "7"},
            "spec": {"x": 1, "y": 2}, "status": {"ok": true}});
        let config = json!({"metadata": {"name": "a", "labels": {"l": "v"}}, "spec": {"x": 3}});
        assert_eq!(
            apply_owned(&stored, &config),
            json!({"metadata": {"name": "a", "uid": "u", "resourceVersion": "7", "labels": {"l": "v"}},
                "spec": {"x": 3}, "status": {"ok": true}})
        );
    }
}
