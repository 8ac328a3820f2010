//! Real captures of each agent hitting a provider limit are told apart from other
//! failures, and a run that recovered from one is not.

mod support;

use ralph_stream::{SessionSummary, StreamDecoder, StreamFormat, names_overload};
use support::{fixtures_dir, read};

fn summarize(bytes: &[u8], format: StreamFormat) -> SessionSummary {
    let mut decoder = StreamDecoder::new(Some(format));
    let mut summary = SessionSummary::default();
    decoder.feed(bytes, |e| summary.observe(e));
    decoder.finish(|e| summary.observe(e));
    summary
}

fn summary(path: &str, format: StreamFormat) -> SessionSummary {
    summarize(&read(&fixtures_dir().join(path)), format)
}

#[test]
fn each_agents_limit_failure_is_reported_as_a_limit() {
    for (path, format) in [
        ("pi/anthropic/error429.jsonl", StreamFormat::Pi),
        ("pi/openai/error429.jsonl", StreamFormat::Pi),
        (
            "codex/v0.169.0_json_http429_no_retries.jsonl",
            StreamFormat::Codex,
        ),
        (
            "claude/v2.1.112_overloaded529_max_retries2.jsonl",
            StreamFormat::Claude,
        ),
        (
            "gemini/v0.61.0_stream-json_http429_max_attempts2.jsonl",
            StreamFormat::Gemini,
        ),
        // Recorded against the mock answering every request with 429 and the providers'
        // rate-limit headers (`limit_reset`), each agent told not to retry, or retrying
        // as it does by default (Gemini CLI, Copilot).
        ("pi/anthropic/ratelimit429_headers.jsonl", StreamFormat::Pi),
        ("pi/openai/ratelimit429_headers.jsonl", StreamFormat::Pi),
        (
            "claude/v2.1.332_ratelimit429_headers.jsonl",
            StreamFormat::Claude,
        ),
        (
            "codex/v0.169.0_json_ratelimit429_headers.jsonl",
            StreamFormat::Codex,
        ),
        (
            "gemini/v0.61.0_stream-json_ratelimit429_always.jsonl",
            StreamFormat::Gemini,
        ),
        (
            "opencode/v1.18.33_json_ratelimit429_headers.jsonl",
            StreamFormat::Opencode,
        ),
        (
            "copilot/v1.0.102_json_ratelimit429_always.jsonl",
            StreamFormat::Copilot,
        ),
    ] {
        let s = summary(path, format);
        assert!(!s.succeeded, "{path}");
        let limit = s
            .rate_limited
            .unwrap_or_else(|| panic!("{path}: no limit seen"));
        assert!(!limit.message.is_empty(), "{path}");
    }
}

#[test]
fn a_run_that_recovered_or_failed_otherwise_is_not_rate_limited() {
    let recovered = summary(
        "claude/v2.1.332_overloaded529_twice_then_ok.jsonl",
        StreamFormat::Claude,
    );
    assert!(recovered.succeeded && recovered.rate_limited.is_none());
    let unauthorized = summary(
        "opencode/v1.18.33_json_http401_always.jsonl",
        StreamFormat::Opencode,
    );
    assert!(!unauthorized.succeeded && unauthorized.rate_limited.is_none());
}

/// Claude Code 2.1.332 against the mock answering every request with HTTP 503 and
/// `Service temporarily unavailable`, recorded through `ralph run`.
const CLAUDE_503: &str = "claude/v2.1.332_http503_unavailable.jsonl";

#[test]
fn claudes_503_is_an_overload_as_it_is_for_the_other_agents() {
    let limit = summary(CLAUDE_503, StreamFormat::Claude)
        .rate_limited
        .expect("a 503 is an overload, not a plain failure");
    assert!(names_overload(&limit.message), "{}", limit.message);
    assert!(limit.message.contains("Service temporarily unavailable"));
}

#[test]
fn claudes_status_field_tells_the_overload_when_its_text_does_not() {
    // The same capture with the status left out of the error's words: only
    // `api_error_status` still says 503.
    let text = String::from_utf8(read(&fixtures_dir().join(CLAUDE_503))).expect("utf-8");
    let bent = text.replace("API Error: 503 ", "API Error: ");
    assert_ne!(bent, text, "the capture names the status in its text");
    assert!(bent.contains(r#""api_error_status":503"#));
    let limit = summarize(bent.as_bytes(), StreamFormat::Claude)
        .rate_limited
        .expect("the status field names the overload");
    assert!(
        limit
            .message
            .starts_with("HTTP 503: API Error: Service temporarily unavailable"),
        "{}",
        limit.message
    );
    // A failure whose status is no limit stays a failure.
    let failed = bent.replace(r#""api_error_status":503"#, r#""api_error_status":500"#);
    assert!(
        summarize(failed.as_bytes(), StreamFormat::Claude)
            .rate_limited
            .is_none()
    );
}

#[test]
fn claudes_rejected_rate_limit_event_carries_the_reset_time() {
    let stream = concat!(
        r#"{"type":"system","subtype":"init","session_id":"s","model":"claude-x"}"#,
        "\n",
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1764140400}}"#,
        "\n",
        r#"{"type":"result","subtype":"error_during_execution","is_error":true,"result":"Claude AI usage limit reached|1764140400","num_turns":1}"#,
        "\n",
    );
    let limit = summarize(stream.as_bytes(), StreamFormat::Claude)
        .rate_limited
        .expect("a limit");
    assert_eq!(limit.resets_at, Some(1_764_140_400));
}

#[test]
fn opencodes_reset_time_saturates_on_a_retry_after_past_all_time() {
    let capture = read(&fixtures_dir().join("opencode/v1.18.33_json_ratelimit429_headers.jsonl"));
    let text = String::from_utf8(capture).expect("utf-8");
    let bent = text.replace(
        r#""retry-after":"3600""#,
        &format!(r#""retry-after":"{}""#, u64::MAX),
    );
    assert_ne!(bent, text, "the capture gives a retry-after");
    let limit = summarize(bent.as_bytes(), StreamFormat::Opencode)
        .rate_limited
        .expect("a limit");
    assert_eq!(limit.resets_at, Some(u64::MAX));
}

#[test]
fn opencodes_429_gives_the_reset_time_from_retry_after() {
    // The error line's `timestamp` (1795682491282 ms) plus the provider's `retry-after`
    // (3600 s) from the response headers OpenCode repeats.
    let limit = summary(
        "opencode/v1.18.33_json_ratelimit429_headers.jsonl",
        StreamFormat::Opencode,
    )
    .rate_limited
    .expect("a limit");
    assert_eq!(limit.resets_at, Some(1_795_682_491 + 3_600));
    // The other captures give no reset time: none is invented.
    for (path, format) in [
        ("pi/openai/ratelimit429_headers.jsonl", StreamFormat::Pi),
        (
            "claude/v2.1.332_ratelimit429_headers.jsonl",
            StreamFormat::Claude,
        ),
        (
            "copilot/v1.0.102_json_ratelimit429_always.jsonl",
            StreamFormat::Copilot,
        ),
    ] {
        assert_eq!(
            summary(path, format).rate_limited.unwrap().resets_at,
            None,
            "{path}"
        );
    }
}
