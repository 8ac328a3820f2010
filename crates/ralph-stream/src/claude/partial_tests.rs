use pretty_assertions::assert_eq;

use super::super::ClaudeParser;
use super::super::REFUSED;
use super::BROKE_OFF;
use crate::event::AgentEvent;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::parser::events_of;

fn events(lines: &[String]) -> Vec<AgentEvent<'static>> {
    events_of(ClaudeParser::default(), &lines.join("\n"))
}

/// A main-agent `stream_event` of message `id`.
fn streamed(id: &str, event: &str) -> String {
    format!(
        r#"{{"type":"stream_event","event":{event},"parent_tool_use_id":null,"api_message_id":"{id}"}}"#
    )
}

/// A delta of block `index`: `kind` is `text` or `thinking`, `json` its JSON string.
fn delta(index: u32, kind: &str, json: &str) -> String {
    format!(
        r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}_delta","{kind}":{json}}}}}"#
    )
}

/// The complete `assistant` line of one block of message `id`.
fn complete(id: &str, block: &str) -> String {
    format!(
        r#"{{"type":"assistant","message":{{"id":"{id}","model":"claude-x","content":[{block}]}},"parent_tool_use_id":null}}"#
    )
}

fn text(text: &str) -> AgentEvent<'static> {
    AgentEvent::TextDelta {
        text: text.to_owned().into(),
    }
}

fn thinking(text: &str) -> AgentEvent<'static> {
    AgentEvent::ThinkingDelta {
        text: text.to_owned().into(),
    }
}

fn finished(text: &str, stop: Stop, error: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::MessageFinished {
        text: text.to_owned().into(),
        stop,
        error: error.map(|e| e.to_owned().into()),
    }
}

fn turn(model: Option<&str>, is_error: bool) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage {
            model: model.map(|m| m.to_owned().into()),
            ..Usage::default()
        },
        is_error,
    }
}

/// A model call whose `message_delta` gave its final `output` count.
fn turn_of(model: Option<&str>, is_error: bool, output: u64) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage::reported(
            Tokens {
                output,
                ..Tokens::default()
            },
            None,
            model.map(|m| m.to_owned().into()),
        ),
        is_error,
    }
}

