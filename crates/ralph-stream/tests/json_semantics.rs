//! Lines are read as a JSON parser reads them: escapes in keys and enum-like values mean
//! what they decode to, the last of duplicate keys wins, key order does not matter, and
//! a byte order mark before the first line is not part of it. Each case is a line from
//! the issue's differential test, next to the plain line it must read the same as.

mod support;

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::StreamFormat;
use support::events_in_chunks;

fn events(format: Option<StreamFormat>, lines: &[&str]) -> Vec<AgentEvent<'static>> {
    let text = lines.join("\n");
    events_in_chunks(format, [text.as_bytes()])
}

/// `variant` gives the same events as `plain`, with the format named and detected.
#[track_caller]
fn same(format: StreamFormat, plain: &[&str], variant: &[&str]) {
    let want = events(Some(format), plain);
    assert_eq!(events(Some(format), variant), want, "--agent {format}");
    assert_eq!(events(None, variant), events(None, plain), "detected");
    let (detected, _, _) = ralph_stream::summarize(variant.join("\n").as_bytes(), None);
    assert_eq!(detected, Some(format));
}

const PI_FAILED: [&str; 5] = [
    r#"{"type":"agent_start"}"#,
    r#"{"type":"turn_start"}"#,
    r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"stopReason":"error","errorMessage":"boom"}}"#,
    r#"{"type":"turn_end"}"#,
    r#"{"type":"agent_end","willRetry":false}"#,
];

#[test]
fn pi_escaped_stop_reason_is_still_an_error() {
    let mut variant = PI_FAILED;
    variant[2] = r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"x"}],"stopReason":"\u0065rror","errorMessage":"boom"}}"#;
    same(StreamFormat::Pi, &PI_FAILED, &variant);
    let (_, summary, _) = ralph_stream::summarize(variant.join("\n").as_bytes(), None);
    assert!(!summary.succeeded);
}

#[test]
fn pi_escaped_types_are_recognised_even_when_every_type_is_escaped() {
    let variant = [
        r#"{"type":"\u0061gent_start"}"#,
        r#"{"type":"turn_st\u0061rt"}"#,
        r#"{"type":"message_\u0065nd","message":{"role":"\u0061ssistant","content":[{"type":"t\u0065xt","text":"x"}],"stopReason":"error","errorMessage":"boom"}}"#,
        r#"{"type":"turn_\u0065nd"}"#,
        r#"{"type":"agent_\u0065nd","willRetry":false}"#,
    ];
    same(StreamFormat::Pi, &PI_FAILED, &variant);
}

#[test]
fn pi_escaped_keys_are_read() {
    let variant = [
        r#"{"t\u0079pe":"agent_start"}"#,
        r#"{"type":"turn_start"}"#,
        r#"{"type":"message_end","mess\u0061ge":{"role":"assistant","content":[{"type":"text","text":"x"}],"stop\u0052eason":"error","errorMessage":"boom"}}"#,
        r#"{"type":"turn_end"}"#,
        r#"{"type":"agent_end","willRetry":false}"#,
    ];
    same(StreamFormat::Pi, &PI_FAILED, &variant);
}

#[test]
fn the_last_duplicate_type_wins() {
    let plain = [r#"{"type":"agent_start"}"#, r#"{"type":"agent_end"}"#];
    let variant = [
        r#"{"type":"agent_start"}"#,
        r#"{"type":"turn_start","type":"agent_end"}"#,
    ];
    same(StreamFormat::Pi, &plain, &variant);
    // Even when the decoy is a kind whose fields are never read.
    let variant = [
        r#"{"type":"agent_start"}"#,
        r#"{"type":"queue_update","willRetry":true,"type":"agent_end","willRetry":false}"#,
    ];
    same(StreamFormat::Pi, &plain, &variant);
}

#[test]
fn pi_later_duplicates_of_nested_objects_replace_earlier_ones() {
    let plain = [
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"real"}}"#,
        r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"real"}],"stopReason":"stop"}}"#,
    ];
    let variant = [
        r#"{"type":"message_update","assistantMessageEvent":{"type":"thinking_delta","delta":"decoy"},"assistantMessageEvent":{"type":"text_delta","delta":"decoy","delta":"real"}}"#,
        r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"decoy"}],"stopReason":"error","errorMessage":"decoy"},"message":{"role":"assistant","content":[{"type":"text","text":"real"}],"stopReason":"stop"}}"#,
    ];
    same(StreamFormat::Pi, &plain, &variant);
}

