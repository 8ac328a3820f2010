use super::*;

#[test]
fn agent_values_are_auto_then_every_format_name() {
    let names: Vec<String> = AgentArg::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value)
        .map(|v| v.get_name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "auto", "pi", "claude", "codex", "gemini", "opencode", "copilot", "text"
        ]
    );
    assert_eq!(
        AgentArg::from_str("opencode", false).map(AgentArg::format),
        Ok(Some(StreamFormat::Opencode))
    );
    assert_eq!(AgentArg::from_str("auto", false), Ok(AgentArg::AUTO));
}
