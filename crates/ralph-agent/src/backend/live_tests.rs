use serde_json::{Value, json};

use super::*;

fn parsed(frame: &[u8]) -> Value {
    let text = std::str::from_utf8(frame).expect("utf-8");
    let line = text.strip_suffix('\n').expect("one line");
    assert!(!line.contains('\n'), "{line}");
    serde_json::from_str(line).expect("JSON")
}

#[test]
fn pi_gets_rpc_commands() {
    let p = SteerProtocol::PiRpc;
    let text = "Do it.\n\"quoted\" -- and more";
    assert_eq!(
        parsed(&p.prompt_frame(text)),
        json!({"type": "prompt", "message": text})
    );
    assert_eq!(
        parsed(&p.steer_frame("go left")),
        json!({"type": "steer", "message": "go left"})
    );
    assert_eq!(parsed(&p.abort_frame()), json!({"type": "abort"}));
}

#[test]
fn claude_gets_user_messages_and_the_interrupt_request() {
    let p = SteerProtocol::ClaudeStreamJson;
    let message = |text: &str| json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": text}]}});
    assert_eq!(parsed(&p.prompt_frame("Do it.")), message("Do it."));
    assert_eq!(parsed(&p.steer_frame("go left")), message("go left"));
    assert_eq!(
        parsed(&p.abort_frame()),
        json!({"type": "control_request", "request_id": "ralph-abort", "request": {"subtype": "interrupt"}})
    );
}

#[test]
fn line_separators_are_escaped_for_line_readers_that_split_on_them() {
    let text = "a\u{2028}b\u{2029}c";
    let frame = SteerProtocol::PiRpc.prompt_frame(text);
    assert!(!String::from_utf8_lossy(&frame).contains('\u{2028}'));
    assert_eq!(parsed(&frame)["message"], json!(text));
}

#[test]
fn the_input_starts_with_the_prompt_and_refuses_steering_once_closed() {
    let input = LiveInput::start(SteerProtocol::PiRpc, "Do it.");
    assert_eq!(input.target(), "pi mid-turn");
    assert!(input.is_open());
    assert_eq!(input.steer("go left"), Ok(()));
    let copy = input.clone();
    assert_eq!(copy, input);
    copy.close();
    assert!(!input.is_open());
    assert_eq!(input.steer("too late"), Err(SteerRefused));
    let StdinSource::Live(stdin) = input.stdin_source() else {
        panic!("not live");
    };
    assert!(stdin.can_abort());
    let mut written = Vec::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    assert!(runtime.block_on(crate::supervise::write_live(&mut written, stdin)));
    let lines: Vec<Value> = written
        .split_inclusive(|b| *b == b'\n')
        .map(parsed)
        .collect();
    assert_eq!(
        lines,
        vec![
            json!({"type": "prompt", "message": "Do it."}),
            json!({"type": "steer", "message": "go left"}),
        ]
    );
}
