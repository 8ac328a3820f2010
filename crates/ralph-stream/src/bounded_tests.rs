use pretty_assertions::assert_eq;

use super::*;
use crate::StreamDecoder;
use crate::StreamFormat;

/// The `error` of every event a decoder makes of `stream`.
fn errors_of(stream: &str) -> Vec<String> {
    let mut decoder = StreamDecoder::new(Some(StreamFormat::Pi));
    let mut errors = Vec::new();
    let mut keep = |event: &AgentEvent<'_>| {
        if let AgentEvent::MessageFinished { error: Some(e), .. }
        | AgentEvent::RetryStarted { error: Some(e), .. }
        | AgentEvent::RunFinished { error: Some(e), .. } = event
        {
            errors.push(e.to_string());
        }
    };
    decoder.feed(stream.as_bytes(), &mut keep);
    decoder.finish(&mut keep);
    errors
}

#[test]
fn a_huge_error_is_cut_in_every_event_that_repeats_it_and_says_how_much() {
    // pi's failed call, then its retry announcement, each with a 5 MB body ("é" is 2 bytes,
    // so the cut falls inside one).
    let body = "é".repeat(2_500_000);
    let stream = format!(
        "{{\"type\":\"message_end\",\"message\":{{\"role\":\"assistant\",\"content\":[],\
         \"stopReason\":\"error\",\"errorMessage\":\"500 {body}\"}}}}\n\
         {{\"type\":\"auto_retry_start\",\"attempt\":1,\"maxAttempts\":3,\"delayMs\":10,\
         \"errorMessage\":\"500 {body}\"}}\n"
    );
    let errors = errors_of(&stream);
    assert_eq!(
        errors.len(),
        2,
        "{:?}",
        errors.iter().map(String::len).collect::<Vec<_>>()
    );
    for error in &errors {
        let (head, rest) = error.split_once('…').unwrap();
        assert!(
            head.starts_with("500 éé") && head.len() <= MAX_ERROR_BYTES,
            "{}",
            head.len()
        );
        assert_eq!(
            rest,
            format!(" ({} more bytes)", 4 + body.len() - head.len())
        );
    }
}

#[test]
fn an_error_within_the_ceiling_is_passed_as_it_is() {
    let message = format!("500 {}", "x".repeat(MAX_ERROR_BYTES - 4));
    let stream = format!(
        "{{\"type\":\"auto_retry_start\",\"attempt\":1,\"maxAttempts\":3,\"delayMs\":10,\
         \"errorMessage\":\"{message}\"}}\n"
    );
    assert_eq!(errors_of(&stream), [message]);
}
