//! Walking an event object's top-level keys once its `type` is known.

use super::Cursor;
use super::JsonStr;
use super::LineIndex;
use super::Malformed;

/// The result of walking one line. The fields the handler read are in the `F` the
/// walk was given: filled in place, so the (large) fields of an agent's event are never
/// moved while a line is handed on.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Walked<'a, K> {
    /// The line is not a JSON object (or breaks off before its end).
    NotJson,
    /// A JSON object whose (last) `type` is not a string, or that has none.
    Untyped,
    /// A typed event: its `type` and the kind `classify` made of it.
    Typed(JsonStr<'a>, K),
}

/// Walks the top-level object of `line` as a JSON parser reads it. `classify` turns the
/// `type` value into the caller's event kind; `field` is then called with every other
/// top-level key's decoded name and a cursor positioned on its value, which the handler
/// must consume, filling in the fields `F`.
///
/// The event type usually comes first, so fields are handled in place as they are read.
/// Keys that come before the type are kept as raw slices and handed over once it is
/// known: key order is a habit of the agents, not a promise. The whole object is read,
/// so a later duplicate `type` is seen: the last one wins, as in JSON parsers, and the
/// fields are then read again for it (rare enough that nothing is buffered for it).
pub(crate) fn walk<'a, K: Copy, F: Default>(
    line: &'a [u8],
    classify: impl Fn(JsonStr<'a>) -> K,
    field: impl FnMut(K, &[u8], &mut Cursor<'a>, &mut F) -> Result<(), Malformed>,
) -> (Walked<'a, K>, F) {
    let mut fields = F::default();
    let walked = walk_indexed(line, None, classify, field, &mut fields);
    (walked, fields)
}

/// [`walk`] with the ends of the line's objects and arrays, found as it arrived, into
/// `fields` (as [`F::default`] to begin with).
pub(crate) fn walk_indexed<'a, K: Copy, F: Default>(
    line: &'a [u8],
    index: Option<&'a LineIndex>,
    classify: impl Fn(JsonStr<'a>) -> K,
    field: impl FnMut(K, &[u8], &mut Cursor<'a>, &mut F) -> Result<(), Malformed>,
    fields: &mut F,
) -> Walked<'a, K> {
    walk_with(Cursor::indexed(line, index), line, classify, field, fields).0
}

/// Like [`walk`], for a line whose end is not known yet: `bytes` runs from the line's
/// start to wherever (the end of a chunk), and the walk reads no further than the line's
/// first raw newline. Also returns where the object ended.
pub(crate) fn walk_line_start<'a, K: Copy, F: Default>(
    bytes: &'a [u8],
    classify: impl Fn(JsonStr<'a>) -> K,
    field: impl FnMut(K, &[u8], &mut Cursor<'a>, &mut F) -> Result<(), Malformed>,
    fields: &mut F,
) -> (Walked<'a, K>, usize) {
    walk_with(Cursor::on_line_start(bytes), bytes, classify, field, fields)
}

fn walk_with<'a, K: Copy, F: Default>(
    mut cursor: Cursor<'a>,
    bytes: &'a [u8],
    classify: impl Fn(JsonStr<'a>) -> K,
    mut field: impl FnMut(K, &[u8], &mut Cursor<'a>, &mut F) -> Result<(), Malformed>,
    fields: &mut F,
) -> (Walked<'a, K>, usize) {
    let Ok(Some(mut object)) = cursor.enter_object() else {
        return (Walked::NotJson, 0);
    };
    let mut deferred: Vec<(JsonStr<'a>, &'a [u8])> = Vec::new();
    // The first string type, whose kind the fields are read for as they come.
    let mut first: Option<(JsonStr<'a>, K)> = None;
    // The last `type` value: `Some(None)` when it is not a string.
    let mut last: Option<Option<JsonStr<'a>>> = None;
    let mut retyped = false;
    loop {
        let key = match cursor.next_key(&mut object) {
            Ok(Some(key)) => key,
            Ok(None) => break,
            Err(Malformed) => return (Walked::NotJson, 0),
        };
        let name = key.name();
        let step = if *name == *b"type" {
            cursor.read_str().and_then(|ty| {
                last = Some(ty);
                match (ty, first) {
                    (Some(ty), None) => {
                        let kind = classify(ty);
                        first = Some((ty, kind));
                        deferred.drain(..).try_for_each(|(key, raw)| {
                            field(kind, &key.name(), &mut Cursor::new(raw), fields)
                        })
                    }
                    (_, Some(_)) => {
                        retyped = true;
                        Ok(())
                    }
                    (None, None) => Ok(()),
                }
            })
        } else {
            match first {
                Some((_, kind)) if !retyped => field(kind, &name, &mut cursor, fields),
                Some(_) => cursor.skip(),
                None => cursor.read_raw().map(|raw| deferred.push((key, raw))),
            }
        };
        if step.is_err() {
            return (Walked::NotJson, 0);
        }
    }
    let end = cursor.position();
    let walked = match (last, first) {
        (Some(Some(ty)), Some((_, kind))) if !retyped => Walked::Typed(ty, kind),
        (Some(Some(ty)), _) => reread(&bytes[..end], ty, classify(ty), field, fields),
        _ => Walked::Untyped,
    };
    (walked, end)
}

/// Reads the fields of the object `line` again, from none, for the kind of its last
/// `type`.
fn reread<'a, K: Copy, F: Default>(
    line: &'a [u8],
    ty: JsonStr<'a>,
    kind: K,
    mut field: impl FnMut(K, &[u8], &mut Cursor<'a>, &mut F) -> Result<(), Malformed>,
    fields: &mut F,
) -> Walked<'a, K> {
    *fields = F::default();
    let mut cursor = Cursor::new(line);
    let read = cursor.object(|c, key| match &*key.name() {
        b"type" => c.skip(),
        name => field(kind, name, c, fields),
    });
    match read {
        Ok(_) => Walked::Typed(ty, kind),
        Err(Malformed) => Walked::NotJson,
    }
}

#[cfg(test)]
#[path = "walk_tests.rs"]
mod tests;
