//! How much agent text the view holds: the transcripts of the newest iterations, up to
//! [`KEPT_RECORD_BYTES`] of the record lines that made them. An older iteration keeps
//! its number, hat, outcome and figures (the list and the title still show them) and a
//! note that says where its whole transcript is. Without this a long run grew the view
//! by all its agent said (65 KB an iteration for a busy agent, thousands of iterations).
//!
//! The newest iteration (the one being watched) keeps its end: past
//! [`NEWEST_KEPT_RECORD_BYTES`] of record, its oldest entries go until half of that is
//! left, and a note first says how many lines went and where they are. Without this an
//! agent flooding its output grew `ralph run --tui` by 27 MB a second, and `ralph watch`
//! of such a record (written before the record was capped, or by hand) to 400 MB.

use super::model::{Entry, Iteration, RunModel};

/// The record bytes of transcripts kept, besides the newest iteration's.
pub(crate) const KEPT_RECORD_BYTES: usize = 32 * 1024 * 1024;

/// The record bytes of the newest iteration's transcript kept: twice what a run records
/// of one iteration's streamed output
/// ([`MAX_STREAMED_BYTES_PER_ITERATION`](crate::view::output_cap::MAX_STREAMED_BYTES_PER_ITERATION)),
/// so that a run's own record is shown whole, with room for its tool calls.
pub(crate) const NEWEST_KEPT_RECORD_BYTES: usize = 32 * 1024 * 1024;

#[derive(Debug)]
pub(crate) struct Kept {
    /// The most record bytes kept ([`KEPT_RECORD_BYTES`]; tests set less).
    pub(crate) budget: usize,
    /// The most of the newest iteration kept ([`NEWEST_KEPT_RECORD_BYTES`]; tests set
    /// less).
    pub(crate) newest_budget: usize,
    /// The record bytes of the transcripts kept.
    bytes: usize,
    /// The oldest iteration whose transcript is kept.
    oldest: usize,
}

impl Default for Kept {
    fn default() -> Kept {
        Kept {
            budget: KEPT_RECORD_BYTES,
            newest_budget: NEWEST_KEPT_RECORD_BYTES,
            bytes: 0,
            oldest: 0,
        }
    }
}

impl RunModel {
    /// Counts a record line of `len` bytes to the newest iteration (where what a line
    /// adds goes), then lets the oldest transcripts go until the rest fit the budget.
    pub(crate) fn keep(&mut self, len: usize) {
        let Some(newest) = self.iterations.len().checked_sub(1) else {
            return;
        };
        self.iterations[newest].record_bytes += len;
        self.kept.bytes += len;
        if self.iterations[newest].record_bytes > self.kept.newest_budget {
            let run_id = self.run_id.clone();
            let it = &mut self.iterations[newest];
            let before = it.record_bytes;
            keep_the_end(it, self.kept.newest_budget / 2, &run_id);
            self.kept.bytes -= before - it.record_bytes;
        }
        while self.kept.bytes > self.kept.budget && self.kept.oldest < newest {
            let run_id = self.run_id.clone();
            let it = &mut self.iterations[self.kept.oldest];
            self.kept.bytes -= it.record_bytes;
            it.record_bytes = 0;
            it.left_out_lines = 0;
            it.entries = vec![Entry::Note(format!(
                "(the view keeps the newest iterations' text: this one's is in \
                 `ralph inspect --run {run_id} --iteration {} --view`)",
                it.number
            ))];
            if let Some(outcome) = it.outcome.clone() {
                super::model::ended(it, &outcome, None);
            }
            self.kept.oldest += 1;
        }
    }
}

/// Drops the oldest of `it`'s entries (the front of a text entry if it comes to that,
/// at a line's start) until about `keep` bytes are left, and puts first a note that says
/// how many lines went in all. Its record bytes are then what it holds: that much more
/// comes in before it is cut again, so following a flood costs time linear in it.
fn keep_the_end(it: &mut Iteration, keep: usize, run_id: &str) {
    if it.left_out_lines > 0 {
        // The note of the last cut; a new one is put first below.
        it.entries.remove(0);
    }
    let mut held = 0;
    let mut first_kept = it.entries.len();
    while first_kept > 0 && held + entry_bytes(&it.entries[first_kept - 1]) <= keep {
        held += entry_bytes(&it.entries[first_kept - 1]);
        first_kept -= 1;
    }
    // The entry that does not fit whole keeps its end, if it is text.
    if let Some(Entry::Text(t) | Entry::Thinking(t)) = first_kept
        .checked_sub(1)
        .and_then(|i| it.entries.get_mut(i))
    {
        let room = keep - held;
        let from = t.len() - room.min(t.len());
        let cut = t[from..].find('\n').map_or(t.len(), |at| from + at + 1);
        it.left_out_lines += lines_in(&t[..cut]);
        t.drain(..cut);
        held += t.len();
        first_kept -= 1;
    }
    for entry in it.entries.drain(..first_kept) {
        it.left_out_lines += match &entry {
            Entry::Text(t) | Entry::Thinking(t) => lines_in(t),
            _ => 1,
        };
    }
    if it.left_out_lines == 0 {
        // Its record was mostly the JSON around what it holds: nothing to let go yet.
        it.record_bytes = held;
        return;
    }
    it.entries.insert(
        0,
        Entry::Note(format!(
            "(the view keeps the end of this iteration: its first {} in \
             `ralph inspect --run {run_id} --iteration {} --view`)",
            match it.left_out_lines {
                // A single line over the cap (an answer with no newline).
                1 => "line is".to_owned(),
                n => format!("{n} lines are"),
            },
            it.number
        )),
    );
    it.record_bytes = held;
}

/// The lines of a text entry (its last one may have no newline yet).
fn lines_in(text: &str) -> usize {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// About what an entry holds.
fn entry_bytes(entry: &Entry) -> usize {
    match entry {
        Entry::Text(t) | Entry::Thinking(t) | Entry::Note(t) => t.len(),
        Entry::Tool(call) => call.name.len() + call.preview.len() + call.output.len(),
        Entry::Events(events) => events.iter().map(|(t, p)| t.len() + p.len()).sum(),
        Entry::Gate(gate) => {
            gate.name.len() + gate.detail.len() + gate.output.as_ref().map_or(0, String::len)
        }
    }
}
