//! The walk over a CRD's schema: every rule compiled and costed as the apiserver does at CRD
//! creation, with the CRD-wide cost limits.

use super::*;

pub(super) type Checked = (Vec<CrdError>, Vec<RuleReport>, usize);

/// `full`: every schema check of a CRD manifest; otherwise only the checks about rules and
/// those that gate their compilation (for schemas generated from Rust types, which may be
/// edited before they become a CRD).
/// Each root: its error path, the schema, and whether its version has the status subresource.
pub(super) fn check_roots(
    roots: &[(String, &Value, bool)],
    resource_root: bool,
    full: bool,
    opts: &Options,
    update: Option<&Update>,
) -> Result<Checked, String> {
    let mut walker = Walker {
        full,
        compat: opts.compat(),
        stored_compat: opts.kubernetes_minor,
        releases: crate::check::Releases::only(opts.kubernetes_minor),
        preexisting: update,
        suppress_per_expression_cost: false,
        schema_errors: Vec::new(),
        cel_errors: Vec::new(),
        rules: Vec::new(),
        checked: 0,
        total: 0,
        expensive: Vec::new(),
    };
    for (path, json, status) in roots {
        let (owned, unreadable) = match OwnedSchema::from_json(json) {
            Ok(owned) => (Some(owned), None),
            Err(e) => {
                let at = if e.path.is_empty() {
                    path.clone()
                } else {
                    format!("{path}.{}", e.path)
                };
                let message = format!("{at}: {}", e.message);
                if !full {
                    return Err(message);
                }
                // A manifest's schema that crd-cel cannot model (`items` as a list, ...) may
                // still be one the apiserver refuses with a reason of its own: its checks run,
                // without rules, and the schema is unreadable only if they find nothing.
                (None, Some(message))
            }
        };
        let arena = SchemaArena::new();
        let model = owned.as_ref().map(|o| o.with_model(&arena));
        let level = if resource_root {
            Level::Root
        } else {
            Level::Field
        };
        let (mut structural_errors, unconvertible) = match structural(json, path, level) {
            Structural::Checked(errors) => (errors, None),
            Structural::Unconvertible(e) => (Vec::new(), Some(e)),
        };
        if !full {
            structural_errors.retain(is_rule_related);
        }
        // The apiserver builds no CEL context for a schema `NewStructural` refuses; the rule
        // checks of a generated schema compile what they can.
        let mut compile = structural_errors.is_empty() && (unconvertible.is_none() || !full);
        // Defaults are checked on a structural schema only; an error keeps the rules from
        // compiling too.
        if full && compile {
            let errors = default_errors(json, path, opts.kubernetes_minor);
            compile = errors.is_empty();
            structural_errors.extend(errors);
        }
        let errors_before = walker.schema_errors.len() + walker.cel_errors.len();
        if full
            && *status
            && let Some(e) = root_field_error(json, path)
        {
            walker.schema_errors.push(e);
        }
        walker.schema_errors.extend(structural_errors);
        walker.suppress_per_expression_cost =
            update.is_some_and(|u| u.unchanged_roots.contains(path));
        walker.total = 0;
        walker.expensive.clear();
        walker.walk(
            json,
            model,
            path,
            Ctx {
                uncorrelatable: None,
                resource_root,
                top: resource_root,
                inside_meta: false,
                no_defaults: None,
                compile,
                spine: true,
                cardinality: Some(1),
            },
        );
        walker.schema_total(path);
        if let Some(message) = unreadable
            && walker.schema_errors.len() + walker.cel_errors.len() == errors_before
        {
            return Err(message);
        }
        if full {
            let root = object(json);
            if root.is_some_and(|r| is_true(r, "nullable")) {
                walker.schema_errors.push(CrdError {
                    help: None,
                    field: format!("{path}.nullable"),
                    kind: Kind::Forbidden,
                    value: None,
                    detail: "nullable cannot be true at the root".to_owned(),
                });
            }
            // `NewStructural`'s refusal overlaps the schema checks: shown only when they found
            // nothing.
            if let Some(e) = unconvertible
                && walker.schema_errors.len() + walker.cel_errors.len() == errors_before
            {
                walker.schema_errors.push(CrdError {
                    help: None,
                    field: path.clone(),
                    kind: Kind::Invalid,
                    value: Some("\"\"".to_owned()),
                    detail: e,
                });
            }
        }
    }
    let mut errors = walker.schema_errors;
    errors.extend(walker.cel_errors);
    errors.sort_by(|a, b| a.field.cmp(&b.field));
    Ok((errors, walker.rules, walker.checked))
}

