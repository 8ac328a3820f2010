use pretty_assertions::assert_eq;

use super::*;

#[test]
fn tokens_nobody_counted_read_as_unknown_and_a_partial_count_as_a_lower_bound() {
    let words = |total, complete| TokenCount::of(total, complete).words();
    assert_eq!(words(12_345, true), "12,345 tokens");
    assert_eq!(words(1, true), "1 token");
    assert_eq!(words(0, true), "0 tokens");
    assert_eq!(words(0, false), "tokens unknown");
    assert_eq!(words(12_345, false), "at least 12,345 tokens");
    let cell = |total, complete| TokenCount::of(total, complete).cell(|n| n.to_string());
    assert_eq!(
        [cell(73_680, true), cell(73_680, false), cell(0, false)],
        ["73680", "≥73680", "unknown"]
    );
}
