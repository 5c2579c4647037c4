//! Compiling the rules of a schema tree: each `x-kubernetes-validations` entry parsed, checked
//! and planned once, kept in a side table indexed by [`SchemaNode::id`] with the node's OpenAPI
//! bounds for the typed fast path.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use serde_json::Value as Json;

use super::bounds::{Bounds, Decoded};
use super::openapi::Check;
use crate::check::{CheckError, Node, Target, check_parsed};
use crate::eval::interp::{Need, Program, ViewProgram};
use crate::model::{Reason, Schema, Type};
use crate::syntax::{SyntaxError, parse_ast};
use crate::tree::SchemaNode;
use crd_cel_core::ast::AstBuf;

/// The compatibility version of the apiserver's stored-expressions environment, which runtime
/// validation uses (`k8s.io/apiserver/pkg/cel/environment/environment.go`): every library at its newest version.
const STORED_COMPAT: u8 = crate::check::NEWEST_KUBERNETES_MINOR;

/// One `x-kubernetes-validations` entry, compiled.
#[derive(Debug)]
pub struct CompiledRule {
    /// `rule`.
    pub rule: Arc<str>,
    /// `message`.
    pub message: Option<Arc<str>>,
    /// `messageExpression`.
    pub message_expression: Option<Arc<str>>,
    /// The normalized `fieldPath` (`a.b[k]`), appended to the node's path on failure.
    pub field_path: Option<String>,
    /// `reason`.
    pub reason: Option<Reason>,
    /// `optionalOldSelf: true`.
    pub optional_old_self: bool,
    /// The program, or the compile error the apiserver would report for it.
    pub(crate) program: Result<Program, String>,
    /// The rule's estimated maximum cost per evaluation (`None`: it does not check), which
    /// the viewed fast path charges instead of counting.
    pub(crate) max_cost: Option<u64>,
    /// The program planned for views, when the viewed evaluation implements all of it (only
    /// a typed validator's rules: [`Nodes::plan_views`]).
    pub(crate) viewed: Option<ViewProgram>,
    /// The compile error the rule has on the older release the validator emulates, whose
    /// stored-expressions environment lacks something it uses (see [`Nodes::set_release`]):
    /// reported instead of running the program.
    pub(crate) release_error: Option<String>,
    /// The messageExpression does not compile on that release: the rule's `message` is used,
    /// as the apiserver does for a messageExpression without a program.
    pub(crate) message_release_error: bool,
    /// The messageExpression's program (a failed one falls back to `message`).
    pub(crate) message_program: Option<Result<Program, String>>,
}

impl CompiledRule {
    /// The messageExpression's program on the release the validator emulates, if it has one.
    pub(crate) fn message_program(&self) -> Option<&Program> {
        match &self.message_program {
            Some(Ok(p)) if !self.message_release_error => Some(p),
            _ => None,
        }
    }

    /// The program, or the compile error of the rule on the release the validator emulates.
    pub(crate) fn program(&self) -> Result<&Program, &str> {
        match &self.release_error {
            Some(error) => Err(error),
            None => self.program.as_ref().map_err(String::as_str),
        }
    }

    /// The programs of the rule and of its messageExpression.
    fn programs(&self) -> impl Iterator<Item = &Result<Program, String>> {
        std::iter::once(&self.program).chain(self.message_program.as_ref())
    }

    /// Whether the walk on views runs the rule on views (planned, not there since it read
    /// what has no view, without an optional `oldSelf`, its estimated cost within the per-call
    /// limit); else on its node's value.
    pub(crate) fn on_views(&self) -> bool {
        self.viewed
            .as_ref()
            .is_some_and(|v| !v.unviewable.load(Ordering::Relaxed))
            && !self.optional_old_self
            && self.max_cost.is_some_and(|c| c <= super::PER_CALL_LIMIT)
    }

    /// Whether the rule runs on a create (`update` false) or an update whose old object has
    /// the value: a transition rule only on such an update, one with an optional `oldSelf`
    /// always (a rule that does not compile is reported either way).
    pub(crate) fn runs(&self, update: bool) -> bool {
        update || self.optional_old_self || !self.program.as_ref().is_ok_and(|p| p.uses_old_self())
    }

