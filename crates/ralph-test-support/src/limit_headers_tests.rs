//! The providers' rate-limit headers.

use super::*;

#[test]
fn times_are_written_as_rfc3339() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(1_795_680_000), "2026-11-26T08:00:00Z");
    assert_eq!(rfc3339(951_825_599), "2000-02-29T11:59:59Z");
}

#[test]
fn each_wire_gets_its_providers_headers() {
    let anthropic = limit_headers(Wire::AnthropicMessages, 1_795_680_000, 90);
    assert!(anthropic.contains(&(
        "anthropic-ratelimit-requests-reset",
        "2026-11-26T08:01:30Z".to_owned()
    )));
    assert!(anthropic.contains(&("anthropic-ratelimit-unified-reset", "1795680090".to_owned())));
    let openai = limit_headers(Wire::Responses, 1_795_680_000, 90);
    assert!(openai.contains(&("x-ratelimit-reset-requests", "90s".to_owned())));
    assert_eq!(limit_headers(Wire::Gemini, 0, 90), []);
}
