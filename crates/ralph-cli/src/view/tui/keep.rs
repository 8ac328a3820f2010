//! How much agent text the view holds: the transcripts of the newest iterations, up to
//! [`KEPT_RECORD_BYTES`] of the record lines that made them. An older iteration keeps
//! its number, hat, outcome and figures (the list and the title still show them) and a
//! note that says where its whole transcript is. Without this a long run grew the view
//! by all its agent said (65 KB an iteration for a busy agent, thousands of iterations).

use super::model::{Entry, RunModel};

/// The record bytes of transcripts kept, besides the newest iteration's, which is kept
/// whole however long (it is the one being watched).
pub(crate) const KEPT_RECORD_BYTES: usize = 32 * 1024 * 1024;

#[derive(Debug)]
pub(crate) struct Kept {
    /// The most record bytes kept ([`KEPT_RECORD_BYTES`]; tests set less).
    pub(crate) budget: usize,
    /// The record bytes of the transcripts kept.
    bytes: usize,
    /// The oldest iteration whose transcript is kept.
    oldest: usize,
}

impl Default for Kept {
    fn default() -> Kept {
        Kept {
            budget: KEPT_RECORD_BYTES,
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
        while self.kept.bytes > self.kept.budget && self.kept.oldest < newest {
            let run_id = self.run_id.clone();
            let it = &mut self.iterations[self.kept.oldest];
            self.kept.bytes -= it.record_bytes;
            it.record_bytes = 0;
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
