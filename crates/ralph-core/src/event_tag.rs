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
//! - Not a tag: one that starts inside a fenced code block (an agent quoting an example);
//!   one never closed (the text that follows is read on); `<event topic="x"/>`, which
//!   ralph-orchestrator never read as an event either; an opening without a quoted
//!   `topic`.

use std::ops::Range;

use crate::event::{EmitError, Event, event_from_args};
use crate::inbox::excerpt;

/// How a tag starts: `<event` and then white space.
const OPEN: &str = "<event";

/// How a tag ends.
const CLOSE: &str = "</event>";

/// Longest opening tag read, `<event` to `>`: a topic is at most 128 bytes, so anything
/// longer is no tag, and stopping there keeps a message full of unclosed quotes from
/// being read over and over.
const MAX_OPENING_BYTES: usize = 1024;

/// Shortest run of backticks or tildes that opens a fenced code block (CommonMark).
const FENCE_MIN: usize = 3;

/// Most spaces a fence line may be indented by (CommonMark: four make an indented block).
const FENCE_MAX_INDENT: usize = 3;

/// Characters of a refused tag's topic kept: a valid topic is at most 128 bytes, a
/// refused one anything up to the opening tag's limit, and it is only shown.
const REFUSED_TOPIC_CHARS: usize = 60;

/// What one tag stood for: the event, or why `ralph emit` would have refused it.
pub type Tag = Result<Event, RefusedTag>;

/// A well-formed tag whose topic or payload `ralph emit` would refuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefusedTag {
    /// Its topic, cut to its first characters when long.
    pub topic: String,
    pub error: EmitError,
}

/// What each tag in `text` (one finished assistant message) stands for, in order.
pub fn read_tags(text: &str) -> Vec<Tag> {
    let fences = fenced_blocks(text);
    let mut tags = Vec::new();
    let mut at = 0;
    // Where the next `</event>` is, once found: tags opened before it all look for the
    // same one, so it is searched for once, not once per opening.
    let mut close_at: Option<usize> = None;
    while let Some(start) = find_opening(text, at) {
        let attributes = start + OPEN.len();
        at = attributes;
        if in_block(&fences, start) {
            continue;
        }
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
        if let Some(next) = find_opening(&text[..close], body) {
            at = next;
            continue;
        }
        let payload = text[body..close].trim();
        let payload = Some(payload).filter(|p| !p.is_empty());
        tags.push(
            event_from_args(topic, payload, false).map_err(|error| RefusedTag {
                topic: excerpt(topic, REFUSED_TOPIC_CHARS),
                error,
            }),
        );
        at = close + CLOSE.len();
    }
    tags
}

/// Where the next `<event` followed by white space starts, from `from` on.
fn find_opening(text: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(found) = text[at..].find(OPEN) {
        let start = at + found;
        let after = start + OPEN.len();
        if text
            .as_bytes()
            .get(after)
            .is_some_and(u8::is_ascii_whitespace)
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

/// Whether `at` is inside one of `blocks` (in order, apart).
fn in_block(blocks: &[Range<usize>], at: usize) -> bool {
    let i = blocks.partition_point(|b| b.end <= at);
    blocks.get(i).is_some_and(|b| b.contains(&at))
}

/// The byte ranges of `text` inside fenced code blocks, each from its opening fence line
/// to the end of its closing one (or of the text, when it is never closed).
fn fenced_blocks(text: &str) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    // The open block: its fence character, its length, where it started.
    let mut open: Option<(u8, usize, usize)> = None;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let line_end = line_start + line.len();
        let indent = line.bytes().take_while(|&b| b == b' ').count();
        let rest = &line[indent..];
        let fence_char = rest.bytes().next().filter(|b| matches!(b, b'`' | b'~'));
        if let Some(c) = fence_char.filter(|_| indent <= FENCE_MAX_INDENT) {
            let run = rest.bytes().take_while(|&b| b == c).count();
            if run >= FENCE_MIN {
                match open {
                    None => open = Some((c, run, line_start)),
                    Some((open_char, open_run, start))
                        if c == open_char && run >= open_run && rest[run..].trim().is_empty() =>
                    {
                        blocks.push(start..line_end);
                        open = None;
                    }
                    Some(_) => {}
                }
            }
        }
        line_start = line_end;
    }
    if let Some((_, _, start)) = open {
        blocks.push(start..text.len());
    }
    blocks
}

#[cfg(test)]
#[path = "event_tag_tests.rs"]
mod tests;
