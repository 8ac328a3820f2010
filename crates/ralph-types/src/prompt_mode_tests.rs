use super::*;

#[test]
fn names_round_trip() {
    for mode in PromptMode::ALL {
        assert_eq!(mode.name().parse::<PromptMode>(), Ok(mode));
    }
    assert_eq!(
        "argv".parse::<PromptMode>().unwrap_err().to_string(),
        "unknown prompt mode `argv` (expected one of: arg, stdin)"
    );
}
