//! The CEL/OpenAPI type model of a Rust type, built in `const`.
//!
//! A [`Schema`] is the part of a structural OpenAPI schema that decides what a CEL rule sees and
//! what it costs: types, formats, bounds, list and map types, required-ness, the rules attached
//! to the node. Every type a CRD is made of implements [`CelSchema`], whose associated constant
//! [`CelSchema::MODEL`] is that node. The derive only ever names `<FieldTy as CelSchema>::MODEL`,
//! so the trait system resolves field types across modules, aliases and crates, and the checker
//! can run on the model in `const` evaluation at `cargo build`.
//!
//! Everything here is plain data with `&'a` references so that the same types describe a schema
//! known at compile time (`Schema<'static>` in a constant) and one read from a CRD manifest.

/// The `type` of a schema node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Type {
    /// No `type`: any value (a bare `x-kubernetes-preserve-unknown-fields` or
    /// `x-kubernetes-int-or-string` node).
    Any,
    /// `type: boolean`.
    Boolean,
    /// `type: integer`.
    Integer,
    /// `type: number`.
    Number,
    /// `type: string`.
    String,
    /// `type: array`.
    Array,
    /// `type: object`.
    Object,
    /// A node whose schema is known only when schemars generates it: a type that implements
    /// `JsonSchema` but not [`CelSchema`] (another crate's type, a hand-written impl,
    /// `#[schemars(schema_with)]`, a data-carrying enum its variants do not describe). Rules
    /// that read into it are checked against the generated schema instead
    /// (`crd_cel::crd::check_type`, run by the test the derive generates); the runtime
    /// validates such types with their generated schema.
    Unknown,
}

impl Type {
    /// The OpenAPI spelling of the type, `None` for [`Type::Any`].
    pub const fn as_openapi(self) -> Option<&'static str> {
        match self {
            Type::Any | Type::Unknown => None,
            Type::Boolean => Some("boolean"),
            Type::Integer => Some("integer"),
            Type::Number => Some("number"),
            Type::String => Some("string"),
            Type::Array => Some("array"),
            Type::Object => Some("object"),
        }
    }
}

/// `x-kubernetes-list-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListType {
    /// The list is replaced as a whole; CEL equality is ordered.
    Atomic,
    /// Unique scalar items; CEL equality ignores order and `+` is the union.
    Set,
    /// Items are objects identified by `x-kubernetes-list-map-keys`.
    Map,
}

impl ListType {
    /// The spelling used in the schema.
    pub const fn as_str(self) -> &'static str {
        match self {
            ListType::Atomic => "atomic",
            ListType::Set => "set",
            ListType::Map => "map",
        }
    }
}

/// `x-kubernetes-map-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapType {
    /// The map or object is replaced as a whole.
    Atomic,
    /// Each key is merged on its own (the default).
    Granular,
}

impl MapType {
    /// The spelling used in the schema.
    pub const fn as_str(self) -> &'static str {
        match self {
            MapType::Atomic => "atomic",
            MapType::Granular => "granular",
        }
    }
}

/// The `reason` of a validation rule: the field error type reported when it fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// `FieldValueInvalid` (the default).
    FieldValueInvalid,
    /// `FieldValueForbidden`.
    FieldValueForbidden,
    /// `FieldValueRequired`.
    FieldValueRequired,
    /// `FieldValueDuplicate`.
    FieldValueDuplicate,
}

impl Reason {
    /// Every reason the apiserver accepts, in its order.
    pub const ALL: [Reason; 4] = [
        Reason::FieldValueInvalid,
        Reason::FieldValueForbidden,
        Reason::FieldValueRequired,
        Reason::FieldValueDuplicate,
    ];

