//! Choosing memories: the filters of `prime` and `memories.filter`, the order of
//! relevance, and fitting the chosen ones into a budget of tokens.
//!
//! Most relevant first: memories tagged with one of the preferred tags (the active hat's
//! id in a run), then the newest (by the day written, then by the seconds in the id). The
//! budget takes whole memories in that order, passing over one that does not fit for a
//! smaller one that does, and ends with a note saying how many were left out and how to
//! find them; the result, note included, never exceeds the budget.

use super::render::{HEADER, block_chars, section_heading, write_block};
use super::{Memory, MemoryType, date};

/// How many characters a budget's token stands for. Budgets are in tokens, the unit of
/// an agent's context, and ralph-orchestrator counts them this way (a token per four
/// characters, about right for English and code), so a `memories.budget` or a
/// `prime --budget` written for it shows as much here. Counting is by characters: a
/// real tokenizer differs by agent, and the budget only needs to be roughly right.
pub const CHARS_PER_TOKEN: usize = 4;

/// What `prime` shows.
#[derive(Clone, Debug, Default)]
pub struct Prime<'a> {
    /// The most tokens of the result ([`CHARS_PER_TOKEN`] characters each); `None`: no
    /// limit.
    pub budget_tokens: Option<usize>,
    /// Only memories written in the last this many days (today counts as one).
    pub recent_days: Option<u32>,
    /// Only memories of these types (all when empty).
    pub types: &'a [MemoryType],
    /// Only memories with one of these tags (all when empty).
    pub tags: &'a [String],
    /// Memories with one of these tags come first.
    pub prefer_tags: &'a [String],
    /// Today's day number ([`date::day_number`]), for `recent_days`.
    pub today: i64,
}

/// Memories fitted into a budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranked {
    /// The markdown (empty when no memory passes the filters).
    pub text: String,
    /// How many memories it shows.
    pub shown: usize,
    /// How many passed the filters but did not fit.
    pub left_out: usize,
    /// The ids of the memories shown, most relevant first.
    pub ids: Vec<String>,
}

/// The memories that pass `prime`'s filters, most relevant first.
pub fn rank<'m>(
    memories: impl IntoIterator<Item = &'m Memory>,
    prime: &Prime<'_>,
) -> Vec<&'m Memory> {
    let oldest = prime
        .recent_days
        .map(|days| prime.today - i64::from(days.max(1)) + 1);
    let mut chosen: Vec<(usize, &Memory)> = memories
        .into_iter()
        .filter(|m| prime.types.is_empty() || prime.types.contains(&m.memory_type))
        .filter(|m| prime.tags.is_empty() || m.has_any_tag(prime.tags))
        .filter(|m| {
            oldest.is_none_or(|oldest| date::parse_ymd(&m.created).is_some_and(|d| d >= oldest))
        })
        .enumerate()
        .collect();
    // The key once per memory: computing it in every comparison parses each date
    // and id about 14 times in a file of 10,000.
    chosen.sort_by_cached_key(|(index, m)| {
        let preferred = !prime.prefer_tags.is_empty() && m.has_any_tag(prime.prefer_tags);
        let day = date::parse_ymd(&m.created).unwrap_or(i64::MIN);
        (
            std::cmp::Reverse(preferred),
            std::cmp::Reverse(day),
            std::cmp::Reverse(m.id_seconds()),
            *index,
        )
    });
    chosen.into_iter().map(|(_, m)| m).collect()
}

/// The note that ends a result some memories did not fit in.
pub fn left_out_note(left_out: usize) -> String {
    format!(
        "\n<!-- {left_out} more {} not shown: `ralph tools memory search <words>` finds them -->\n",
        if left_out == 1 { "memory" } else { "memories" }
    )
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// The memories `prime` chooses, as markdown within its budget.
pub fn prime<'m>(memories: impl IntoIterator<Item = &'m Memory>, prime: &Prime<'_>) -> Ranked {
    let ranked = rank(memories, prime);
    let budget_chars = prime
        .budget_tokens
        .map(|tokens| tokens.saturating_mul(CHARS_PER_TOKEN));
    let costs: Vec<usize> = ranked.iter().map(|m| block_chars(m)).collect();
    let heading = |kind: MemoryType| chars(&section_heading(kind));
    let mut opened = [false; 4];
    let mut total = chars(HEADER);
    for (memory, cost) in ranked.iter().zip(&costs) {
        let slot = &mut opened[memory.memory_type as usize];
        if !*slot {
            *slot = true;
            total += heading(memory.memory_type);
        }
        total += cost;
    }
    let fits_whole = budget_chars.is_none_or(|b| total <= b);
    let mut keep = vec![fits_whole; ranked.len()];
    if !fits_whole && !ranked.is_empty() {
        let budget = budget_chars.unwrap_or(usize::MAX);
        // Room for the note at its longest (every memory left out) and the header.
        let mut room = budget
            .saturating_sub(chars(&left_out_note(ranked.len())))
            .saturating_sub(chars(HEADER));
        let mut opened = [false; 4];
        for (i, memory) in ranked.iter().enumerate() {
            let slot = memory.memory_type as usize;
            let cost = costs[i]
                + if opened[slot] {
                    0
                } else {
                    heading(memory.memory_type)
                };
            if cost <= room {
                room -= cost;
                opened[slot] = true;
                keep[i] = true;
            }
        }
    }
    let shown = keep.iter().filter(|k| **k).count();
    let left_out = ranked.len() - shown;
    let mut text = String::new();
    if shown > 0 {
        text.push_str(HEADER);
        for kind in MemoryType::ALL {
            let mut of_kind = (0..ranked.len())
                .filter(|i| keep[*i] && ranked[*i].memory_type == kind)
                .peekable();
            if of_kind.peek().is_some() {
                text.push_str(&section_heading(kind));
            }
            for i in of_kind {
                write_block(&mut text, ranked[i]);
            }
        }
    }
    if left_out > 0 && chars(&left_out_note(left_out)) <= budget_chars.unwrap_or(usize::MAX) {
        text.push_str(&left_out_note(left_out));
    }
    Ranked {
        text,
        shown,
        left_out,
        ids: (0..ranked.len())
            .filter(|i| keep[*i])
            .map(|i| ranked[i].id.clone())
            .collect(),
    }
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
