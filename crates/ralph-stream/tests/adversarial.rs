//! Hostile and broken input: the decoder reports what it cannot use and goes on.

mod support;

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::DEFAULT_MAX_LINE_BYTES;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use support::events_in_chunks;

const DELTA: &str =
    r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"hi"}}"#;

fn text(s: &str) -> AgentEvent<'static> {
    AgentEvent::TextDelta {
        text: s.to_owned().into(),
    }
}

#[test]
fn crlf_and_noise_between_events() {
    let input =
        format!("npm notice: 3 packages\r\n{DELTA}\r\n\r\n   \r\nWARN something\r\n{DELTA}\r\n");
    assert_eq!(
        events_in_chunks(None, [input.as_bytes()]),
        vec![
            AgentEvent::NonJson {
                line: "npm notice: 3 packages".into()
            },
            text("hi"),
            AgentEvent::NonJson {
                line: "WARN something".into()
            },
            text("hi"),
        ]
    );
}

#[test]
fn a_truncated_last_line_is_reported_and_a_complete_one_without_newline_is_kept() {
    let cut = format!("{DELTA}\n{{\"type\":\"message_end\",\"message\":{{\"role\":\"assist");
    let events = events_in_chunks(Some(StreamFormat::Pi), [cut.as_bytes()]);
    assert_eq!(events.len(), 2);
    assert!(matches!(events[1], AgentEvent::NonJson { .. }));
    let whole = format!("{DELTA}\n{DELTA}");
    assert_eq!(
        events_in_chunks(Some(StreamFormat::Pi), [whole.as_bytes()]),
        vec![text("hi"), text("hi")]
    );
}

#[test]
fn invalid_utf8_is_lossy_for_its_line_only() {
    let mut input = Vec::new();
    input.extend_from_slice(
        br#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"a"#,
    );
    input.extend_from_slice(b"\xff\xfe");
    input.extend_from_slice(b"b\"}}\n");
    input.extend_from_slice(DELTA.as_bytes());
    input.push(b'\n');
    input.extend_from_slice(b"\xc3(garbage\n");
    assert_eq!(
        events_in_chunks(Some(StreamFormat::Pi), [input.as_slice()]),
        vec![
            text("a\u{fffd}\u{fffd}b"),
            text("hi"),
            AgentEvent::NonJson {
                line: "\u{fffd}(garbage".into()
            }
        ]
    );
}

#[test]
fn a_100_mb_line_is_skipped_without_being_held_and_the_stream_goes_on() {
    const LINE: usize = 100 * 1024 * 1024;
    const CHUNK: usize = 1 << 20;
    let mut decoder = StreamDecoder::new(Some(StreamFormat::Pi));
    let mut events = Vec::new();
    decoder.feed(format!("{DELTA}\n").as_bytes(), |e| {
        events.push(e.clone().into_owned())
    });
    let filler = vec![b'x'; CHUNK];
    let mut fed = 0;
    decoder.feed(
        br#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":""#,
        |_| panic!("no event while the line is open"),
    );
    fed += 80;
    while fed < LINE {
        decoder.feed(&filler, |_| panic!("no event while the line is open"));
        fed += CHUNK;
    }
    decoder.feed(format!("\"}}}}\n{DELTA}\n").as_bytes(), |e| {
        events.push(e.clone().into_owned())
    });
    decoder.finish(|e| events.push(e.clone().into_owned()));
    assert_eq!(events.len(), 3);
    assert_eq!(events[0], text("hi"));
    assert!(
        matches!(events[1], AgentEvent::OversizeLine { len } if len as usize > DEFAULT_MAX_LINE_BYTES),
        "{:?}",
        events[1]
    );
    assert_eq!(events[2], text("hi"));
}

#[test]
fn a_million_tiny_lines() {
    let mut input = Vec::new();
    for _ in 0..1_000_000 {
        input.extend_from_slice(br#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"x"}}"#);
        input.push(b'\n');
    }
    let mut decoder = StreamDecoder::new(None);
    let mut summary = SessionSummary::default();
    let mut text_len = 0;
    for chunk in input.chunks(65536) {
        decoder.feed(chunk, |e| {
            if let AgentEvent::TextDelta { text } = e {
                text_len += text.len();
            }
            summary.observe(e);
        });
    }
    decoder.finish(|e| summary.observe(e));
    assert_eq!((decoder.lines(), text_len), (1_000_000, 1_000_000));
    assert_eq!(decoder.format(), Some(StreamFormat::Pi));
}

#[test]
fn unknown_types_missing_fields_and_wrong_types_are_counted_not_fatal() {
    let input = concat!(
        r#"{"type":"session"}"#,
        "\n",
        r#"{"type":"mystery","x":1}"#,
        "\n",
        r#"{"type":"message_end"}"#,
        "\n",
        r#"{"type":"message_end","message":"not an object"}"#,
        "\n",
        r#"{"type":"tool_execution_start"}"#,
        "\n",
        r#"{"type":"auto_retry_end","success":"no"}"#,
        "\n",
        r#"{"type":["array"]}"#,
        "\n",
    );
    let (format, summary, lines) = ralph_stream::summarize(input.as_bytes(), None);
    assert_eq!(format, Some(StreamFormat::Pi));
    assert_eq!(lines, 7);
    assert_eq!(summary.unknown_events, 2);
    assert_eq!(summary.non_json_lines, 0);
    assert_eq!(summary.tool_calls, 1);
    assert!(!summary.succeeded);
}

#[test]
fn claude_lines_with_unexpected_shapes() {
    let input = concat!(
        r#"{"type":"system","subtype":"brand_new"}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"hologram"},{"type":"text","text":"hi"}]}}"#,
        "\n",
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}]}}"#,
        "\n",
        r#"{"usage":{"input_tokens":"many"},"total_cost_usd":"free","is_error":false,"type":"result","num_turns":1}"#,
        "\n",
        r#"{"type":"keep_alive"}"#,
        "\n",
    );
    let events = events_in_chunks(Some(StreamFormat::Claude), [input.as_bytes()]);
    assert_eq!(
        events,
        vec![
            AgentEvent::Unknown {
                event_type: "system/brand_new".into()
            },
            AgentEvent::Unknown {
                event_type: "assistant/hologram".into()
            },
            text("hi"),
            AgentEvent::MessageFinished {
                text: "hi".into(),
                stop: ralph_stream::Stop::Completed,
                error: None
            },
            AgentEvent::TurnFinished {
                usage: ralph_stream::Usage::default(),
                is_error: false
            },
            AgentEvent::ToolCallFinished {
                id: "t1".into(),
                name: None,
                output: "a\nb".into(),
                is_error: false
            },
            AgentEvent::RunFinished {
                is_error: false,
                error: None,
                turns: Some(1),
                duration_ms: None,
                totals: Some(ralph_stream::Usage::default())
            },
            AgentEvent::Unknown {
                event_type: "keep_alive".into()
            },
        ]
    );
}

#[test]
fn something_that_is_no_agent_stream_is_not_recognised() {
    let (format, summary, _) = ralph_stream::summarize(b"hello\nworld\n{\"a\":1}\n", None);
    assert_eq!(format, None);
    assert_eq!((summary.non_json_lines, summary.unknown_events), (2, 1));
}
