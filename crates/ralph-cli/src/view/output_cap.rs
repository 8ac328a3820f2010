//! A ceiling on the agent's streamed output that a run records and shows of one
//! iteration.
//!
//! Every line a plain-text agent prints is a `text_delta` run event, written to the
//! run's record (`run-events.jsonl`, uncompressed) and handed to the views. An agent that
//! floods its output (a `yes`, a log in a loop) wrote 236 MB of record a second, so one
//! runaway iteration could fill the disk long before a deadline stopped it, while its
//! transcript (`stdout.zst`) stays under `transcripts.max_bytes_per_run`. This layer sits
//! in front of the record and the views (so what is recorded is still what was shown):
//! past [`MAX_STREAMED_BYTES_PER_ITERATION`] of one iteration (the event that crosses it
//! passes its head, up to it), the streamed events are counted, not passed on, and the record says where it was cut (an `agent_output_cut`
//! notice) and, as the iteration ends, how much was left out (`agent_output_left_out`).
//! What matters to the loop (tool calls, message and run ends, usage) always passes.

use std::borrow::Cow;
use std::time::Instant;

use ralph_core::machine::Notice;
use ralph_core::run_event::RunEvent;
use ralph_stream::AgentEvent;

use super::observer::Observer;

/// The record bytes of streamed output one iteration keeps: 16 times the busiest real
/// iterations seen (a Claude Code with partial messages writes about 1 MiB of record an
/// iteration), so only a runaway agent reaches it.
pub(crate) const MAX_STREAMED_BYTES_PER_ITERATION: u64 = 16 * 1024 * 1024;

/// The bytes of a streamed event's record line besides its text
/// (`{"type":"agent","iteration":1,"event":{"type":"text_delta","text":""}}` and its
/// newline): counted with the text, so that a flood of short lines is held to the same
/// record size as one of long lines.
const RECORD_LINE_BYTES: u64 = 71;

pub(crate) struct OutputCap<'a> {
    inner: &'a mut dyn Observer,
    /// The most record bytes of streamed output an iteration keeps (tests set less).
    budget: u64,
    /// Of the iteration going on (reset when an iteration or attempt starts).
    iteration: Option<u32>,
    kept: u64,
    left_out_lines: u64,
    left_out_bytes: u64,
}

impl<'a> OutputCap<'a> {
    pub(crate) fn new(inner: &'a mut dyn Observer) -> OutputCap<'a> {
        OutputCap::with_budget(inner, MAX_STREAMED_BYTES_PER_ITERATION)
    }

    pub(crate) fn with_budget(inner: &'a mut dyn Observer, budget: u64) -> OutputCap<'a> {
        OutputCap {
            inner,
            budget,
            iteration: None,
            kept: 0,
            left_out_lines: 0,
            left_out_bytes: 0,
        }
    }

    /// What of `event` passes: anything but streamed output does; streamed output while
    /// the iteration's budget lasts. The event that does not fit passes its head, cut to
    /// the room left (so that one line longer than the budget does not leave the record
    /// empty), and is followed by the notice that says where the output was cut.
    fn admit<'e>(&mut self, iteration: u32, event: &'e AgentEvent<'_>) -> Admit<'e> {
        let text: &str = match event {
            AgentEvent::TextDelta { text } | AgentEvent::ThinkingDelta { text } => text,
            AgentEvent::NonJson { line } => line,
            AgentEvent::Unknown { event_type } => event_type,
            AgentEvent::OversizeLine { .. } => "",
            _ => return Admit::Whole,
        };
        let text_len = text.len() as u64;
        let cost = text_len + RECORD_LINE_BYTES;
        if self.left_out_lines == 0 && self.kept + cost <= self.budget {
            self.kept += cost;
            return Admit::Whole;
        }
        let mut end = 0;
        if self.left_out_lines == 0 {
            self.iteration = Some(iteration);
            let room = self.budget.saturating_sub(self.kept + RECORD_LINE_BYTES);
            // An event's type name cut short would name nothing: only text is cut.
            if !matches!(event, AgentEvent::Unknown { .. }) {
                end = char_floor(text, room);
            }
        }
        self.left_out_lines += 1;
        self.left_out_bytes += text_len - end as u64;
        if end == 0 {
            return Admit::Nothing;
        }
        self.kept += RECORD_LINE_BYTES + end as u64;
        Admit::Head(head(event, &text[..end]))
    }

    /// Says where the iteration's output was cut, with how much of it was kept.
    fn say_cut(&mut self) {
        self.inner.observe(&RunEvent::Notice {
            iteration: self.iteration,
            notice: &Notice::AgentOutputCut {
                kept_bytes: self.kept,
            },
        });
    }

    /// Says how much of the iteration's output was left out, if any, and starts the
    /// count again.
    fn close(&mut self) {
        if self.left_out_lines > 0 {
            let notice = Notice::AgentOutputLeftOut {
                lines: self.left_out_lines,
                bytes: self.left_out_bytes,
            };
            self.inner.observe(&RunEvent::Notice {
                iteration: self.iteration,
                notice: &notice,
            });
        }
        self.kept = 0;
        self.left_out_lines = 0;
        self.left_out_bytes = 0;
    }
}

impl Observer for OutputCap<'_> {
    fn observe(&mut self, event: &RunEvent<'_>) {
        match event {
            RunEvent::Agent { iteration, event } => {
                let first_cut = self.left_out_lines == 0;
                match self.admit(*iteration, event) {
                    Admit::Whole => {}
                    Admit::Head(head) => {
                        self.inner.observe(&RunEvent::Agent {
                            iteration: *iteration,
                            event: &head,
                        });
                        self.say_cut();
                        return;
                    }
                    Admit::Nothing => {
                        if first_cut {
                            self.say_cut();
                        }
                        return;
                    }
                }
            }
            // An iteration's output ends before its end is reported, and a new attempt
            // (or a loop stopped without one) starts with a budget of its own.
            RunEvent::IterationStarted { .. }
            | RunEvent::IterationFinished { .. }
            | RunEvent::LoopFinished { .. }
            | RunEvent::Error { .. } => self.close(),
            _ => {}
        }
        self.inner.observe(event);
    }

    fn wants_ticks(&self) -> bool {
        self.inner.wants_ticks()
    }

    fn tick(&mut self, now: Instant) {
        self.inner.tick(now);
    }

    fn wait_over(&mut self) {
        self.inner.wait_over();
    }
}

/// What of a streamed event passes the cap.
enum Admit<'e> {
    Whole,
    /// The head of the event that reached the cap.
    Head(AgentEvent<'e>),
    Nothing,
}

/// `event` (a text, thinking or non-JSON line) with `text` in place of its own.
fn head<'e>(event: &AgentEvent<'_>, text: &'e str) -> AgentEvent<'e> {
    let text = Cow::Borrowed(text);
    match event {
        AgentEvent::ThinkingDelta { .. } => AgentEvent::ThinkingDelta { text },
        AgentEvent::NonJson { .. } => AgentEvent::NonJson { line: text },
        _ => AgentEvent::TextDelta { text },
    }
}

/// The longest length of `text` up to `room` bytes that ends on a character boundary.
fn char_floor(text: &str, room: u64) -> usize {
    text.floor_char_boundary(usize::try_from(room).unwrap_or(usize::MAX))
}

#[cfg(test)]
#[path = "output_cap_tests.rs"]
mod tests;
