use pretty_assertions::assert_eq;

use super::*;

fn summary_of(events: &[AgentEvent<'_>]) -> SessionSummary {
    let mut summary = SessionSummary::default();
    for event in events {
        summary.observe(event);
    }
    summary
}

fn message(text: &str, stop: Stop, error: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::MessageFinished {
        text: text.to_owned().into(),
        stop,
        error: error.map(|e| e.to_owned().into()),
    }
}

fn turn(cost: Option<f64>, input: u64, is_error: bool) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage::reported(
            Tokens {
                input,
                ..Tokens::default()
            },
            cost,
            None,
        ),
        is_error,
    }
}

#[test]
fn text_of_a_failed_attempt_is_never_final() {
    let s = summary_of(&[
        message("working on it", Stop::ToolUse, None),
        AgentEvent::TextDelta {
            text: "LOOP_COMPLETE".into(),
        },
        message("", Stop::Error, Some("terminated")),
    ]);
    assert_eq!(s.final_text.as_deref(), Some("working on it"));
    assert!(!s.succeeded);
    assert_eq!(s.errors, vec!["terminated".to_owned()]);
}

#[test]
fn a_recovered_retry_succeeds_and_keeps_the_error_on_record() {
    let s = summary_of(&[
        message("", Stop::Error, Some("500")),
        AgentEvent::RetryStarted {
            attempt: Some(1),
            max_attempts: Some(3),
            delay_ms: Some(2000),
            error: Some("500".into()),
        },
        message("fine", Stop::Completed, None),
        AgentEvent::RetryFinished {
            success: true,
            attempt: Some(1),
            error: None,
        },
    ]);
    assert!(s.succeeded);
    assert_eq!(s.final_text.as_deref(), Some("fine"));
    assert_eq!(s.errors, vec!["500".to_owned()]);
}

#[test]
fn exhausted_retries_fail_the_run_even_after_an_earlier_success() {
    let s = summary_of(&[
        message("step one", Stop::ToolUse, None),
        message("", Stop::Error, Some("500")),
        AgentEvent::RetryFinished {
            success: false,
            attempt: Some(3),
            error: Some("500".into()),
        },
    ]);
    assert!(!s.succeeded);
}

#[test]
fn a_run_cut_in_the_middle_of_tool_use_did_not_succeed() {
    assert!(!summary_of(&[message("calling a tool", Stop::ToolUse, None)]).succeeded);
    assert!(summary_of(&[message("done", Stop::Completed, None)]).succeeded);
}

#[test]
fn unpriced_turns_make_the_cost_unknown_but_keep_the_priced_part() {
    let s = summary_of(&[turn(Some(0.5), 10, false), turn(Some(0.0), 10, false)]);
    assert_eq!(
        (s.cost_usd, s.cost_kind, s.tokens.input, s.turns),
        (Some(0.5), CostKind::Unknown, 20, 2)
    );
    let s = summary_of(&[turn(Some(0.0), 10, false)]);
    assert_eq!((s.cost_usd, s.cost_kind), (None, CostKind::Unknown));
}

#[test]
fn failed_turns_cost_money_but_do_not_count_as_turns() {
    let s = summary_of(&[turn(Some(0.25), 10, true), turn(Some(0.5), 10, false)]);
    assert_eq!((s.cost_usd, s.turns), (Some(0.75), 1));
}

/// A successful `run_finished` with the agent's totals: `cost`, `input` tokens, `turns`.
fn run_finished(cost: f64, input: u64, turns: u32, model: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::RunFinished {
        is_error: false,
        error: None,
        turns: Some(turns),
        duration_ms: None,
        totals: Some(Usage::reported(
            Tokens {
                input,
                ..Tokens::default()
            },
            Some(cost),
            model.map(|m| m.to_owned().into()),
        )),
    }
}

#[test]
fn agent_totals_replace_rather_than_add() {
    let totals = |cost, input| run_finished(cost, input, 3, Some("m"));
    let s = summary_of(&[
        totals(1.0, 100),
        message("x", Stop::Completed, None),
        totals(1.0, 150),
    ]);
    assert_eq!(
        (
            s.cost_usd,
            s.tokens.input,
            s.turns,
            s.model.as_deref(),
            s.terminal_event
        ),
        (Some(1.0), 150, 6, Some("m"), true)
    );
}

