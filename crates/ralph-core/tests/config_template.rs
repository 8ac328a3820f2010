//! The `ralph init` template is a valid config for every backend, documents the
//! defaults exactly, and its commented-out hats work once uncommented.

mod support;

use ralph_core::config::{
    AgentBackend, BackendChoice, CustomBackend, DEFAULT_COMPLETION_PROMISE, EXAMPLE_GATES,
    EXAMPLE_HATS, PromptMode, init_template,
};
use ralph_stream::StreamFormat;
use support::{parse_ok, resolve_ok};

fn all_choices() -> Vec<BackendChoice> {
    BackendChoice::names()
        .map(|n| n.parse().expect("valid name"))
        .collect()
}

#[test]
fn template_is_valid_for_every_backend_and_selects_it() {
    for choice in all_choices() {
        let text = init_template(choice);
        assert_eq!(parse_ok(&text).warnings, [], "{choice}");
        let resolved = resolve_ok(&text);
        assert_eq!(resolved.warnings, [], "{choice}");
        let expected = match choice {
            BackendChoice::Auto => AgentBackend::Auto,
            BackendChoice::Backend(ralph_types::BackendKind::Custom) => {
                AgentBackend::Custom(CustomBackend {
                    command: "my-agent".to_owned(),
                    prompt_mode: PromptMode::Arg,
                    prompt_flag: None,
                    output_format: StreamFormat::Text,
                })
            }
            BackendChoice::Backend(kind) => AgentBackend::Builtin {
                kind,
                command: None,
            },
        };
        assert_eq!(resolved.config.agent.backend, expected, "{choice}");
    }
}

#[test]
fn template_states_the_defaults_it_leaves_unchanged() {
    // Apart from the backend, resolving the template gives what an empty file gives.
    for choice in all_choices() {
        let mut from_template = resolve_ok(&init_template(choice)).config;
        let mut from_nothing = resolve_ok("").config;
        from_template.agent.backend = AgentBackend::Auto;
        from_nothing.agent.backend = AgentBackend::Auto;
        assert_eq!(from_template, from_nothing, "{choice}");
    }
}

#[test]
fn example_hats_validate_once_uncommented() {
    let template = init_template(BackendChoice::Backend(ralph_types::BackendKind::Pi));
    let uncommented: String = template
        .lines()
        .map(|line| {
            let plain = line.strip_prefix("# ").unwrap_or(line);
            if EXAMPLE_HATS.lines().any(|l| l == plain) {
                format!("{plain}\n")
            } else if line.trim_start().starts_with("starting_event:") {
                // The template says to set this with the hats.
                "  starting_event: work.start\n".to_owned()
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    let resolved = resolve_ok(&uncommented);
    let hats: Vec<_> = resolved
        .config
        .hats
        .iter()
        .map(|h| (h.id.as_str(), h.triggers.clone(), h.publishes.clone()))
        .collect();
    assert_eq!(
        hats,
        [
            (
                "planner",
                vec!["work.start".to_owned(), "step.done".to_owned()],
                vec![
                    "step.ready".to_owned(),
                    DEFAULT_COMPLETION_PROMISE.to_owned()
                ]
            ),
            (
                "builder",
                vec!["step.ready".to_owned()],
                vec!["step.done".to_owned()]
            ),
        ]
    );
    assert_eq!(resolved.config.event_loop.starting_event, "work.start");
}

#[test]
fn template_for_pi() {
    insta::assert_snapshot!(init_template(BackendChoice::Backend(
        ralph_types::BackendKind::Pi
    )));
}

#[test]
fn template_for_custom() {
    insta::assert_snapshot!(init_template(BackendChoice::Backend(
        ralph_types::BackendKind::Custom
    )));
}

#[test]
fn example_pricing_validates_once_uncommented() {
    let template = init_template(BackendChoice::Backend(ralph_types::BackendKind::Codex));
    let uncommented: String = template
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(plain) if plain == "pricing:" || plain.starts_with("  gpt-") => {
                format!("{plain}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect();
    let pricing = resolve_ok(&uncommented).config.pricing;
    assert_eq!(
        pricing,
        [ralph_core::config::ModelPricing {
            model: "gpt-5.5".to_owned(),
            price: ralph_stream::ModelPrice {
                input: 1.25,
                output: 10.0,
                cache_read: 0.125,
                cache_write: 1.25,
            },
        }]
    );
}

#[test]
fn example_gates_validate_once_uncommented() {
    let template = init_template(BackendChoice::Backend(ralph_types::BackendKind::Pi));
    let uncommented: String = template
        .lines()
        .map(|line| {
            let plain = line.strip_prefix("# ").unwrap_or(line);
            if EXAMPLE_GATES.lines().any(|l| l == plain) {
                format!("{plain}\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    let gates = resolve_ok(&uncommented).config.gates;
    let shown: Vec<_> = gates
        .iter()
        .map(|g| (g.name.as_str(), g.run.to_string(), g.before.clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (
                "tests",
                "cargo test --quiet".to_owned(),
                vec![DEFAULT_COMPLETION_PROMISE.to_owned()]
            ),
            (
                "lint",
                "cargo clippy --all-targets -- -D warnings".to_owned(),
                vec![DEFAULT_COMPLETION_PROMISE.to_owned()]
            ),
        ]
    );
}

#[test]
fn example_hooks_validate_once_uncommented() {
    let template = init_template(BackendChoice::Backend(ralph_types::BackendKind::Pi));
    let example = ralph_core::config::EXAMPLE_HOOKS;
    let uncommented: String = template
        .lines()
        .map(|line| match line.strip_prefix("# ") {
            Some(plain) if example.lines().any(|l| l == plain) => format!("{plain}\n"),
            _ => format!("{line}\n"),
        })
        .collect();
    let resolved = resolve_ok(&uncommented);
    assert_eq!(resolved.warnings, []);
    let hooks = resolved.config.hooks;
    assert!(hooks.enabled);
    let names: Vec<(&str, &str)> = hooks
        .all()
        .map(|(phase, h)| (phase.name(), h.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("pre.loop.start", "env-guard"),
            ("post.loop.complete", "notify")
        ]
    );
}
