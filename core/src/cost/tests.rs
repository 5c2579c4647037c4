use super::*;
use crate::check::{Node, Releases, Target, check};
use crate::model::{Property, Schema, Type};

fn est(rule: &str, schema: &Schema<'_>) -> u64 {
    est_at(rule, schema, false)
}

fn est_at(rule: &str, schema: &Schema<'_>, root: bool) -> u64 {
    est_releases(rule, schema, root, Releases::only(37))
}

fn est_release(rule: &str, schema: &Schema<'_>, root: bool, release: u8) -> u64 {
    est_releases(rule, schema, root, Releases::only(release))
}

fn est_releases(rule: &str, schema: &Schema<'_>, root: bool, releases: Releases) -> u64 {
    let ast = crate::syntax::parse_ast(rule).expect("parses");
    let node = Node {
        resource_root: root,
        releases,
        ..Node::new(schema)
    };
    let r = check(&ast.as_ast(), Target::Rule, &node);
    assert!(r.is_ok(), "{rule}: {}", r.issues_text(rule));
    r.cost.expect("estimated").max
}

fn list(items: &'static Schema<'static>, max: Option<u64>) -> Schema<'static> {
    Schema {
        items: Some(items),
        max_items: max,
        ..Schema::of(Type::Array)
    }
}

fn map(values: &'static Schema<'static>, max: Option<u64>) -> Schema<'static> {
    Schema {
        additional_properties: Some(values),
        max_properties: max,
        ..Schema::of(Type::Object)
    }
}

static STRING: Schema<'static> = Schema::of(Type::String);
static STRING10: Schema<'static> = Schema {
    max_length: Some(10),
    ..Schema::of(Type::String)
};
static INT: Schema<'static> = Schema::of(Type::Integer);
static NUMBER: Schema<'static> = Schema::of(Type::Number);
static DATE_TIME: Schema<'static> = Schema::string_format("date-time");

/// `k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/celcoststability_test.go` example 1 (TestCostEstimation "string array with all").
#[test]
fn all_over_lists() {
    assert_eq!(est("self.all(x, true)", &list(&STRING, None)), 3_145_727);
    assert_eq!(est("self.all(x, true)", &list(&STRING, Some(20))), 62);
    assert_eq!(est("self.all(x, true)", &list(&NUMBER, None)), 4_718_591);
    assert_eq!(est("self.all(x, true)", &list(&NUMBER, Some(10))), 32);
    assert_eq!(
        est("self.all(x, self.all(y, true))", &list(&NUMBER, Some(10))),
        352
    );
}

/// 4.6 examples 2, 3, 7.
#[test]
fn string_functions() {
    assert_eq!(est("self.contains('test')", &STRING), 314_574);
    assert_eq!(est("self.contains('test')", &STRING10), 5);
    assert_eq!(
        est("size(self + \"hello\") > size(\"hello\")", &STRING),
        314_578
    );
    let s4 = STRING.with_length(None, Some(4));
    assert_eq!(est("size(self + \"hello\") > size(\"hello\")", &s4), 7);
    let e = Schema {
        enum_values: &["\"A\"", "\"B\"", "\"C\"", "\"LongValue\""],
        ..Schema::of(Type::String)
    };
    assert_eq!(est("self.contains('A')", &e), 2);
    assert_eq!(
        est("self.contains('A')", &e.with_length(None, Some(1000))),
        401
    );
}

/// 4.6 examples 4 and 8: map keys have size 0, date-times 32.
#[test]
fn maps() {
    assert_eq!(
        est("self.all(x, x.contains(self[x]))", &map(&STRING, None)),
        2_752_507
    );
    assert_eq!(
        est(
            "self.all(x, x.contains(self[x]))",
            &map(&STRING10, Some(10))
        ),
        72
    );
    assert_eq!(est("self[\"a\"] == self[\"b\"]", &map(&DATE_TIME, None)), 8);
    assert_eq!(
        est("self[\"a\"] == self[\"b\"]", &map(&DATE_TIME, Some(3))),
        8
    );
}

/// 4.6 example 5 (join) and 6 (replace).
#[test]
fn join_and_replace() {
    assert_eq!(
        est("self.join(' ') == 'aa bb'", &list(&STRING, None)),
        329_853_068_905
    );
    assert_eq!(
        est("self.join(' ') == 'aa bb'", &list(&STRING10, Some(10))),
        43
    );
    static BEFORE: Schema<'static> = Schema {
        max_length: Some(2),
        ..Schema::of(Type::String)
    };
    static AFTER: Schema<'static> = Schema {
        max_length: Some(4),
        ..Schema::of(Type::String)
    };
    static STR4: Schema<'static> = Schema {
        max_length: Some(4),
        ..Schema::of(Type::String)
    };
    let obj = |s: &'static Schema<'static>| Schema {
        properties: Box::leak(Box::new([
            Property {
                name: "str",
                required: false,
                schema: s,
            },
            Property {
                name: "before",
                required: false,
                schema: &BEFORE,
            },
            Property {
                name: "after",
                required: false,
                schema: &AFTER,
            },
        ])),
        ..Schema::of(Type::Object)
    };
    let rule = "self.str.replace(self.before, self.after) == 'does not matter'";
    assert_eq!(est(rule, &obj(&STRING)), 629_154);
    assert_eq!(est(rule, &obj(&STR4)), 12);
}