#[test]
fn turn_counts_an_agent_made_up_saturate() {
    let finished = AgentEvent::RunFinished {
        is_error: false,
        error: None,
        turns: Some(u32::MAX),
        duration_ms: None,
        totals: None,
    };
    let s = summary_of(&[finished.clone(), finished]);
    assert_eq!(s.turns, u32::MAX);
}

#[test]
fn the_model_answered_once_it_showed_output_but_not_for_a_failed_call() {
    let answered = |events: &[AgentEvent<'_>]| {
        let mut summary = SessionSummary::default();
        events.iter().for_each(|e| summary.observe(e));
        summary.answered
    };
    assert!(!answered(&[]));
    assert!(answered(&[AgentEvent::TextDelta { text: "hi".into() }]));
    assert!(!answered(&[AgentEvent::MessageFinished {
        text: "".into(),
        stop: Stop::Error,
        error: Some("429 Too Many Requests".into()),
    }]));
    assert!(answered(&[AgentEvent::MessageFinished {
        text: "done".into(),
        stop: Stop::Completed,
        error: None,
    }]));
}

#[test]
fn sessions_add_up_while_totals_within_one_replace() {
    let totals = |cost, input| run_finished(cost, input, 2, None);
    let mut s = summary_of(&[totals(1.0, 100)]);
    s.begin_session();
    // Claude's second `result` of one session repeats its cumulative total.
    for event in [totals(0.5, 40), totals(0.5, 40)] {
        s.observe(&event);
    }
    assert_eq!(
        (s.cost_usd, s.cost_kind, s.tokens.input, s.turns),
        (Some(1.5), CostKind::Reported, 140, 6)
    );
    // A session that answered but reported no usage leaves the cost partly unknown; one
    // that spent nothing changes nothing.
    s.begin_session();
    assert_eq!((s.cost_usd, s.cost_kind), (Some(1.5), CostKind::Reported));
    s.observe(&AgentEvent::TextDelta { text: "hi".into() });
    s.begin_session();
    assert_eq!((s.cost_usd, s.cost_kind), (Some(1.5), CostKind::Unknown));
}

#[test]
fn a_new_session_has_a_verdict_of_its_own() {
    let mut s = summary_of(&[AgentEvent::RetryFinished {
        success: false,
        attempt: Some(3),
        error: Some("429 rate limit".into()),
    }]);
    assert!(!s.succeeded && s.rate_limited.is_some());
    s.begin_session();
    s.observe(&message("done", Stop::Completed, None));
    assert!(s.succeeded && s.rate_limited.is_none());
    assert_eq!(s.errors, ["429 rate limit"]);
}

