//! Realistic upstream-style files: they parse, resolve to the expected values, and
//! what ralph does not support is reported at the right place.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use ralph_core::config::{
    AgentBackend, AgentConfig, CustomBackend, DEFAULT_EXIT_GRACE, DEFAULT_STARTUP_TIMEOUT,
    Deadlines, PromptMode, ResolveEnv, Resolved, parse_layer, resolve,
};
use ralph_stream::StreamFormat;
use ralph_types::BackendKind;
use support::rendered;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Loads a fixture the way `ralph -c NAME` run in the fixtures directory would.
fn load_fixture(name: &str) -> Result<Resolved, Vec<String>> {
    let text = std::fs::read_to_string(fixtures().join(name)).expect("fixture");
    let parsed = parse_layer(&text, Path::new(name)).map_err(|e| rendered(&e.0))?;
    let env = ResolveEnv {
        cwd: fixtures(),
        default_prompt_file: PathBuf::from("PROMPT.md"),
        sources: vec![PathBuf::from(name)],
    };
    let mut resolved = resolve(parsed.config, &env).map_err(|e| rendered(&e.0))?;
    let mut warnings = parsed.warnings;
    warnings.append(&mut resolved.warnings);
    resolved.warnings = warnings;
    Ok(resolved)
}

#[test]
fn upstream_example_resolves_to_the_expected_config() {
    let resolved = load_fixture("upstream_example.yml").expect("valid");
    assert_eq!(resolved.warnings, []);
    insta::assert_debug_snapshot!(resolved.config);
}

#[test]
fn every_key_is_read() {
    // A key listed in a schema but never read trips a debug assertion while parsing.
    let resolved = load_fixture("every_key.yml").expect("valid");
    assert_eq!(resolved.warnings, []);
    insta::assert_debug_snapshot!(resolved.config);
}

#[test]
fn upstream_example_with_unsupported_sections_is_refused_where_it_matters() {
    // disallowed_tools changes what the loop does: an error (its hooks load). The
    // other sections are safe to ignore but are not even reached as warnings: the
    // file has to be fixed first.
    assert_eq!(
        load_fixture("upstream_full.yml").expect_err("unsupported keys"),
        [
            "upstream_full.yml:41:5: `hats.reviewer.disallowed_tools` is not supported by ralph \
             (yet): ralph cannot keep this hat from using those tools, so it could edit files it \
             must not; remove the key, or give the hat a backend whose arguments restrict its \
             tools",
        ]
    );
}

#[test]
fn upstream_self_hosting_config_loads_with_warnings() {
    let resolved = load_fixture("upstream_self_hosting.yml").expect("valid");
    assert_eq!(
        rendered(&resolved.warnings),
        [
            "upstream_self_hosting.yml:9:3: `event_loop.checkpoint_interval` is not supported by \
             ralph (yet) and is ignored: ralph-orchestrator ignored it as well, so nothing changes",
            "upstream_self_hosting.yml:22:1: `backpressure` is not supported by ralph (yet) and is \
             ignored: no command listed here is run (ralph-orchestrator never ran them either); \
             write them as `gates:` (`name`, `run`, `before`), which ralph runs before it \
             believes the events they guard",
            "upstream_self_hosting.yml:13:16: `cli.prompt_mode` only applies to the custom backend \
             and is ignored: `kiro` receives its prompt and writes its output its own way",
        ]
    );
    let hats: Vec<_> = resolved.config.hats.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(hats, ["planner", "builder", "reviewer", "finalizer"]);
    assert_eq!(
        resolved.config.core.scratchpad,
        Some(PathBuf::from(".agent/scratchpad.md"))
    );
}

#[test]
fn upstream_version_1_keys_are_refused_with_their_new_home() {
    assert_eq!(
        load_fixture("upstream_v1_keys.yml").expect_err("v1 keys"),
        [
            "upstream_v1_keys.yml:11:1: `agent_priority` is not supported by ralph (yet): this \
             version 1 key moved: write `cli.backend_priority` instead",
            "upstream_v1_keys.yml:15:1: `max_cost` is not supported by ralph (yet): this version 1 \
             key moved: write `event_loop.max_cost_usd` instead",
            "upstream_v1_keys.yml:20:1: `adapters` is not supported by ralph (yet): set \
             per-backend timeouts with `cli.iteration_timeout_seconds` and \
             `cli.idle_timeout_seconds`, and choose which backends auto-detection may pick with \
             `cli.backend_priority`; ralph would not leave out an adapter marked `enabled: \
             false`",
        ]
    );
}

