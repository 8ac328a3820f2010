//! The status line shown on a terminal while the agent is silent: a spinner, the
//! iteration's elapsed time and what the agent is doing (thinking, running a tool,
//! waiting for the model). It lives on the empty line under the last output and is
//! erased before anything else is written there, so it never ends up in the scrollback.
//!
//! Diagnostics on stderr share the screen: [`make_room`] clears the status line first, so
//! a message never lands after the spinner on the same line. What is on the screen is what
//! the stdout relay has written, not what the view has queued: the relay tags each chunk
//! with the view's [`line_end`] and keeps the one of the last chunk written.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ralph_core::visible::visible;

use super::figures::clock;
use crate::view::columns::{columns as width, cut};

/// Spinner frames, one per [`FRAME_INTERVAL`].
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// How often the spinner moves; the run loop ticks the observer at this rate.
pub(crate) const FRAME_INTERVAL: Duration = Duration::from_millis(100);

/// Silence before the status line appears: the short pauses between streamed pieces of
/// text would make it flicker.
pub(crate) const SHOW_AFTER: Duration = Duration::from_millis(700);

/// Marks where a status line was cut, and the columns it takes.
const ELLIPSIS: char = '…';
const ELLIPSIS_COLUMNS: usize = 1;

/// Returns to the start of the line and clears it.
pub(crate) const ERASE: &str = "\r\x1b[2K";

/// Whether the text view's last write left a status line (for [`line_end`]).
static SHOWN: AtomicBool = AtomicBool::new(false);

/// Whether the text view's last write left its line open (an agent's answer
/// mid-sentence), for [`line_end`].
static MID_LINE: AtomicBool = AtomicBool::new(false);

/// Where output on a terminal left the cursor's line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum LineEnd {
    /// At the start of an empty line.
    #[default]
    Start,
    /// After text that has not ended its line (an agent's answer mid-sentence).
    Open,
    /// After the status line, which is erased, not ended.
    Status,
}

/// Records whether a status line is on the screen.
pub(crate) fn set_shown(shown: bool) {
    SHOWN.store(shown, Ordering::Relaxed);
}

/// Records whether the text view's output on the terminal ends mid-line.
pub(crate) fn set_mid_line(mid_line: bool) {
    MID_LINE.store(mid_line, Ordering::Relaxed);
}

/// Where the text view's last write leaves the line. Read by the stdout relay as the
/// write is queued (on the view's thread, right after the view set it), to tag the chunk.
pub(crate) fn line_end() -> LineEnd {
    if SHOWN.load(Ordering::Relaxed) {
        LineEnd::Status
    } else if MID_LINE.load(Ordering::Relaxed) {
        LineEnd::Open
    } else {
        LineEnd::Start
    }
}

/// Makes room for a diagnostic written to stderr on the same terminal, whose output so
/// far ends as `end` says: clears the status line (it is redrawn at the next tick, under
/// the message), or ends the agent's unfinished line, so the message never starts glued
/// to it (Ctrl-C mid-answer).
pub(crate) fn make_room(stderr: &mut impl Write, end: LineEnd) {
    let room: &[u8] = match end {
        LineEnd::Start => b"",
        LineEnd::Open => b"\n",
        LineEnd::Status => ERASE.as_bytes(),
    };
    let _ = stderr.write_all(room);
}

/// The status line's text (no styles), at most `columns - 1` terminal columns wide so it
/// never wraps (a wrapped line could not be erased with one [`ERASE`]).
pub(crate) fn status_line(what: &str, elapsed: Duration, doing: &str, columns: usize) -> String {
    let ticks = elapsed.as_millis() / FRAME_INTERVAL.as_millis();
    // The remainder of a division by the frame count always indexes the array.
    let frame = FRAMES[(ticks % FRAMES.len() as u128) as usize];
    let elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    // `doing` names the agent's tool: the agent's text, shown as text.
    let text = format!(
        "{frame} {what} · {} · {}",
        clock(elapsed_ms),
        visible(doing)
    );
    fit(text, columns)
}

/// `text` cut to at most `columns - 1` terminal columns (an ellipsis marks the cut), so a
/// status line never wraps (a wrapped line could not be erased with one [`ERASE`]). The
/// text quotes the agent's tool arguments, so it may hold CJK or emoji: measured in
/// columns, not characters.
pub(crate) fn fit(text: String, columns: usize) -> String {
    let room = columns.saturating_sub(1);
    if width(&text) <= room {
        return text;
    }
    let mut shown = cut(&text, room.saturating_sub(ELLIPSIS_COLUMNS)).to_owned();
    shown.push(ELLIPSIS);
    shown
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