/// What a node inherits from its ancestors.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ctx<'p> {
    /// The path of the highest list (or map-typed object) below which items cannot be
    /// correlated with their old values (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go`).
    uncorrelatable: Option<&'p str>,
    /// The node is a resource root (the CRD root, or `x-kubernetes-embedded-resource`).
    resource_root: bool,
    /// The node is the CRD's root schema (`isRoot`).
    top: bool,
    /// The node is inside a resource's `metadata`, `kind` or `apiVersion`.
    pub(super) inside_meta: bool,
    /// Why a `default` is forbidden here, if it is (`withForbiddenDefaults`).
    pub(super) no_defaults: Option<&'p str>,
    /// Rules are compiled: the structural checks passed (the apiserver's CEL context is set).
    compile: bool,
    /// The node is on the structural spine (root, properties, items, additionalProperties),
    /// not inside `allOf` and friends.
    spine: bool,
    /// How many times the node can occur in one object (`k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/cel_validation.go`): the product
    /// of the ancestors' factors, `None` below an unbounded list or map.
    cardinality: Option<u64>,
}

pub(super) struct Walker<'u> {
    /// Every schema check of a CRD manifest, not only those about rules.
    full: bool,
    /// The compatibility version new expressions compile at.
    compat: u8,
    /// What expressions already in the stored CRD compile at (the stored-expressions
    /// environment: every library of the release).
    stored_compat: u8,
    /// The release whose estimator prices the rules (`Node::releases`).
    releases: crate::check::Releases,
    /// On a CRD update, the stored CRD's expressions.
    preexisting: Option<&'u Update>,
    /// On a CRD update, the schema being walked is its version's stored one: the
    /// per-expression cost limit does not apply (the per-CRD total does).
    suppress_per_expression_cost: bool,
    schema_errors: Vec<CrdError>,
    cel_errors: Vec<CrdError>,
    rules: Vec<RuleReport>,
    checked: usize,
    /// The estimated cost of the schema being walked, summed (saturating).
    total: u64,
    /// The most expensive expressions of the schema (at least 1% of the per-CRD limit), most
    /// expensive first, at most 4 (`TotalCost.MostExpensive`).
    expensive: Vec<(String, u64)>,
}

pub(super) fn object(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}

pub(super) fn sorted_keys(m: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    keys
}

/// The rule struct the apiserver shows as the value of rule errors: the internal
/// `apiextensions.ValidationRule` as JSON with Go field names (apimachinery >= 1.34).
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct RuleStruct<'a> {
    rule: &'a str,
    message: &'a str,
    message_expression: &'a str,
    reason: Option<&'a str>,
    field_path: &'a str,
    optional_old_self: Option<bool>,
}

pub(super) fn rule_struct(r: &RuleInput<'_>) -> String {
    gojson::to_string(&RuleStruct {
        rule: r.rule,
        message: r.message.unwrap_or(""),
        message_expression: r.message_expression.unwrap_or(""),
        reason: r.reason,
        field_path: r.field_path.unwrap_or(""),
        optional_old_self: r.optional_old_self,
    })
}

pub(super) fn str_field<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

