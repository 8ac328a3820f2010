//! Layering and loading: defaults, the user file, the project file (or `-c`), the
//! command line; where files are found and what each layer wins.

mod support;

use std::path::PathBuf;
use std::time::Duration;

use ralph_core::config::{
    AgentBackend, AgentConfig, BackendChoice, CoreConfig, DEFAULT_COMPLETION_PROMISE,
    DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_RUNTIME,
    DEFAULT_MEMORY_BUDGET, DEFAULT_PROMPT_EVENTS_MAX_BYTES, DEFAULT_SCRATCHPAD, DEFAULT_SPECS_DIR,
    Deadlines, LoopConfig, MemoriesConfig, MemoryFilter, MemoryInject, Overrides, Prompt,
    PromptSource, ResolvedConfig, SkillsConfig, load,
};
use ralph_types::{BackendKind, DEFAULT_PRIORITY};
use support::dirs::Dirs;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn no_files_and_no_flags_give_the_built_in_defaults() {
    let dirs = Dirs::new();
    let resolved = dirs.load(Overrides::default());
    assert_eq!(resolved.warnings, []);
    assert_eq!(
        resolved.config,
        ResolvedConfig {
            agent: AgentConfig {
                backend: AgentBackend::Auto,
                args: vec![],
                deadlines: Deadlines::default(),
                pty: false,
                steering: false,
            },
            // The order itself is pinned where it is defined (ralph-types).
            backend_priority: DEFAULT_PRIORITY.to_vec(),
            event_loop: LoopConfig {
                prompt: None,
                completion_promise: DEFAULT_COMPLETION_PROMISE.to_owned(),
                max_iterations: DEFAULT_MAX_ITERATIONS,
                max_runtime: DEFAULT_MAX_RUNTIME,
                max_cost_usd: None,
                max_consecutive_failures: DEFAULT_MAX_CONSECUTIVE_FAILURES,
                starting_event: "task.start".to_owned(),
                required_events: vec![],
                prompt_events_max_bytes: DEFAULT_PROMPT_EVENTS_MAX_BYTES,
            },
            core: CoreConfig {
                scratchpad: Some(PathBuf::from(DEFAULT_SCRATCHPAD)),
                guardrails: vec![],
                specs_dir: PathBuf::from(DEFAULT_SPECS_DIR),
            },
            hats: vec![],
            pricing: vec![],
            gates: vec![],
            tasks: ralph_core::config::TasksConfig { enabled: true },
            rate_limits: ralph_core::config::RateLimitConfig {
                policy: ralph_core::config::DEFAULT_RATE_LIMIT_POLICY,
                wait: ralph_core::config::DEFAULT_RATE_LIMIT_WAIT,
                fallback: Vec::new(),
            },
            memories: MemoriesConfig {
                enabled: true,
                inject: MemoryInject::Auto,
                budget: DEFAULT_MEMORY_BUDGET,
                filter: MemoryFilter::default(),
            },
            skills: SkillsConfig {
                enabled: true,
                dirs: vec![],
                overrides: vec![],
            },
            transcripts: ralph_core::config::TranscriptsConfig {
                enabled: true,
                max_bytes_per_run: ralph_core::config::DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN,
            },
            sources: vec![],
            hooks: Default::default(),
        }
    );
}

#[test]
fn each_layer_overrides_the_one_below_key_by_key() {
    let dirs = Dirs::new();
    dirs.user_config(
        "cli:\n  backend: claude\n  args: [--model, opus]\n  idle_timeout_seconds: 300\n\
         event_loop:\n  max_iterations: 10\n  max_cost_usd: 5\n  completion_promise: ALL_DONE\n\
         core:\n  guardrails: [Be careful.]\n",
    )
    .file(
        "ralph.yml",
        "cli:\n  backend: claude\n  exit_grace_seconds: 9\n\
         event_loop:\n  max_iterations: 20\n  required_events: [review.approved]\n",
    );
    let resolved = dirs.load(Overrides {
        max_cost_usd: Some(2.5),
        max_runtime_seconds: Some(60),
        ..Overrides::default()
    });
    let config = resolved.config;
    assert_eq!(
        config.agent,
        AgentConfig {
            backend: AgentBackend::Builtin {
                kind: BackendKind::Claude,
                command: None,
            },
            args: strings(&["--model", "opus"]),
            deadlines: Deadlines {
                idle: Duration::from_secs(300),
                exit_grace: Duration::from_secs(9),
                ..Deadlines::default()
            },
            pty: false,
            steering: false,
        }
    );
    assert_eq!(
        config.event_loop,
        LoopConfig {
            prompt: None,
            completion_promise: "ALL_DONE".to_owned(),
            max_iterations: 20,
            max_runtime: Duration::from_secs(60),
            max_cost_usd: Some(2.5),
            max_consecutive_failures: DEFAULT_MAX_CONSECUTIVE_FAILURES,
            starting_event: "task.start".to_owned(),
            required_events: strings(&["review.approved"]),
            prompt_events_max_bytes: DEFAULT_PROMPT_EVENTS_MAX_BYTES,
        }
    );
    assert_eq!(config.core.guardrails, strings(&["Be careful."]));
    assert_eq!(
        config.sources,
        [dirs.user_config_path(), PathBuf::from("ralph.yml")]
    );
}

