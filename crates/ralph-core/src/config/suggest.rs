//! "Did you mean …?" for misspelt keys and names.

/// The lowest normalized Damerau-Levenshtein similarity (1.0 = equal) at which one
/// word is taken for a typo of the other: it accepts `backnd` for `backend` and
/// `max_iteration` for `max_iterations`, but not `prompt` for `prompt_mode`.
const MIN_SIMILARITY: f64 = 0.7;

/// The shortest word taken as an abbreviation of a longer key (`idle_timeout` for
/// `idle_timeout_seconds`); shorter prefixes match too many keys to mean one.
const MIN_PREFIX_LEN: usize = 4;

/// The candidate closest to `word`, if it is close enough to be what the user meant:
/// a near spelling, or else the only candidate `word` is a prefix of.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let similar = candidates
        .iter()
        .map(|c| (strsim::normalized_damerau_levenshtein(word, c), *c))
        .filter(|(score, _)| *score >= MIN_SIMILARITY)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c);
    similar.or_else(|| {
        let mut extending = candidates
            .iter()
            .filter(|c| word.len() >= MIN_PREFIX_LEN && c.starts_with(word));
        match (extending.next(), extending.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    })
}

/// `: did you mean `x`?` or nothing, ready to append to a message.
pub(crate) fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(": did you mean `{s}`?"))
}

#[cfg(test)]
#[path = "suggest_tests.rs"]
mod tests;