pub(super) fn rule_input(v: &Value) -> RuleInput<'_> {
    match v.as_object() {
        Some(o) => RuleInput {
            rule: str_field(o, "rule").unwrap_or(""),
            message: str_field(o, "message"),
            message_expression: str_field(o, "messageExpression"),
            reason: str_field(o, "reason"),
            field_path: str_field(o, "fieldPath"),
            optional_old_self: o.get("optionalOldSelf").and_then(Value::as_bool),
        },
        None => RuleInput::default(),
    }
}

/// Whether the node has a CEL declaration type (`k8s.io/apiserver/pkg/cel/common/schemas.go`): rules on a node
/// without one cannot be compiled (3.1 step 4).
pub(super) fn has_decl_type(s: &Schema<'_>) -> bool {
    if s.int_or_string {
        return true;
    }
    match s.ty {
        Type::Any | Type::Unknown => false,
        Type::Array => s.items.is_some_and(has_decl_type),
        Type::Object => s.additional_properties.is_none_or(has_decl_type),
        Type::Boolean | Type::Integer | Type::Number | Type::String => true,
    }
}

impl Walker<'_> {
    /// Visits a node as `ValidateCustomResourceDefinitionOpenAPISchema` does: children first,
    /// then the node's own checks and rules. Returns how many schema errors (not CEL errors)
    /// were found in the subtree: any of them stops this node's rules from being compiled.
    fn walk(
        &mut self,
        json: &Value,
        model: Option<&Schema<'_>>,
        path: &str,
        ctx: Ctx<'_>,
    ) -> usize {
        let Some(obj) = object(json) else {
            return 0;
        };
        let mut found = 0;
        if self.full {
            found += node_checks_first(&mut self.schema_errors, obj, path, ctx);
        }
        // What this node multiplies its children's cardinality by (`extractMaxElements`).
        let child = Ctx {
            cardinality: ctx
                .cardinality
                .and_then(|c| child_factor(obj).map(|f| cost::times_cardinality(c, f))),
            top: false,
            ..ctx
        };
        // Subschemas that describe this same node (junctors, and the refused `definitions`,
        // `dependencies` and `items` lists).
        let same = Ctx { top: false, ..ctx };
        if let Some(ap) = obj.get("additionalProperties").filter(|v| v.is_object()) {
            let m = model.and_then(|m| m.additional_properties);
            found += self.walk(
                ap,
                m,
                &format!("{path}.additionalProperties"),
                Ctx {
                    resource_root: m.is_some_and(|m| m.embedded_resource),
                    // Pruning a default without its key would be ambiguous.
                    no_defaults: if ctx.inside_meta {
                        Some("inside additionalProperties applying to object metadata")
                    } else {
                        child.no_defaults
                    },
                    ..child
                },
            );
        }
        if let Some(props) = obj.get("properties").and_then(object) {
            // Properties of an object whose map type is neither granular nor atomic cannot be
            // correlated.
            let map_type = str_field(obj, "x-kubernetes-map-type");
            let correlatable = matches!(map_type, None | Some("granular" | "atomic"));
            let uncorrelatable = match ctx.uncorrelatable {
                Some(p) => Some(p.to_owned()),
                None if !correlatable => Some(path.to_owned()),
                None => None,
            };
            // A resource's `metadata`, `kind` and `apiVersion` (`metaFields`).
            let resource = ctx.top || is_true(obj, "x-kubernetes-embedded-resource");
            for name in sorted_keys(props) {
                let m = model.and_then(|m| m.property(name)).map(|p| p.schema);
                let meta = resource && matches!(name.as_str(), "metadata" | "kind" | "apiVersion");
                let top_level = format!("in top-level {name}");
                found += self.walk(
                    &props[name],
                    m,
                    &format!("{path}.properties[{name}]"),
                    Ctx {
                        uncorrelatable: uncorrelatable.as_deref(),
                        resource_root: m.is_some_and(|m| m.embedded_resource),
                        inside_meta: child.inside_meta || meta,
                        no_defaults: if meta && ctx.top {
                            Some(&top_level)
                        } else {
                            child.no_defaults
                        },
                        ..child
                    },
                );
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            if let Some(subs) = obj.get(key).and_then(Value::as_array) {
                for (i, sub) in subs.iter().enumerate() {
                    found += self.walk_detached(sub, &format!("{path}.{key}[{i}]"), same);
                }
            }
        }
        if let Some(not) = obj.get("not") {
            found += self.walk_detached(not, &format!("{path}.not"), same);
        }
        if self.full {
            // Refused at this node; the apiserver still checks what is inside.
            for key in ["definitions", "dependencies"] {
                for (name, sub) in obj.get(key).and_then(object).into_iter().flatten() {
                    found += self.walk_detached(sub, &format!("{path}.{key}[{name}]"), same);
                }
            }
        }
        if let Some(items) = obj.get("items").filter(|v| v.is_object()) {
            let m = model.and_then(|m| m.items);
            let is_map_list = str_field(obj, "x-kubernetes-list-type") == Some("map");
            let uncorrelatable = match ctx.uncorrelatable {
                Some(p) => Some(p.to_owned()),
                None if !is_map_list => Some(path.to_owned()),
                None => None,
            };
            found += self.walk(
                items,
                m,
                &format!("{path}.items"),
                Ctx {
                    uncorrelatable: uncorrelatable.as_deref(),
                    resource_root: m.is_some_and(|m| m.embedded_resource),
                    ..child
                },
            );
        }
        if self.full
            && let Some(Value::Array(schemas)) = obj.get("items")
        {
            for (i, sub) in schemas.iter().enumerate() {
                found += self.walk_detached(sub, &format!("{path}.items[{i}]"), same);
            }
        }
        found += self.node_schema_errors(obj, path);
        if let Some(rules) = obj
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            && !rules.is_empty()
        {
            found += self.rules(rules, model, path, ctx, found);
        }
        found
    }

    /// A subschema of `allOf`/`anyOf`/`oneOf`/`not`: the apiserver runs the same checks on it
    /// without a CEL context, so its rules get the field checks but are never compiled.
    fn walk_detached(&mut self, json: &Value, path: &str, ctx: Ctx<'_>) -> usize {
        let owned = OwnedSchema::from_json(json).ok();
        let arena = SchemaArena::new();
        let model = owned.as_ref().map(|o| o.with_model(&arena));
        self.walk(
            json,
            model,
            path,
            Ctx {
                compile: false,
                spine: false,
                resource_root: false,
                ..ctx
            },
        )
    }

    /// The schema checks next to the rules that the apiserver reports at the same node (they
    /// count as schema errors, so they also keep the node's rules from compiling).
    fn node_schema_errors(&mut self, obj: &Map<String, Value>, path: &str) -> usize {
        let before = self.schema_errors.len();
        let errors = &mut self.schema_errors;
        let mut push = |field, kind, value, detail: &str| push(errors, field, kind, value, detail);
        if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
            push(
                format!("{path}.uniqueItems"),
                Kind::Forbidden,
                None,
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            );
        }
        if obj.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            push(
                format!("{path}.x-kubernetes-preserve-unknown-fields"),
                Kind::Invalid,
                Some("false".to_owned()),
                "must be true or undefined",
            );
        }
        if let Some(mt) = str_field(obj, "x-kubernetes-map-type")
            && mt != "atomic"
            && mt != "granular"
        {
            push(
                format!("{path}.x-kubernetes-map-type"),
                Kind::Unsupported,
                Some(go_quote(mt)),
                "supported values: \"atomic\", \"granular\"",
            );
        }
        let list_type = str_field(obj, "x-kubernetes-list-type");
        if let Some(lt) = list_type
            && !matches!(lt, "atomic" | "set" | "map")
        {
            push(
                format!("{path}.x-kubernetes-list-type"),
                Kind::Unsupported,
                Some(go_quote(lt)),
                "supported values: \"atomic\", \"set\", \"map\"",
            );
        }
        let has_keys = obj
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .is_some_and(|k| !k.is_empty());
        match list_type {
            None if has_keys => push(
                format!("{path}.x-kubernetes-list-type"),
                Kind::Required,
                None,
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ),
            Some(lt) if has_keys && lt != "map" => push(
                format!("{path}.x-kubernetes-list-type"),
                Kind::Invalid,
                Some(go_quote(lt)),
                "must be map if x-kubernetes-list-map-keys is non-empty",
            ),
            Some("map") if !has_keys => push(
                format!("{path}.x-kubernetes-list-map-keys"),
                Kind::Required,
                None,
                "must not be empty if x-kubernetes-list-type is map",
            ),
            _ => {}
        }
        if self.full {
            node_list_map_checks(&mut self.schema_errors, obj, path);
        }
        self.schema_errors.len() - before
    }

    /// The rules of one node: field checks, then (if nothing in the subtree was wrong with the
    /// schema) compilation and the `oldSelf` checks. Returns the schema errors found here.
    fn rules(
        &mut self,
        rules: &[Value],
        model: Option<&Schema<'_>>,
        path: &str,
        ctx: Ctx<'_>,
        found_below: usize,
    ) -> usize {
        let inputs: Vec<RuleInput<'_>> = rules.iter().map(rule_input).collect();
        let before = self.schema_errors.len();
        for (i, r) in inputs.iter().enumerate() {
            for e in check_rule_fields(r, model) {
                self.schema_errors.push(CrdError {
                    help: None,
                    field: format!("{path}.x-kubernetes-validations[{i}].{}", e.field.as_str()),
                    kind: e.kind.into(),
                    value: bad_value(e.value),
                    detail: e.detail().to_owned(),
                });
            }
        }
        let found_here = self.schema_errors.len() - before;
        if !ctx.spine {
            return found_here;
        }
        let Some(model) = model else {
            return found_here;
        };
        // The oracle lists (and compiles) every rule on the spine, whatever gates the errors.
        let typed = has_decl_type(model);
        let compiled: Vec<Option<Compiled>> = inputs
            .iter()
            .map(|r| typed.then(|| self.compile(r, model, ctx)))
            .collect();
        for (i, (r, c)) in inputs.iter().zip(&compiled).enumerate() {
            let costs = self.costs(c.as_ref(), model, ctx);
            let compile_error = match c {
                None => Some(
                    "failed to construct type information: unable to convert structural schema to CEL declarations"
                        .to_owned(),
                ),
                Some(c) => {
                    let msgs: Vec<String> =
                        [c.rule.as_ref().err(), c.message_expression.as_ref().err()]
                            .into_iter()
                            .flatten()
                            .map(ToString::to_string)
                            .collect();
                    (!msgs.is_empty()).then(|| msgs.join("\n"))
                }
            };
            self.rules.push(RuleReport {
                path: format!("{path}.x-kubernetes-validations[{i}].rule"),
                rule: r.rule.to_owned(),
                estimated_cost: costs.estimated,
                max_cost: costs.max_cost,
                max_cardinality: costs.cardinality,
                message_expression_max_cost: costs.message_expression,
                compile_error,
            });
        }
        if found_below + found_here > 0 || !ctx.compile {
            return found_here;
        }
        if !typed {
            self.cel_errors.push(CrdError {
                help: None,
                field: format!("{path}.x-kubernetes-validations"),
                kind: Kind::Internal,
                value: None,
                detail: "internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations".to_owned(),
            });
            return found_here;
        }
        for (i, (r, c)) in inputs.iter().zip(compiled).enumerate() {
            let Some(c) = c else { continue };
            let p = format!("{path}.x-kubernetes-validations[{i}]");
            let costs = self.costs(Some(&c), model, ctx);
            if costs.estimated > cost::PER_EXPRESSION_LIMIT && !self.suppress_per_expression_cost {
                self.cel_errors.push(cost_error(
                    format!("{p}.rule"),
                    "estimated rule cost",
                    costs.estimated,
                    cost::PER_EXPRESSION_LIMIT,
                ));
            }
            self.observe(format!("{p}.rule"), costs.estimated);
            if let Err(e) = &c.rule {
                self.cel_errors.push(CrdError {
                    help: c.rule_help.clone(),
                    field: format!("{p}.rule"),
                    kind: Kind::Invalid,
                    value: Some(rule_struct(r)),
                    detail: e.to_string(),
                });
            }
            if let Err(e) = &c.message_expression {
                self.cel_errors.push(CrdError {
                    help: c.message_expression_help.clone(),
                    field: format!("{p}.messageExpression"),
                    kind: Kind::Invalid,
                    value: Some(rule_struct(r)),
                    detail: e.to_string(),
                });
            } else if let Some(me) = costs.message_expression {
                // Not multiplied by the cardinality (4.5 step 4).
                if me > cost::PER_EXPRESSION_LIMIT && !self.suppress_per_expression_cost {
                    self.cel_errors.push(cost_error(
                        format!("{p}.messageExpression"),
                        "estimated messageExpression cost",
                        me,
                        cost::PER_EXPRESSION_LIMIT,
                    ));
                }
                self.observe(format!("{p}.messageExpression"), me);
            }
            let uses_old_self = c.rule.as_ref().is_ok_and(|ok| ok.0);
            if uses_old_self {
                if let Some(u) = ctx.uncorrelatable {
                    self.cel_errors.push(CrdError {
                        help: None,
                        field: format!("{p}.rule"),
                        kind: Kind::Invalid,
                        value: Some(go_quote(r.rule)),
                        detail: format!(
                            "oldSelf cannot be used on the uncorrelatable portion of the schema within {u}"
                        ),
                    });
                }
            } else if let Some(e) = check_optional_old_self(r, false) {
                self.cel_errors.push(CrdError {
                    help: None,
                    field: format!("{p}.{}", e.field.as_str()),
                    kind: e.kind.into(),
                    value: bad_value(e.value),
                    detail: e.detail().to_owned(),
                });
            }
        }
        found_here
    }

    /// The cost figures of a compiled rule (`getExpressionCost`): a rule that did not compile
    /// costs 0, and its cardinality is 0 below an unbounded ancestor (the apiserver only sets
    /// it on success).
    fn costs(&self, c: Option<&Compiled>, model: &Schema<'_>, ctx: Ctx<'_>) -> Costs {
        let (max_cost, compiled) = match c {
            Some(Compiled {
                rule: Ok((_, cost)),
                empty: false,
                ..
            }) => (*cost, true),
            _ => (0, false),
        };
        let cardinality = match ctx.cardinality {
            Some(c) => c,
            None if compiled => cost::cardinality(None, model),
            None => 0,
        };
        let message_expression = match c {
            Some(Compiled {
                message_expression: Ok(me),
                ..
            }) => *me,
            _ => None,
        };
        Costs {
            max_cost,
            cardinality,
            estimated: cost::times_cardinality(max_cost, cardinality),
            message_expression,
        }
    }

    /// `TotalCost.ObserveExpressionCost`.
    fn observe(&mut self, path: String, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < cost::EXPENSIVE {
            return;
        }
        self.expensive.push((path, cost));
        self.expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.expensive.truncate(4);
    }

    /// The per-schema limit, once the schema at `root` has been walked.
    fn schema_total(&mut self, root: &str) {
        if self.total <= cost::PER_CRD_LIMIT {
            return;
        }
        for (path, _) in std::mem::take(&mut self.expensive) {
            self.cel_errors.push(CrdError {
                help: None,
                field: path,
                kind: Kind::Forbidden,
                value: None,
                detail: "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema".to_owned(),
            });
        }
        self.cel_errors.push(cost_error(
            root.to_owned(),
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            self.total,
            cost::PER_CRD_LIMIT,
        ));
    }

    /// Compiles a rule and, if it compiled, its messageExpression (`k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go`).
    fn compile(&mut self, r: &RuleInput<'_>, model: &Schema<'_>, ctx: Ctx<'_>) -> Compiled {
        // On a CRD update an expression the stored CRD has compiles in the stored-expressions
        // environment (`preexistingExpressions.RuleEnv`), a new one at the compatibility version.
        let compat_of =
            |expression: &str, stored: fn(&Update) -> &HashSet<String>| match self.preexisting {
                Some(u) if stored(u).contains(expression) => self.stored_compat,
                _ => self.compat,
            };
        let node = Node {
            schema: model,
            resource_root: ctx.resource_root,
            optional_old_self: r.optional_old_self == Some(true),
            compat: compat_of(r.rule, |u| &u.rules),
            releases: self.releases,
            type_name: "selfType<N>",
        };
        let message_node = Node {
            compat: r
                .message_expression
                .map_or(node.compat, |me| compat_of(me, |u| &u.message_expressions)),
            ..node
        };
        // An empty rule yields no program and no error (it is reported as Required).
        if r.rule.trim().is_empty() {
            return Compiled {
                rule: Ok((false, 0)),
                message_expression: Ok(None),
                empty: true,
                rule_help: None,
                message_expression_help: None,
            };
        }
        self.checked += 1;
        let rule = check_source(r.rule, Target::Rule, &node).map(|c| (c.uses_old_self, c.max_cost));
        let rule_help = rule
            .is_err()
            .then(|| hints(r.rule, Target::Rule, &node))
            .flatten();
        let (message_expression, message_expression_help) = match (&rule, r.message_expression) {
            (Ok(_), Some(me)) if !me.is_empty() => {
                self.checked += 1;
                let c = check_source(me, Target::MessageExpression, &message_node)
                    .map(|c| Some(c.max_cost));
                let help = c
                    .is_err()
                    .then(|| hints(me, Target::MessageExpression, &message_node));
                (c, help.flatten())
            }
            _ => (Ok(None), None),
        };
        Compiled {
            rule,
            message_expression,
            empty: false,
            rule_help,
            message_expression_help,
        }
    }
}

