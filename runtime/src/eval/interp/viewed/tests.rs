//! The viewed evaluation on its edges: what it answers, and what it leaves to values.
use super::*;
use crate::model::Schema;

fn viewed(source: &str) -> ViewProgram {
    ViewProgram::plan(&Program::compile(source).unwrap()).unwrap()
}

#[test]
fn a_string_longer_than_a_request_is_left_to_the_interpreter() {
    let node = SchemaNode::of(Type::String);
    let p = viewed("self.contains('x')");
    assert_eq!(p.eval(ViewRef::Str("axb"), None, &node), Ok(true));
    let long = "x".repeat(MAX_REQUEST_SIZE_BYTES as usize);
    assert_eq!(
        p.eval(ViewRef::Str(&long), None, &node),
        Err(Miss::Unviewable)
    );
}

/// `filter`'s result is a list of which views know the length: `size` answers, and
/// nothing else does.
#[test]
fn the_size_of_a_filter_is_answered_on_views() {
    const ITEM: Schema<'static> = Schema::of(Type::String);
    const LIST: Schema<'static> = Schema {
        items: Some(&ITEM),
        ..Schema::of(Type::Array)
    };
    let node = SchemaNode::from_model(&LIST);
    let list = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let run = |source: &str, items: &[&str]| {
        let l = list(items);
        viewed(source).eval(ViewRef::List(&l), None, &node)
    };
    let at_most_one_a = "self.filter(x, x == 'a').size() <= 1";
    assert_eq!(run(at_most_one_a, &["a", "b"]), Ok(true));
    assert_eq!(run(at_most_one_a, &["a", "b", "a"]), Ok(false));
    assert_eq!(run(at_most_one_a, &[]), Ok(true));
    let two = "size(self.filter(x, x.startsWith('a'))) == 2";
    assert_eq!(run(two, &["ab", "b", "ac"]), Ok(true));
    let unique = "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0";
    assert_eq!(run(unique, &["a", "b"]), Ok(true));
    assert_eq!(run(unique, &["a", "b", "a"]), Ok(false));
    assert_eq!(
        run("self.map(x, x + 'z').size() == 2", &["a", "b"]),
        Err(Miss::Unknown)
    );
    assert_eq!(run("self.map(x, x).size() == 2", &["a", "b"]), Ok(true));
    // Its items are not known: a rule reading them is not planned for views (it would miss
    // on every object), and runs on values.
    for items_read in [
        "self.filter(x, x == 'a') == ['a']",
        "self.filter(x, x == 'a').all(x, x == 'a')",
        "'a' in self.filter(x, x == 'a')",
        "self.filter(x, x == 'a')[0] == 'a'",
        "[self.a, self.b].filter(x, x == 1).size() == 1",
        "self.map(x, x).size() == 2 && self.map(x, x) == self",
    ] {
        let p = Program::compile(items_read).unwrap();
        assert!(ViewProgram::plan(&p).is_none(), "{items_read}");
    }
    // A literal list of bools is kept whole: "exactly one of".
    let p = Program::compile("[has(self.a), has(self.b)].filter(x, x).size() == 1").unwrap();
    assert!(ViewProgram::plan(&p).is_some());
}

#[test]
fn errors_are_absorbed_by_the_other_side_of_and_and_or() {
    let node = SchemaNode::of(Type::Integer);
    let run = |source: &str| viewed(source).eval(ViewRef::Int(0), None, &node);
    assert_eq!(run("1 / self == 1 || true"), Ok(true));
    assert_eq!(run("false && 1 / self == 1"), Ok(false));
    assert_eq!(run("1 / self == 1 || false"), Err(Miss::Unknown));
    assert_eq!(
        run("9223372036854775807 + 1 + self > 0"),
        Err(Miss::Unknown)
    );
}
