//! Walking an event object's top-level keys once its `type` is known.

use super::Cursor;
use super::JsonStr;
use super::Malformed;

/// What a field handler wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Keep reading keys.
    More,
    /// Everything needed is in hand: stop reading this line.
    Done,
}

/// The result of walking one line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Walked<K> {
    /// The line is not a JSON object (or breaks off before its type is known).
    NotJson,
    /// A JSON object without a string `type` key.
    Untyped,
    /// A typed event whose fields were handed to the handler.
    Typed(K),
    /// A typed event whose fields broke off mid-way: the event is lost.
    Broken(K),
}

/// Walks the top-level object of `line`. `classify` turns the `type` value into the
/// caller's event kind; `field` is then called with every other top-level key and a
/// cursor positioned on its value, which the handler must consume (or return
/// [`Next::Done`] to stop early).
///
/// The event type usually comes first, so fields are handled in place as they are read.
/// Keys that come before the type are kept as raw slices and handed over once it is
/// known: key order is a habit of the agents, not a promise.
pub(crate) fn walk<'a, K: Copy>(
    line: &'a [u8],
    classify: impl FnOnce(JsonStr<'a>) -> K,
    mut field: impl FnMut(K, JsonStr<'a>, &mut Cursor<'a>) -> Result<Next, Malformed>,
) -> Walked<K> {
    let mut cursor = Cursor::new(line);
    let Ok(Some(mut object)) = cursor.enter_object() else {
        return Walked::NotJson;
    };
    let mut deferred: Vec<(JsonStr<'a>, &'a [u8])> = Vec::new();
    let kind = loop {
        match cursor.next_key(&mut object) {
            Ok(Some(key)) if key.eq("type") => match cursor.read_str() {
                Ok(Some(ty)) => break classify(ty),
                Ok(None) => {}
                Err(Malformed) => return Walked::NotJson,
            },
            Ok(Some(key)) => match cursor.read_raw() {
                Ok(raw) => deferred.push((key, raw)),
                Err(Malformed) => return Walked::NotJson,
            },
            Ok(None) => return Walked::Untyped,
            Err(Malformed) => return Walked::NotJson,
        }
    };
    for (key, raw) in deferred {
        match field(kind, key, &mut Cursor::new(raw)) {
            Ok(Next::More) => {}
            Ok(Next::Done) => return Walked::Typed(kind),
            Err(Malformed) => return Walked::Broken(kind),
        }
    }
    loop {
        let step = cursor.next_key(&mut object).and_then(|key| match key {
            Some(key) => field(kind, key, &mut cursor),
            None => Ok(Next::Done),
        });
        match step {
            Ok(Next::More) => {}
            Ok(Next::Done) => return Walked::Typed(kind),
            Err(Malformed) => return Walked::Broken(kind),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(line: &str) -> (Walked<u8>, Vec<String>) {
        let mut seen = Vec::new();
        let walked = walk(
            line.as_bytes(),
            |ty| ty.raw().len() as u8,
            |_, key, c| {
                seen.push(key.decode().into_owned());
                if key.eq("stop") {
                    return Ok(Next::Done);
                }
                c.skip().map(|()| Next::More)
            },
        );
        (walked, seen)
    }

    #[test]
    fn fields_before_the_type_are_replayed_after_it() {
        let (walked, seen) = keys(r#"{"a":{"x":1},"type":"abc","b":[2]}"#);
        assert_eq!(walked, Walked::Typed(3));
        assert_eq!(seen, ["a", "b"]);
    }

    #[test]
    fn a_handler_can_stop_before_the_rest_of_the_line() {
        let (walked, seen) = keys(r#"{"type":"t","stop":1,"rest":"never read"#);
        assert_eq!(walked, Walked::Typed(1));
        assert_eq!(seen, ["stop"]);
    }

    #[test]
    fn lines_that_are_not_typed_objects_are_told_apart() {
        assert_eq!(keys("hello").0, Walked::NotJson);
        assert_eq!(keys("[1,2]").0, Walked::NotJson);
        assert_eq!(keys(r#"{"a":1}"#).0, Walked::Untyped);
        assert_eq!(keys(r#"{"type":5}"#).0, Walked::Untyped);
        assert_eq!(keys(r#"{"a":"#).0, Walked::NotJson);
        assert_eq!(keys(r#"{"type":"ab","a":[1,"#).0, Walked::Broken(2));
    }
}