/// 4.6 example 10: schema scalars have size 0, so `==` on them is free.
#[test]
fn scalar_paths() {
    static OBJ: Schema<'static> = Schema {
        properties: &[
            Property {
                name: "val1",
                required: false,
                schema: &INT,
            },
            Property {
                name: "val2",
                required: false,
                schema: &INT,
            },
        ],
        ..Schema::of(Type::Object)
    };
    assert_eq!(
        est(
            "self.val1 == 9223372036854775807 && 9223372036854775807 == self.val1 && self.val1 == self.val2",
            &OBJ
        ),
        8
    );
}

/// A resource root with an empty `spec` and no declared `metadata`.
static SPEC: Schema<'static> = Schema::of(Type::Object);
static ROOT: Schema<'static> = Schema {
    properties: &[Property {
        name: "spec",
        required: false,
        schema: &SPEC,
    }],
    ..Schema::of(Type::Object)
};

/// The implicit `metadata.name` of a resource root is bounded at 253 (1.37): the
/// cost-metadata-name-bounded case's 513.
#[test]
fn metadata_name_at_the_root() {
    assert_eq!(
        est_at(
            "self.metadata.name.matches('^[a-z]+(-[a-z]+)*$')",
            &ROOT,
            true
        ),
        513
    );
}

/// What the estimator of releases before 1.37 (cel-go 0.26, the apiextensions of 1.36) priced
/// differently, each checked against the 1.34.2 oracle on OpenShift API's CRDs: the global
/// `matches(s, re)` was an O(1) call, `includes` had no library estimate, and a resource
/// root's implicit `metadata.name` was an unbounded string.
#[test]
fn releases_before_1_37() {
    static URL: Schema<'static> = Schema {
        max_length: Some(300),
        ..Schema::of(Type::String)
    };
    let rule = "matches(url(self).getEscapedPath(), '^/(api/)?v[0-9]+/{0,1}$')";
    assert_eq!(est_release(rule, &URL, false, 36), 123);
    assert!(est_release(rule, &URL, false, 37) > 100 * crate::cost::PER_EXPRESSION_LIMIT);
    // The member form was priced in both.
    let member = "self.matches('^[a-z]+$')";
    assert_eq!(
        est_release(member, &URL, false, 36),
        est_release(member, &URL, false, 37)
    );
    let name = "size('router-' + self.metadata.name) <= 253";
    assert!(est_release(name, &ROOT, true, 36) > 300_000);
    assert!(est_release(name, &ROOT, true, 37) < 1_000);
    // The derive's releases, from its target on: the highest of each.
    let from_34 = Releases::from(34);
    assert_eq!(
        est_releases(name, &ROOT, true, from_34),
        est_release(name, &ROOT, true, 36)
    );
    assert_eq!(
        est_releases(rule, &URL, false, from_34),
        est_release(rule, &URL, false, 37)
    );
}

/// Namespaced functions are priced under their qualified name (the corpus's
/// `format.dns1123Label().validate(self)`).
#[test]
fn namespaced_functions() {
    let s = STRING.with_length(None, Some(63));
    assert_eq!(
        est(
            "size(self) == 0 || format.dns1123Label().validate(self) == null",
            &s
        ),
        838
    );
    assert_eq!(est("optional.none().hasValue()", &s), 2);
}

/// The checker records matched overloads in a 16-bit mask per call.
#[test]
fn overload_masks_fit() {
    for f in crate::env::FUNCTIONS {
        assert!(f.overloads.len() <= 16, "{} has too many overloads", f.name);
    }
}

#[test]
fn factor_formatting_as_go() {
    let f = |cost: u64, limit: u64| {
        let mut b = crate::msg::Buf::<64>::new();
        push_factor(cost, limit, &mut b);
        b.as_str().to_owned()
    };
    assert_eq!(f(200_100_000, PER_EXPRESSION_LIMIT), "20.0x");
    assert_eq!(f(202_101_004, PER_CRD_LIMIT), "2.0x");
    assert_eq!(f(10_000_001, PER_EXPRESSION_LIMIT), "1.000000x");
    assert_eq!(f(12_000_000, PER_EXPRESSION_LIMIT), "1.200000x");
    assert_eq!(f(999_000_000, PER_EXPRESSION_LIMIT), "99.9x");
    assert_eq!(f(1_000_000_001, PER_EXPRESSION_LIMIT), "more than 100x");
    // Ties are decided on the binary value, as Go (and Rust) print it.
    for cost in [
        21_500_000u64,
        20_500_000,
        123_456_789,
        14_999_999,
        15_000_000,
    ] {
        let x = cost as f64 / PER_EXPRESSION_LIMIT as f64;
        let want = if x < 1.5 {
            format!("{x:.6}x")
        } else {
            format!("{x:.1}x")
        };
        assert_eq!(f(cost, PER_EXPRESSION_LIMIT), want, "{cost}");
    }
}
