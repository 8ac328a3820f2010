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

fn started(id: &str, command: &str) -> AgentEvent<'static> {
    AgentEvent::ToolCallStarted {
        id: id.to_owned().into(),
        name: "bash".into(),
        args: serde_json::json!({ "command": command }).to_string().into(),
        parent_id: None,
    }
}

fn finished(id: &str, output: &str, is_error: bool) -> AgentEvent<'static> {
    AgentEvent::ToolCallFinished {
        id: id.to_owned().into(),
        name: None,
        output: output.to_owned().into(),
        is_error,
    }
}

fn plain(view: &mut AgentView, events: &[AgentEvent<'_>]) -> String {
    let mut out = String::new();
    for event in events {
        view.render(event, &mut out);
    }
    view.finish(&mut out);
    anstream::adapter::strip_str(&out).to_string()
}

/// Parallel calls of one tool finish in any order: a result that does not follow its own
/// call's line names the call; one that does is shown as a sequential call's is.
#[test]
fn a_result_away_from_its_call_names_the_call() {
    let long = format!("cat {}", "x".repeat(80));
    let events = [
        started("a", "echo a"),
        started("b", "false"),
        started("c", &long),
        finished("a", "a\n", false),
        finished("c", "no such file\n", true),
        finished("b", "", true),
        // Sequential from here: each result right after its call.
        started("d", "ls"),
        finished("d", "one\ntwo\n", false),
        started("e", "exit 3"),
        finished("e", "Exit code 3\n", true),
    ];
    let cut = format!("cat {}…", "x".repeat(35));
    assert_eq!(
        plain(&mut AgentView::new(true), &events),
        format!(
            "▸ bash  echo a\n▸ bash  false\n▸ bash  {long}\n\
             \x20 ↳ bash (echo a) returned:\n  ↳ a\n\
             ✗ bash ({cut}) failed: no such file\n  ↳ no such file\n\
             ✗ bash (false) failed: \n\
             ▸ bash  ls\n  ↳ one\n  ↳ two\n\
             ▸ bash  exit 3\n✗ bash failed: Exit code 3\n  ↳ Exit code 3\n"
        )
    );
    // Without -v only failures show: `c` follows `c`'s line, `b` does not.
    let quiet = [
        started("b", "false"),
        started("c", "cat f"),
        finished("c", "no such file\n", true),
        finished("b", "", true),
    ];
    assert_eq!(
        plain(&mut AgentView::new(false), &quiet),
        "▸ bash  false\n▸ bash  cat f\n✗ bash failed: no such file\n✗ bash (false) failed: \n"
    );
}

/// Text between a call and its result: the result names its call.
#[test]
fn a_result_after_other_text_names_its_call() {
    let events = [
        started("a", "make"),
        AgentEvent::TextDelta {
            text: "Building.\n".into(),
        },
        finished("a", "error: no rule\n", true),
    ];
    assert_eq!(
        plain(&mut AgentView::new(false), &events),
        "▸ bash  make\nBuilding.\n✗ bash (make) failed: error: no rule\n"
    );
}

/// Claude Code's sub-agents (Task) run tools under the call that started them: each of
/// their calls and results is marked, the main agent's are not.
#[test]
fn a_sub_agent_s_calls_are_marked() {
    let sub = AgentEvent::ToolCallStarted {
        id: "s1".into(),
        name: "Bash".into(),
        args: r#"{"command":"echo SUBTOOL"}"#.into(),
        parent_id: Some("task".into()),
    };
    let events = [
        AgentEvent::ToolCallStarted {
            id: "task".into(),
            name: "Task".into(),
            args: r#"{"description":"look around"}"#.into(),
            parent_id: None,
        },
        sub,
        started("m1", "ls"),
        finished("s1", "denied\n", true),
        finished("m1", "gone\n", true),
    ];
    assert_eq!(
        plain(&mut AgentView::new(false), &events),
        "▸ Task  look around\n▸ sub-agent › Bash  echo SUBTOOL\n▸ bash  ls\n\
         ✗ sub-agent › Bash (echo SUBTOOL) failed: denied\n✗ bash (ls) failed: gone\n"
    );
}

#[test]
fn a_rate_limit_s_reset_is_a_date_not_a_unix_time() {
    let mut view = AgentView::new(false);
    let mut text = String::new();
    view.render(
        &AgentEvent::RateLimit {
            status: Some("rejected".into()),
            resets_at: Some(1_795_785_803),
        },
        &mut text,
    );
    let shown = anstream::adapter::strip_str(&text).to_string();
    assert!(
        shown.contains("rate limit: rejected, resets 2026-11-27 13:23 UTC"),
        "{shown}"
    );
    assert!(!shown.contains("1795785803"), "{shown}");
}

#[test]
fn a_finished_call_is_forgotten() {
    let mut view = AgentView::new(false);
    let calls: Vec<String> = (0..1_000).map(|n| format!("call-{n}")).collect();
    for id in &calls {
        plain(&mut view, &[started(id, "true"), finished(id, "", false)]);
    }
    // Only a call still running is remembered, however many ran.
    plain(&mut view, &[started("open", "sleep 9")]);
    assert_eq!(view.tools.len(), 1);
}

#[test]
fn a_call_the_stream_was_cut_in_is_said_cut_short_not_failed() {
    // pi killed while its model answered: its parser ends the call aborted, with no
    // error of the agent's to show.
    let out = render("pi/signals/sig_TERM.jsonl", false, false);
    assert!(
        out.ends_with("✗ model call cut short: the agent stopped before it ended\n"),
        "{out}"
    );
    assert!(!out.contains("no error message"), "{out}");
}

#[test]
fn an_answer_cut_at_the_output_limit_says_so() {
    // pi's answer "Half of the answer\nLOOP_COMPLETE", ended with stop reason `length`.
    let out = render("pi/openai/length_promise.jsonl", false, false);
    assert!(
        out.ends_with(
            "Half of the answer\nLOOP_COMPLETE\n⚠ the answer hit the model's output-token \
             limit: it was cut short\n"
        ),
        "{out}"
    );
}
