//! ralph-orchestrator's legacy event tags: `<event topic="build.done">payload</event>`
//! written in an agent's answer, read as events the agent published.
//!
//! `ralph emit` is how an agent publishes an event. ralph-orchestrator also read these
//! tags out of the agent's output, and hat instructions written for it tell the agent to
//! print them: ignored, the next hat would never run and the loop would spend its
//! iterations for nothing. So the loop reads them too, from the text of the agent's own
//! finished assistant messages only (never its thinking, a tool's input or output, a
//! user or steering message), and the machine credits them to the hat after the events
//! its agent emitted (see `Machine::finish`).
//!
//! What counts as a tag:
//! - `<event topic="TOPIC">PAYLOAD</event>` (or `topic='TOPIC'`); other attributes are
//!   allowed and ignored. The payload is text, trimmed of the white space around it (the
//!   tags are usually written on lines of their own); an empty one is no payload.
//! - TOPIC and PAYLOAD are checked as `ralph emit TOPIC PAYLOAD` checks them: a tag they
//!   would refuse is reported (`Err`), not published.
//! - Not a tag: one that starts inside a quotation, where an agent shows a tag rather than
//!   sends one (a fenced or indented code block, a code span, a blockquote line: see
//!   `quotes`); one never closed (the text that follows is read on); `<event topic="x"/>`, which
//!   ralph-orchestrator never read as an event either; an opening without a quoted
//!   `topic`.
//! - From an agent whose output is plain text, a tag its prompt holds is refused as
//!   many times as the prompt holds it (`echo`): the agent may have printed its prompt.

mod echo;
mod quotes;

use std::ops::Range;

use crate::event::{EmitError, Event, event_from_args};
use crate::inbox::excerpt;
pub use echo::read_tags_past_prompt;
use quotes::Quotes;

/// How a tag starts: `<event` and then white space.
const OPEN: &str = "<event";

/// How a tag ends.
const CLOSE: &str = "</event>";

/// Longest opening tag read, `<event` to `>`: a topic is at most 128 bytes, so anything
/// longer is no tag, and stopping there keeps a message full of unclosed quotes from
/// being read over and over.
const MAX_OPENING_BYTES: usize = 1024;

/// Characters of a refused tag's topic kept: a valid topic is at most 128 bytes, a
/// refused one anything up to the opening tag's limit, and it is only shown.
pub(crate) const REFUSED_TOPIC_CHARS: usize = 60;

/// What one tag stood for: the event, or why it was not published.
pub type Tag = Result<Event, RefusedTag>;

/// A well-formed tag that publishes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedTag {
    /// Its topic, cut to its first characters when long.
    pub topic: String,
    pub why: Refusal,
}

/// Why a well-formed tag publishes nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `ralph emit` would refuse its topic or payload.
    #[error("{}", emit_reason(.0))]
    Emit(EmitError),
    /// The prompt holds the same tag, and the agent's output is plain text (see
    /// [`read_tags_past_prompt`]).
    #[error(
        "the prompt ralph sent holds the same tag, so from an agent whose output is plain \
         text it is taken for the prompt printed back; publish with `ralph emit`, or write \
         a payload of your own"
    )]
    InPrompt,
    /// The reason as a ralph killed before its iteration ended wrote it down
    /// (`answer-tags.jsonl`, read back by `--continue`).
    #[error("{0}")]
    Recorded(String),
}

/// Why `ralph emit` refuses, less the topic when that is the reason: a notice names the
/// tag's topic already.
fn emit_reason(error: &EmitError) -> String {
    match error {
        EmitError::Topic { reason, .. } => reason.to_string(),
        other => other.to_string(),
    }
}

/// Where the events read from tags start among an iteration's `events` (as its record
/// keeps them, `from_tags` of them from tags): the tags' events are taken after the
/// emitted ones, so they are the last; a count beyond the events marks them all.
pub fn first_from_tag(events: usize, from_tags: u32) -> usize {
    events.saturating_sub(usize::try_from(from_tags).unwrap_or(usize::MAX))
}

/// What each tag in `text` (one finished assistant message) stands for, in order.
pub fn read_tags(text: &str) -> Vec<Tag> {
    read(text).into_iter().map(|(_, tag)| tag).collect()
}

/// Each tag in `text`, in order: where it is (`<event` to `</event>`) and what it stands
/// for.
fn read(text: &str) -> Vec<(Range<usize>, Tag)> {
    let quotes = Quotes::of(text);
    let mut tags = Vec::new();
    let mut at = 0;
    // Where the next `</event>` is, once found: tags opened before it all look for the
    // same one, so it is searched for once, not once per opening.
    let mut close_at: Option<usize> = None;
    while let Some(start) = find_opening(text, at, &quotes) {
        let attributes = start + OPEN.len();
        at = attributes;
        let Some((topic, body)) = opening(text, attributes) else {
            continue;
        };
        let close = match close_at.filter(|&c| c >= body) {
            Some(close) => close,
            None => match text[body..].find(CLOSE) {
                Some(found) => body + found,
                // Nothing later is closed either.
                None => break,
            },
        };
        close_at = Some(close);
        // A tag opened before this one closed: this one was never closed, and the next
        // is read on its own.
        if let Some(next) = find_opening(&text[..close], body, &quotes) {
            at = next;
            continue;
        }
        let payload = text[body..close].trim();
        let payload = Some(payload).filter(|p| !p.is_empty());
        let tag = event_from_args(topic, payload, false).map_err(|error| RefusedTag {
            topic: excerpt(topic, REFUSED_TOPIC_CHARS),
            why: Refusal::Emit(error),
        });
        at = close + CLOSE.len();
        tags.push((start..at, tag));
    }
    tags
}

/// Where the next `<event` followed by white space starts, from `from` on, outside the
/// `quotes`.
fn find_opening(text: &str, from: usize, quotes: &Quotes) -> Option<usize> {
    let mut at = from;
    while let Some(found) = text[at..].find(OPEN) {
        let start = at + found;
        let after = start + OPEN.len();
        if text
            .as_bytes()
            .get(after)
            .is_some_and(u8::is_ascii_whitespace)
            && !quotes.contains(start)
        {
            return Some(start);
        }
        at = after;
    }
    None
}

/// The topic of the opening tag whose attributes start at `from`, and where its body
/// starts (past the `>`); `None` when it is no well-formed opening with a topic.
fn opening(text: &str, from: usize) -> Option<(&str, usize)> {
    let end = text.len().min(from + MAX_OPENING_BYTES);
    let bytes = &text.as_bytes()[..end];
    let mut i = from;
    let mut topic = None;
    loop {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if *bytes.get(i)? == b'>' {
            return topic.map(|t| (t, i + 1));
        }
        let name_start = i;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':'))
        {
            i += 1;
        }
        // No name: `/>` (self-closing) or a stray character.
        let name = (i > name_start).then(|| &text[name_start..i])?;
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        (*bytes.get(i)? == b'=').then_some(())?;
        i += 1;
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        let quote = *bytes.get(i).filter(|q| matches!(q, b'"' | b'\''))?;
        let value_start = i + 1;
        let value_len = bytes[value_start..].iter().position(|&b| b == quote)?;
        i = value_start + value_len + 1;
        if name == "topic" {
            // Two topics: which one was meant cannot be told.
            if topic.is_some() {
                return None;
            }
            topic = Some(&text[value_start..value_start + value_len]);
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
