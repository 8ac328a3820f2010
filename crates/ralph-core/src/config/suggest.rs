//! "Did you mean …?" for misspelt keys and names.

/// The lowest normalized Damerau-Levenshtein similarity (1.0 = equal) at which one
/// word is taken for a typo of the other: it accepts `backnd` for `backend` and
/// `max_iteration` for `max_iterations`, but not `prompt` for `prompt_mode`.
const MIN_SIMILARITY: f64 = 0.7;

/// The candidate closest to `word`, if it is close enough to be what the user meant.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::normalized_damerau_levenshtein(word, c), c))
        .filter(|(score, _)| *score >= MIN_SIMILARITY)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `: did you mean `x`?` or nothing, ready to append to a message.
pub(crate) fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(": did you mean `{s}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_words_only() {
        let keys = [
            "backend",
            "command",
            "args",
            "prompt_mode",
            "max_iterations",
        ];
        let got: Vec<_> = [
            "backnd",
            "comand",
            "max_iteration",
            "prompt_mod",
            "zzz",
            "prompt",
        ]
        .iter()
        .map(|w| closest(w, keys))
        .collect();
        assert_eq!(
            got,
            vec![
                Some("backend"),
                Some("command"),
                Some("max_iterations"),
                Some("prompt_mode"),
                None,
                None
            ]
        );
    }
}
