use std::ffi::OsString;

use ralph_agent::StdinSource;
use ralph_core::config::{CustomBackend, PromptMode};
use ralph_stream::StreamFormat;
use ralph_types::DEFAULT_KILL_GRACE;

use super::*;

fn agent(backend: AgentBackend, args: &[&str]) -> AgentConfig {
    AgentConfig {
        backend,
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        deadlines: Deadlines::default(),
        pty: false,
        steering: false,
    }
}

fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

#[test]
fn builtin_backends_get_their_args_and_the_checked_program() {
    let pi = agent(
        AgentBackend::Builtin {
            kind: BackendKind::Pi,
            command: None,
        },
        &["--model", "m"],
    );
    let line = command_line(&pi, BackendKind::Claude, Some(Path::new("/opt/pi")), "go").unwrap();
    assert_eq!(
        line,
        CommandLine {
            program: "/opt/pi".into(),
            args: os(&["-p", "--mode", "json", "--no-session", "--model", "m"]),
            stdin: StdinSource::Bytes(b"go".to_vec()),
            output_format: StreamFormat::Pi,
            pty: false,
            live: None,
        }
    );
    let auto = command_line(
        &agent(AgentBackend::Auto, &[]),
        BackendKind::Claude,
        None,
        "go",
    )
    .unwrap();
    assert_eq!(
        (auto.program, auto.output_format),
        ("claude".into(), StreamFormat::Claude)
    );
}

#[test]
fn an_agent_on_a_terminal_gets_its_prompt_as_an_argument() {
    let pi = AgentConfig {
        pty: true,
        steering: false,
        ..agent(
            AgentBackend::Builtin {
                kind: BackendKind::Pi,
                command: None,
            },
            &[],
        )
    };
    let line = command_line(&pi, BackendKind::Pi, Some(Path::new("/opt/pi")), "go").unwrap();
    assert_eq!(
        line,
        CommandLine {
            program: "/opt/pi".into(),
            args: os(&["-p", "--mode", "json", "--no-session", "go"]),
            stdin: StdinSource::Null,
            output_format: StreamFormat::Pi,
            pty: true,
            live: None,
        }
    );
}

#[test]
fn custom_backends_follow_their_settings() {
    let custom = agent(
        AgentBackend::Custom(CustomBackend {
            command: "my-agent".into(),
            prompt_mode: PromptMode::Arg,
            prompt_flag: Some("--task".into()),
            output_format: StreamFormat::Text,
        }),
        &["-v"],
    );
    let line = command_line(&custom, BackendKind::Pi, None, "do it").unwrap();
    assert_eq!(
        (line.program, line.args, line.stdin),
        (
            "my-agent".into(),
            os(&["-v", "--task", "do it"]),
            StdinSource::Null
        )
    );
}

#[test]
fn deadlines_map_onto_the_supervisor_with_the_given_wall() {
    let d = Deadlines {
        startup: Duration::from_secs(1),
        idle: Duration::from_secs(2),
        iteration: Duration::from_secs(3),
        exit_grace: Duration::from_secs(4),
    };
    assert_eq!(
        agent_deadlines(&d, Duration::from_secs(9)),
        RunDeadlines {
            startup: Some(Duration::from_secs(1)),
            idle: Some(Duration::from_secs(2)),
            wall: Some(Duration::from_secs(9)),
            exit_grace: Duration::from_secs(4),
            kill_grace: DEFAULT_KILL_GRACE,
        }
    );
}