    /// Whether the rule or its messageExpression reads `oldSelf`.
    fn reads_old_self(&self) -> bool {
        self.programs()
            .any(|p| p.as_ref().is_ok_and(Program::uses_old_self))
    }

    /// What error texts name the rule by: the trimmed message if set, else the trimmed rule.
    pub(crate) fn shown(&self) -> &str {
        match &self.message {
            Some(m) => m.trim(),
            None => self.rule.trim(),
        }
    }
}

/// What a validator keeps beside each node of its tree.
#[derive(Debug, Default)]
pub(crate) struct NodeData {
    /// The node's compiled rules, in order.
    pub(crate) rules: Vec<CompiledRule>,
    /// The node's OpenAPI constraints for the typed fast path (`None`: not attached, or a
    /// schema the fast path does not take, and it defers to the JSON path).
    pub(crate) bounds: Option<Box<Bounds>>,
    /// Whether a rule of the node runs on its value rather than on views ([`plan_views`],
    /// and the walk on views when a rule reads what has no view).
    ///
    /// [`plan_views`]: Nodes::plan_views
    values: std::sync::atomic::AtomicBool,
}

/// The properties of `node` its rules read of `oldSelf`, when they only select its declared
/// fields (see [`SchemaNode::old_reads`]).
fn old_reads(node: &SchemaNode, rules: &[CompiledRule]) -> Option<Vec<usize>> {
    if node.ty != Type::Object
        || node.properties.is_empty()
        || node.additional_properties.is_some()
        || node.embedded_resource
    {
        return None;
    }
    let mut need = Need::Fields(Vec::new());
    for p in rules.iter().flat_map(CompiledRule::programs) {
        need = need.merge(p.as_ref().ok()?.old_self_need().clone());
    }
    let Need::Fields(fields) = need else {
        return None;
    };
    fields
        .iter()
        .map(|(name, _)| {
            node.properties
                .iter()
                .position(|(p, _)| crate::tree::name_eq(p, name))
        })
        .collect()
}

/// The side table of a tree: one [`NodeData`] per node, indexed by [`SchemaNode::id`].
#[derive(Debug, Default)]
pub(crate) struct Nodes(Vec<NodeData>);

impl Nodes {
    /// The tree of a model (a resource root when `resource_root`) and its compiled rules; with
    /// `check`, each rule is type-checked as the apiserver's stored-expressions environment
    /// does, and one that fails keeps its error to report.
    pub(crate) fn build(
        schema: &Schema<'_>,
        resource_root: bool,
        check: bool,
    ) -> (SchemaNode, Nodes) {
        let mut table = Vec::new();
        let mut root =
            SchemaNode::from_model_with(schema, resource_root, &mut |s, resource, node| {
                // Flattened structs' rules too, as schemars copies them into the object.
                let rules: Vec<CompiledRule> = crate::schema::node_rules(s)
                    .iter()
                    .map(|r| compile_rule(r, s, resource, check))
                    .collect();
                node.has_rules = !rules.is_empty();
                node.transition = rules.iter().any(CompiledRule::reads_old_self);
                if node.transition && !resource {
                    node.old_reads = old_reads(node, &rules);
                }
                debug_assert_eq!(table.len(), node.id, "nodes are visited in id order");
                table.push(NodeData {
                    rules,
                    bounds: None,
                    values: Default::default(),
                });
            });
        let nodes = Nodes(table);
        root.plan_reads(resource_root, &|n| nodes.own_need(n));
        (root, nodes)
    }

    /// Emulates Kubernetes `1.<minor>` for the rules [`Nodes::build`] compiled from `schema`
    /// with `check`: a rule that compiles on the newest release but not in that release's
    /// stored-expressions environment gets the compile error the release reports (each rule
    /// checked again there; on the newest, none).
    pub(crate) fn set_release(&mut self, schema: &Schema<'_>, resource_root: bool, minor: u8) {
        let table = &mut self.0;
        SchemaNode::from_model_with(schema, resource_root, &mut |s, resource, node| {
            let Some(data) = table.get_mut(node.id) else {
                return;
            };
            let older = minor < STORED_COMPAT;
            for (rule, r) in data.rules.iter_mut().zip(crate::schema::node_rules(s)) {
                let error = |source: &str, target| {
                    error_at(source, target, s, resource, rule.optional_old_self, minor)
                };
                rule.release_error = (older && rule.program.is_ok())
                    .then(|| error(r.rule, Target::Rule))
                    .flatten();
                rule.message_release_error = older
                    && matches!(rule.message_program, Some(Ok(_)))
                    && r.message_expression
                        .is_some_and(|m| error(m, Target::MessageExpression).is_some());
            }
        });
    }