    /// The spelling used in `x-kubernetes-validations[].reason`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::FieldValueInvalid => "FieldValueInvalid",
            Reason::FieldValueForbidden => "FieldValueForbidden",
            Reason::FieldValueRequired => "FieldValueRequired",
            Reason::FieldValueDuplicate => "FieldValueDuplicate",
        }
    }

    /// Parses the schema spelling.
    pub fn parse(s: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One entry of `x-kubernetes-validations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule<'a> {
    /// The CEL expression, which must evaluate to `bool`.
    pub rule: &'a str,
    /// The fixed failure message.
    pub message: Option<&'a str>,
    /// A CEL expression evaluating to the failure message.
    pub message_expression: Option<&'a str>,
    /// The field the failure is reported at, relative to the node (`.spec.x`, `.items['k']`).
    pub field_path: Option<&'a str>,
    /// The field error type reported on failure.
    pub reason: Option<Reason>,
    /// `optionalOldSelf`: run the transition rule on create too, with `oldSelf` an optional.
    pub optional_old_self: Option<bool>,
}

impl<'a> Rule<'a> {
    /// A rule with only its expression set.
    pub const fn new(rule: &'a str) -> Self {
        Rule {
            rule,
            message: None,
            message_expression: None,
            field_path: None,
            reason: None,
            optional_old_self: None,
        }
    }
}

/// A named property of an object node.
#[derive(Debug, Clone, Copy)]
pub struct Property<'a> {
    /// The JSON name (after serde renaming), unescaped.
    pub name: &'a str,
    /// Whether the property is listed in `required`.
    pub required: bool,
    /// The property's schema.
    pub schema: &'a Schema<'a>,
}

/// A structural schema node, as far as CEL checking, cost and validation need it.
///
/// Descriptions, titles and examples are left out: they never change a verdict.
#[derive(Debug, Clone, Copy)]
pub struct Schema<'a> {
    /// The schema type.
    pub ty: Type,
    /// `format` (`int32`, `date-time`, `byte`, ...).
    pub format: Option<&'a str>,
    /// `nullable: true`.
    pub nullable: bool,
    /// Whether the node has a `default` (its value is only known when the schema is generated).
    pub has_default: bool,
    /// `enum`, each value as compact JSON text (`"\"TCP\""`, `"1"`).
    pub enum_values: &'a [&'a str],
    /// `maxLength` (runes), for strings.
    pub max_length: Option<u64>,
    /// `minLength`, for strings.
    pub min_length: Option<u64>,
    /// `maxItems`, for arrays.
    pub max_items: Option<u64>,
    /// `minItems`, for arrays.
    pub min_items: Option<u64>,
    /// `maxProperties`, for objects and maps.
    pub max_properties: Option<u64>,
    /// `minProperties`, for objects and maps.
    pub min_properties: Option<u64>,
    /// `minimum`, for numbers.
    pub minimum: Option<f64>,
    /// `maximum`, for numbers.
    pub maximum: Option<f64>,
    /// `pattern`, for strings.
    pub pattern: Option<&'a str>,
    /// Declared properties of an object node.
    pub properties: &'a [Property<'a>],
    /// [`fingerprint::of_properties`](fingerprint::of_properties) of `properties`,
    /// computed once where a large model is defined (a `static`, evaluated when that crate is
    /// compiled), so that const evaluation in every crate using the model reads it instead of
    /// hashing the subtree again. `None`: computed when needed. A node that replaces
    /// `properties` must reset it.
    pub properties_fingerprint: Option<&'a u64>,
    /// Object nodes whose properties are merged into this one (`#[serde(flatten)]`). A constant
    /// cannot concatenate slices that other crates define, so the merge is kept symbolic.
    pub flatten: &'a [&'a Schema<'a>],
    /// `items`, for arrays.
    pub items: Option<&'a Schema<'a>>,
    /// `additionalProperties` schema: the node is a map with values of this schema.
    pub additional_properties: Option<&'a Schema<'a>>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: &'a [&'a str],
    /// `x-kubernetes-map-type`.
    pub map_type: Option<MapType>,
    /// `x-kubernetes-int-or-string: true`.
    pub int_or_string: bool,
    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource: true`.
    pub embedded_resource: bool,
    /// `x-kubernetes-validations`, in order.
    pub validations: Rules<'a>,
}

/// The `x-kubernetes-validations` of a node: the rules its type brings, then the rules the
/// field adds (a field of type `Inner` carries `Inner`'s own rules and its own, in that order).
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    /// Rules that come first (the type's).
    pub before: Option<&'a Rules<'a>>,
    /// Rules added at this level.
    pub own: &'a [Rule<'a>],
}

impl<'a> Rules<'a> {
    /// No rules.
    pub const EMPTY: Rules<'static> = Rules {
        before: None,
        own: &[],
    };

    /// Rules defined at one level.
    pub const fn new(own: &'a [Rule<'a>]) -> Self {
        Rules { before: None, own }
    }

    /// How many rules there are in all.
    pub const fn len(&self) -> usize {
        let before = match self.before {
            Some(b) => b.len(),
            None => 0,
        };
        before + self.own.len()
    }

    /// Whether there are none.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rule at index `i` of `x-kubernetes-validations`.
    pub const fn get(&self, i: usize) -> Option<&'a Rule<'a>> {
        let before = match self.before {
            Some(b) => b.len(),
            None => 0,
        };
        if i < before {
            match self.before {
                Some(b) => b.get(i),
                None => None,
            }
        } else if i - before < self.own.len() {
            Some(&self.own[i - before])
        } else {
            None
        }
    }

    /// All rules, in order.
    pub fn to_vec(&self) -> Vec<Rule<'a>> {
        (0..self.len())
            .filter_map(|i| self.get(i).copied())
            .collect()
    }
}

/// The estimated costs of a node's rules and of those below it, shaped like [`Schema`] so that
/// the two can be walked side by side (`crd::cost`). Kept apart from the model because
/// the costs are computed from the model: inside it they would make each cost depend on itself.
#[derive(Debug, Clone, Copy)]
pub struct Costs<'a> {
    /// The costs of the node's rules, in the order of [`Schema::validations`].
    pub rules: CostList<'a>,
    /// Per property, in the order of [`Schema::properties`].
    pub properties: &'a [&'a Costs<'a>],
    /// Per flattened node, in the order of [`Schema::flatten`].
    pub flatten: &'a [&'a Costs<'a>],
    /// The items of a list.
    pub items: Option<&'a Costs<'a>>,
    /// The values of a map.
    pub additional_properties: Option<&'a Costs<'a>>,
}

impl Costs<'_> {
    /// No rules anywhere below (types without rules, and the default of [`CelSchema::COSTS`]).
    pub const NONE: Costs<'static> = Costs {
        rules: CostList::EMPTY,
        properties: &[],
        flatten: &[],
        items: None,
        additional_properties: None,
    };
}

/// The costs of a node's rules, chained like [`Rules`]: the type's, then the field's.
#[derive(Debug, Clone, Copy)]
pub struct CostList<'a> {
    /// Costs of the rules that come first (the type's).
    pub before: Option<&'a CostList<'a>>,
    /// Costs of the rules added at this level.
    pub own: &'a [ExprCosts],
}

impl<'a> CostList<'a> {
    /// No rules.
    pub const EMPTY: CostList<'static> = CostList {
        before: None,
        own: &[],
    };

    /// Costs of rules defined at one level.
    pub const fn new(own: &'a [ExprCosts]) -> Self {
        CostList { before: None, own }
    }

    /// The costs of rule `i` (as [`Rules::get`] counts), zero when unknown (a generic type's
    /// rules, which are checked by the apiserver only).
    pub const fn get(&self, i: usize) -> ExprCosts {
        let before = match self.before {
            Some(b) => b.len(),
            None => 0,
        };
        if i < before {
            match self.before {
                Some(b) => b.get(i),
                None => ExprCosts::ZERO,
            }
        } else if i - before < self.own.len() {
            self.own[i - before]
        } else {
            ExprCosts::ZERO
        }
    }

    const fn len(&self) -> usize {
        let before = match self.before {
            Some(b) => b.len(),
            None => 0,
        };
        before + self.own.len()
    }
}

/// The estimated cost of one evaluation of a rule and of its `messageExpression`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExprCosts {
    /// The rule's `MaxCost`.
    pub rule: u64,
    /// The messageExpression's `MaxCost` (0 without one).
    pub message_expression: u64,
}

impl ExprCosts {
    /// Nothing known.
    pub const ZERO: ExprCosts = ExprCosts {
        rule: 0,
        message_expression: 0,
    };
}

/// What `#[cel(..)]` on a field adds to the schema node of the field's type. The derive emits it
/// once as a constant; the model and the generated JSON schema are both built from it.
#[derive(Debug, Clone, Copy)]
pub struct Decoration<'a> {
    /// Rules appended to the node's `x-kubernetes-validations`.
    pub rules: &'a [Rule<'a>],
    /// `x-kubernetes-list-type`.
    pub list_type: Option<ListType>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: &'a [&'a str],
    /// `x-kubernetes-map-type`.
    pub map_type: Option<MapType>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// The rules replace the node's own instead of following them (schemars' `extend` of
    /// `x-kubernetes-validations` replaces the key).
    pub replace_rules: bool,
}

