use super::*;
use crate::model::{Property, Schema, Type};

static ITEMS: Schema<'static> = Schema::of(Type::String);
static SCHEMA: Schema<'static> = Schema {
    properties: &[
        Property {
            name: "n",
            required: true,
            schema: &Schema::of(Type::Integer),
        },
        Property {
            name: "s",
            required: false,
            schema: &Schema::of(Type::String),
        },
        Property {
            name: "l",
            required: false,
            schema: &Schema {
                items: Some(&ITEMS),
                ..Schema::of(Type::Array)
            },
        },
        Property {
            name: "my-field",
            required: false,
            schema: &Schema::of(Type::Boolean),
        },
        Property {
            name: "namespace",
            required: false,
            schema: &Schema::of(Type::String),
        },
    ],
    ..Schema::of(Type::Object)
};

fn run(rule: &str) -> Result<Checked, String> {
    let ast = crate::syntax::parse_ast(rule).map_err(|e| e.to_string())?;
    let node = Node::new(&SCHEMA);
    let report = check(&ast.as_ast(), Target::Rule, &node);
    if let Some(u) = report.unsupported {
        return Err(format!("unsupported: {u}"));
    }
    if report.total > 0 {
        let mut out = crate::msg::Buf::<4096>::new();
        report.render(rule, &mut out);
        return Err(out.as_str().to_owned());
    }
    if !report.right_type {
        return Err("not bool".into());
    }
    Ok(Checked {
        uses_old_self: report.uses_old_self,
        max_cost: report.cost.map_or(0, |c| c.max),
    })
}

#[test]
fn accepts_well_typed_rules() {
    for rule in [
        "self.n > 0",
        "self.n == 1 && self.s == 'x'",
        "self.l.all(x, x.startsWith('a'))",
        "self.l.exists(x, x == 'a')",
        "self.l.map(x, x + 'a').size() > 0",
        "self.l.filter(x, x != '').size() == 0",
        "has(self.s) ? self.s.size() < 10 : true",
        "self.my__dash__field",
        "self.namespace == 'x'",
        "self.__namespace__ == 'x'",
        "self.n in [1, 2, 3]",
        "'a' in self.l",
        "self.l == ['a']",
        "[1, 2].all(x, x > 0)",
        "{'a': 1}['a'] == 1",
        "self.s.matches('^a') || self.s.contains('b')",
        "int(self.s) > 1",
        "self.n > 1.0",
        "self.?s.orValue('') == ''",
        "optional.of(1).hasValue()",
        "type(self.n) == int",
        "self.l.size() == self.n",
        "self.s.lowerAscii() == 'a'",
        "duration('1s') < duration('2s')",
        "self.l.exists_one(x, x == 'a')",
    ] {
        assert_eq!(run(rule).err(), None, "{rule}");
    }
}

#[test]
fn rejects_with_cel_go_messages() {
    let cases = [
        (
            "self.n == 'x'",
            "ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(int, string)'\n | self.n == 'x'\n | .......^",
        ),
        (
            "self.m > 0",
            "ERROR: <input>:1:5: undefined field 'm'\n | self.m > 0\n | ....^",
        ),
        ("self.n", "not bool"),
        (
            "foo == 1",
            "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^",
        ),
        (
            "self.l.all(x, x)",
            "ERROR: <input>:1:15: expected type 'bool' but found 'string'\n | self.l.all(x, x)\n | ..............^",
        ),
        (
            "self.n.size() > 0",
            "ERROR: <input>:1:12: found no matching overload for 'size' applied to 'int.()'\n | self.n.size() > 0\n | ...........^",
        ),
        (
            "[1, 'a'].size() > 0",
            "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() > 0\n | ....^",
        ),
    ];
    for (rule, want) in cases {
        assert_eq!(run(rule).err().as_deref(), Some(want), "{rule}");
    }
}

#[test]
fn old_self_makes_a_transition_rule() {
    assert!(run("self.n >= oldSelf.n").unwrap().uses_old_self);
    // A comprehension variable named `oldSelf` counts where the rule reads it, as the
    // apiserver's `UsesOldSelf` decides (cel-go records the variable among the references).
    assert!(run("[1].all(oldSelf, oldSelf > 0)").unwrap().uses_old_self);
    assert!(!run("[1].all(oldSelf, true)").unwrap().uses_old_self);
    assert!(
        run("optional.of(1).optMap(oldSelf, 2).hasValue()")
            .unwrap()
            .uses_old_self
    );
    // The AST's answer, which the derive uses for `optional_old_self`, is the checker's.
    for rule in [
        "self.n >= oldSelf.n",
        "[1].all(oldSelf, oldSelf > 0)",
        "[1].all(oldSelf, true)",
        "optional.of(1).optMap(oldSelf, 2).hasValue()",
        "{'a': 1}.transformMap(oldSelf, v, v).size() > 0",
        "{'a': 1}.all(oldSelf, v, v > 0)",
        "self.n > 0 // oldSelf",
        "'oldSelf' != ''",
    ] {
        let ast = crate::syntax::parse_ast(rule).unwrap();
        assert_eq!(
            ast.as_ast().references_old_self(),
            run(rule).unwrap().uses_old_self,
            "{rule}"
        );
    }
}

#[test]
fn escaping_matches_the_apiserver() {
    for (name, ident) in [
        ("a.a", "a__dot__a"),
        ("a-a", "a__dash__a"),
        ("a__a", "a__underscores__a"),
        ("a.-/__a", "a__dot____dash____slash____underscores__a"),
        ("a._a", "a__dot___a"),
        ("a___a", "a__underscores___a"),
        ("a____a", "a__underscores____underscores__a"),
        ("a__dot__a", "a__underscores__dot__underscores__a"),
        ("_if", "_if"),
        ("self", "self"),
        ("if", "__if__"),
        ("-x", "__dash__x"),
    ] {
        assert!(
            escaped_is(name.as_bytes(), ident.as_bytes()),
            "{name} -> {ident}"
        );
    }
    for name in ["@", "1up", "👑", ""] {
        assert!(!escaped_is(name.as_bytes(), name.as_bytes()), "{name}");
    }
}
