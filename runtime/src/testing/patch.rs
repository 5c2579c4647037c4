//! `initialCRDPatches`: JSON patch operations (RFC 6902: add, remove, replace, move, copy,
//! test) on the CRD document, as the suite runner applies them before creating `initial`.

use serde_json::Value as Json;

/// Whether `op` is a well-formed operation (checked when the suite is read).
pub(super) fn check(op: &Json) -> Result<(), String> {
    let Some(map) = op.as_object() else {
        return Err("an operation is a mapping (op, path, value)".into());
    };
    for key in map.keys() {
        if !["op", "path", "value", "from"].contains(&key.as_str()) {
            return Err(format!(
                "unknown field `{key}` (an operation has op, path, value, from)"
            ));
        }
    }
    let name = map.get("op").and_then(Json::as_str).unwrap_or_default();
    if !["add", "remove", "replace", "move", "copy", "test"].contains(&name) {
        return Err(format!(
            "`op` must be add, remove, replace, move, copy or test, not {name:?}"
        ));
    }
    if !map.get("path").is_some_and(Json::is_string) {
        return Err("`path` (a JSON pointer, /spec/versions/0/...) is required".into());
    }
    if matches!(name, "add" | "replace" | "test") && !map.contains_key("value") {
        return Err(format!("`{name}` needs a `value`"));
    }
    if matches!(name, "move" | "copy") && !map.get("from").is_some_and(Json::is_string) {
        return Err(format!("`{name}` needs a `from` (a JSON pointer)"));
    }
    Ok(())
}

/// `doc` with the operations applied in order, or what went wrong (which operation, why).
pub(super) fn apply(doc: &Json, ops: &[Json]) -> Result<Json, String> {
    let mut doc = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        check(op).map_err(|e| format!("initialCRDPatches[{i}]: {e}"))?;
        let name = op["op"].as_str().unwrap_or_default();
        let path = op["path"].as_str().unwrap_or_default();
        let from = op.get("from").and_then(Json::as_str).unwrap_or_default();
        let value = op.get("value").cloned().unwrap_or(Json::Null);
        let done = match name {
            "add" => add(&mut doc, path, value),
            "remove" => remove(&mut doc, path).map(drop),
            "replace" => remove(&mut doc, path).and_then(|_| add(&mut doc, path, value)),
            "move" => remove(&mut doc, from).and_then(|v| add(&mut doc, path, v)),
            "copy" => doc
                .pointer(&decode(from)?)
                .cloned()
                .ok_or_else(|| format!("{from} does not exist"))
                .and_then(|v| add(&mut doc, path, v)),
            _ => match doc.pointer(&decode(path)?) {
                Some(v) if *v == value => Ok(()),
                Some(v) => Err(format!("test failed: {path} is {v}, not {value}")),
                None => Err(format!("test failed: {path} does not exist")),
            },
        };
        done.map_err(|e| format!("initialCRDPatches[{i}] ({name} {path}): {e}"))?;
    }
    Ok(doc)
}

/// The pointer with its `~1`/`~0` escapes checked (serde_json's `pointer` reads them).
fn decode(pointer: &str) -> Result<String, String> {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "{pointer:?} is not a JSON pointer (it starts with /)"
        ));
    }
    Ok(pointer.to_owned())
}

/// The parent pointer and the last token (unescaped) of `pointer`.
fn split(pointer: &str) -> Result<(String, String), String> {
    decode(pointer)?;
    let Some(i) = pointer.rfind('/') else {
        return Err("the document itself cannot be added to or removed".into());
    };
    let last = pointer[i + 1..].replace("~1", "/").replace("~0", "~");
    Ok((pointer[..i].to_owned(), last))
}

fn add(doc: &mut Json, pointer: &str, value: Json) -> Result<(), String> {
    if pointer.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (parent, last) = split(pointer)?;
    match doc.pointer_mut(&parent) {
        Some(Json::Object(map)) => {
            map.insert(last, value);
            Ok(())
        }
        Some(Json::Array(items)) => {
            let at = if last == "-" {
                items.len()
            } else {
                last.parse::<usize>()
                    .ok()
                    .filter(|&i| i <= items.len())
                    .ok_or_else(|| {
                        format!("{last:?} is not an index of the list (0..={})", items.len())
                    })?
            };
            items.insert(at, value);
            Ok(())
        }
        Some(_) => Err(format!("{parent} is not an object or a list")),
        None => Err(format!("{parent} does not exist")),
    }
}

fn remove(doc: &mut Json, pointer: &str) -> Result<Json, String> {
    let (parent, last) = split(pointer)?;
    match doc.pointer_mut(&parent) {
        Some(Json::Object(map)) => map
            .remove(&last)
            .ok_or_else(|| format!("{pointer} does not exist")),
        Some(Json::Array(items)) => match last.parse::<usize>() {
            Ok(i) if i < items.len() => Ok(items.remove(i)),
            _ => Err(format!("{pointer} does not exist")),
        },
        _ => Err(format!("{pointer} does not exist")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // RFC 6902's operations on a CRD-shaped document, and errors that say which and why.
    #[test]
    fn operations_apply_in_order_with_clear_errors() {
        let crd = json!({"spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema":
            {"properties": {"spec": {"type": "object", "properties": {"a/b": {"type": "string"}}}}}}}]}});
        let base = "/spec/versions/0/schema/openAPIV3Schema/properties/spec";
        let ops = vec![
            json!({"op": "add", "path": format!("{base}/maxProperties"), "value": 1}),
            json!({"op": "replace", "path": format!("{base}/type"), "value": "object"}),
            json!({"op": "remove", "path": format!("{base}/properties/a~1b")}),
            json!({"op": "test", "path": format!("{base}/maxProperties"), "value": 1}),
            json!({"op": "copy", "from": "/spec/versions/0/name", "path": "/spec/copied"}),
            json!({"op": "move", "from": "/spec/copied", "path": "/spec/moved"}),
            json!({"op": "add", "path": "/spec/versions/-", "value": {"name": "v2"}}),
        ];
        let out = apply(&crd, &ops).unwrap();
        assert_eq!(
            out.pointer(&format!("{base}/maxProperties")),
            Some(&json!(1))
        );
        assert_eq!(out.pointer(&format!("{base}/properties")), Some(&json!({})));
        assert_eq!(out["spec"]["moved"], "v1");
        assert!(out["spec"].get("copied").is_none());
        assert_eq!(out["spec"]["versions"][1]["name"], "v2");
        let err = apply(&crd, &[json!({"op": "remove", "path": "/spec/nope"})]).unwrap_err();
        assert_eq!(
            err,
            "initialCRDPatches[0] (remove /spec/nope): /spec/nope does not exist"
        );
        let err = apply(&crd, &[json!({"op": "patch", "path": "/x"})]).unwrap_err();
        assert!(err.contains("`op` must be add, remove"), "{err}");
    }
}
