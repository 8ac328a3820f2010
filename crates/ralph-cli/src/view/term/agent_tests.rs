use std::path::PathBuf;

use ralph_stream::StreamDecoder;

use super::*;

fn fixture(rel: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel);
    std::fs::read(&path).unwrap()
}

/// Renders a capture, fed in small chunks, as a terminal would see it; ANSI escapes
/// are shown as `␛` so snapshots stay readable.
fn render(rel: &str, verbose: bool, color: bool) -> String {
    let mut view = AgentView::new(verbose);
    let mut decoder = StreamDecoder::new(None);
    let mut text = String::new();
    for chunk in fixture(rel).chunks(97) {
        decoder.feed(chunk, |e| view.render(e, &mut text));
    }
    decoder.finish(|e| view.render(e, &mut text));
    view.finish(&mut text);
    if color {
        text.replace('\u{1b}', "␛")
    } else {
        anstream::adapter::strip_str(&text).to_string()
    }
}

#[test]
fn pi_tool_run() {
    insta::assert_snapshot!(render("pi/openai/tool.jsonl", false, false));
    insta::assert_snapshot!(
        "pi_tool_run_color",
        render("pi/openai/tool.jsonl", false, true)
    );
}

#[test]
fn pi_tool_error_verbose() {
    insta::assert_snapshot!(render("pi/anthropic/tool_error.jsonl", true, false));
}

#[test]
fn pi_retries_that_recover_and_that_do_not() {
    insta::assert_snapshot!("pi_flaky", render("pi/openai/flaky.jsonl", false, false));
    insta::assert_snapshot!(
        "pi_error500",
        render("pi/openai/error500.jsonl", false, false)
    );
    insta::assert_snapshot!(
        "pi_midstream",
        render("pi/anthropic/midstream.jsonl", false, false)
    );
}

#[test]
fn pi_thinking_shows_only_with_verbose() {
    insta::assert_snapshot!(
        "pi_thinking",
        render("pi/openai/thinking.jsonl", false, false)
    );
    insta::assert_snapshot!(
        "pi_thinking_verbose",
        render("pi/openai/thinking.jsonl", true, false)
    );
}

#[test]
fn claude_rich_run() {
    insta::assert_snapshot!(
        "claude_rich",
        render("claude/v2.1.332_rich.jsonl", false, false)
    );
    insta::assert_snapshot!(
        "claude_rich_verbose_color",
        render("claude/v2.1.332_rich.jsonl", true, true)
    );
}

#[test]
fn claude_api_retries_and_failure() {
    insta::assert_snapshot!(
        "claude_529",
        render(
            "claude/v2.1.332_overloaded529_max_retries2.jsonl",
            false,
            false
        )
    );
}

/// Thinking streamed in pieces that split lines anywhere: every thinking line starts with
/// the gutter, the answer does not, so the two differ without colour.
#[test]
fn thinking_keeps_its_gutter_without_colour_across_split_deltas() {
    let mut view = AgentView::new(true);
    let mut out = String::new();
    for piece in ["Let me", " think.\nSecond", " line.\n\nAfter a gap."] {
        view.render(&AgentEvent::ThinkingDelta { text: piece.into() }, &mut out);
    }
    view.render(
        &AgentEvent::TextDelta {
            text: "The answer.".into(),
        },
        &mut out,
    );
    view.finish(&mut out);
    let plain = anstream::adapter::strip_str(&out).to_string();
    assert_eq!(
        plain,
        "┊ Let me think.\n┊ Second line.\n┊ \n┊ After a gap.\nThe answer.\n"
    );
}
