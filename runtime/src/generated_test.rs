//! What the `#[test]` the derive generates for each type with rules runs: the build's model
//! proved against the schema the type generates, and every rule of that schema checked as the
//! apiserver checks it at CRD creation. This is where rules that read into types known only by
//! their `JsonSchema` are checked, since no build step can see their schemas.

use crate::model::CelSchema;
use serde_json::Value;

/// The body of the `#[test]` the derive generates for a type with rules (`resource`: the kube
/// root type): the build's model proved against the generated schema (the build's verdicts
/// are only as good as the model), then every rule of the generated schema checked as the
/// apiserver checks it at CRD creation. Rules the build checked pass again; rules that read
/// into a type known only by its `JsonSchema` are checked here for the first time.
pub fn assert_rules<T: CelSchema + schemars::JsonSchema + ?Sized>(resource: bool) {
    let name = T::schema_name();
    // Generated once: both the model comparison and the rule checks read it.
    let schema = crate::schema::try_generate::<T>()
        .unwrap_or_else(|e| panic!("the schema of `{name}` cannot be generated: {e}"));
    let differences = model_differences(&T::MODEL, &schema, resource)
        .unwrap_or_else(|e| panic!("the generated schema of `{name}` cannot be read: {e}"));
    if !differences.is_empty() {
        report_disagreement(&name, &differences);
    }
    let opts = crate::crd::Options {
        kubernetes_minor: crate::TARGET_COMPAT + 1,
    };
    // The paths `check_resource` and `check_type` report under.
    let path = if resource {
        "spec.validation.openAPIV3Schema"
    } else {
        &name
    };
    match crate::crd::check_schema(&schema, path, &name, resource, &opts) {
        Ok(r) if r.accepted() => {}
        Ok(r) => {
            let causes: Vec<String> = r
                .errors
                .iter()
                .map(|e| {
                    let mut line = format!("  {e}");
                    for h in e.help.iter().flat_map(|h| h.lines()) {
                        line.push_str("\n      ");
                        line.push_str(h);
                    }
                    line
                })
                .collect();
            panic!(
                "the apiserver would reject the CEL rules of `{name}` (Kubernetes 1.{}):\n{}\n\
                 help: these rules read into types known only by their JsonSchema; the paths are \
                 those of the generated schema",
                opts.kubernetes_minor,
                causes.join("\n")
            );
        }
        Err(e) => panic!("the generated schema of `{name}` cannot be checked: {e}"),
    }
}

/// The environment variable that makes a model disagreement fail the generated test (crd-cel's
/// own CI sets it; a user's build never needs to).
pub const STRICT_MODEL_VAR: &str = "CRD_CEL_STRICT_MODEL";

/// A disagreement between the build's model and the generated schema is crd-cel's bug, never
/// the user's: the rules were checked against the model at build time and are checked again
/// against the schema below (which alone decides the test), and validation uses the schema
/// whenever the two disagree (see `private::validator_of`). So it is reported on standard
/// error (shown by `cargo test -- --nocapture`, and beside any failure) and fails the test only
/// under [`STRICT_MODEL_VAR`].
fn report_disagreement(name: &str, differences: &[crate::schema::Difference]) {
    let lines: Vec<String> = differences.iter().map(|d| format!("  {d}")).collect();
    let text = format!(
        "crd-cel's build-time model of `{name}` disagrees with the schema it generates:\n{}\n\
         note: this is a crd-cel bug, not an error in your code: the rules are checked against \
         the generated schema below and validation uses it; please report it with the type's \
         definition",
        lines.join("\n")
    );
    if std::env::var_os(STRICT_MODEL_VAR).is_some_and(|v| v != "0") {
        panic!("{text}");
    }
    eprintln!("warning: {text}");
}

/// Whether the model describes the generated schema exactly (nothing [`model_differences`]
/// would report); a schema that cannot be read counts as agreeing, the model is then used.
pub(crate) fn agrees(model: &crate::model::Schema<'_>, schema: &Value, resource: bool) -> bool {
    model_differences(model, schema, resource).is_ok_and(|d| d.is_empty())
}

/// Where `T`'s build-time model and the schema it generates disagree (`resource`: a kube root
/// type), as the generated test reports them; for crd-cel's differential tests.
pub fn model_disagreement<T: CelSchema + schemars::JsonSchema + ?Sized>(
    resource: bool,
) -> Result<Vec<String>, String> {
    let schema = crate::schema::try_generate::<T>()?;
    let d = model_differences(&T::MODEL, &schema, resource)?;
    Ok(d.iter().map(ToString::to_string).collect())
}

/// Where a model and its generated schema disagree. A resource root's `apiVersion`, `kind` and
/// `metadata` are kube's, not the model's, so they are not compared there (the rest is `spec`
/// and `status`, or with `#[kube(no_spec)]` the spec's fields and `status`).
fn model_differences(
    model: &crate::model::Schema<'_>,
    schema: &Value,
    resource: bool,
) -> Result<Vec<crate::schema::Difference>, String> {
    let compare = |s: &Value| crate::schema::compare(model, s).map_err(|e| e.to_string());
    let Some(obj) = schema.as_object().filter(|_| resource) else {
        return compare(schema);
    };
    let own = |k: &str| !matches!(k, "apiVersion" | "kind" | "metadata");
    let mut obj = obj.clone();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        props.retain(|k, _| own(k));
    }
    if let Some(Value::Array(req)) = obj.get_mut("required") {
        req.retain(|k| k.as_str().is_some_and(own));
    }
    compare(&Value::Object(obj))
}
