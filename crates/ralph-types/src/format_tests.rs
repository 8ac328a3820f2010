use super::*;

#[test]
fn names_round_trip_and_an_unknown_name_lists_every_format() {
    for format in StreamFormat::ALL {
        assert_eq!(format.name().parse::<StreamFormat>(), Ok(format));
    }
    assert_eq!(
        "json".parse::<StreamFormat>().unwrap_err().to_string(),
        "unknown stream format `json` (expected one of: pi, claude, codex, gemini, \
             opencode, copilot, text)"
    );
}