#[test]
fn tokens_nobody_counted_are_unknown_not_zero() {
    let counted = |events: &[AgentEvent<'_>]| summary_of(events).tokens_known;
    // Copilot: turns with no counts and no cost; a plain-text agent: no usage at all.
    assert!(!counted(&[turn(None, 0, false), turn(None, 0, false)]));
    assert!(!counted(&[AgentEvent::TextDelta { text: "hi".into() }]));
    // Counted tokens, or a failed call that cost nothing, are known.
    assert!(counted(&[turn(None, 0, false), turn(None, 10, false)]));
    assert!(counted(&[turn(Some(0.0), 0, true)]));
    // A capture's sessions: one that counted makes the sum known.
    let mut s = summary_of(&[turn(None, 10, false)]);
    s.begin_session();
    s.observe(&turn(None, 0, false));
    assert!(s.tokens_known);
}

#[test]
fn a_limit_the_run_got_past_does_not_explain_a_later_failure() {
    let limited = || message("", Stop::Error, Some("429 rate limit, slow down"));
    // Through a retry (pi's own), then a server error the retries cannot get past.
    let s = summary_of(&[
        limited(),
        message("fine", Stop::ToolUse, None),
        AgentEvent::RetryFinished {
            success: true,
            attempt: Some(1),
            error: None,
        },
        message("", Stop::Error, Some("500 database exploded")),
        AgentEvent::RetryFinished {
            success: false,
            attempt: Some(3),
            error: Some("500 database exploded".into()),
        },
    ]);
    assert!(!s.succeeded);
    assert_eq!(s.rate_limited, None);
    // A limit after the last call that got through is still the run's.
    let s = summary_of(&[
        message("fine", Stop::ToolUse, None),
        limited(),
        message("", Stop::Error, Some("500 database exploded")),
    ]);
    assert_eq!(
        s.rate_limited.map(|l| l.message),
        Some("429 rate limit, slow down".to_owned())
    );
}

/// One model call as OpenCode reports it: a message, then its usage.
fn call(text: &str, output: u64, cost: Option<f64>) -> [AgentEvent<'static>; 2] {
    let usage = Usage::reported(
        Tokens {
            output,
            ..Tokens::default()
        },
        cost,
        None,
    );
    [
        message(text, Stop::Other, None),
        AgentEvent::TurnFinished {
            usage,
            is_error: false,
        },
    ]
}

#[test]
fn empty_calls_are_counted_in_a_row_until_a_call_says_something_or_uses_tokens() {
    let mut s = SessionSummary::default();
    let mut counts = Vec::new();
    let mut feed = |events: &[AgentEvent<'_>]| {
        for event in events {
            s.observe(event);
        }
        counts.push(s.empty_calls_in_a_row());
    };
    feed(&call("", 0, Some(0.0)));
    feed(&call("", 0, None));
    feed(&call("hi", 0, None)); // said something, counted nothing
    feed(&call("", 0, Some(0.0)));
    feed(&call("", 5, Some(0.0))); // the model was billed for an empty reply
    feed(&call("", 0, Some(0.0)));
    feed(&call("", 0, Some(0.01))); // priced: somebody's model answered
    feed(&[
        AgentEvent::ToolCallStarted {
            id: "c".into(),
            name: "bash".into(),
            args: "{}".into(),
            parent_id: None,
        },
        turn(Some(0.0), 0, false),
    ]);
    feed(&[
        AgentEvent::ThinkingDelta { text: "hm".into() },
        turn(Some(0.0), 0, false),
    ]);
    feed(&call("", 0, Some(0.0)));
    // A call that stopped to use a tool asked for one, even before the call is reported.
    feed(&[message("", Stop::ToolUse, None), turn(Some(0.0), 0, false)]);
    assert_eq!(counts, [1, 2, 0, 1, 0, 1, 0, 0, 0, 1, 0]);
}

#[test]
fn a_failed_call_neither_counts_nor_ends_a_run_of_empty_calls() {
    let mut s = summary_of(&call("", 0, Some(0.0)));
    s.observe(&message("", Stop::Error, Some("HTTP 500")));
    s.observe(&turn(Some(0.0), 0, true));
    assert_eq!(s.empty_calls_in_a_row(), 1);
    for event in call("", 0, Some(0.0)) {
        s.observe(&event);
    }
    assert_eq!(s.empty_calls_in_a_row(), 2);
}

#[test]
fn each_session_counts_its_own_empty_calls() {
    let mut s = summary_of(&call("", 0, Some(0.0)));
    s.begin_session();
    assert_eq!(s.empty_calls_in_a_row(), 0);
}

/// A summary that prices model `m` at $2 a million input tokens, whose session names `m`.
fn priced_summary() -> SessionSummary {
    let price = crate::ModelPrice {
        input: 2.0,
        output: 0.0,
        cache_read: 0.0,
        cache_write: 0.0,
    };
    let table = crate::PriceTable::empty().with_entries([("m", price)]);
    let mut s = SessionSummary::default().with_pricing(Pricing::new(table));
    s.observe(&AgentEvent::SessionStarted {
        session_id: None,
        model: Some("m".into()),
        provider: None,
    });
    s
}

/// The agent's own total for its session (Claude Code's `result`), costing `cost`.
fn priced_total(cost: f64) -> AgentEvent<'static> {
    AgentEvent::RunFinished {
        is_error: false,
        error: None,
        turns: Some(2),
        duration_ms: None,
        totals: Some(Usage::reported(Tokens::default(), Some(cost), None)),
    }
}