#[test]
fn switching_backend_drops_the_settings_of_the_backend_below() {
    let dirs = Dirs::new();
    dirs.user_config(
        "cli:\n  backend: pi\n  command: /opt/pi\n  args: [--provider, anthropic]\n  \
         startup_timeout_seconds: 30\n  pty: true\n",
    );
    dirs.file("ralph.yml", "cli:\n  backend: codex\n");
    assert_eq!(
        dirs.load(Overrides::default()).config.agent,
        AgentConfig {
            backend: AgentBackend::Builtin {
                kind: BackendKind::Codex,
                command: None,
            },
            args: vec![],
            // Deadlines are not tied to a backend: they stay.
            deadlines: Deadlines {
                startup: Duration::from_secs(30),
                ..Deadlines::default()
            },
            pty: false,
            steering: false,
        }
    );
    // `-b` naming the backend the files already use keeps their settings.
    dirs.file("ralph.yml", "cli:\n  args: [--model, gpt-5]\n");
    let same = dirs.load(Overrides {
        backend: Some(BackendChoice::Backend(BackendKind::Pi)),
        ..Overrides::default()
    });
    assert_eq!(
        same.config.agent.backend,
        AgentBackend::Builtin {
            kind: BackendKind::Pi,
            command: Some("/opt/pi".to_owned()),
        }
    );
    assert_eq!(
        (same.config.agent.args, same.config.agent.pty),
        (strings(&["--model", "gpt-5"]), true)
    );
    // `-b` naming another one drops them.
    let other = dirs.load(Overrides {
        backend: Some(BackendChoice::Auto),
        ..Overrides::default()
    });
    assert_eq!(
        (
            other.config.agent.backend,
            other.config.agent.args,
            other.config.agent.pty
        ),
        (AgentBackend::Auto, vec![], false)
    );
}

#[test]
fn prompt_from_the_command_line_replaces_the_configured_prompt_file() {
    let dirs = Dirs::new();
    dirs.file("ralph.yml", "event_loop:\n  prompt_file: missing.md\n");
    let resolved = dirs.load(Overrides {
        prompt: Some("Fix the flaky test".to_owned()),
        ..Overrides::default()
    });
    assert_eq!(
        resolved.config.event_loop.prompt,
        Some(Prompt {
            text: "Fix the flaky test".to_owned(),
            source: PromptSource::Inline,
        })
    );
}

