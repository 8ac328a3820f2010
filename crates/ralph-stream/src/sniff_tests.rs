use super::*;

#[test]
fn first_event_types_of_every_agent_are_recognised() {
    let cases: [(&[u8], Option<StreamFormat>); 9] = [
        (b"session", Some(StreamFormat::Pi)),
        (b"message_update", Some(StreamFormat::Pi)),
        (b"system", Some(StreamFormat::Claude)),
        (b"thread.started", Some(StreamFormat::Codex)),
        (b"init", Some(StreamFormat::Gemini)),
        (b"step_start", Some(StreamFormat::Opencode)),
        (b"session.tools_updated", Some(StreamFormat::Copilot)),
        (b"result", None),
        (b"tool_use", None),
    ];
    for (ty, want) in cases {
        assert_eq!(format_of_type(ty), want, "{}", String::from_utf8_lossy(ty));
    }
}

#[test]
fn the_first_line_of_every_real_capture_is_recognised() {
    let cases = [
        (
            r#"{"type":"thread.started","thread_id":"01a2"}"#,
            StreamFormat::Codex,
        ),
        (
            r#"{"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"}"#,
            StreamFormat::Gemini,
        ),
        (
            r#"{"type":"step_start","timestamp":1,"sessionID":"ses","part":{"type":"step-start"}}"#,
            StreamFormat::Opencode,
        ),
        (
            r#"{"type":"session.skills_loaded","data":{"skills":[]},"ephemeral":true}"#,
            StreamFormat::Copilot,
        ),
        (
            r#"{"type":"system","subtype":"init"}"#,
            StreamFormat::Claude,
        ),
        (r#"{"type":"session","version":3}"#, StreamFormat::Pi),
    ];
    for (line, want) in cases {
        assert_eq!(detect_line(line.as_bytes()), Some(want), "{line}");
    }
}

#[test]
fn shared_types_are_told_apart_by_their_keys_in_any_order() {
    let cases = [
        (
            r#"{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"x","parameters":{}}"#,
            Some(StreamFormat::Gemini),
        ),
        (
            r#"{"type":"tool_use","timestamp":1,"sessionID":"ses","part":{"tool":"bash"}}"#,
            Some(StreamFormat::Opencode),
        ),
        (
            r#"{"sessionID":"ses","part":{},"type":"tool_use"}"#,
            Some(StreamFormat::Opencode),
        ),
        (
            r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
            Some(StreamFormat::Claude),
        ),
        (
            r#"{"duration_api_ms":9,"type":"result","subtype":"success"}"#,
            Some(StreamFormat::Claude),
        ),
        (
            r#"{"type":"result","timestamp":"t","status":"success","stats":{}}"#,
            Some(StreamFormat::Gemini),
        ),
        (
            r#"{"type":"result","timestamp":"t","sessionId":"s","exitCode":0}"#,
            Some(StreamFormat::Copilot),
        ),
        (
            r#"{"type":"error","timestamp":1,"sessionID":"ses","error":{"name":"APIError"}}"#,
            Some(StreamFormat::Opencode),
        ),
        (
            r#"{"type":"error","timestamp":"t","severity":"error","message":"m"}"#,
            Some(StreamFormat::Gemini),
        ),
        // Codex's error has no key of its own: the next line decides.
        (r#"{"type":"error","message":"Reconnecting... 1/5"}"#, None),
        // A key from one agent on a type that agent never sends decides nothing.
        (r#"{"type":"tool_use","session_id":"s"}"#, None),
        (r#"{"type":"error","exitCode":1}"#, None),
        (r#"{"type":"result"}"#, None),
        (r#"{"sessionID":"s"}"#, None),
        ("not json", None),
    ];
    for (line, want) in cases {
        assert_eq!(detect_line(line.as_bytes()), want, "{line}");
    }
}
