//! Choosing memories: the filters of `prime` and `memories.filter`, the order of
//! relevance, and fitting the chosen ones into a budget of characters.
//!
//! Most relevant first: memories tagged with one of the preferred tags (the active hat's
//! id in a run), then the newest (by the day written, then by the seconds in the id). The
//! budget takes whole memories in that order, passing over one that does not fit for a
//! smaller one that does, and ends with a note saying how many were left out and how to
//! find them; the result, note included, never exceeds the budget.

use super::render::{block, markdown};
use super::{Memory, MemoryType, date};

/// What `prime` shows.
#[derive(Clone, Debug, Default)]
pub struct Prime<'a> {
    /// The most characters of the result; `None`: no limit.
    pub budget: Option<usize>,
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
    chosen.sort_by_key(|(index, m)| {
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
    if ranked.is_empty() {
        return Ranked {
            text: String::new(),
            shown: 0,
            left_out: 0,
            ids: Vec::new(),
        };
    }
    let all = markdown(ranked.iter().copied());
    let Some(budget) = prime.budget.filter(|b| chars(&all) > *b) else {
        return Ranked {
            text: all,
            shown: ranked.len(),
            left_out: 0,
            ids: ranked.iter().map(|m| m.id.clone()).collect(),
        };
    };
    // Room for the note at its longest (every memory left out).
    let Some(mut room) = budget.checked_sub(chars(&left_out_note(ranked.len()))) else {
        return Ranked {
            text: String::new(),
            shown: 0,
            left_out: ranked.len(),
            ids: Vec::new(),
        };
    };
    let header = chars("# Memories\n");
    room = room.saturating_sub(header);
    let mut kept: Vec<&Memory> = Vec::new();
    let mut opened = [false; 4];
    for memory in &ranked {
        let heading = if opened[memory.memory_type as usize] {
            0
        } else {
            chars(&format!("\n## {}\n", memory.memory_type.section()))
        };
        let cost = heading + chars(&block(memory));
        if cost <= room {
            room -= cost;
            opened[memory.memory_type as usize] = true;
            kept.push(memory);
        }
    }
    let left_out = ranked.len() - kept.len();
    let mut text = if kept.is_empty() {
        String::new()
    } else {
        markdown(kept.iter().copied())
    };
    text.push_str(&left_out_note(left_out));
    Ranked {
        text,
        shown: kept.len(),
        left_out,
        ids: kept.iter().map(|m| m.id.clone()).collect(),
    }
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
