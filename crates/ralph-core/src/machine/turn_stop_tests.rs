use pretty_assertions::assert_eq;
use ralph_stream::{AgentEvent, ModelPrice, PriceTable, Pricing, StreamDecoder, StreamFormat};

use super::*;
use crate::machine::test_support::*;

fn capture(path: &str) -> Vec<u8> {
    let full = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Plays an OpenCode capture as the shell does, asking the machine after every model call;
/// returns the number of the call it stopped at, and why.
fn stopped_at(machine: &Machine, path: &str) -> Option<(u32, StoppedBy)> {
    stopped_in(machine, StreamFormat::Opencode, Pricing::default(), path)
}

/// Like [`stopped_at`], for a capture of `format` whose summary estimates with `pricing`.
fn stopped_in(
    machine: &Machine,
    format: StreamFormat,
    pricing: Pricing,
    path: &str,
) -> Option<(u32, StoppedBy)> {
    let mut decoder = StreamDecoder::new(Some(format));
    let mut summary = SessionSummary::default().with_pricing(pricing);
    let (mut calls, mut stop) = (0, None);
    let mut observe = |event: &AgentEvent<'_>| {
        summary.observe(event);
        if stop.is_none() && matches!(event, AgentEvent::TurnFinished { .. }) {
            calls += 1;
            stop = machine.stop_at_call(&summary).map(|why| (calls, why));
        }
    };
    decoder.feed(&capture(path), &mut observe);
    decoder.finish(&mut observe);
    stop
}

#[test]
fn opencode_asking_a_web_page_again_and_again_is_stopped_at_the_tenth_empty_call() {
    let m = Machine::new(solo());
    assert_eq!(
        stopped_at(&m, "opencode/v1.18.33_json_html200.jsonl"),
        Some((MAX_EMPTY_CALLS_IN_A_ROW, StoppedBy::EmptyCalls))
    );
}

#[test]
fn genuine_opencode_runs_are_never_stopped() {
    let m = Machine::new(solo());
    for path in [
        "opencode/v1.18.33_json_happy.jsonl",
        "opencode/v1.18.33_json_rich_thinking.jsonl",
        "opencode/v1.18.33_json_midstream_error.jsonl",
        "opencode/v1.18.33_json_http500_once_then_ok.jsonl",
    ] {
        assert_eq!(stopped_at(&m, path), None, "{path}");
    }
}

#[test]
fn the_cost_budget_is_asked_first() {
    // An iteration that spends the whole budget (0.5): any call of the next one crosses it,
    // even one that cost nothing, and that is the reason given.
    let mut m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(0.5)));
    step(&mut m, ok(&[ev("a")]));
    assert_eq!(
        stopped_at(&m, "opencode/v1.18.33_json_html200.jsonl"),
        Some((1, StoppedBy::CostLimit))
    );
}

/// The price of the model in the Claude captures (not a real one: no list price).
fn opus_5_5() -> Pricing {
    let price = ModelPrice {
        input: 5.0,
        output: 25.0,
        cache_read: 0.5,
        cache_write: 6.25,
    };
    Pricing::new(PriceTable::empty().with_entries([("claude-opus-5-5", price)]))
}

#[test]
fn claude_is_stopped_at_the_call_that_crosses_the_budget_at_its_estimated_cost() {
    // Claude Code prices its session only in its `result`. Its first call cost about
    // $0.0099 at the model's price, the second about $0.0090: the second crosses $0.015.
    let m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(0.015)));
    let path = "claude/v2.1.332_partial_rich.jsonl";
    assert_eq!(
        stopped_in(&m, StreamFormat::Claude, opus_5_5(), path),
        Some((2, StoppedBy::CostLimit))
    );
    // A model without a price is not guessed at: only the reported cost stops it.
    let unpriced = Pricing::new(PriceTable::empty());
    assert_eq!(stopped_in(&m, StreamFormat::Claude, unpriced, path), None);
}
