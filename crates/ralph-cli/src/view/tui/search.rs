//! Search: each line of the run that holds the text, counted in one pass and shown where
//! it is. Lines are the transcript's source lines ([`Source`]) with every tool call's
//! output unfolded, so a match in a folded output is found too.

use super::lines::{Look, Source};
use super::model::RunModel;
use super::theme::Theme;

/// Where a match is: an iteration, an entry, a source line of it (see [`Source`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Match {
    pub(crate) iteration: usize,
    pub(crate) entry: usize,
    pub(crate) line: usize,
}

impl Match {
    pub(crate) fn start_of(iteration: usize) -> Match {
        Match {
            iteration,
            entry: 0,
            line: 0,
        }
    }

    pub(crate) fn end_of(iteration: usize) -> Match {
        Match {
            iteration,
            entry: usize::MAX,
            line: usize::MAX,
        }
    }
}

/// One pass over the run's lines for a search: how many match, and the matches on
/// either side of where it goes from (each with its number), without keeping them all.
#[derive(Default)]
pub(crate) struct Matches {
    pub(crate) count: usize,
    first: Option<Match>,
    last: Option<Match>,
    /// The first match after (or at) the start, and its number.
    after: Option<(Match, usize)>,
    /// The last match before the start, and its number.
    before: Option<(Match, usize)>,
}

impl Matches {
    /// `exclusive`: whether a match at `from` is left out of those after it (the next
    /// match from the one shown, not a new search from an iteration's top).
    pub(crate) fn find(model: &RunModel, search: &str, from: Match, exclusive: bool) -> Matches {
        let mut found = Matches::default();
        let look = Look::default();
        let theme = Theme { color: false };
        for (i, it) in model.iterations.iter().enumerate() {
            for (e, entry) in it.entries.iter().enumerate() {
                let source = Source::of(entry, e, &look, true, theme);
                let mut line = source.first();
                while let Some(l) = line {
                    if source.text(l).to_lowercase().contains(search) {
                        let at = Match {
                            iteration: i,
                            entry: e,
                            line: l,
                        };
                        found.count += 1;
                        found.first.get_or_insert(at);
                        found.last = Some(at);
                        if at > from || (at == from && !exclusive) {
                            found.after.get_or_insert((at, found.count));
                        }
                        if at < from {
                            found.before = Some((at, found.count));
                        }
                    }
                    line = source.next(l);
                }
            }
        }
        found
    }

    /// The match to show and its number: the next one, or around to the first (the
    /// previous one, or around to the last).
    pub(crate) fn pick(&self, forward: bool) -> Option<(Match, usize)> {
        if forward {
            self.after.or(self.first.map(|at| (at, 1)))
        } else {
            self.before.or(self.last.map(|at| (at, self.count)))
        }
    }
}
