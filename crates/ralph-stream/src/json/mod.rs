//! A lazy, lenient JSON reader for one line of an agent stream.
//!
//! Agent streams are JSON lines whose interesting part is small (an event type, a text
//! delta, a usage block) while the rest can be huge (pi repeats the whole message so far
//! in every `message_update`, Claude repeats tool output). Building a tree for every line
//! would cost time and memory proportional to those repeats, so parsers walk the keys
//! with a [`Cursor`] and decode only the values they need; the rest is skipped, not
//! built. Every key is still seen, compared decoded: a JSON parser keeps the last of
//! duplicate keys, and so do the parsers.
//!
//! The reader is lenient where serde_json is strict: a lone UTF-16 surrogate escape
//! (which JavaScript emits when it cuts a string inside an emoji) decodes to U+FFFD,
//! invalid UTF-8 decodes lossily for that string alone, and a value of an unexpected
//! type reads as "absent" rather than failing the line.

mod cursor;
mod index;
mod pass;
mod scan;
mod string;
mod walk;

pub(crate) use cursor::Cursor;
pub(crate) use cursor::Malformed;
pub(crate) use cursor::Result as Read;
pub(crate) use cursor::fields;
pub(crate) use index::Fed;
pub(crate) use index::LineIndex;
pub(crate) use index::Tracker;
#[cfg(test)]
pub(crate) use index::assert_index_agrees;
pub(crate) use string::JsonStr;
pub(crate) use string::Scratch;
pub(crate) use string::Span;
pub(crate) use walk::Walked;
pub(crate) use walk::walk;
pub(crate) use walk::walk_indexed;
pub(crate) use walk::walk_line_start;