#[test]
fn hats_run_their_backend_in_each_form() {
    let config = load_fixture("hat_backends.yml").expect("valid").config;
    let global = Deadlines {
        idle: Duration::from_secs(600),
        ..Deadlines::default()
    };
    let agents: Vec<(&str, AgentConfig)> = config
        .hats
        .iter()
        .map(|h| (h.id.as_str(), config.agent_for(h)))
        .collect();
    let claude_binary = Some("/opt/claude/bin/claude".to_owned());
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        agents,
        vec![
            (
                "planner",
                AgentConfig {
                    backend: AgentBackend::Builtin {
                        kind: BackendKind::Claude,
                        command: claude_binary.clone(),
                    },
                    args: strings(&["--model", "sonnet", "--append-system-prompt", "plan only"]),
                    deadlines: global,
                    pty: false,
                    steering: false,
                }
            ),
            (
                "builder",
                AgentConfig {
                    backend: AgentBackend::Builtin {
                        kind: BackendKind::Pi,
                        command: None,
                    },
                    args: strings(&["--thinking", "high"]),
                    deadlines: global,
                    pty: false,
                    steering: false,
                }
            ),
            (
                "reviewer",
                AgentConfig {
                    backend: AgentBackend::Builtin {
                        kind: BackendKind::Claude,
                        command: claude_binary.clone(),
                    },
                    args: strings(&["--model", "opus"]),
                    deadlines: Deadlines {
                        iteration: Duration::from_secs(900),
                        ..global
                    },
                    pty: false,
                    steering: false,
                }
            ),
            (
                "tester",
                AgentConfig {
                    backend: AgentBackend::Custom(CustomBackend {
                        command: "./scripts/test-agent.sh".to_owned(),
                        prompt_mode: PromptMode::Stdin,
                        prompt_flag: None,
                        output_format: StreamFormat::Pi,
                    }),
                    args: strings(&["--quiet"]),
                    deadlines: global,
                    pty: false,
                    steering: false,
                }
            ),
            (
                "checker",
                AgentConfig {
                    backend: AgentBackend::Builtin {
                        kind: BackendKind::Claude,
                        command: claude_binary.clone(),
                    },
                    // `cli.args` first, as for a hat that names no backend.
                    args: strings(&["--model", "sonnet", "--verbose"]),
                    deadlines: global,
                    pty: false,
                    steering: false,
                }
            ),
        ]
    );
    assert_eq!(
        (global.startup, global.exit_grace),
        (DEFAULT_STARTUP_TIMEOUT, DEFAULT_EXIT_GRACE)
    );
}

#[test]
fn dump_is_a_config_that_resolves_to_the_same_values() {
    for name in [
        "upstream_example.yml",
        "hat_backends.yml",
        "upstream_self_hosting.yml",
        "every_key.yml",
    ] {
        let config = load_fixture(name).expect("valid").config;
        let dumped = config.to_yaml();
        let reparsed = parse_layer(&dumped, Path::new("dump.yml"))
            .unwrap_or_else(|e| panic!("dump of {name} does not parse:\n{e}\n{dumped}"));
        assert_eq!(reparsed.warnings, [], "{name}");
        let env = ResolveEnv {
            cwd: fixtures(),
            default_prompt_file: PathBuf::from("PROMPT.md"),
            sources: config.sources.clone(),
        };
        let again = resolve(reparsed.config, &env)
            .expect("dump resolves")
            .config;
        assert_eq!(again, config, "{name}");
    }
}

#[test]
fn dump_of_the_upstream_example() {
    let config = load_fixture("upstream_example.yml").expect("valid").config;
    insta::assert_snapshot!(config.to_yaml());
}

#[test]
fn hat_naming_custom_runs_the_cli_custom_program_as_cli_sets_it_up() {
    let resolved = support::resolve_ok(
        "cli:\n  backend: custom\n  command: ./agent\n  args: [--global]\n  prompt_mode: stdin\n\
         hats:\n  a:\n    description: x\n    triggers: [a.go]\n    backend: custom\n    args: [--hat]\n",
    );
    assert_eq!(resolved.warnings, []);
    let config = resolved.config;
    assert_eq!(
        config.agent_for(&config.hats[0]),
        AgentConfig {
            backend: AgentBackend::Custom(CustomBackend {
                command: "./agent".to_owned(),
                prompt_mode: PromptMode::Stdin,
                prompt_flag: None,
                output_format: StreamFormat::Text,
            }),
            // `cli.args` first: the name alone means that program as `cli` sets it up.
            args: vec!["--global".to_owned(), "--hat".to_owned()],
            deadlines: Deadlines::default(),
            pty: false,
            steering: false,
        }
    );
}

