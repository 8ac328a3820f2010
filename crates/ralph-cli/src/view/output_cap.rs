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
//!
//! One iteration's cap still let a run record that much per iteration: 1.7 GB of a flood
//! at 100 iterations, more with each `--continue`. So the run has a cap too,
//! [`MAX_STREAMED_BYTES_PER_RUN`], counted over its iterations and its sessions (the
//! record already on disk when a session starts counts whole). Past it each iteration
//! keeps only [`STREAMED_HEAD_BYTES_PAST_RUN_CAP`], its start, so a reader still sees
//! what each one began with, and the notices say the run's cap cut it. What is cut is
//! the newest output, which is what the transcripts keep (they delete the oldest
//! iterations' first), so between the two the user can still read every iteration's
//! start and the newest iterations whole.

use std::borrow::Cow;
use std::time::Instant;

use ralph_core::machine::{Notice, StreamCap};
use ralph_core::run_event::RunEvent;
use ralph_stream::AgentEvent;

use super::observer::Observer;

/// The record bytes of streamed output one iteration keeps: 16 times the busiest real
/// iterations seen (a Claude Code with partial messages writes about 1 MiB of record an
/// iteration), so only a runaway agent reaches it.
pub(crate) const MAX_STREAMED_BYTES_PER_ITERATION: u64 = 16 * 1024 * 1024;

/// The record bytes of streamed output a run keeps over all its iterations and
/// `--continue` sessions: what its transcripts keep by default
/// (`transcripts.max_bytes_per_run`), 256 of the busiest real iterations, so only a
/// runaway agent (or a run of hundreds of busy iterations) reaches it.
pub(crate) const MAX_STREAMED_BYTES_PER_RUN: u64 = 256 * 1024 * 1024;

/// The record bytes of streamed output each iteration keeps once the run's cap is
/// reached: enough for a reader of the record (`ralph watch`) to see how it started, and
/// small enough that a thousand flooding iterations add 64 MiB.
pub(crate) const STREAMED_HEAD_BYTES_PAST_RUN_CAP: u64 = 64 * 1024;

/// The bytes of a streamed event's record line besides its text
/// (`{"type":"agent","iteration":1,"event":{"type":"text_delta","text":""}}` and its
/// newline): counted with the text, so that a flood of short lines is held to the same
/// record size as one of long lines.
const RECORD_LINE_BYTES: u64 = 71;

/// The caps: [`MAX_STREAMED_BYTES_PER_ITERATION`], [`MAX_STREAMED_BYTES_PER_RUN`] and
/// [`STREAMED_HEAD_BYTES_PAST_RUN_CAP`] (tests set less).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub(crate) per_iteration: u64,
    pub(crate) per_run: u64,
    pub(crate) head_past_run: u64,
}

impl Caps {
    pub(crate) const DEFAULT: Caps = Caps {
        per_iteration: MAX_STREAMED_BYTES_PER_ITERATION,
        per_run: MAX_STREAMED_BYTES_PER_RUN,
        head_past_run: STREAMED_HEAD_BYTES_PAST_RUN_CAP,
    };

    /// What an iteration may keep, and which cap says so, when the run has spent
    /// `run_spent` record bytes: the iteration's cap while the run's leaves room for it,
    /// then what is left of the run's, and never less than the head.
    fn budget(&self, run_spent: u64) -> (u64, StreamCap) {
        let run_left = self.per_run.saturating_sub(run_spent);
        if run_left >= self.per_iteration {
            return (self.per_iteration, StreamCap::Iteration);
        }
        let budget = run_left.max(self.head_past_run).min(self.per_iteration);
        (budget, StreamCap::Run)
    }
}

pub(crate) struct OutputCap<'a> {
    inner: &'a mut dyn Observer,
    caps: Caps,
    /// The record bytes the run's cap counts as spent: the record's size when this
    /// session started, and the streamed output kept since (up to the iteration going
    /// on).
    run_spent: u64,
    /// Of the iteration going on (reset when an iteration or attempt starts): what it may
    /// keep and which cap set that, fixed at its first streamed event.
    budget: Option<(u64, StreamCap)>,
    iteration: Option<u32>,
    kept: u64,
    left_out_lines: u64,
    left_out_bytes: u64,
}

impl<'a> OutputCap<'a> {
    /// Caps what reaches `inner`, for a run whose record held `recorded` bytes as this
    /// session started (0 for a new run).
    pub(crate) fn new(inner: &'a mut dyn Observer, recorded: u64) -> OutputCap<'a> {
        OutputCap::with_caps(inner, Caps::DEFAULT, recorded)
    }

    pub(crate) fn with_caps(
        inner: &'a mut dyn Observer,
        caps: Caps,
        recorded: u64,
    ) -> OutputCap<'a> {
        OutputCap {
            inner,
            caps,
            run_spent: recorded,
            budget: None,
            iteration: None,
            kept: 0,
            left_out_lines: 0,
            left_out_bytes: 0,
        }
    }

    /// What of `event` passes: anything but streamed output does; streamed output while
    /// the iteration's budget lasts (set by the caps at its first streamed event). The
    /// event that does not fit passes its head, cut to the room left (so that one line
    /// longer than the budget does not leave the record empty), and is followed by the
    /// notice that says where the output was cut.
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
        let (budget, _) = *self
            .budget
            .get_or_insert_with(|| self.caps.budget(self.run_spent));
        if self.left_out_lines == 0 && self.kept + cost <= budget {
            self.kept += cost;
            return Admit::Whole;
        }
        let mut end = 0;
        if self.left_out_lines == 0 {
            self.iteration = Some(iteration);
            let room = budget.saturating_sub(self.kept + RECORD_LINE_BYTES);
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
                cap: self.cap(),
            },
        });
    }

    /// The cap that cut the iteration going on.
    fn cap(&self) -> StreamCap {
        self.budget.map_or(StreamCap::Iteration, |(_, cap)| cap)
    }

    /// Says how much of the iteration's output was left out, if any, and starts the
    /// count again.
    fn close(&mut self) {
        if self.left_out_lines > 0 {
            let notice = Notice::AgentOutputLeftOut {
                lines: self.left_out_lines,
                bytes: self.left_out_bytes,
                cap: self.cap(),
            };
            self.inner.observe(&RunEvent::Notice {
                iteration: self.iteration,
                notice: &notice,
            });
        }
        self.run_spent = self.run_spent.saturating_add(self.kept);
        self.budget = None;
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