impl<'a> Decoration<'a> {
    /// Nothing added.
    pub const NONE: Decoration<'static> = Decoration {
        rules: &[],
        list_type: None,
        list_map_keys: &[],
        map_type: None,
        max_items: None,
        min_items: None,
        max_properties: None,
        min_properties: None,
        replace_rules: false,
    };

    /// `base` with the scalar slots of this decoration set. The rules are chained by the caller,
    /// which alone can borrow the base's rules for `'static`.
    pub const fn apply(&self, base: Schema<'a>) -> Schema<'a> {
        let mut s = base;
        if let Some(lt) = self.list_type {
            s.list_type = Some(lt);
        }
        if !self.list_map_keys.is_empty() {
            s.list_map_keys = self.list_map_keys;
        }
        if let Some(mt) = self.map_type {
            s.map_type = Some(mt);
        }
        if let Some(v) = self.max_items {
            s.max_items = Some(v);
        }
        if let Some(v) = self.min_items {
            s.min_items = Some(v);
        }
        if let Some(v) = self.max_properties {
            s.max_properties = Some(v);
        }
        if let Some(v) = self.min_properties {
            s.min_properties = Some(v);
        }
        if self.replace_rules {
            s.validations = Rules::new(&[]);
        }
        s
    }
}

impl<'a> Schema<'a> {
    /// The schema of a property as kube's `CustomResource` leaves it: its `OptionalIntOrString`
    /// transform makes an int-or-string that is not required nullable.
    pub const fn for_property(self, required: bool) -> Schema<'a> {
        let mut s = self;
        if !required && s.int_or_string {
            s.nullable = true;
        }
        s
    }

    /// The node of a field `#[schemars(required)]` makes required: schemars writes the
    /// non-optional schema of its type, which drops `nullable` where the type is optional.
    pub const fn required_nullable(self, optional: bool) -> Schema<'a> {
        let mut s = self;
        if optional {
            s.nullable = false;
        }
        s
    }

    /// The node of an `Option` of this one: nullable, but for "anything"
    /// (`serde_json::Value`'s `true` schema, which schemars leaves as it is) and an
    /// int-or-string (whose `null` kube's `OptionalIntOrString` removes; as a property that is
    /// not required it is nullable again, see [`Schema::for_property`]).
    pub const fn optional(self) -> Schema<'a> {
        let mut s = self;
        s.nullable = !matches!(s.ty, Type::Any);
        s
    }

    /// The node without its `x-kubernetes-validations`.
    pub const fn without_rules(self) -> Schema<'a> {
        let mut s = self;
        s.validations = Rules::new(&[]);
        s
    }

    /// A node of the given type with nothing else set; the starting point of every constant
    /// (`Schema { max_length: Some(8), ..Schema::of(Type::String) }`).
    pub const fn of(ty: Type) -> Self {
        Schema {
            ty,
            format: None,
            nullable: false,
            has_default: false,
            enum_values: &[],
            max_length: None,
            min_length: None,
            max_items: None,
            min_items: None,
            max_properties: None,
            min_properties: None,
            minimum: None,
            maximum: None,
            pattern: None,
            properties: &[],
            properties_fingerprint: None,
            flatten: &[],
            items: None,
            additional_properties: None,
            list_type: None,
            list_map_keys: &[],
            map_type: None,
            int_or_string: false,
            preserve_unknown_fields: false,
            embedded_resource: false,
            validations: Rules::EMPTY,
        }
    }

    /// The node of a type known only by its generated JSON schema ([`Type::Unknown`]).
    pub const UNKNOWN: Schema<'static> = Schema::of(Type::Unknown);

    /// Whether this node or any node below it is [`Type::Unknown`]: its full schema is only
    /// known once schemars generates it.
    pub const fn contains_unknown(&self) -> bool {
        self.contains_unknown_at(0)
    }

    const fn contains_unknown_at(&self, depth: u32) -> bool {
        // Models are finite trees of constants; the bound only guards hand-written cycles.
        if depth > 64 || matches!(self.ty, Type::Unknown) {
            return true;
        }
        let mut i = 0;
        while i < self.properties.len() {
            if self.properties[i].schema.contains_unknown_at(depth + 1) {
                return true;
            }
            i += 1;
        }
        let mut j = 0;
        while j < self.flatten.len() {
            if self.flatten[j].contains_unknown_at(depth + 1) {
                return true;
            }
            j += 1;
        }
        if let Some(items) = self.items
            && items.contains_unknown_at(depth + 1)
        {
            return true;
        }
        if let Some(values) = self.additional_properties
            && values.contains_unknown_at(depth + 1)
        {
            return true;
        }
        false
    }

    /// Whether this is a map whose values have no schema (a bare [`Type::Any`], as for
    /// `serde_json::Value`): schemars writes `additionalProperties: true`, which the apiserver
    /// types as an object with no fields and prunes as values without a schema.
    pub const fn additional_properties_any(&self) -> bool {
        match self.additional_properties {
            Some(v) => {
                matches!(v.ty, Type::Any)
                    && !v.int_or_string
                    && !v.preserve_unknown_fields
                    && !v.embedded_resource
            }
            None => false,
        }
    }

    /// Whether a property missing from `properties` may still exist: a flattened node is
    /// [`Type::Unknown`] or not an object of known properties (a flattened map or enum).
    pub const fn has_open_flatten(&self) -> bool {
        let mut j = 0;
        while j < self.flatten.len() {
            let f = self.flatten[j];
            if !matches!(f.ty, Type::Object)
                || f.additional_properties.is_some()
                || f.has_open_flatten()
            {
                return true;
            }
            j += 1;
        }
        false
    }

    /// A string node with a `format`.
    pub const fn string_format(format: &'a str) -> Self {
        Schema {
            format: Some(format),
            ..Schema::of(Type::String)
        }
    }

    /// `base` with `length(min, max)` applied as schemars applies it: `minLength`/`maxLength` on
    /// a string, `minItems`/`maxItems` on an array, nothing on other nodes.
    pub const fn with_length(self, min: Option<u64>, max: Option<u64>) -> Self {
        let mut s = self;
        match s.ty {
            Type::String => {
                if min.is_some() {
                    s.min_length = min;
                }
                if max.is_some() {
                    s.max_length = max;
                }
            }
            Type::Array => {
                if min.is_some() {
                    s.min_items = min;
                }
                if max.is_some() {
                    s.max_items = max;
                }
            }
            _ => {}
        }
        s
    }

    /// `base` with `range(min, max)` applied as schemars applies it (numbers and integers only).
    pub const fn with_range(self, min: Option<f64>, max: Option<f64>) -> Self {
        let mut s = self;
        if matches!(s.ty, Type::Integer | Type::Number) {
            if min.is_some() {
                s.minimum = min;
            }
            if max.is_some() {
                s.maximum = max;
            }
        }
        s
    }

    /// `base` with a `pattern` (strings only, as schemars applies it).
    pub const fn with_pattern(self, pattern: &'a str) -> Self {
        let mut s = self;
        if matches!(s.ty, Type::String) {
            s.pattern = Some(pattern);
        }
        s
    }

    /// `base` with `nullable` set (schemars drops it on `Option` fields marked `required`).
    pub const fn with_nullable(self, nullable: bool) -> Self {
        Schema { nullable, ..self }
    }

    /// `base` with a `format` (`email`, `uri`), which schemars sets on any node.
    pub const fn with_format(self, format: &'a str) -> Self {
        Schema {
            format: Some(format),
            ..self
        }
    }

    /// The property called `name`, looking through flattened nodes.
    pub const fn property(&self, name: &str) -> Option<&'a Property<'a>> {
        let mut i = 0;
        let len_i = self.properties.len();
        while i < len_i {
            if str_eq(self.properties[i].name, name) {
                return Some(&self.properties[i]);
            }
            i += 1;
        }
        let mut j = 0;
        let len_j = self.flatten.len();
        while j < len_j {
            if let Some(p) = self.flatten[j].property(name) {
                return Some(p);
            }
            j += 1;
        }
        None
    }

    /// The property called `name`, looking through flattened nodes, and whether the object
    /// requires it: schemars drops the `required` of a flattened `Option` (a nullable flattened
    /// node), its own flattened nodes' included.
    pub const fn property_required(&self, name: &str) -> Option<(&'a Property<'a>, bool)> {
        let mut i = 0;
        let len_i = self.properties.len();
        while i < len_i {
            let p = &self.properties[i];
            if str_eq(p.name, name) {
                return Some((p, p.required));
            }
            i += 1;
        }
        let mut j = 0;
        let len_j = self.flatten.len();
        while j < len_j {
            let f = self.flatten[j];
            if let Some((p, required)) = f.property_required(name) {
                return Some((p, required && !f.nullable));
            }
            j += 1;
        }
        None
    }

    /// Calls `f` on every property in declaration order, flattened ones where they are merged.
    pub fn for_each_property(&self, f: &mut dyn FnMut(&'a Property<'a>)) {
        self.for_each_property_required(&mut |p, _| f(p));
    }

    /// [`Schema::for_each_property`] with whether the object requires each property (see
    /// [`Schema::property_required`]).
    pub fn for_each_property_required(&self, f: &mut dyn FnMut(&'a Property<'a>, bool)) {
        for p in self.properties {
            f(p, p.required);
        }
        for s in self.flatten {
            let optional = s.nullable;
            s.for_each_property_required(&mut |p, required| f(p, required && !optional));
        }
    }
}