#[test]
fn extra_instructions_are_appended_to_the_instructions_as_paragraphs() {
    // ralph-orchestrator's key, shared between hats through a YAML anchor.
    let resolved = support::resolve_ok(
        "hats:\n  planner:\n    description: Plans\n    triggers: [plan]\n    instructions: |\n      Plan it.\n\
         \x20   extra_instructions:\n      - &strict |\n        Be strict.\n        Say why.\n\
         \x20     - Cite files.\n\
         \x20 builder:\n    description: Builds\n    triggers: [build]\n    extra_instructions: [*strict]\n\
         \x20 reviewer:\n    description: Reviews\n    triggers: [review]\n    instructions: Review it.\n",
    );
    assert_eq!(resolved.warnings, []);
    let instructions: Vec<&str> = (resolved.config.hats.iter())
        .map(|h| h.instructions.as_str())
        .collect();
    assert_eq!(
        instructions,
        [
            "Plan it.\n\nBe strict.\nSay why.\n\nCite files.\n",
            "Be strict.\nSay why.\n",
            // Without extras, kept exactly as written.
            "Review it.",
        ]
    );
}

/// The dotted paths of every key in `yaml`, with hat ids and model names written as
/// the key table writes them (`hats.<id>.pty`, `gates[].run`).
fn dumped_paths(yaml: &saphyr::Yaml<'_>, path: &str, out: &mut Vec<String>) {
    // A list of mappings (`gates`): each entry's keys, as `gates[].<key>`.
    if let saphyr::Yaml::Sequence(items) = yaml {
        for item in items {
            dumped_paths(item, &format!("{path}[]"), out);
        }
        return;
    }
    let saphyr::Yaml::Mapping(map) = yaml else {
        return;
    };
    for (key, value) in map {
        let name = key.as_str().expect("string keys");
        let name = match path {
            "hats" => "<id>",
            "pricing" => "<model>",
            "hooks.events" => "<phase>",
            p if p.ends_with("[].env") => "<name>",
            "skills.overrides" => "<name>",
            _ => name,
        };
        let key_path = if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        };
        match value {
            // A `fallback` list: each item is a mapping of a hat backend's keys.
            saphyr::Yaml::Sequence(items) if name == "fallback" => {
                for item in items {
                    dumped_paths(item, "hats.<id>.backend", out);
                }
            }
            // A phase's hooks: each item is a mapping of the hook's keys.
            saphyr::Yaml::Sequence(items) => {
                for item in items {
                    dumped_paths(item, &format!("{key_path}[]"), out);
                }
            }
            _ => dumped_paths(value, &key_path, out),
        }
        // `hats.<id>`, `pricing.<model>`, `hooks.events.<phase>` and
        // `skills.overrides.<name>` are entries, not keys.
        if !matches!(
            path,
            "hats" | "pricing" | "hooks.events" | "skills.overrides"
        ) && !path.ends_with("[].env")
        {
            out.push(key_path);
        }
    }
}

#[test]
fn dump_writes_every_declared_key() {
    use ralph_core::config::{all_keys, key::Dump};
    use saphyr::LoadableYamlNode;

    // every_key.yml sets every key (its hats cover each backend form), so its dump
    // must write every key the table gives a way to write; `prompt` and `prompt_file`
    // exclude each other, and the fixture names a file.
    let dumped = load_fixture("every_key.yml")
        .expect("valid")
        .config
        .to_yaml();
    let docs = saphyr::Yaml::load_from_str(&dumped).expect("the dump is YAML");
    let mut written = Vec::new();
    dumped_paths(&docs[0], "", &mut written);
    written.sort();
    written.dedup();
    let mut declared: Vec<String> = all_keys()
        .filter(|k| !matches!(k.dump, Dump::Skip))
        .map(|k| k.path())
        .filter(|p| p != "event_loop.prompt")
        .collect();
    declared.sort();
    assert_eq!(written, declared);
}

#[test]
fn a_hat_or_fallback_naming_the_custom_backend_runs_it_as_cli_sets_it_up() {
    let text = "\
cli:
  backend: custom
  command: ./agent.sh
  args: [--cli-arg]
hats:
  builder:
    description: Builds
    triggers: [go]
    backend: custom
    args: [--hat-arg]
    fallback: [custom]
";
    let config = support::resolve_ok(text).config;
    let hat = &config.hats[0];
    let both = vec!["--cli-arg".to_owned(), "--hat-arg".to_owned()];
    assert_eq!(config.agent_for(hat).args, both);
    let fallback = &config.fallback_for(Some(hat))[0];
    assert_eq!(config.fallback_agent(Some(hat), fallback).args, both);
}
