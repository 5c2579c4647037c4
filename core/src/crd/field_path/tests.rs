use super::*;
use crate::model::{Property, Type};

const STR: Schema<'static> = Schema::of(Type::String);
const INNER_C: Schema<'static> = Schema {
    properties: &[
        Property {
            name: "c",
            required: false,
            schema: &STR,
        },
        Property {
            name: "c\u{7}",
            required: false,
            schema: &STR,
        },
    ],
    ..Schema::of(Type::Object)
};
const MAP: Schema<'static> = Schema {
    additional_properties: Some(&STR),
    ..Schema::of(Type::Object)
};
const MAP_OF_OBJ: Schema<'static> = Schema {
    additional_properties: Some(&INNER_C),
    ..Schema::of(Type::Object)
};
const LIST: Schema<'static> = Schema {
    items: Some(&INNER_C),
    ..Schema::of(Type::Array)
};
const FLAT: Schema<'static> = Schema {
    properties: &[Property {
        name: "flat",
        required: false,
        schema: &STR,
    }],
    ..Schema::of(Type::Object)
};
const ROOT: Schema<'static> = Schema {
    properties: &[
        Property {
            name: "a",
            required: false,
            schema: &INNER_C,
        },
        Property {
            name: "bbb.c",
            required: false,
            schema: &STR,
        },
        Property {
            name: "foo",
            required: false,
            schema: &MAP,
        },
        Property {
            name: "objs",
            required: false,
            schema: &MAP_OF_OBJ,
        },
        Property {
            name: "list",
            required: false,
            schema: &LIST,
        },
        Property {
            name: "white space",
            required: false,
            schema: &STR,
        },
        Property {
            name: "quote'd",
            required: false,
            schema: &STR,
        },
        Property {
            name: "back\\slash",
            required: false,
            schema: &STR,
        },
        Property {
            name: "",
            required: false,
            schema: &STR,
        },
    ],
    flatten: &[&FLAT],
    ..Schema::of(Type::Object)
};

fn err(path: &str) -> String {
    match valid_field_path(&ROOT, path) {
        Ok(()) => panic!("{path:?} should be invalid"),
        Err(e) => e.to_string(),
    }
}