/// Byte-wise string equality usable in `const fn`.
pub const fn str_eq(a: &str, b: &str) -> bool {
    bytes_eq(a.as_bytes(), b.as_bytes())
}

/// Byte-wise equality usable in `const fn`.
pub const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    let len_i = a.len();
    while i < len_i {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A Rust type whose CRD schema is known at compile time.
///
/// `#[derive(CelValidate)]` implements it; this crate implements it for the std types a CRD is
/// made of and, with the `k8s-openapi` feature, for the k8s-openapi types CRDs embed. Implement it
/// by hand only for a type with a hand-written `JsonSchema`; the constant must describe exactly
/// the schema that impl produces (`crd_cel::schema::compare` tests that).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no CEL schema model",
    note = "derive `CelValidate` on `{Self}`, or implement `crd_cel::CelSchema` for it by hand"
)]
pub trait CelSchema {
    /// The schema node of this type.
    const MODEL: Schema<'static>;
    /// Whether this type is `Option<_>`: a field of it is not required.
    const OPTIONAL: bool = false;
    /// The estimated costs of the rules in this type's schema, for the CRD-wide limits the
    /// root type checks. Generated by the derive; types without rules keep the default.
    #[doc(hidden)]
    const COSTS: Costs<'static> = Costs::NONE;
}
pub mod fingerprint;
mod impls;
pub mod k8s;
pub use impls::MapKey;
