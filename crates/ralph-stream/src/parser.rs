//! What every agent parser shares: the event callback, text joining, reporting lines
//! that are no usable event, and small readers of nested JSON fields.

use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Next;
use crate::json::Scratch;
use crate::json::Span;
use crate::json::Walked;
use crate::json::walk;

/// The callback parsers hand their events to.
pub(crate) type Emit<'e> = dyn FnMut(&AgentEvent<'_>) + 'e;

/// Joins decoded strings with `sep`. One string without escapes stays borrowed from the
/// line; anything else is built in the scratch buffer.
pub(crate) fn text_of<'a>(texts: &[JsonStr<'a>], sep: &str, scratch: &mut Scratch) -> Span<'a> {
    match texts {
        [] => Span::Line(""),
        [one] => one.decode_into(scratch),
        many => {
            let start = scratch.len();
            for (i, text) in many.iter().enumerate() {
                if i > 0 {
                    scratch.push_str(sep);
                }
                append(*text, scratch);
            }
            Span::Scratch(start..scratch.len())
        }
    }
}

/// Reads one event line: its kind (from its `type`) and the fields `read_field` keeps, or
/// `None` after reporting a line that is no usable event (see [`typed`]).
pub(crate) fn read_event<'a, K: Copy, F: Default>(
    line: &'a [u8],
    emit: &mut Emit<'_>,
    classify: impl FnOnce(JsonStr<'a>) -> K,
    mut read_field: impl FnMut(K, JsonStr<'a>, &mut Cursor<'a>, &mut F) -> Result<Next, Malformed>,
) -> Option<(K, F)> {
    let mut fields = F::default();
    let walked = walk(line, classify, |kind, key, c| {
        read_field(kind, key, c, &mut fields)
    });
    typed(walked, line, emit).map(|kind| (kind, fields))
}

/// The kind of a walked line, or `None` after reporting a line that is no usable event:
/// not JSON (or broken off mid-way, so the event is lost) is a non-JSON line, JSON
/// without a string `type` an unknown event.
pub(crate) fn typed<K>(walked: Walked<K>, line: &[u8], emit: &mut Emit<'_>) -> Option<K> {
    match walked {
        Walked::Typed(kind) => Some(kind),
        Walked::NotJson | Walked::Broken(_) => {
            emit(&AgentEvent::NonJson {
                line: String::from_utf8_lossy(line),
            });
            None
        }
        Walked::Untyped => {
            emit(&AgentEvent::Unknown {
                event_type: "".into(),
            });
            None
        }
    }
}

/// Emits an unknown event of sub-type `sub` under `parent` (`parent/sub`), built in the
/// scratch buffer.
pub(crate) fn unknown_sub(
    parent: &str,
    sub: JsonStr<'_>,
    scratch: &mut Scratch,
    emit: &mut Emit<'_>,
) {
    let start = scratch.len();
    let _ = write!(scratch, "{parent}/{}", sub.decode());
    emit(&AgentEvent::Unknown {
        event_type: scratch.as_str()[start..].into(),
    });
}

/// A count that does not fit a `u32` saturates rather than wrapping.
pub(crate) fn saturate(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Reads the string field `name` of an object value (`{"message": "..."}`); anything else
/// reads as `None`.
pub(crate) fn read_string_field<'a>(
    c: &mut Cursor<'a>,
    name: &str,
) -> Result<Option<JsonStr<'a>>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut value = None;
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq(name) {
            value = c.read_str()?;
        } else {
            c.skip()?;
        }
    }
    Ok(value)
}

/// Reads an array of strings; elements of other types are left out.
pub(crate) fn read_strings<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    let mut out = Vec::new();
    let Some(mut array) = c.enter_array()? else {
        return Ok(out);
    };
    while c.next_element(&mut array)? {
        if let Some(s) = c.read_str()? {
            out.push(s);
        }
    }
    Ok(out)
}

/// Copies a raw JSON value into `{"<key>":<raw>}` in the scratch buffer: the arguments of
/// a tool whose agent reports them as separate fields.
pub(crate) fn wrap_raw<'a>(key: &str, raw: Option<&[u8]>, scratch: &mut Scratch) -> Span<'a> {
    let Some(raw) = raw else {
        return Span::Line("{}");
    };
    let start = scratch.len();
    let _ = write!(scratch, "{{\"{key}\":");
    scratch.push_str(&String::from_utf8_lossy(raw));
    scratch.push_str("}");
    Span::Scratch(start..scratch.len())
}

/// Appends the decoded `s` to the scratch buffer (where `decode_into` leaves it unless it
/// needed no decoding).
pub(crate) fn append(s: JsonStr<'_>, scratch: &mut Scratch) {
    if let Span::Line(plain) = s.decode_into(scratch) {
        scratch.push_str(plain);
    }
}

/// Reads the integer field `name` of an object value; anything else reads as `None`.
pub(crate) fn read_u64_field(c: &mut Cursor<'_>, name: &str) -> Result<Option<u64>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut value = None;
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq(name) {
            value = c.read_u64()?;
        } else {
            c.skip()?;
        }
    }
    Ok(value)
}

/// Reads the number field `name` of an object value; anything else reads as `None`.
pub(crate) fn read_f64_field(c: &mut Cursor<'_>, name: &str) -> Result<Option<f64>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut value = None;
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq(name) {
            value = c.read_f64()?;
        } else {
            c.skip()?;
        }
    }
    Ok(value)
}

/// The text of a `content` value: a plain string, or the `text` of every
/// `{"type":"text"}` block of an array (pi's message content, Claude's tool results).
pub(crate) fn read_text_blocks<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        return Ok(c.read_str()?.into_iter().collect());
    }
    let mut texts = Vec::new();
    let Some(mut array) = c.enter_array()? else {
        return Ok(texts);
    };
    while c.next_element(&mut array)? {
        let Some(mut block) = c.enter_object()? else {
            continue;
        };
        let (mut kind, mut text) = (None, None);
        while let Some(key) = c.next_key(&mut block)? {
            if key.eq("type") {
                kind = c.read_str()?;
            } else if key.eq("text") {
                text = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        if let (Some(kind), Some(text)) = (kind, text)
            && kind.eq("text")
        {
            texts.push(text);
        }
    }
    Ok(texts)
}
