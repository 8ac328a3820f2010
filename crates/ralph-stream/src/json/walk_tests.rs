use super::*;

/// The walk of `line`, the keys it handed over and its type.
fn keys(line: &str) -> (Walked<'_, u8>, Vec<String>, Option<String>) {
    let (walked, seen) = walk(
        line.as_bytes(),
        |ty| ty.decode().len() as u8,
        |_, key, c, seen: &mut Vec<String>| {
            seen.push(String::from_utf8_lossy(key).into_owned());
            c.skip()
        },
    );
    let ty = match &walked {
        Walked::Typed(ty, ..) => Some(ty.decode().into_owned()),
        _ => None,
    };
    (walked, seen, ty)
}

fn fields(line: &str) -> Vec<String> {
    match keys(line) {
        (Walked::Typed(..), seen, _) => seen,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn fields_before_the_type_are_replayed_after_it() {
    assert_eq!(fields(r#"{"a":{"x":1},"type":"abc","b":[2]}"#), ["a", "b"]);
}

#[test]
fn the_last_type_wins_and_the_fields_are_read_for_it() {
    let line = r#"{"a":1,"type":"abc","b":2,"t\u0079pe":"abcd","c":3}"#;
    let (walked, _, ty) = keys(line);
    assert_eq!(ty.as_deref(), Some("abcd"));
    assert!(matches!(walked, Walked::Typed(_, 4)), "{walked:?}");
    assert_eq!(fields(line), ["a", "b", "c"]);
    assert_eq!(keys(r#"{"type":"abc","type":5}"#).0, Walked::Untyped);
    assert_eq!(fields(r#"{"type":5,"x":1,"type":"ab"}"#), ["x"]);
}

#[test]
fn lines_that_are_not_typed_objects_are_told_apart() {
    assert_eq!(keys("hello").0, Walked::NotJson);
    assert_eq!(keys("[1,2]").0, Walked::NotJson);
    assert_eq!(keys(r#"{"a":1}"#).0, Walked::Untyped);
    assert_eq!(keys(r#"{"type":5}"#).0, Walked::Untyped);
    assert_eq!(keys(r#"{"a":"#).0, Walked::NotJson);
    assert_eq!(keys(r#"{"type":"ab","a":[1,"#).0, Walked::NotJson);
}

#[test]
fn a_walk_from_a_line_start_stops_at_the_newline() {
    let walk = |bytes: &'static str| {
        let (walked, end) = walk_line_start(
            bytes.as_bytes(),
            |ty| ty.decode().len(),
            |_, _, c, (): &mut ()| c.skip(),
            &mut (),
        );
        (matches!(walked, Walked::Typed(..)), end)
    };
    assert_eq!(walk("{\"type\":\"ab\"} \n{\"next\":1}"), (true, 13));
    // Broken off at the newline: nothing of the next line is read into it.
    assert!(!walk("{\"type\":\"ab\",\n\"x\":1}").0);
    assert!(!walk("{\"type\":\"a\nb\"}").0);
    assert!(!walk("{\"type\":\"ab\",\"x\":[1,\n2]}").0);
    assert!(!walk("{\"type\":\"ab\",\"x\":{\"y\":\"\n\"}}").0);
}