    /// Plans every rule for views (the typed fast path's, [`crate::validate::fast`]).
    pub(crate) fn plan_views(&mut self) {
        for data in &mut self.0 {
            for rule in &mut data.rules {
                rule.viewed = rule.program.as_ref().ok().and_then(ViewProgram::plan);
            }
            let values = data.rules.iter().any(|r| !r.on_views());
            *data.values.get_mut() = values;
        }
    }

    /// Whether a rule of `node` runs on its value rather than on views.
    pub(crate) fn values_needed(&self, node: &SchemaNode) -> bool {
        self.0[node.id].values.load(Ordering::Relaxed)
    }

    /// Records that a rule of `node` runs on its value from now on.
    pub(crate) fn need_values(&self, node: &SchemaNode) {
        self.0[node.id].values.store(true, Ordering::Relaxed);
    }

    /// What the rules of `node` read of its value (`None`: it has none).
    fn own_need(&self, node: &SchemaNode) -> Option<Need> {
        let rules = &self.0[node.id].rules;
        (!rules.is_empty()).then(|| {
            rules.iter().flat_map(CompiledRule::programs).fold(
                Need::Fields(Vec::new()),
                |need, p| match p {
                    Ok(p) => need.merge(p.self_need().clone()),
                    Err(_) => Need::Whole,
                },
            )
        })
    }

    /// The compiled rules of `node`.
    pub(crate) fn rules(&self, node: &SchemaNode) -> &[CompiledRule] {
        &self.0[node.id].rules
    }

    /// The fast path's bounds of `node`.
    pub(crate) fn bounds(&self, node: &SchemaNode) -> Option<&Bounds> {
        self.0[node.id].bounds.as_deref()
    }

    /// Attaches the fast path's [`Bounds`] to `node` and every node below, from the OpenAPI
    /// checks `check` of the same place; for a validator whose objects are decoded, with what
    /// decoding changes there, from the JSON schema `decoded` of the same place (a node whose
    /// schema is missing gets no bounds, and the fast path defers there).
    pub(crate) fn attach_bounds(
        &mut self,
        node: &SchemaNode,
        check: &Check,
        decoded: Option<&Json>,
    ) {
        let mut bounds = Bounds::of(node, check);
        if let (Some(b), Some(schema)) = (bounds.as_mut(), decoded) {
            match Decoded::of(node, schema) {
                Some(d) => b.decoded = d,
                None => bounds = None,
            }
        }
        self.0[node.id].bounds = bounds.map(Box::new);
        // Objects decoded (`Some`), the child's schema (`None`: none, and it gets no bounds).
        let below = |path: &[&str]| decoded.map(|s| path.iter().try_fold(s, |s, k| s.get(k)));
        for (name, n) in &node.properties {
            if let Some(c) = check.property(name) {
                match below(&["properties", name]) {
                    Some(None) => {}
                    s => self.attach_bounds(n, c, s.flatten()),
                }
            }
        }
        if let (Some(items), Some(c)) = (node.items.as_deref(), check.items.as_deref()) {
            match below(&["items"]) {
                Some(None) => {}
                s => self.attach_bounds(items, c, s.flatten()),
            }
        }
        if let (Some(values), Some(c)) = (
            node.additional_properties.as_deref(),
            check.additional.as_deref(),
        ) {
            match below(&["additionalProperties"]) {
                Some(None) => {}
                s => self.attach_bounds(values, c, s.flatten()),
            }
        }
    }
}

/// The most expressions [`parsed`] keeps; past that it starts again empty.
const MAX_PARSED: usize = 4096;

