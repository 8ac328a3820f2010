//! The hats of a run as `ralph runs` lists them: the hats that ran most first, and in the
//! table only the first few, then how many more. A run through 120 hats made one table
//! row of about 1000 characters, its hats in text order (`h1×1 h10×1 h100×1 …`);
//! `--format json` still lists every hat.

use std::collections::BTreeMap;

use ralph_core::machine::{HatTotals, IterationRecord};
use ralph_core::visible::visible;
use serde::Serialize;

use crate::view::term::tool_preview::shortened;

/// The hats the table names in a run's row before it says how many more ran.
const HATS_SHOWN: usize = 4;

/// The characters of a hat's name the table shows (a name is a key of the user's config,
/// with no bound of its own).
const HAT_NAME_CHARS: usize = 24;

/// A hat that ran, with how many iterations.
#[derive(Debug, Serialize)]
pub(super) struct HatCount {
    pub(super) hat: String,
    pub(super) iterations: u32,
}

/// The hats of a run's totals, the most iterations first: in a row cut short, those
/// shown are where most of the run went. Hats that ran as often come in the order they
/// first ran (as the history shows it), so that the row reads as the run went.
pub(super) fn by_iterations(
    hats: &BTreeMap<String, HatTotals>,
    history: &[IterationRecord],
) -> Vec<HatCount> {
    let first_run = |hat: &str| {
        history
            .iter()
            .position(|r| r.hat == hat)
            .unwrap_or(usize::MAX)
    };
    let mut counts: Vec<(usize, HatCount)> = hats
        .iter()
        .map(|(hat, totals)| {
            let count = HatCount {
                hat: hat.clone(),
                iterations: totals.iterations,
            };
            (first_run(hat), count)
        })
        .collect();
    counts.sort_by_key(|(first, c)| (std::cmp::Reverse(c.iterations), *first));
    counts.into_iter().map(|(_, c)| c).collect()
}

/// The `HATS` cell: `builder×5 planner×2`, the first [`HATS_SHOWN`] hats then `+N more`.
pub(super) fn cell(hats: &[HatCount]) -> String {
    let mut words: Vec<String> = hats
        .iter()
        .take(HATS_SHOWN)
        .map(|h| {
            format!(
                "{}×{}",
                shortened(&visible(&h.hat), HAT_NAME_CHARS),
                h.iterations
            )
        })
        .collect();
    if hats.len() > HATS_SHOWN {
        words.push(format!("+{} more", hats.len() - HATS_SHOWN));
    }
    words.join(" ")
}

#[cfg(test)]
#[path = "runs_hats_tests.rs"]
mod tests;