fn norm(path: &str) -> String {
    normalize_field_path(&ROOT, path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

#[test]
fn valid_paths_and_their_normal_form() {
    for (path, want) in [
        (".a", "a"),
        (".a.c", "a.c"),
        ("['a']", "a"),
        ("['a'].c", "a.c"),
        (".a['c']", "a.c"),
        ("['bbb.c']", "bbb.c"),
        (".foo['k']", "foo[k]"),
        (".foo.k", "foo[k]"),
        (".foo['k.x']", "foo[k.x]"),
        (".foo['[k]']", "foo[[k]]"),
        (".objs['k'].c", "objs[k].c"),
        (".objs.k.c", "objs[k].c"),
        (".white space", "white space"),
        (".quote'd", "quote'd"),
        ("['quote\\'d']", "quote'd"),
        ("['back\\\\slash']", "back\\slash"),
        (".a['c\\a']", "a.c\u{7}"),
        ("['']", ""),
        (".flat", "flat"),
        ("['flat']", "flat"),
        (".foo..", "foo[.]"),
        ("", ""),
    ] {
        assert_eq!(norm(path), want, "{path:?}");
    }
}

#[test]
fn invalid_paths_give_the_apiserver_texts() {
    for (path, want) in [
        (".nope", "does not refer to a valid field"),
        (".a.nope", "does not refer to a valid field"),
        (".a.c.d", "does not refer to a valid field"),
        (".list.a", "does not refer to a valid field"),
        (".list['a']", "does not refer to a valid field"),
        ("..", "does not refer to a valid field"),
        (".a..c", "does not refer to a valid field"),
        (". a", "does not refer to a valid field"),
        (".list[0]", "expected single quoted string but got 0"),
        (".foo[k]", "expected single quoted string but got k"),
        (".foo[\"k\"]", "expected single quoted string but got \"k\""),
        ("['a", "expected single quoted string but got 'a"),
        ("[']", "expected single quoted string but got ']"),
        ("[]", "expected single quoted string but got ]"),
        (".", "unexpected end of JSON path"),
        ("[", "unexpected end of JSON path"),
        (".a.", "unexpected end of JSON path"),
        (".foo.", "unexpected end of JSON path"),
        ("['a'", "unexpected end of JSON path"),
        ("['a'.c", "expected ] but got ."),
        ("['a']]", "expected [ or . but got: ]"),
        ("a", "expected [ or . but got: a"),
        ("   ", "expected [ or . but got:    "),
        (".a c", "does not refer to a valid field"),
        (
            "['a\\x']",
            "invalid string literal: invalid escape char \\x",
        ),
        (
            "['\\q\\é']",
            "invalid string literal: invalid escape char \\é",
        ),
    ] {
        assert_eq!(err(path), want, "{path:?}");
    }
}

#[test]
fn escape_check_comes_before_the_lookup_and_lookup_before_the_bracket() {
    // An invalid escape in a name that does not exist: the escape is reported.
    assert_eq!(
        err("['nope\\z'"),
        "invalid string literal: invalid escape char \\z"
    );
    // A name that does not exist with a missing `]`: the lookup fails first.
    assert_eq!(err("['nope'x"), "does not refer to a valid field");
}

#[test]
fn array_notation_can_be_disabled() {
    assert_eq!(
        resolve_field_path_with(&ROOT, "['a']", false).map(|_| ()),
        Err(FieldPathError::ArrayNotation)
    );
    assert!(resolve_field_path_with(&ROOT, ".a.c", false).is_ok());
}

#[test]
fn resolves_to_the_schema_the_path_names() {
    let s = resolve_field_path(&ROOT, ".objs['k']").expect("valid");
    assert!(core::ptr::eq(s, &INNER_C));
    let s = resolve_field_path(&ROOT, "").expect("valid");
    assert!(core::ptr::eq(s, &ROOT));
}

#[test]
fn works_in_const_evaluation() {
    const OK: bool = valid_field_path(&ROOT, ".a['c']").is_ok();
    const BAD: bool = valid_field_path(&ROOT, ".list[0]").is_err();
    const _: () = assert!(OK && BAD);
    const MSG_LEN: usize = {
        let mut buf = Buf::<128>::new();
        match valid_field_path(&ROOT, ".list[0]") {
            Err(e) => e.push_to(&mut buf),
            Ok(()) => panic!("valid"),
        }
        buf.as_str().len()
    };
    assert_eq!(MSG_LEN, "expected single quoted string but got 0".len());
}

#[test]
fn message_is_the_fixed_part() {
    let e = FieldPathError::ExpectedCloseBracket("x");
    assert_eq!(e.message(), "expected ] but got ");
    assert_eq!(e.token(), Some("x"));
}

/// An object with one string field `a`, the node of [`check_field_path`]'s cases.
const ONE_FIELD: Schema<'static> = Schema {
    properties: &[Property {
        name: "a",
        required: false,
        schema: &STR,
    }],
    ..Schema::of(Type::Object)
};

// The check runs in const evaluation, where the derive puts it.
const _: () = assert!(check_field_path(&ONE_FIELD, ".a").is_ok());
const _: () = assert!(check_field_path(&ONE_FIELD, "['a']").is_ok());
const _: () = assert!(check_field_path(&ONE_FIELD, "").is_ok());

/// The message the derive's const item panics with.
fn rejection(path: &str) -> String {
    match check_field_path(&ONE_FIELD, path) {
        Ok(()) => panic!("{path} passes"),
        Err(m) => m.as_str().to_owned(),
    }
}

#[test]
fn check_of_an_unknown_field_gives_the_apiserver_text() {
    assert!(rejection(".nope").starts_with(
        "fieldPath: Invalid value: \".nope\": must be a valid path: does not refer to a valid field"
    ));
}

#[test]
fn check_of_a_list_index_is_rejected() {
    assert!(
        rejection(".a[0]")
            .contains("must be a valid path: expected single quoted string but got 0")
    );
}