#[test]
fn deltas_show_as_they_come_and_the_complete_lines_do_not_show_them_again() {
    let got = events(&[
        streamed(
            "m1",
            r#"{"type":"message_start","message":{"id":"m1","content":[]}}"#,
        ),
        streamed("m1", &delta(0, "thinking", r#""plan""#)),
        streamed("m1", &delta(0, "thinking", r#"" more""#)),
        complete("m1", r#"{"type":"thinking","thinking":"plan more"}"#),
        streamed("m1", &delta(1, "text", r#""Say \"hi\"""#)),
        // Keys in another order, a decoy delta before the real one, an escape.
        streamed(
            "m1",
            r#"{"delta":{"type":"signature_delta"},"delta":{"text":" \u0074o","type":"text_delta"},"index":1,"type":"content_block_delta"}"#,
        ),
        complete("m1", r#"{"type":"text","text":"Say \"hi\" to"}"#),
        complete(
            "m1",
            r#"{"type":"tool_use","id":"t1","name":"Bash","input":{}}"#,
        ),
        streamed("m1", &delta(3, "text", r#""you""#)),
        complete("m1", r#"{"type":"text","text":"you"}"#),
    ]);
    assert_eq!(
        got,
        vec![
            thinking("plan"),
            thinking(" more"),
            text("Say \"hi\""),
            text(" to"),
            AgentEvent::ToolCallStarted {
                id: "t1".into(),
                name: "Bash".into(),
                args: "{}".into(),
                parent_id: None,
            },
            // A second text block of the message is a paragraph of its own.
            text("\nyou"),
            finished("Say \"hi\" to\nyou", Stop::ToolUse, None),
            turn(Some("claude-x"), false),
        ]
    );
}

#[test]
fn complete_lines_without_deltas_show_whole_as_before() {
    let got = events(&[
        complete("m1", r#"{"type":"thinking","thinking":"plan"}"#),
        complete("m1", r#"{"type":"text","text":"one"}"#),
        // The text block after it streamed; the one before did not.
        streamed("m1", &delta(2, "text", r#""tw""#)),
        complete("m1", r#"{"type":"text","text":"two"}"#),
    ]);
    assert_eq!(
        got,
        vec![
            thinking("plan"),
            text("one"),
            text("\ntw"),
            text("o"),
            finished("one\ntwo", Stop::Completed, None),
            turn(Some("claude-x"), false),
        ]
    );
}

#[test]
fn a_message_cut_mid_stream_ends_failed_with_what_it_showed_and_its_retry_answers() {
    // Claude Code's retry after an error mid-stream is a new message, and the cut one
    // never gets its complete line.
    let got = events(&[
        streamed("m1", &delta(0, "text", r#""Partial an""#)),
        streamed("m1", &delta(0, "text", r#""swer""#)),
        streamed("m1", r#"{"type":"content_block_stop","index":0}"#),
        streamed("m1", r#"{"type":"message_stop"}"#),
        complete("m2", r#"{"type":"text","text":"Partial answer, whole."}"#),
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Partial answer, whole."}"#.to_owned(),
    ]);
    assert_eq!(
        got[..7],
        [
            text("Partial an"),
            text("swer"),
            finished("Partial answer", Stop::Error, Some(BROKE_OFF)),
            turn(None, true),
            text("Partial answer, whole."),
            finished("Partial answer, whole.", Stop::Completed, None),
            turn(Some("claude-x"), false),
        ]
    );
    // So is a message the stream ends in.
    let cut = events(&[streamed("m1", &delta(0, "thinking", r#""hm""#))]);
    assert_eq!(
        cut,
        [
            thinking("hm"),
            finished("", Stop::Error, Some(BROKE_OFF)),
            turn(None, true),
        ]
    );
}

#[test]
fn a_complete_block_unlike_its_deltas_replaces_their_text_in_the_message() {
    let got = events(&[
        streamed("m1", &delta(0, "text", r#""draft""#)),
        complete("m1", r#"{"type":"text","text":"final"}"#),
    ]);
    assert_eq!(
        got,
        vec![
            text("draft"),
            text("final"),
            finished("final", Stop::Completed, None),
            turn(Some("claude-x"), false),
        ]
    );
}

#[test]
fn a_sub_agents_deltas_are_not_the_answer() {
    let sub = r#"{"type":"stream_event","parent_tool_use_id":"toolu_1","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"sub"}},"api_message_id":"s1"}"#;
    assert_eq!(events(&[sub.to_owned()]), vec![]);
}

#[test]
fn deltas_without_a_message_id_belong_to_the_message_started_last() {
    let bare = |event: &str| format!(r#"{{"type":"stream_event","event":{event}}}"#);
    let got = events(&[
        bare(r#"{"type":"message_start","message":{"id":"m\u0031"}}"#),
        bare(&delta(0, "text", r#""hel""#)),
        complete("m1", r#"{"type":"text","text":"hello"}"#),
    ]);
    assert_eq!(
        got,
        vec![
            text("hel"),
            text("lo"),
            finished("hello", Stop::Completed, None),
            turn(Some("claude-x"), false),
        ]
    );
}

#[test]
fn stream_events_of_other_shapes_show_nothing() {
    let lines: Vec<String> = [
        r#""event":"text""#,
        r#""event":{"type":"content_block_delta","delta":"hi"}"#,
        r#""event":{"type":"content_block_delta","delta":{"type":"text_delta","text":7}}"#,
        r#""event":{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        r#""event":{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
        r#""event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"x"}}"#,
        r#""event":{"delta":{"type":"text_delta","text":"x"},"type":"content_block_stop"}"#,
        r#""event":{"type":"message_start","message":"m1"}"#,
    ]
    .iter()
    .map(|rest| format!(r#"{{"type":"stream_event",{rest},"api_message_id":"m1"}}"#))
    .collect();
    assert_eq!(events(&lines), vec![]);
}

/// A main-agent `message_delta` of message `id` ending it with `reason` (a JSON value).
fn stopped(id: &str, reason: &str) -> String {
    streamed(
        id,
        &format!(
            r#"{{"type":"message_delta","delta":{{"stop_reason":{reason},"stop_sequence":null}},"usage":{{"output_tokens":9}}}}"#
        ),
    )
}

#[test]
fn a_message_cut_at_the_output_limit_ends_with_a_length_stop() {
    // As Claude Code 2.1.332 writes it: the complete line says `stop_reason: null`, the
    // `message_delta` after it says `max_tokens`, then Claude Code asks the model to go on.
    let got = events(&[
        streamed("m1", &delta(0, "text", r#""cut in the mid""#)),
        r#"{"type":"assistant","message":{"id":"m1","model":"claude-x","stop_reason":null,"content":[{"type":"text","text":"cut in the mid"}]},"parent_tool_use_id":null}"#.to_owned(),
        streamed("m1", r#"{"type":"content_block_stop","index":0}"#),
        // Keys in another order, and an escape in the reason.
        streamed(
            "m1",
            r#"{"usage":{"output_tokens":9},"delta":{"stop_reason":"max_\u0074okens"},"type":"message_delta"}"#,
        ),
        streamed("m1", r#"{"type":"message_stop"}"#),
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Output token limit hit. Resume directly."}]},"parent_tool_use_id":null,"isSynthetic":true}"#.to_owned(),
        streamed("m2", &delta(0, "text", r#""dle.""#)),
        complete("m2", r#"{"type":"text","text":"dle."}"#),
        stopped("m2", r#""end_turn""#),
    ]);
    assert_eq!(
        got,
        vec![
            text("cut in the mid"),
            finished("cut in the mid", Stop::Length, None),
            turn_of(Some("claude-x"), false, 9),
            text("dle."),
            finished("dle.", Stop::Completed, None),
            turn_of(Some("claude-x"), false, 9),
        ]
    );
}

#[test]
fn a_stop_reason_changes_only_the_message_being_assembled_and_not_its_error() {
    // Another message's stop reason, and one given as null, leave the message's own.
    let other = events(&[
        streamed("m1", &delta(0, "text", r#""hi""#)),
        complete("m1", r#"{"type":"text","text":"hi"}"#),
        stopped("m0", r#""max_tokens""#),
        stopped("m1", "null"),
    ]);
    assert_eq!(other[1], finished("hi", Stop::Completed, None));
    // A message its tool's result completed was reported: a late stop opens nothing.
    let late = events(&[
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},"parent_tool_use_id":null}"#.to_owned(),
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"parent_tool_use_id":null}"#.to_owned(),
        stopped("m1", r#""tool_use""#),
    ]);
    assert_eq!(
        late.iter()
            .filter(|e| matches!(e, AgentEvent::MessageFinished { .. }))
            .count(),
        1
    );
    // Claude Code's own error message keeps its error.
    let error = events(&[
        r#"{"type":"assistant","message":{"id":"e1","model":"<synthetic>","content":[{"type":"text","text":"API Error: too long"}]},"parent_tool_use_id":null,"error":"max_output_tokens","is_api_error_message":true}"#.to_owned(),
        stopped("e1", r#""max_tokens""#),
    ]);
    assert_eq!(
        error[0],
        finished("", Stop::Error, Some("API Error: too long"))
    );
}

#[test]
fn the_newer_stop_reasons_map_to_what_they_mean_for_the_loop() {
    // (reason, stop, error, whether the turn failed)
    let cases = [
        ("model_context_window_exceeded", Stop::Length, None, false),
        ("pause_turn", Stop::ToolUse, None, false),
        ("refusal", Stop::Error, Some(REFUSED), true),
    ];
    for (reason, stop, error, failed) in cases {
        let got = events(&[
            streamed("m1", &delta(0, "text", r#""so far""#)),
            complete("m1", r#"{"type":"text","text":"so far"}"#),
            stopped("m1", &format!("\"{reason}\"")),
        ]);
        assert_eq!(
            got,
            vec![
                text("so far"),
                finished("so far", stop, error),
                turn_of(Some("claude-x"), failed, 9),
            ],
            "{reason}"
        );
    }
}

#[test]
fn a_calls_output_count_is_the_one_its_message_delta_gives() {
    // The complete lines carry the `message_start` snapshot (1); the `message_delta` the
    // final count, with or without a stop reason. Another message's count is not taken.
    let usage = r#""usage":{"input_tokens":10,"output_tokens":1}"#;
    let got = events(&[
        streamed("m1", &delta(0, "text", r#""hi""#)),
        format!(
            r#"{{"type":"assistant","message":{{"id":"m1","model":"claude-x","content":[{{"type":"text","text":"hi"}}],{usage}}},"parent_tool_use_id":null}}"#
        ),
        streamed(
            "m0",
            r#"{"type":"message_delta","delta":{},"usage":{"output_tokens":99}}"#,
        ),
        streamed(
            "m1",
            r#"{"type":"message_delta","delta":{},"usage":{"output_tokens":42}}"#,
        ),
    ]);
    let tokens = Tokens {
        input: 10,
        output: 42,
        ..Tokens::default()
    };
    assert_eq!(
        got.last(),
        Some(&AgentEvent::TurnFinished {
            usage: Usage::reported(tokens, None, Some("claude-x".into())),
            is_error: false,
        })
    );
}

#[test]
fn a_call_cut_after_its_message_start_is_a_broken_off_call_of_its_model_and_input() {
    let start = r#"{"type":"message_start","message":{"id":"m1","model":"claude-x","content":[],"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":2,"output_tokens":1}}}"#;
    let started = Tokens {
        input: 10,
        output: 1,
        cache_read: 2,
        cache_write: 5,
    };
    let broken_call = AgentEvent::TurnFinished {
        usage: Usage::reported(started, None, Some("claude-x".into())),
        is_error: true,
    };
    // Cut before its first delta: the `message_start` is all there is of it.
    assert_eq!(
        events(&[streamed("m1", start)]),
        [
            finished("", Stop::Error, Some(BROKE_OFF)),
            broken_call.clone()
        ]
    );
    // Cut after a delta: the call is still known by its model and input.
    assert_eq!(
        events(&[
            streamed("m1", start),
            streamed("m1", &delta(0, "text", r#""Par""#))
        ]),
        [
            text("Par"),
            finished("Par", Stop::Error, Some(BROKE_OFF)),
            broken_call
        ]
    );
    // A whole call ends as before, with its input and its final output count.
    let whole = events(&[
        streamed("m1", start),
        streamed("m1", &delta(0, "text", r#""hi""#)),
        complete("m1", r#"{"type":"text","text":"hi"}"#),
        stopped("m1", r#""end_turn""#),
    ]);
    assert_eq!(
        whole[1..],
        [
            finished("hi", Stop::Completed, None),
            AgentEvent::TurnFinished {
                usage: Usage::reported(
                    Tokens {
                        output: 9,
                        ..started
                    },
                    None,
                    Some("claude-x".into())
                ),
                is_error: false,
            },
        ]
    );
}

/// The `content_block_start` of a tool call to `name`, block `index`.
fn tool_begun(index: u32, name: &str) -> String {
    format!(
        r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"tool_use","id":"toolu_1","name":"{name}","input":{{}}}}}}"#
    )
}

#[test]
fn a_message_that_ends_without_a_stop_reason_or_with_a_tool_call_begun_broke_off() {
    let stop = || streamed("m1", r#"{"type":"message_stop"}"#);
    let whole_text = || complete("m1", r#"{"type":"text","text":"Run it"}"#);
    // Its text came whole, then its `message_stop`, with no `message_delta` before it.
    assert_eq!(
        events(&[whole_text(), stop()]),
        [
            text("Run it"),
            finished("Run it", Stop::Error, Some(BROKE_OFF)),
            turn(Some("claude-x"), true),
        ]
    );
    // A tool call began, and its block never came whole: it did not run.
    let input = r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"co"}}"#;
    let cut = [
        whole_text(),
        streamed("m1", &tool_begun(1, "Bash")),
        streamed("m1", input),
    ];
    let broke =
        "the model's response broke off while it wrote a tool call to Bash, which did not run";
    let expected = [
        text("Run it"),
        finished("Run it", Stop::Error, Some(broke)),
        turn(Some("claude-x"), true),
    ];
    // Whether its `message_stop` came, or the stream ended there.
    assert_eq!(events(&[&cut[..], &[stop()]].concat()), expected);
    assert_eq!(events(&cut), expected);
    // A tool call whose block came whole, in a message with its stop reason: a tool use.
    let tool = r#"{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}"#;
    let got = events(&[
        whole_text(),
        streamed("m1", &tool_begun(1, "Bash")),
        complete("m1", tool),
        stopped("m1", r#""tool_use""#),
        stop(),
    ]);
    assert_eq!(
        got[got.len() - 2..],
        [
            finished("Run it", Stop::ToolUse, None),
            turn_of(Some("claude-x"), false, 9),
        ]
    );
}

#[test]
fn a_cut_message_ends_at_its_message_stop_before_the_retry_is_announced() {
    let retry = r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":2,"retry_delay_ms":586,"error_status":null,"error":"unknown"}"#;
    let got = events(&[
        streamed("m1", &delta(0, "text", r#""Work""#)),
        streamed("m1", r#"{"type":"message_stop"}"#),
        retry.to_owned(),
        streamed("m2", &delta(0, "text", r#""Work done.""#)),
    ]);
    assert_eq!(
        got[..4],
        [
            text("Work"),
            finished("Work", Stop::Error, Some(BROKE_OFF)),
            turn(None, true),
            AgentEvent::RetryStarted {
                attempt: Some(1),
                max_attempts: Some(2),
                delay_ms: Some(586),
                error: Some("unknown".into()),
            },
        ]
    );
}
