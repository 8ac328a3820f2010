use std::borrow::Cow;

use ralph_stream::{AgentEvent, CostKind, Tokens, Usage};

use super::{ContextUse, HatTable, TokenCount, context_window};

fn turn(input: u64, cache_read: u64, model: Option<&'static str>) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage {
            tokens: Tokens {
                input,
                output: 900,
                cache_read,
                cache_write: 0,
            },
            cost_usd: Some(0.01),
            cost_kind: CostKind::Reported,
            model: model.map(Cow::Borrowed),
        },
        is_error: false,
    }
}

#[test]
fn windows_are_known_by_family_with_or_without_a_provider() {
    assert_eq!(context_window("claude-opus-4-5"), Some(200_000));
    assert_eq!(context_window("anthropic/claude-sonnet-4"), Some(200_000));
    assert_eq!(context_window("gpt-5.5"), Some(400_000));
    assert_eq!(context_window("mock-model"), None);
}

#[test]
fn context_use_is_the_last_turns_input_against_the_window() {
    let mut context = ContextUse::default();
    assert_eq!(context.shown(None), None);
    context.track(&turn(1_000, 9_000, Some("claude-opus-4-5")));
    context.track(&turn(2_000, 48_000, Some("claude-opus-4-5")));
    // A failed call reports no input: the last known context stays.
    context.track(&turn(0, 0, None));
    assert_eq!(
        context.shown(None).as_deref(),
        Some("context 50,000 of 200,000 (25%)")
    );
    let mut unknown = ContextUse::default();
    unknown.track(&turn(1_500, 0, None));
    assert_eq!(
        unknown.shown(Some("mock-model")).as_deref(),
        Some("context 1,500 tokens")
    );
}

#[test]
fn the_hat_table_adds_up_each_hat_in_the_order_they_ran() {
    let mut table = HatTable::default();
    assert!(table.lines().is_empty());
    let tokens = TokenCount::Counted(120);
    table.add("planner", true, Some(0.5), CostKind::Reported, tokens);
    table.add("builder", true, Some(0.25), CostKind::Reported, tokens);
    table.add("planner", true, None, CostKind::Unknown, tokens);
    // An attempt limited by its provider and run again: its cost, not an iteration.
    table.add("builder", false, Some(0.125), CostKind::Reported, tokens);
    // No iteration of the hat reported a cost: unknown, not at least nothing.
    table.add("critic", true, None, CostKind::Unknown, tokens);
    assert_eq!(
        table.lines(),
        [
            "  hat      iterations      cost  tokens",
            "  planner           2  ≥$0.5000     240",
            "  builder           1   $0.3750     240",
            "  critic            1   unknown     120",
        ]
    );
}

#[test]
fn a_hat_whose_cost_includes_an_estimate_says_so() {
    let mut table = HatTable::default();
    let tokens = TokenCount::Counted(1);
    // pi's reported cost beside Codex's estimate: the sum is an estimate.
    table.add("writer", true, Some(0.5), CostKind::Reported, tokens);
    table.add("writer", true, Some(0.25), CostKind::Estimated, tokens);
    table.add("checker", true, Some(0.25), CostKind::Estimated, tokens);
    table.add("checker", true, None, CostKind::Unknown, tokens);
    table.add("reader", true, Some(0.5), CostKind::Reported, tokens);
    assert_eq!(
        table.lines()[1..],
        [
            "  writer            2   ~$0.7500       2",
            "  checker           2  ≥~$0.2500       2",
            "  reader            1    $0.5000       1",
        ]
    );
}

#[test]
fn a_hat_with_tokens_nobody_counted_says_so() {
    let mut table = HatTable::default();
    table.add(
        "copilot",
        true,
        None,
        CostKind::Unknown,
        TokenCount::Unknown,
    );
    table.add(
        "mixed",
        true,
        None,
        CostKind::Unknown,
        TokenCount::Counted(120),
    );
    table.add("mixed", true, None, CostKind::Unknown, TokenCount::Unknown);
    let lines = table.lines();
    assert_eq!(
        lines[1..],
        [
            "  copilot           1  unknown  unknown",
            "  mixed             2  unknown     ≥120",
        ]
    );
}

#[test]
fn hat_names_in_cjk_line_up_by_the_columns_they_take() {
    let mut table = HatTable::default();
    let tokens = TokenCount::Counted(1);
    table.add("建造者", true, Some(0.5), CostKind::Reported, tokens);
    table.add("planner", true, Some(0.5), CostKind::Reported, tokens);
    assert_eq!(
        table.lines(),
        [
            "  hat      iterations     cost  tokens",
            "  建造者            1  $0.5000       1",
            "  planner           1  $0.5000       1",
        ]
    );
}
