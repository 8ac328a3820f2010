use super::*;
use saphyr::LoadableYamlNode;

fn impact_of(f: fn(&Node<'_>) -> Impact, yaml: &str) -> Impact {
    let docs = saphyr::MarkedYaml::load_from_str(yaml).unwrap();
    f(&docs[0])
}

#[test]
fn inert_values_are_not_reported() {
    let cases = [
        impact_of(error_if_enabled, "{enabled: false, timeout_seconds: 120}"),
        impact_of(error_if_true, "false"),
        impact_of(warning_unless_zero, "0"),
        impact_of(error_unless_empty, "[]"),
        impact_of(error_unless_empty, "''"),
        impact_of(error_unless_empty, "null"),
        impact_of(error_unless_empty, "~"),
        impact_of(error_unless_one, "1"),
        impact_of(error_unless_autonomous, "autonomous"),
    ];
    assert_eq!(cases, [Impact::None; 9]);
}

#[test]
fn values_that_change_behaviour_are_errors() {
    let cases = [
        impact_of(error_if_enabled, "{enabled: true}"),
        impact_of(error_if_true, "true"),
        impact_of(error_unless_empty, "[Edit, Write]"),
        impact_of(error_unless_empty, "loop.cancel"),
        impact_of(error_unless_one, "3"),
        impact_of(error_unless_autonomous, "interactive"),
        impact_of(
            adapters_impact,
            "{claude: {timeout: 300}, kiro: {enabled: false}}",
        ),
    ];
    assert_eq!(cases, [Impact::Error; 7]);
}

#[test]
fn safe_values_are_warnings() {
    let cases = [
        impact_of(warning_unless_zero, "5"),
        impact_of(adapters_impact, "{claude: {enabled: true, timeout: 300}}"),
    ];
    assert_eq!(cases, [Impact::Warning; 2]);
}