/// The outcome of compiling one rule: whether it uses `oldSelf` and its estimated cost, or why
/// it failed; the messageExpression's cost if there is one and it compiled.
pub(super) struct Compiled {
    rule: Result<(bool, u64), CheckError>,
    message_expression: Result<Option<u64>, CheckError>,
    /// A blank rule: no program, so no cost and no cardinality.
    empty: bool,
    /// crd-cel's hints where the rule or messageExpression does not compile.
    rule_help: Option<String>,
    message_expression_help: Option<String>,
}

/// The cost figures of one rule, as the oracle reports them.
pub(super) struct Costs {
    max_cost: u64,
    cardinality: u64,
    estimated: u64,
    message_expression: Option<u64>,
}

/// `extractMaxElements` on the JSON schema: what a node multiplies its children's cardinality
/// by, `None` when unbounded.
pub(super) fn child_factor(obj: &Map<String, Value>) -> Option<u64> {
    let bound = |key: &str| {
        obj.get(key)
            .and_then(Value::as_i64)
            .map(|n| u64::try_from(n).unwrap_or(0))
    };
    match str_field(obj, "type") {
        Some("object")
            if obj
                .get("additionalProperties")
                .is_some_and(|v| !v.is_null()) =>
        {
            bound("maxProperties")
        }
        Some("array") => bound("maxItems"),
        _ => Some(1),
    }
}

pub(super) fn cost_error(field: String, what: &str, cost: u64, limit: u64) -> CrdError {
    CrdError {
        help: None,
        field,
        kind: Kind::Forbidden,
        value: None,
        detail: cost::cost_message(what, cost, limit),
    }
}

pub(super) fn bad_value(v: BadValue<'_>) -> Option<String> {
    match v {
        BadValue::None => None,
        BadValue::Str(s) => Some(go_quote(s)),
        BadValue::Bool(b) => Some(b.to_string()),
    }
}
