//! What every agent parser shares: the parser trait and its one `parse_line`, the
//! event callback, text joining, reporting lines that are no usable event, and small
//! readers of nested JSON fields.

use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::event::Stop;
use crate::framer::Offer;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::LineIndex;
use crate::json::Malformed;
use crate::json::Read;
use crate::json::Scratch;
use crate::json::Span;
use crate::json::Walked;
use crate::json::fields;
use crate::json::walk_indexed;
use crate::json::walk_line_start;

/// Declares an agent's event kinds once: the enum, and for each kind the `type` names
/// (decoded) that mean it, from which `Kind::of` classifies a line. Several names may mean
/// one kind (`Ignored` collects the known types ralph has no use for).
macro_rules! event_kinds {
    (
        $vis:vis enum $kind:ident {
            $($(#[$doc:meta])* $variant:ident = $($name:literal)|+,)*
        }
    ) => {
        #[derive(Clone, Copy, Debug)]
        $vis enum $kind {
            $($(#[$doc])* $variant,)*
        }

        impl $crate::parser::EventKind for $kind {
            fn of(ty: &[u8]) -> Option<$kind> {
                Some(match ty {
                    $($($name)|+ => $kind::$variant,)*
                    _ => return None,
                })
            }
        }
    };
}
pub(crate) use event_kinds;

/// An agent's event kinds, each named by one or more `type` values (declared with
/// `event_kinds!`).
pub(crate) trait EventKind: Copy {
    /// The kind an event's decoded `type` names, or `None` for a type ralph does not
    /// know.
    fn of(ty: &[u8]) -> Option<Self>;
}

/// The callback parsers hand their events to.
pub(crate) type Emit<'e> = dyn FnMut(&AgentEvent<'_>) + 'e;

/// What one agent's lines mean: its event types, the fields ralph reads from them and
/// what tells its lines from other agents'. Each agent states it in its `fields.rs`.
pub(crate) trait Vocabulary {
    /// The event types this agent sends and ralph tells apart.
    type Kind: EventKind;
    /// What `read_field` keeps of one line, borrowed from it.
    type Fields<'a>: Default;
    /// How auto-detection recognises this agent's lines.
    const HINTS: &'static Hints;
    /// Whether a long line is worth indexing while it arrives (see `json/index.rs`):
    /// for agents whose long lines are mostly values the parser skips. Where they are
    /// text it reads, the index saves nothing and its scan costs.
    const INDEX_LONG_LINES: bool = false;

    /// The kind of an event by its decoded `type`, or `None` for a type ralph does not
    /// know.
    fn classify(ty: &[u8]) -> Option<Self::Kind> {
        Self::Kind::of(ty)
    }

    /// Reads the value of the top-level key `key` (decoded) of an event of kind `k`; the
    /// value must be consumed (read or skipped).
    fn read_field<'a>(
        &self,
        k: Self::Kind,
        key: &[u8],
        c: &mut Cursor<'a>,
        f: &mut Self::Fields<'a>,
    ) -> Read;

    /// Reads a top-level key of an event of a type this agent does not know: skipped,
    /// unless the agent reads something from every line.
    fn read_unknown<'a>(
        &self,
        _key: &[u8],
        c: &mut Cursor<'a>,
        _f: &mut Self::Fields<'a>,
    ) -> Result<(), Malformed> {
        c.skip()
    }
}

/// One agent's parser: what it does with the events its [`Vocabulary`] reads. The
/// walking, the reporting of lines that are no usable event and of unknown types are
/// shared ([`parse_line`]).
pub(crate) trait AgentParser: Vocabulary {
    /// Acts on one complete event, whose fields are `f` (lent, not moved: an agent's
    /// fields run to hundreds of bytes, and a line is handed on in several steps).
    fn on_event(&mut self, kind: Self::Kind, f: &mut Self::Fields<'_>, emit: &mut Emit<'_>);

    /// An event of a type this agent does not know: reported as such.
    fn on_unknown(&mut self, ty: JsonStr<'_>, _f: &mut Self::Fields<'_>, emit: &mut Emit<'_>) {
        emit(&AgentEvent::Unknown {
            event_type: ty.decode(),
        });
    }

    /// End of stream: emits whatever the parser still holds.
    fn finish(&mut self, _emit: &mut Emit<'_>) {}

    /// The buffer decoded strings of the current line go to.
    fn scratch(&mut self) -> &mut Scratch;
}

/// What tells an agent's lines apart from other agents' (see `crate::sniff`). A type
/// the agent's `classify` knows tells, unless it is one of `shared_types`.
#[derive(Debug)]
pub(crate) struct Hints {
    /// Event types other agents send too: they tell only with one of `keys`.
    pub(crate) shared_types: &'static [&'static [u8]],
    /// Top-level keys that this agent's events of a shared type carry and no other
    /// agent's event of that type does.
    pub(crate) keys: &'static [&'static [u8]],
    /// Prefixes of type names that tell even when `classify` does not know the type.
    pub(crate) type_prefixes: &'static [&'static [u8]],
}

