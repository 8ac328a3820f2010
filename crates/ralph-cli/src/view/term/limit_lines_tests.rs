//! The limit lines of the live view.

use super::*;

#[test]
fn a_switch_says_which_way_and_which_backends() {
    assert_eq!(
        failover(3, "pi", 0, "claude", 1),
        "↪ rate limited on pi: iteration 3 runs on claude (fallback 1)"
    );
    assert_eq!(
        failover(4, "pi", 2, "pi", 0),
        "↩ the limit of pi is over: iteration 4 runs on it again, after pi (fallback 2)"
    );
}
