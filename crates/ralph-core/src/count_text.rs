//! Counts in words for people: `1 iteration`, `3 iterations`. A count a setting can make
//! 1 (`max_consecutive_failures: 1`, a single line over the output cap) must not read
//! `1 iterations`.

/// `n` with the noun that fits it: `one` for exactly 1, `many` otherwise (0 included).
pub fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "iteration", "iterations"), "1 iteration");
        assert_eq!(count(0, "iteration", "iterations"), "0 iterations");
        assert_eq!(count(2, "line", "lines"), "2 lines");
    }
}