/// Reads one line and hands its event to `parser`: a line that is not JSON (or breaks
/// off mid-way, so the event is lost) is reported as a non-JSON line, JSON without a
/// string `type` or with a type the agent does not know as an unknown event.
/// `index` has the ends of its objects and arrays, if they were found as it arrived.
pub(crate) fn parse_line<P: AgentParser>(
    parser: &mut P,
    line: &[u8],
    index: Option<&LineIndex>,
    emit: &mut Emit<'_>,
) {
    parser.scratch().clear();
    let mut fields = P::Fields::default();
    let classify = |ty: JsonStr<'_>| P::classify(&ty.name());
    let walked = walk_indexed(line, index, classify, read(parser), &mut fields);
    hand_over(parser, walked, &mut fields, line, emit);
}

/// Reads the line that starts `bytes` (the rest of a chunk) without looking for its end
/// first: JSON cannot hold a raw newline, so the object's end is near the line's. When
/// the line is a JSON object followed by blanks and a newline, no longer than
/// `max_line`, handles it as [`parse_line`] would and returns its length (up to the
/// newline); otherwise returns `None` and handles nothing: the caller frames the line.
/// Saves a pass over every line, which is what skipping a long line costs.
pub(crate) fn parse_line_start<P: AgentParser>(
    parser: &mut P,
    bytes: &[u8],
    max_line: usize,
    emit: &mut Emit<'_>,
) -> Offer {
    parser.scratch().clear();
    let mut fields = P::Fields::default();
    let classify = |ty: JsonStr<'_>| P::classify(&ty.name());
    let (walked, end) = walk_line_start(bytes, classify, read(parser), &mut fields);
    let unfinished = if P::INDEX_LONG_LINES {
        Offer::Track
    } else {
        Offer::Frame
    };
    if matches!(walked, Walked::NotJson) {
        return unfinished;
    }
    let Some(blanks) = bytes[end..]
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t' | b'\r'))
    else {
        return unfinished;
    };
    let len = end + blanks;
    let line = &bytes[..len];
    // As the framer cuts it: without the newline and one carriage return before it.
    let framed = line.strip_suffix(b"\r").unwrap_or(line);
    if bytes[len] != b'\n' || framed.len() > max_line {
        return unfinished;
    }
    hand_over(parser, walked, &mut fields, framed, emit);
    Offer::Took(len)
}

/// The field reader of `parser`'s vocabulary, for known and unknown types.
fn read<'p, 'a, P: AgentParser>(
    parser: &'p P,
) -> impl FnMut(Option<P::Kind>, &[u8], &mut Cursor<'a>, &mut P::Fields<'a>) -> Read + 'p {
    |kind, key, c, fields| match kind {
        Some(kind) => parser.read_field(kind, key, c, fields),
        None => parser.read_unknown(key, c, fields),
    }
}

/// Hands a walked line to `parser`, or reports it.
fn hand_over<P: AgentParser>(
    parser: &mut P,
    walked: Walked<'_, Option<P::Kind>>,
    fields: &mut P::Fields<'_>,
    line: &[u8],
    emit: &mut Emit<'_>,
) {
    match walked {
        Walked::Typed(_, Some(kind)) => parser.on_event(kind, fields, emit),
        Walked::Typed(ty, None) => parser.on_unknown(ty, fields, emit),
        Walked::NotJson => emit(&AgentEvent::NonJson {
            line: String::from_utf8_lossy(line),
        }),
        Walked::Untyped => emit(&AgentEvent::Unknown {
            event_type: "".into(),
        }),
    }
}

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

/// How a message ended, by its agent's decoded stop reason and the agent's table of
/// them; a reason not in the table is [`Stop::Other`].
pub(crate) fn stop_of(reason: JsonStr<'_>, table: &[(&[u8], Stop)]) -> Stop {
    let reason = reason.name();
    table
        .iter()
        .find(|(name, _)| **name == *reason)
        .map_or(Stop::Other, |(_, stop)| *stop)
}

