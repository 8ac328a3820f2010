use super::*;

#[test]
fn limit_messages_of_each_agent_are_recognised() {
    for message in [
        "429 mock rate limit exceeded",
        "429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}",
        "Claude AI usage limit reached|1764140400",
        "API Error: 529 Overloaded",
        "[API Error: got status: 429 Too Many Requests.]",
        "RESOURCE_EXHAUSTED: Quota exceeded for quota metric",
        "stream error: exceeded retry limit, last status: 429 Too Many Requests",
        "You've hit your usage limit.",
        "{\"error\":{\"code\":429,\"message\":\"slow down\"}}",
    ] {
        assert!(names_limit(message), "{message}");
    }
    for message in [
        "500 internal server error",
        "tool failed: line 429 of main.rs",
        "status 4290",
        "connection refused",
        "",
    ] {
        assert!(!names_limit(message), "{message}");
    }
}

#[test]
fn an_overloaded_provider_is_a_limit_of_its_own_kind() {
    for message in [
        "API Error: 529 Overloaded",
        "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}",
        "529 mock injected HTTP 529",
        "HTTP 529: mock injected HTTP 529",
        "Repeated 529 Overloaded errors",
        "API Error (529): busy",
        // HTTP 503, as pi and Codex put it, and Gemini CLI's error body.
        "503 Service Unavailable",
        "503 status code (no body)",
        "HTTP 503: upstream connect error",
        "{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\",\"message\":\"Try later.\"}}",
        "{\"error\": {\"code\": 503, \"message\": \"busy\"}}",
        "API Error: Service Unavailable",
        // Claude Code's words for a 503 whose body does not say so.
        "API Error: 503 Service temporarily unavailable. This is a server-side issue",
    ] {
        assert!(names_overload(message) && names_limit(message), "{message}");
    }
    for message in [
        "429 mock rate limit exceeded",
        "Claude AI usage limit reached|1764140400",
        "RESOURCE_EXHAUSTED: Quota exceeded for quota metric",
        "tool failed: line 529 of main.rs",
        "5290 bytes",
        "5030 bytes",
        "status 5031",
        "{\"code\":5030}",
        "line 503 of main.rs is unavailable",
        "500 Internal Server Error",
        "API Error: 5030 bytes",
        "API Error: 500 Service temporarily unavailable",
    ] {
        assert!(!names_overload(message), "{message}");
    }
}

#[test]
fn claudes_usage_limit_carries_its_reset_time() {
    assert_eq!(
        reset_in_message("Claude AI usage limit reached|1764140400"),
        Some(1_764_140_400)
    );
    assert_eq!(reset_in_message("a|b"), None);
    assert_eq!(reset_in_message("exit code|2"), None);
}

#[test]
fn gemini_clis_exit_code_is_the_low_byte_of_its_http_status() {
    let error = "[API Error: Service temporarily unavailable]";
    let limit = limit_in_exit_code(StreamFormat::Gemini, 247, Some(error)).expect("503");
    assert_eq!(
        limit.message,
        "HTTP 503 (Gemini CLI's exit code 247): [API Error: Service temporarily unavailable]"
    );
    assert!(names_overload(&limit.message), "{}", limit.message);
    assert_eq!(limit.resets_at, None);
    let limited = |code| limit_in_exit_code(StreamFormat::Gemini, code, None);
    assert!(limited(173).is_some_and(|l| l.message.starts_with("HTTP 429 ")));
    assert!(limited(17).is_some_and(|l| l.message.starts_with("HTTP 529 ")));
    // A 500 (244), Gemini CLI's own exit codes, and a plain failure are not limits.
    for code in [244, 41, 42, 52, 53, 130, 1, 0] {
        assert_eq!(limited(code), None, "{code}");
    }
    // Other agents' exit codes carry no HTTP status.
    for format in [StreamFormat::Claude, StreamFormat::Pi, StreamFormat::Codex] {
        assert_eq!(limit_in_exit_code(format, 247, Some(error)), None);
    }
}
