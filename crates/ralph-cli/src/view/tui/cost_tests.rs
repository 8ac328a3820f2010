//! The header's cost and tokens as the full-screen view shows them: exact only when
//! every iteration's are known and none is running, in the line view's words.

use super::*;

/// A cost limit below a cent reads as it was set in the header, not rounded to `$0.00`,
/// and what was spent to the line view's four places, whatever the limit.
#[test]
fn a_cost_limit_below_a_cent_shows_as_it_was_set() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/text.jsonl");
    model.max_cost_usd = Some(0.001);
    model.totals.cost_usd = 0.0051;
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" $0.0051/$0.001 "), "{shown}");
    model.max_cost_usd = Some(5.0);
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" $0.0051/$5.00 "), "{shown}");
}

/// A run whose agent reports no cost is not said to cost nothing; one where some
/// iteration's cost is unknown says the least it cost, as the line view does.
#[test]
fn the_header_says_when_the_cost_is_unknown() {
    let mut model = one_iteration("custom", "builder", "pi/anthropic/text.jsonl");
    model.totals.cost_complete = false;
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(
        shown.contains(" · cost unknown (limit $5.00) · "),
        "{shown}"
    );
    model.totals.cost_usd = 0.25;
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" · at least $0.2500/$5.00 · "), "{shown}");
    model.max_cost_usd = None;
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" · at least $0.2500 · "), "{shown}");
    model.totals.cost_usd = 0.0;
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" · cost unknown · "), "{shown}");
}

/// A custom agent reports no cost: while its first iteration runs, nothing is known
/// yet, and the header does not say the run has cost nothing (it said `$0.00`).
#[test]
fn a_custom_agents_first_iteration_is_not_said_to_cost_nothing() {
    let mut model = RunModel::default();
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    let shown = screen(&model, &mut App::new(true), 80, 8);
    insta::assert_snapshot!("custom_first_iteration_80x8", shown);
    assert!(
        shown.contains(" · cost unknown (limit $5.00) · "),
        "{shown}"
    );
    assert!(!shown.contains("$0.00/"), "{shown}");
    // Nor that it used no tokens: none are counted until the iteration ends.
    assert!(shown.contains(" · tokens unknown"), "{shown}");
    model.max_cost_usd = None;
    let shown = screen(&model, &mut App::new(true), 80, 8);
    assert!(shown.contains(" · cost unknown · "), "{shown}");
}

/// Once no iteration runs, known costs are the run's cost; while the next one runs they
/// are the least it has cost.
#[test]
fn the_cost_is_exact_between_iterations_and_a_floor_during_one() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/text.jsonl");
    model.max_cost_usd = None;
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" · $0.0123 · 1500 tokens"), "{shown}");
    iteration_started(&mut model, 2, "builder", "pi");
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(
        shown.contains(" · at least $0.0123 · ≥1500 tokens"),
        "{shown}"
    );
}

/// An iteration that cost under half a cent is not shown as free (`$0.00`), and one whose
/// agent reported no cost says so, as the line view does; a running one shows none yet.
#[test]
fn each_iterations_cost_shows_to_the_line_views_places_or_as_unknown() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/text.jsonl");
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    model.iterations[0].cost_usd = Some(0.003375);
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" $0.0034 "), "{shown}");
    model.iterations[0].cost_usd = None;
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" cost unknown "), "{shown}");
    iteration_started(&mut model, 2, "builder", "pi");
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert_eq!(shown.matches(" cost unknown ").count(), 1, "{shown}");
}

/// A pi stopped in a call priced the calls before it only: its iteration's cost is the
/// least it cost (`unknown`, with the known part), marked `≥` in the list as the header
/// marks a floor, and `at least` in the header.
#[test]
fn a_partly_unknown_cost_is_marked_the_least_it_cost() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/text.jsonl");
    model.max_cost_usd = None;
    let mut totals = totals(1, 0.00525);
    totals.cost_complete = false;
    feed(
        &mut model,
        &RunEvent::IterationFinished {
            iteration: 1,
            hat: "builder",
            backend: "pi",
            model: None,
            outcome: &IterationOutcome::Interrupted,
            duration_ms: 61_000,
            cost_usd: Some(0.00525),
            cost_kind: CostKind::Unknown,
            tokens: NO_TOKENS,
            turns: 1,
            tokens_known: false,
            completion: None,
            stderr_tail: None,
            totals,
        },
    );
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" ≥$0.0053 "), "{shown}");
    assert!(shown.contains(" · at least $0.0053 · "), "{shown}");
}

/// Codex's cost is ralph's estimate: its iteration and a run total that includes it are
/// marked `~`, as the line view marks them, read from the run's events.
#[test]
fn an_estimated_cost_and_a_total_that_includes_one_are_marked() {
    let mut model = one_iteration("codex", "builder", "pi/anthropic/text.jsonl");
    model.max_cost_usd = None;
    let mut totals = totals(1, 0.0123);
    totals.cost_estimated = true;
    feed(
        &mut model,
        &RunEvent::IterationFinished {
            iteration: 1,
            hat: "builder",
            backend: "codex",
            model: None,
            outcome: &IterationOutcome::Succeeded,
            duration_ms: 61_000,
            cost_usd: Some(0.0123),
            cost_kind: CostKind::Estimated,
            tokens: NO_TOKENS,
            turns: 1,
            tokens_known: true,
            completion: None,
            stderr_tail: None,
            totals,
        },
    );
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" · ~$0.0123 · "), "{shown}");
    assert!(shown.contains(" ~$0.0123 "), "{shown}");
    model.max_cost_usd = Some(5.0);
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains(" · ~$0.0123/$5.00 · "), "{shown}");
}

/// `ralph watch` of a run whose ralph was killed during its first iteration: the
/// iteration never ended, so its cost and tokens are as unknown as they were while it
/// ran, and its time, and the run's, are counted to where the record ends.
#[test]
fn a_first_iteration_its_loop_never_ended_is_not_said_to_cost_nothing() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    model.abandoned(Some(STARTED_AT_MS + 7_000));
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(
        shown.contains(" · 0:07/30:00 · cost unknown (limit $5.00) · tokens unknown"),
        "{shown}"
    );
    assert!(!shown.contains("$0.0000"), "{shown}");
    assert!(shown.contains(" 7.0s"), "{shown}");
    // Nor is it said to run on.
    assert!(
        shown.contains(" iteration 1 · builder · never ended "),
        "{shown}"
    );
    assert!(!shown.contains("· running"), "{shown}");
    // Drawn later, the times stay where the record ended.
    let later = screen_at(&model, &mut App::new(true), 100, 10, NOW_MS + 3_600_000);
    assert!(later.contains(" · 0:07/30:00 · "), "{later}");
    // Where the record's end is not known, the iteration's time is not made up.
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    model.abandoned(None);
    let shown = screen(&model, &mut App::new(true), 100, 10);
    assert!(shown.contains("tokens unknown"), "{shown}");
}
