//! Real captures cut where an agent is stopped mid-call (Ctrl-C, an inactivity timeout,
//! the cost budget): what the summary of such a stream says it cost.

mod support;

use pretty_assertions::assert_eq;
use ralph_stream::CostKind;
use ralph_stream::ModelPrice;
use ralph_stream::PriceTable;
use ralph_stream::Pricing;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use ralph_stream::Tokens;
use support::fixtures_dir;
use support::read;

/// A price that makes each token of any kind cost one dollar in a million.
const ONE_A_MILLION: ModelPrice = ModelPrice {
    input: 1.0,
    output: 1.0,
    cache_read: 1.0,
    cache_write: 1.0,
};

/// The first `lines` lines of the capture at `path` (under tests/fixtures), as they were
/// written up to the moment the agent was stopped.
fn cut(path: &str, lines: usize) -> Vec<u8> {
    let bytes = read(&fixtures_dir().join(path));
    let text = String::from_utf8(bytes).expect("a UTF-8 capture");
    let kept: Vec<&str> = text.lines().take(lines).collect();
    assert_eq!(kept.len(), lines, "{path} is shorter than the cut");
    format!("{}\n", kept.join("\n")).into_bytes()
}

/// The summary of a stream in `format` that ended after `bytes`, priced as ralph prices a
/// run with `model` at one dollar a million tokens.
fn summary_of(format: StreamFormat, bytes: &[u8], model: &str) -> SessionSummary {
    let pricing = Pricing::new(PriceTable::empty().with_entries([(model, ONE_A_MILLION)]));
    let mut decoder = StreamDecoder::new(Some(format)).with_pricing(pricing.clone());
    let mut summary = SessionSummary::default().with_pricing(pricing);
    decoder.feed(bytes, |event| summary.observe(event));
    decoder.finish(|event| summary.observe(event));
    summary.stream_ended(format);
    summary
}

/// Its `message_start` (line 3 of the capture): 1000 input tokens, 500 written to the
/// cache, and the output placeholder of 1.
const CLAUDE_STARTED: Tokens = Tokens {
    input: 1000,
    output: 1,
    cache_read: 0,
    cache_write: 500,
};

#[test]
fn a_claude_call_cut_while_its_model_answers_costs_the_estimate_of_its_message_start() {
    const CAPTURE: &str = "claude/v2.1.332_partial_text.jsonl";
    // Right after the `message_start`, and after three of its seven text deltas: no
    // `assistant` line, no `message_delta`, no `result`.
    for lines in [3, 7] {
        let s = summary_of(
            StreamFormat::Claude,
            &cut(CAPTURE, lines),
            "claude-opus-5-5",
        );
        let estimate = ONE_A_MILLION.cost_of(&CLAUDE_STARTED);
        assert_eq!(
            (s.cost_usd, s.cost_kind, s.tokens, s.tokens_known),
            (Some(estimate), CostKind::Estimated, CLAUDE_STARTED, false),
            "cut after {lines} lines"
        );
        assert_eq!(s.model.as_deref(), Some("claude-opus-5-5"));
    }
}

/// The `(cost_usd, cost_kind, tokens_known)` of a stream cut after `lines` lines of the
/// capture at `path`.
fn cost_of_cut(format: StreamFormat, path: &str, lines: usize) -> (Option<f64>, CostKind, bool) {
    let s = summary_of(format, &cut(path, lines), "unpriced");
    (s.cost_usd, s.cost_kind, s.tokens_known)
}

#[test]
fn a_pi_stream_cut_in_its_second_call_costs_at_least_its_first() {
    const CAPTURE: &str = "pi/openai/tool.jsonl";
    // Its first call ended (line 24, $0.00525); the second is cut after two of its text
    // deltas (line 37): billed, and priced nowhere.
    assert_eq!(
        cost_of_cut(StreamFormat::Pi, CAPTURE, 37),
        (Some(0.00525), CostKind::Unknown, false)
    );
    // Whole, the stream's cost is the agent's own.
    assert_eq!(
        cost_of_cut(StreamFormat::Pi, CAPTURE, 43),
        (Some(0.00525 + 0.004965), CostKind::Reported, true)
    );
}

#[test]
fn a_pi_stream_cut_between_its_calls_costs_what_pi_priced() {
    const CAPTURE: &str = "pi/openai/tool.jsonl";
    const FIRST: f64 = 0.00525;
    // pi killed in print mode writes no `agent_end`, whatever it was doing. After its
    // first call ended (line 24) it runs the tool (25-28), takes in its result (29-30)
    // and ends the turn (31): nothing is in flight, the first call is all it spent. After
    // its last call (41) and its turn (42), both calls are.
    for lines in [24, 26, 28, 30, 31] {
        assert_eq!(
            cost_of_cut(StreamFormat::Pi, CAPTURE, lines),
            (Some(FIRST), CostKind::Reported, true),
            "cut after {lines} lines"
        );
    }
    for lines in [41, 42] {
        assert_eq!(
            cost_of_cut(StreamFormat::Pi, CAPTURE, lines),
            (Some(FIRST + 0.004965), CostKind::Reported, true),
            "cut after {lines} lines"
        );
    }
    // Its second turn began (32): the call is sent, so it may be billed before any of
    // its answer (33) comes.
    for lines in [32, 33] {
        assert_eq!(
            cost_of_cut(StreamFormat::Pi, CAPTURE, lines),
            (Some(FIRST), CostKind::Unknown, false),
            "cut after {lines} lines"
        );
    }
}

#[test]
fn an_opencode_stream_cut_in_its_second_step_costs_at_least_its_first() {
    const CAPTURE: &str = "opencode/v1.18.33_json_happy.jsonl";
    // Its first step finished ($0.0024); the second began (line 4) and, with its text
    // (line 5), never finished: OpenCode was stopped while its model answered.
    for lines in [4, 5] {
        assert_eq!(
            cost_of_cut(StreamFormat::Opencode, CAPTURE, lines),
            (Some(0.0024), CostKind::Unknown, false),
            "cut after {lines} lines"
        );
    }
    // Between its steps nothing was in flight, and whole its cost is the agent's own.
    assert_eq!(
        cost_of_cut(StreamFormat::Opencode, CAPTURE, 3),
        (Some(0.0024), CostKind::Reported, true)
    );
    assert_eq!(
        cost_of_cut(StreamFormat::Opencode, CAPTURE, 6),
        (Some(0.0048), CostKind::Reported, true)
    );
}
