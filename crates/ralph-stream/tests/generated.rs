//! Generated heavy streams parse to exactly what the generator put in.

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::CostKind;
use ralph_stream::PriceTable;
use ralph_stream::Pricing;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::Tokens;
use ralph_test_support::streamgen;
use ralph_test_support::streamgen::Reports;

fn check(generated: &streamgen::Generated, chunk: usize) {
    let e = &generated.expect;
    // ralph tells the decoder which model it asked for; Codex never names it.
    let pricing = Pricing::default().with_default_model(e.model.clone());
    let mut decoder = StreamDecoder::new(None).with_pricing(pricing);
    let mut summary = SessionSummary::default();
    let mut text = String::new();
    let mut deltas = 0;
    let mut on_event = |e: &AgentEvent<'_>| {
        if let AgentEvent::TextDelta { text: t } = e {
            text.push_str(t);
            deltas += 1;
        }
        summary.observe(e);
    };
    for piece in generated.bytes.chunks(chunk) {
        decoder.feed(piece, &mut on_event);
    }
    decoder.finish(&mut on_event);
    assert_eq!(text, e.text);
    assert_eq!(summary.final_text.as_deref(), Some(e.final_text.as_str()));
    assert_eq!(
        (deltas, summary.turns, summary.tool_calls),
        (e.text_deltas, e.turns, e.tool_calls)
    );
    let tokens = Tokens {
        input: e.tokens.input,
        output: e.tokens.output,
        cache_read: e.tokens.cache_read,
        cache_write: e.tokens.cache_write,
    };
    assert_eq!(summary.tokens, tokens);
    let (cost, kind) = match e.reports {
        Reports::CostAndTokens => (Some(e.cost_usd), CostKind::Reported),
        Reports::TokensOnly => {
            let price = PriceTable::builtin().price_of(&e.model).copied().unwrap();
            (Some(price.cost_of(&tokens)), CostKind::Estimated)
        }
        Reports::Nothing => (None, CostKind::Unknown),
    };
    assert_eq!(summary.cost_kind, kind);
    assert_eq!(summary.cost_usd.is_some(), cost.is_some());
    if let (Some(got), Some(want)) = (summary.cost_usd, cost) {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
    assert!(summary.succeeded);
    assert_eq!(summary.non_json_lines + summary.unknown_events, 0);
}

#[test]
fn generated_pi_streams_lose_nothing() {
    let medium = streamgen::pi_stream(&streamgen::PiSpec::medium());
    for chunk in [4095, 65536, 1 << 20] {
        check(&medium, chunk);
    }
    check(&streamgen::pi_stream(&streamgen::PiSpec::small()), 1);
}

#[test]
fn generated_claude_streams_lose_nothing() {
    check(
        &streamgen::claude_stream(&streamgen::ClaudeSpec::medium()),
        4095,
    );
}

#[test]
fn generated_codex_gemini_opencode_and_copilot_streams_lose_nothing() {
    let spec = streamgen::LoopSpec::medium();
    for generated in [
        streamgen::codex_stream(&spec),
        streamgen::gemini_stream(&spec),
        streamgen::opencode_stream(&spec),
        streamgen::copilot_stream(&spec),
    ] {
        for chunk in [7, 4095, 1 << 20] {
            check(&generated, chunk);
        }
    }
}
