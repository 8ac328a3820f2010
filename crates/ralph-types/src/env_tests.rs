/// The user-facing list of what ralph sets for an agent.
const AGENTS_DOC: &str = include_str!("../../../docs/agents.md");

#[test]
fn every_variable_is_documented_in_agents_md() {
    for var in super::ALL {
        assert!(
            AGENTS_DOC.contains(&format!("| `{var}` |")),
            "docs/agents.md has no table row for {var}"
        );
    }
}