/// `source` parsed, once per text in the process: schemas repeat rule texts (Gateway API's
/// HTTPRoute has 109 rules and messageExpressions in 60 texts, each shared filter or
/// reference type carrying its rules wherever it is used, and its versions and its sibling
/// routes share most of them), and parsing is most of what compiling a rule costs. The checker
/// and planner, which depend on the node, still run per use.
fn parsed(source: &str) -> Arc<Result<AstBuf, SyntaxError>> {
    type Memo = HashMap<Box<str>, Arc<Result<AstBuf, SyntaxError>>>;
    static MEMO: Mutex<Option<Memo>> = Mutex::new(None);
    let lock = || {
        MEMO.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(hit) = lock().as_ref().and_then(|m| m.get(source)) {
        return hit.clone();
    }
    let ast = Arc::new(parse_ast(source));
    let mut memo = lock();
    let memo = memo.get_or_insert_with(HashMap::new);
    if memo.len() >= MAX_PARSED {
        memo.clear();
    }
    memo.insert(source.into(), ast.clone());
    ast
}

/// The compile error of a rule that compiles on the newest release, on Kubernetes
/// `1.<minor>`, whose stored-expressions environment (compatibility version = the release) may
/// lack something it uses (a function or macro added later).
fn error_at(
    source: &str,
    target: Target,
    schema: &Schema<'_>,
    resource: bool,
    optional_old_self: bool,
    minor: u8,
) -> Option<String> {
    let parsed = parsed(source);
    let ast = parsed.as_ref().as_ref().ok()?.as_ast();
    let node = Node {
        schema,
        resource_root: resource,
        optional_old_self,
        compat: minor,
        releases: crate::check::Releases::only(minor),
        type_name: "selfType<N>",
    };
    check_parsed(&ast, target, &node)
        .err()
        .map(|e| e.to_string())
}

/// The program of `source`, and its estimated maximum cost when it type-checks. A rule is
/// checked even without `check`, whose errors are then not reported (a model's rules were
/// checked when it was built; the cost is for the typed fast path); a messageExpression is not.
fn compile_expression(
    source: &str,
    target: Target,
    schema: &Schema<'_>,
    resource: bool,
    optional_old_self: bool,
    check: bool,
) -> (Result<Program, String>, Option<u64>) {
    let node = Node {
        schema,
        resource_root: resource,
        optional_old_self,
        compat: STORED_COMPAT,
        releases: crate::check::Releases::only(crate::check::NEWEST_KUBERNETES_MINOR),
        type_name: "selfType<N>",
    };
    // The texts of `check_source` and of `Program::compile_on`, which each parsed the source.
    let parsed = parsed(source);
    let ast = match parsed.as_ref() {
        Ok(ast) => ast.as_ast(),
        Err(e) if check => {
            let error = CheckError::Compilation {
                target,
                issues: e.to_string(),
            };
            return (Err(error.to_string()), None);
        }
        Err(e) => return (Err(e.to_string()), None),
    };
    let mut max_cost = None;
    if check || target == Target::Rule {
        match check_parsed(&ast, target, &node) {
            Ok(checked) => max_cost = Some(checked.max_cost),
            Err(e) if check => return (Err(e.to_string()), None),
            Err(_) => {}
        }
    }
    // Planned with the overloads the checker resolves, as cel-go plans and costs calls.
    let program = Program::plan_on(&ast, &node).map_err(|e| e.to_string());
    (program, max_cost)
}

fn compile_rule(
    r: &crate::model::Rule<'_>,
    schema: &Schema<'_>,
    resource: bool,
    check: bool,
) -> CompiledRule {
    let optional_old_self = r.optional_old_self == Some(true);
    let field_path = r.field_path.map(|fp| {
        crate::field_path::normalize_field_path(schema, fp)
            .unwrap_or_else(|_| fp.trim_start_matches('.').to_owned())
    });
    let (program, max_cost) = compile_expression(
        r.rule,
        Target::Rule,
        schema,
        resource,
        optional_old_self,
        check,
    );
    CompiledRule {
        max_cost,
        viewed: None,
        rule: r.rule.into(),
        message: r.message.map(Arc::from),
        message_expression: r.message_expression.map(Arc::from),
        field_path,
        reason: r.reason,
        optional_old_self,
        program,
        release_error: None,
        message_release_error: false,
        message_program: r.message_expression.map(|m| {
            compile_expression(
                m,
                Target::MessageExpression,
                schema,
                resource,
                optional_old_self,
                check,
            )
            .0
        }),
    }
}