#[test]
fn claude_escaped_subtype_and_keys_are_read() {
    let plain = [r#"{"type":"system","subtype":"init","session_id":"s","model":"m"}"#];
    let variant = [r#"{"type":"system","subtype":"\u0069nit","session_\u0069d":"s","model":"m"}"#];
    same(StreamFormat::Claude, &plain, &variant);
}

#[test]
fn claude_model_usage_duplicates_replace_rather_than_add() {
    let result = |model_usage: &str| {
        format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.5,"modelUsage":{model_usage}}}"#
        )
    };
    let plain = result(r#"{"m":{"inputTokens":100,"outputTokens":5}}"#);
    let variant = result(r#"{"m":{"inputTokens":7,"inputTokens":100,"outputTokens":5}}"#);
    same(StreamFormat::Claude, &[&plain], &[&variant]);
    let variant = result(
        r#"{"m":{"inputTokens":7,"outputTokens":1},"m":{"inputTokens":100,"outputTokens":5}}"#,
    );
    same(StreamFormat::Claude, &[&plain], &[&variant]);
    let decoy = format!(
        r#"{{"type":"result","modelUsage":{{"m":{{"inputTokens":9}}}},{}"#,
        &result(r#"{"m":{"inputTokens":100,"outputTokens":5}}"#)[1..]
    );
    same(StreamFormat::Claude, &[&plain], &[&decoy]);
    let (_, summary, _) = ralph_stream::summarize(variant.as_bytes(), None);
    assert_eq!(summary.tokens.input, 100);
}

#[test]
fn claude_parent_tool_use_id_counts_wherever_it_is() {
    let lines = |user: &str| {
        [
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"main"}]},"parent_tool_use_id":null}"#.to_owned(),
            user.to_owned(),
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"more"}]},"parent_tool_use_id":null}"#.to_owned(),
        ]
    };
    let first = lines(
        r#"{"type":"user","parent_tool_use_id":"t0","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"sub"}]}}"#,
    );
    let after = lines(
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"sub"}]},"parent_tool_use_id":"t0","tool_use_result":{"stdout":"sub"}}"#,
    );
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    let after: Vec<&str> = after.iter().map(String::as_str).collect();
    same(StreamFormat::Claude, &first, &after);
    // A sub-agent's result does not end the main agent's message.
    let got = events(Some(StreamFormat::Claude), &after);
    let finished = got
        .iter()
        .filter(|e| matches!(e, AgentEvent::MessageFinished { .. }))
        .count();
    assert_eq!(finished, 1, "{got:#?}");
}

#[test]
fn opencode_escaped_reason_and_status_are_read() {
    let plain = [
        r#"{"type":"step_start","sessionID":"s","part":{"messageID":"m"}}"#,
        r#"{"type":"tool_use","sessionID":"s","part":{"tool":"bash","callID":"c","state":{"status":"error","error":"no"}}}"#,
        r#"{"type":"step_finish","sessionID":"s","part":{"reason":"stop","cost":0.5,"tokens":{"input":1,"output":2}}}"#,
    ];
    let variant = [
        r#"{"type":"step_start","sessionI\u0044":"s","part":{"messageID":"m"}}"#,
        r#"{"type":"tool_use","sessionID":"s","part":{"tool":"bash","callID":"c","state":{"status":"\u0065rror","error":"no"}}}"#,
        r#"{"type":"step_finish","sessionID":"s","part":{"reason":"\u0073top","cost":0.5,"tokens":{"input":1,"output":2}}}"#,
    ];
    same(StreamFormat::Opencode, &plain, &variant);
}

#[test]
fn auto_detection_reads_escaped_keys_and_types() {
    let plain = [r#"{"type":"tool_use","sessionID":"s","part":{"tool":"bash","callID":"c"}}"#];
    let variant =
        [r#"{"type":"tool_\u0075se","sessionI\u0044":"s","part":{"tool":"bash","callID":"c"}}"#];
    same(StreamFormat::Opencode, &plain, &variant);
}

#[test]
fn codex_gemini_and_copilot_keep_the_last_nested_object() {
    same(
        StreamFormat::Codex,
        &[
            r#"{"type":"thread.started","thread_id":"t"}"#,
            r#"{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"real"}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}"#,
        ],
        &[
            r#"{"type":"thread.started","thread_id":"t"}"#,
            r#"{"type":"item.completed","item":{"id":"d","type":"reasoning","text":"decoy"},"item":{"id":"i","type":"agent_message","text":"real"}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":99},"usage":{"input_tokens":10,"output_tokens":2}}"#,
        ],
    );
    same(
        StreamFormat::Gemini,
        &[
            r#"{"type":"init","session_id":"s","model":"gemini-2.5-pro"}"#,
            r#"{"type":"result","status":"success","stats":{"total_tokens":30,"input_tokens":20,"models":{"gemini-2.5-pro":{"total_tokens":30,"input_tokens":20}}}}"#,
        ],
        &[
            r#"{"type":"init","session_id":"s","model":"gemini-2.5-pro"}"#,
            r#"{"type":"result","status":"success","stats":{"total_tokens":30,"input_tokens":20,"models":{"gemini-2.5-flash":{"total_tokens":9}},"models":{"gemini-2.5-pro":{"total_tokens":30,"input_tokens":20}}}}"#,
        ],
    );
    same(
        StreamFormat::Copilot,
        &[
            r#"{"type":"session.tools_updated","data":{"model":"gpt-5"}}"#,
            r#"{"type":"assistant.message","data":{"messageId":"m","content":"real","toolRequests":[]}}"#,
            r#"{"type":"result","sessionId":"s","exitCode":0}"#,
        ],
        &[
            r#"{"type":"session.tools_updated","data":{"model":"gpt-5"}}"#,
            r#"{"type":"assistant.message","data":{"messageId":"d","content":"decoy","toolRequests":[{}]},"data":{"messageId":"m","content":"real","toolRequests":[]}}"#,
            r#"{"type":"result","sessionId":"s","exitCode":1,"exitCode":0}"#,
        ],
    );
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_skipped() {
    let plain = PI_FAILED.join("\n");
    let with_bom = format!("\u{feff}{plain}");
    for format in [Some(StreamFormat::Pi), None] {
        assert_eq!(
            events_in_chunks(format, [with_bom.as_bytes()]),
            events_in_chunks(format, [plain.as_bytes()]),
        );
        // However the mark is split across chunks.
        assert_eq!(
            events_in_chunks(format, with_bom.as_bytes().chunks(1)),
            events_in_chunks(format, [plain.as_bytes()]),
        );
    }
}
