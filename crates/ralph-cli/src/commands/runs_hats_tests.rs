use pretty_assertions::assert_eq;

use super::*;

/// The history of a run whose iterations ran `hats`, in that order.
fn history(hats: &[&str]) -> Vec<IterationRecord> {
    hats.iter()
        .enumerate()
        .map(|(i, hat)| {
            serde_json::from_value(serde_json::json!({
                "iteration": i + 1, "hat": hat, "backend": "pi", "model": null,
                "outcome": {"status": "succeeded"}, "started_at_ms": 0, "duration_ms": 0,
                "cost_usd": null, "cost_kind": "unknown", "turns": 0, "consumed": [],
                "events": [], "invalid_lines": 0,
                "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
            }))
            .unwrap()
        })
        .collect()
}

/// The run's totals per hat, counted from its history.
fn totals(history: &[IterationRecord]) -> BTreeMap<String, HatTotals> {
    let mut hats: BTreeMap<String, HatTotals> = BTreeMap::new();
    for r in history {
        hats.entry(r.hat.clone()).or_default().iterations += 1;
    }
    hats
}

fn names(counts: &[HatCount]) -> Vec<String> {
    counts
        .iter()
        .map(|c| format!("{}×{}", c.hat, c.iterations))
        .collect()
}

/// A run through 120 hats made a row of about 1000 characters in text order (`h1×1
/// h10×1 h100×1 …`): the cell names the hat that ran most, then the others in the order
/// they first ran, four in all, and says how many more there are; the list itself (what
/// `--format json` prints) keeps them all.
#[test]
fn a_run_through_many_hats_names_a_few_then_how_many_more() {
    let mut ran: Vec<String> = (1..=120).map(|n| format!("h{n}")).collect();
    ran.extend(["h7".to_owned(), "h7".to_owned()]);
    let ran: Vec<&str> = ran.iter().map(String::as_str).collect();
    let history = history(&ran);
    let counts = by_iterations(&totals(&history), &history);
    assert_eq!(counts.len(), 120);
    assert_eq!(
        names(&counts[..5]),
        ["h7×3", "h1×1", "h2×1", "h3×1", "h4×1"]
    );
    assert_eq!(cell(&counts), "h7×3 h1×1 h2×1 h3×1 +116 more");
}

/// Hats that ran as often come in the order they first ran, not in text order; a hat the
/// history does not show (cut short, or from an older ralph) comes after them.
#[test]
fn hats_that_ran_as_often_come_in_the_order_they_first_ran() {
    let history = history(&["planner", "builder", "planner", "builder", "reviewer"]);
    let mut hats = totals(&history);
    hats.entry("archived".to_owned()).or_default().iterations = 1;
    let counts = by_iterations(&hats, &history);
    assert_eq!(
        names(&counts),
        ["planner×2", "builder×2", "reviewer×1", "archived×1"]
    );
    assert_eq!(cell(&counts), "planner×2 builder×2 reviewer×1 archived×1");
}

/// A long hat name is cut in the cell, and one with a control character is escaped.
#[test]
fn a_hat_s_name_is_cut_and_escaped_in_the_cell() {
    let long = "a-hat-whose-name-goes-on-and-on-and-on";
    let history = history(&[long, "bell\u{7}"]);
    let counts = by_iterations(&totals(&history), &history);
    assert_eq!(cell(&counts), "a-hat-whose-name-goes-o…×1 bell\\u{7}×1");
    assert_eq!(counts[0].hat, long);
}