/// A count that does not fit a `u32` saturates rather than wrapping.
pub(crate) fn saturate(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Reads the field `name` of an object value with `read` (the last one, if the key
/// repeats); anything else reads as `None`: `field_of(c, b"message", Cursor::read_str)`.
pub(crate) fn field_of<'a, T>(
    c: &mut Cursor<'a>,
    name: &[u8],
    read: impl Fn(&mut Cursor<'a>) -> Result<Option<T>, Malformed>,
) -> Result<Option<T>, Malformed> {
    let mut value = None;
    c.object(|c, key| {
        if *key.name() == *name {
            value = read(c)?;
        } else {
            c.skip()?;
        }
        Ok(())
    })?;
    Ok(value)
}

/// Reads an array of strings; elements of other types are left out.
pub(crate) fn read_strings<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    let mut out = Vec::new();
    c.array(|c| {
        out.extend(c.read_str()?);
        Ok(())
    })?;
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

/// The text of a `content` value: a plain string, or the `text` of every
/// `{"type":"text"}` block of an array (pi's message content, Claude's tool results).
pub(crate) fn read_text_blocks<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        return Ok(c.read_str()?.into_iter().collect());
    }
    let mut texts = Vec::new();
    c.array(|c| {
        let (mut kind, mut text) = (None, None);
        fields!(c, {
            b"type" => kind = c.read_str()?,
            b"text" => text = c.read_str()?,
        })?;
        if let (Some(kind), Some(text)) = (kind, text)
            && *kind.name() == *b"text"
        {
            texts.push(text);
        }
        Ok(())
    })?;
    Ok(texts)
}

/// What the decoder needs of a parser, whatever its agent: one dispatch in `decoder.rs`
/// reaches every parser through it.
pub(crate) trait Lines {
    /// Parses one line (without its newline); `index` has the ends of its objects and
    /// arrays, if they were found as it arrived.
    fn line(&mut self, line: &[u8], index: Option<&LineIndex>, emit: &mut Emit<'_>);
    /// Parses the line `bytes` starts with, if it can tell where it ends (see
    /// [`parse_line_start`]): [`Offer::Took`] its length.
    fn line_start(&mut self, _bytes: &[u8], _max_line: usize, _emit: &mut Emit<'_>) -> Offer {
        Offer::Frame
    }
    /// End of stream.
    fn end(&mut self, emit: &mut Emit<'_>);
}

impl<P: AgentParser> Lines for P {
    fn line(&mut self, line: &[u8], index: Option<&LineIndex>, emit: &mut Emit<'_>) {
        parse_line(self, line, index, emit);
    }

    fn line_start(&mut self, bytes: &[u8], max_line: usize, emit: &mut Emit<'_>) -> Offer {
        parse_line_start(self, bytes, max_line, emit)
    }

    fn end(&mut self, emit: &mut Emit<'_>) {
        self.finish(emit);
    }
}

/// A message that failed with `error` before any text: what every agent's tests expect
/// of a failed model call.
#[cfg(test)]
pub(crate) fn failed_message(error: &'static str) -> AgentEvent<'static> {
    AgentEvent::MessageFinished {
        text: "".into(),
        stop: Stop::Error,
        error: Some(error.into()),
    }
}

/// A top-level tool call's start, as the agents' unit tests expect it.
#[cfg(test)]
pub(crate) fn tool_started(id: &str, name: &str, args: &str) -> AgentEvent<'static> {
    AgentEvent::ToolCallStarted {
        id: id.to_owned().into(),
        name: name.to_owned().into(),
        args: args.to_owned().into(),
        parent_id: None,
    }
}

/// A named tool call's end, as the agents' unit tests expect it.
#[cfg(test)]
pub(crate) fn tool_finished(
    id: &str,
    name: &str,
    output: &str,
    is_error: bool,
) -> AgentEvent<'static> {
    AgentEvent::ToolCallFinished {
        id: id.to_owned().into(),
        name: Some(name.to_owned().into()),
        output: output.to_owned().into(),
        is_error,
    }
}

/// The events `parser` makes of `input`'s lines, the end of the stream included: what
/// the agents' unit tests compare.
#[cfg(test)]
pub(crate) fn events_of(mut parser: impl Lines, input: &str) -> Vec<AgentEvent<'static>> {
    let mut out = Vec::new();
    let mut push = |e: &AgentEvent<'_>| out.push(e.clone().into_owned());
    for line in input.lines() {
        parser.line(line.as_bytes(), None, &mut push);
    }
    parser.end(&mut push);
    out
}