#[test]
fn calls_without_a_cost_count_at_their_estimate_for_a_budget_until_the_agent_prices_them() {
    let mut s = priced_summary();
    s.observe(&turn(None, 1_000, false));
    s.observe(&turn(None, 500, false));
    // The budget sees 1500 tokens at $2 a million.
    assert_eq!(s.cost_for_budget(), Some(0.003));
    // The agent's own total replaces the estimate, which is not added again.
    s.observe(&priced_total(0.01));
    assert_eq!(s.cost_for_budget(), Some(0.01));
    // A call after that total (a steered Claude Code's next turn) is not in it yet.
    s.observe(&turn(None, 500, false));
    assert_eq!(s.cost_for_budget(), Some(0.01 + 0.001));
    // A later session's unpriced call adds to what the earlier ones spent.
    s.begin_session();
    s.observe(&turn(None, 1_000, false));
    // (Added in the order the summary adds them: its cost, then what it does not show.)
    assert_eq!(s.cost_for_budget(), Some(0.01 + 0.002 + 0.001));
}

#[test]
fn a_session_stopped_before_its_total_costs_its_estimate_and_says_so() {
    let mut s = priced_summary();
    s.observe(&turn(None, 1_000, false));
    s.observe(&turn(None, 500, false));
    // Claude Code stopped before its `result`: 1500 tokens at $2 a million, estimated.
    assert_eq!(
        (s.cost_usd, s.cost_kind),
        (Some(0.003), CostKind::Estimated)
    );
    assert_eq!(s.cost_for_budget(), Some(0.003));
    // The agent's total, when it comes, is the cost.
    s.observe(&priced_total(0.01));
    assert_eq!((s.cost_usd, s.cost_kind), (Some(0.01), CostKind::Reported));
    // The next session, stopped before its total, adds its estimate to that.
    s.begin_session();
    s.observe(&turn(None, 1_000, false));
    assert_eq!(
        (s.cost_usd, s.cost_kind),
        (Some(0.012), CostKind::Estimated)
    );
    assert_eq!(s.cost_for_budget(), Some(0.012));
}

#[test]
fn a_call_whose_model_has_no_price_leaves_the_cost_unknown() {
    let mut s = priced_summary();
    s.observe(&turn(None, 1_000, false));
    s.observe(&AgentEvent::TurnFinished {
        usage: Usage::reported(
            Tokens {
                input: 500,
                ..Tokens::default()
            },
            None,
            Some("unlisted".into()),
        ),
        is_error: false,
    });
    // The priced part is known; the rest is not guessed at.
    assert_eq!((s.cost_usd, s.cost_kind), (Some(0.002), CostKind::Unknown));
    // Without a price table nothing is estimated at all.
    let s = summary_of(&[turn(None, 1_000, false)]);
    assert_eq!((s.cost_usd, s.cost_kind), (None, CostKind::Unknown));
}

#[test]
fn tokens_of_a_stream_cut_before_its_terminal_event_are_not_called_whole() {
    let answered = || {
        summary_of(&[
            message("working", Stop::ToolUse, None),
            turn(None, 1_000, false),
        ])
    };
    // Claude Code stopped before its `result`: a response cut before its output count,
    // or a sub-agent's calls, are in no count.
    let mut s = answered();
    assert!(s.tokens_known);
    s.stream_ended(StreamFormat::Claude);
    assert!(!s.tokens_known);
    // The same with its `result`: the agent's totals are the whole count.
    let mut s = answered();
    s.observe(&priced_total(0.01));
    s.stream_ended(StreamFormat::Claude);
    assert!(s.tokens_known);
    // OpenCode's stream ends with its process: its end says nothing of a cut.
    let mut s = answered();
    s.stream_ended(StreamFormat::Opencode);
    assert!(s.tokens_known);
    // A later session does not make a cut one whole.
    let mut s = answered();
    s.stream_ended(StreamFormat::Claude);
    s.begin_session();
    s.observe(&turn(None, 500, false));
    s.observe(&priced_total(0.01));
    s.stream_ended(StreamFormat::Claude);
    assert!(!s.tokens_known);
}