#[test]
fn prompt_file_is_read_relative_to_the_file_that_names_it() {
    let dirs = Dirs::new();
    dirs.file("conf/ralph.yml", "event_loop:\n  prompt_file: TASK.md\n")
        .file("conf/TASK.md", "Ship it.\n")
        .file("TASK.md", "The wrong one.\n");
    let resolved = load(&dirs.options(Some("conf/ralph.yml"), Overrides::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        resolved.config.event_loop.prompt,
        Some(Prompt {
            text: "Ship it.\n".to_owned(),
            source: PromptSource::File(PathBuf::from("conf/TASK.md")),
        })
    );
    // `-P` is relative to the working directory.
    let from_flag = load(&dirs.options(
        Some("conf/ralph.yml"),
        Overrides {
            prompt_file: Some(PathBuf::from("TASK.md")),
            ..Overrides::default()
        },
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        from_flag.config.event_loop.prompt.map(|p| p.text),
        Some("The wrong one.\n".to_owned())
    );
}

#[test]
fn default_prompt_file_is_read_when_present() {
    let dirs = Dirs::new();
    dirs.file("PROMPT.md", "Write the docs.\n");
    assert_eq!(
        dirs.load(Overrides::default()).config.event_loop.prompt,
        Some(Prompt {
            text: "Write the docs.\n".to_owned(),
            source: PromptSource::File(PathBuf::from("PROMPT.md")),
        })
    );
}

#[test]
fn hats_are_replaced_per_id() {
    let dirs = Dirs::new();
    dirs.user_config(
        "hats:\n  planner:\n    description: user planner\n    triggers: [a.b]\n  \
         builder:\n    description: user builder\n    triggers: [c.d]\n    max_activations: 3\n",
    )
    .file(
        "ralph.yml",
        "hats:\n  builder:\n    description: project builder\n    triggers: [e.f]\n  \
         reviewer:\n    description: project reviewer\n    triggers: [g.h]\n",
    );
    let hats: Vec<_> = dirs
        .load(Overrides::default())
        .config
        .hats
        .into_iter()
        .map(|h| (h.id, h.description, h.triggers, h.max_activations))
        .collect();
    assert_eq!(
        hats,
        [
            (
                "planner".into(),
                "user planner".into(),
                strings(&["a.b"]),
                None
            ),
            (
                "builder".into(),
                "project builder".into(),
                strings(&["e.f"]),
                None
            ),
            (
                "reviewer".into(),
                "project reviewer".into(),
                strings(&["g.h"]),
                None
            ),
        ]
    );
}

#[test]
fn trigger_collisions_across_layers_are_reported() {
    let dirs = Dirs::new();
    dirs.user_config("hats:\n  planner:\n    description: plans\n    triggers: [build.done]\n")
        .file(
            "ralph.yml",
            "hats:\n  fixer:\n    description: fixes\n    triggers: [build.done]\n",
        );
    let user = dirs.user_config_path();
    assert_eq!(
        dirs.load_errors(None, Overrides::default()),
        [format!(
            "ralph.yml:4:16: hats `planner` and `fixer` both trigger on `build.done` (`planner` \
             claims it at {}:4:16): each event must route to exactly one hat, so remove \
             `build.done` from one of them",
            user.display()
        )]
    );
}

#[test]
fn scratchpad_keys_merge_and_a_bare_path_enables_it() {
    let dirs = Dirs::new();
    dirs.user_config("core:\n  scratchpad:\n    enabled: false\n");
    assert_eq!(dirs.load(Overrides::default()).config.core.scratchpad, None);
    dirs.file("ralph.yml", "core:\n  scratchpad: notes/pad.md\n");
    assert_eq!(
        dirs.load(Overrides::default()).config.core.scratchpad,
        Some(PathBuf::from("notes/pad.md"))
    );
}

#[test]
fn errors_of_every_layer_are_reported_together() {
    let dirs = Dirs::new();
    dirs.user_config("cli:\n  backend: codx\n")
        .file("ralph.yml", "event_loop:\n  max_iterations: -1\n");
    let user = dirs.user_config_path();
    assert_eq!(
        dirs.load_errors(
            None,
            Overrides {
                completion_promise: Some("done now".to_owned()),
                ..Overrides::default()
            }
        ),
        [
            format!(
                "{}:2:12: unknown backend `codx` in `cli.backend`: did you mean `codex`? (valid \
                 backends: auto, claude, kiro, gemini, codex, amp, copilot, opencode, pi, custom)",
                user.display()
            ),
            "ralph.yml:2:19: `event_loop.max_iterations` must be between 1 and 4294967295, found -1"
                .to_owned(),
            "command line: invalid topic `done now` in `--completion-promise`: ` ` is not allowed \
             in a topic (use letters, digits, `_`, `-` and `.`)"
                .to_owned(),
        ]
    );
}

#[test]
fn command_line_values_are_checked() {
    let dirs = Dirs::new();
    assert_eq!(
        dirs.load_errors(
            None,
            Overrides {
                max_iterations: Some(0),
                max_cost_usd: Some(-2.0),
                max_runtime_seconds: Some(0),
                completion_promise: Some(String::new()),
                prompt: Some("Do it".to_owned()),
                prompt_file: Some(PathBuf::from("TASK.md")),
                ..Overrides::default()
            }
        ),
        [
            "command line: `--max-iterations` must be between 1 and 4294967295, found 0",
            "command line: `--max-runtime` must be between 1 and 31536000, found 0",
            "command line: `--max-cost` must be a number greater than 0, found -2",
            "command line: `--completion-promise` is empty: the agent could never signal that the \
             task is done; leave the flag out to use the configured promise",
            "command line: `--prompt` and `--prompt-file` are both set (`--prompt-file` at command \
             line): keep only one",
        ]
    );
    assert_eq!(
        dirs.load_errors(
            None,
            Overrides {
                max_runtime_seconds: Some(u64::MAX),
                ..Overrides::default()
            }
        ),
        [
            "command line: `--max-runtime` must be between 1 and 31536000, found 18446744073709551615"
        ]
    );
    assert_eq!(
        dirs.load_errors(
            None,
            Overrides {
                backend: Some(BackendChoice::Backend(BackendKind::Custom)),
                ..Overrides::default()
            }
        ),
        [
            "command line: backend `custom` needs a command: set `cli.command` to the program to \
             run (and `cli.prompt_mode` to `arg` or `stdin`)"
        ]
    );
}

#[test]
fn an_override_given_as_c_says_that_c_takes_a_file_and_where_the_key_goes() {
    let dirs = Dirs::new();
    assert_eq!(
        dirs.load_errors(Some("core.scratchpad=notes.md"), Overrides::default()),
        [
            "core.scratchpad=notes.md: cannot read this config file: No such file or directory \
             (os error 2); ralph's -c takes a config file, not a KEY=VALUE override (the form \
             ralph-orchestrator's -c also took): to set `core.scratchpad`, write `scratchpad: \
             notes.md` under `core:` in ralph.yml (or in the file you pass with -c)"
        ]
    );
    // A file whose name has a `=` is read as any other.
    dirs.file("a=b.yml", "event_loop:\n  max_iterations: 4\n");
    let options = dirs.options(Some("a=b.yml"), Overrides::default());
    let resolved = load(&options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resolved.config.event_loop.max_iterations, 4);
}

#[test]
fn a_hat_inherits_cli_pty_only_when_it_runs_the_same_program() {
    let dirs = Dirs::new();
    let hat = |id: &str, extra: &str| {
        format!("  {id}:\n    description: d\n    triggers: [{id}.go]\n{extra}")
    };
    dirs.file(
        "ralph.yml",
        &[
            "cli:\n  backend: pi\n  pty: true\nhats:\n".to_owned(),
            hat("plain", ""),
            hat("same", "    backend: pi\n"),
            hat("typed", "    backend: {type: pi, args: [-v]}\n"),
            hat("other", "    backend: claude\n"),
            hat("other_asked", "    backend: claude\n    pty: true\n"),
            hat("declined", "    pty: false\n"),
            hat("custom", "    backend: {command: ./agent}\n"),
        ]
        .concat(),
    );
    let config = dirs.load(Overrides::default()).config;
    let ptys: Vec<(&str, bool)> = config
        .hats
        .iter()
        .map(|h| (h.id.as_str(), config.agent_for(h).pty))
        .collect();
    assert_eq!(
        (config.agent.pty, ptys),
        (
            true,
            vec![
                ("plain", true),
                ("same", true),
                ("typed", true),
                ("other", false),
                ("other_asked", true),
                ("declined", false),
                ("custom", false),
            ]
        )
    );
}

#[test]
fn every_hat_inherits_cli_steering_unless_it_says_otherwise() {
    let dirs = Dirs::new();
    let hat = |id: &str, extra: &str| {
        format!("  {id}:\n    description: d\n    triggers: [{id}.go]\n{extra}")
    };
    let yaml = |steering: &str| {
        [
            format!("cli:\n  backend: pi\n{steering}hats:\n"),
            hat("plain", ""),
            hat("other", "    backend: claude\n"),
            hat("declined", "    steering: false\n"),
            hat("asked", "    steering: true\n"),
        ]
        .concat()
    };
    let steering = |dirs: &Dirs| {
        let config = dirs.load(Overrides::default()).config;
        let hats: Vec<(String, bool)> = config
            .hats
            .iter()
            .map(|h| (h.id.clone(), config.agent_for(h).steering))
            .collect();
        (config.agent.steering, hats)
    };
    let named = |list: [(&str, bool); 4]| {
        list.iter()
            .map(|(id, on)| ((*id).to_owned(), *on))
            .collect::<Vec<_>>()
    };
    dirs.file("ralph.yml", &yaml("  steering: true\n"));
    assert_eq!(
        steering(&dirs),
        (
            true,
            named([
                ("plain", true),
                ("other", true),
                ("declined", false),
                ("asked", true)
            ])
        )
    );
    dirs.file("ralph.yml", &yaml(""));
    assert_eq!(
        steering(&dirs),
        (
            false,
            named([
                ("plain", false),
                ("other", false),
                ("declined", false),
                ("asked", true)
            ])
        )
    );
}