#[test]
fn an_iteration_is_priced_with_the_configured_table_as_the_model_its_args_ask_for() {
    use ralph_core::config::{
        CoreConfig, DEFAULT_MAX_RUNTIME, DEFAULT_PROMPT_EVENTS_MAX_BYTES, LoopConfig, ModelPricing,
        ResolvedConfig,
    };
    use ralph_stream::{CostKind, ModelPrice, Tokens, Usage};
    let price = ModelPrice {
        input: 2.0,
        output: 20.0,
        cache_read: 0.5,
        cache_write: 2.0,
    };
    let config = ResolvedConfig {
        agent: agent(AgentBackend::Auto, &[]),
        backend_priority: vec![],
        event_loop: LoopConfig {
            prompt: None,
            completion_promise: "LOOP_COMPLETE".into(),
            max_iterations: 1,
            max_runtime: DEFAULT_MAX_RUNTIME,
            max_cost_usd: None,
            max_consecutive_failures: 1,
            starting_event: "task.start".into(),
            required_events: vec![],
            prompt_events_max_bytes: DEFAULT_PROMPT_EVENTS_MAX_BYTES,
        },
        core: CoreConfig {
            scratchpad: None,
            guardrails: vec![],
            specs_dir: "specs".into(),
        },
        hats: vec![],
        pricing: vec![ModelPricing {
            model: "gpt-5.5".into(),
            price,
        }],
        gates: vec![],
        tasks: ralph_core::config::TasksConfig { enabled: true },
        rate_limits: ralph_core::config::RateLimitConfig {
            policy: ralph_core::config::RateLimitPolicy::Wait,
            wait: std::time::Duration::from_secs(60),
            fallback: Vec::new(),
        },
        memories: ralph_core::config::MemoriesConfig::default(),
        skills: ralph_core::config::SkillsConfig::default(),
        transcripts: ralph_core::config::TranscriptsConfig {
            enabled: true,
            max_bytes_per_run: ralph_core::config::DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN,
        },
        sources: vec![],
        hooks: Default::default(),
    };
    let codex = agent(
        AgentBackend::Builtin {
            kind: BackendKind::Codex,
            command: None,
        },
        &["-m", "gpt-5.5"],
    );
    let tokens = Tokens {
        input: 1_000_000,
        output: 100_000,
        cache_read: 2_000_000,
        cache_write: 0,
    };
    let pricing = pricing(&config, &codex, BackendKind::Codex);
    assert_eq!(
        pricing.estimate(tokens, None),
        Usage {
            tokens,
            cost_usd: Some(2.0 + 2.0 + 1.0),
            cost_kind: CostKind::Estimated,
            model: Some("gpt-5.5".into()),
        }
    );
    // The built-in prices are still there; without a model option, nothing is assumed.
    let plain = agent(
        AgentBackend::Builtin {
            kind: BackendKind::Codex,
            command: None,
        },
        &[],
    );
    let pricing = super::pricing(&config, &plain, BackendKind::Codex);
    assert_eq!(pricing.default_model(), None);
    assert!(pricing.table().price_of("gpt-5").is_some());
}

fn builtin(kind: BackendKind) -> AgentBackend {
    AgentBackend::Builtin {
        kind,
        command: None,
    }
}

#[test]
fn steering_runs_pi_and_claude_with_a_live_input_and_says_which_agents_cannot() {
    let steered = |backend: AgentBackend, pty: bool| AgentConfig {
        steering: true,
        pty,
        ..agent(backend, &["--model", "m"])
    };
    let pi = command_line(
        &steered(builtin(BackendKind::Pi), false),
        BackendKind::Pi,
        Some(Path::new("/opt/pi")),
        "go",
    )
    .unwrap();
    assert_eq!(
        pi.args,
        os(&["--mode", "rpc", "--no-session", "--model", "m"])
    );
    let live = pi.live.expect("pi is steered");
    assert_eq!(live.target(), "pi mid-turn");
    assert_eq!(pi.stdin, live.stdin_source());
    // `auto` steers what it detected.
    let auto = command_line(
        &steered(AgentBackend::Auto, false),
        BackendKind::Claude,
        None,
        "go",
    );
    assert_eq!(
        auto.unwrap().live.map(|l| l.target()),
        Some("Claude Code mid-turn")
    );
    assert_eq!(
        steering_between_iterations(&steered(builtin(BackendKind::Pi), false), BackendKind::Pi),
        None
    );
    assert_eq!(
        steering_between_iterations(&agent(builtin(BackendKind::Codex), &[]), BackendKind::Codex),
        None,
        "not asked"
    );
    let codex = steered(builtin(BackendKind::Codex), false);
    assert!(
        command_line(&codex, BackendKind::Codex, None, "go")
            .unwrap()
            .live
            .is_none()
    );
    assert_eq!(
        steering_between_iterations(&codex, BackendKind::Codex).as_deref(),
        Some(
            "`codex` takes `ralph steer` messages only between iterations (it reads no commands \
             while it works): they go into the next iteration's prompt"
        )
    );
    let on_pty = steered(builtin(BackendKind::Pi), true);
    assert!(
        command_line(&on_pty, BackendKind::Pi, None, "go")
            .unwrap()
            .live
            .is_none()
    );
    assert!(
        steering_between_iterations(&on_pty, BackendKind::Pi)
            .is_some_and(|n| n.contains("`pi`") && n.contains("pseudo-terminal")),
    );
}
