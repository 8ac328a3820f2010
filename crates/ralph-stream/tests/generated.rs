//! Generated heavy streams parse to exactly what the generator put in.

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_test_support::streamgen;

fn check(generated: &streamgen::Generated, chunk: usize) {
    let mut decoder = StreamDecoder::new(None);
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
    let e = &generated.expect;
    assert_eq!(text, e.text);
    assert_eq!(summary.final_text.as_deref(), Some(e.final_text.as_str()));
    assert_eq!(
        (deltas, summary.turns, summary.tool_calls),
        (e.text_deltas, e.turns, e.tool_calls)
    );
    assert!((summary.cost_usd.unwrap() - e.cost_usd).abs() < 1e-9);
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
