//! From the merged raw layer to a [`ResolvedConfig`]: apply defaults, check what
//! needs every layer at once (a custom backend's command, trigger collisions between
//! hats), and read the prompt file, the one piece of I/O done here.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ralph_stream::{ModelPrice, StreamFormat};
use ralph_types::{BackendKind, DEFAULT_PRIORITY};

use super::choice::{BackendChoice, PromptMode};
use super::default_prompt::read_default_prompt;
use super::error::{ConfigError, ConfigErrorKind, ConfigErrors, ConfigWarning, ConfigWarningKind};
use super::origin::{Origin, Spanned};
use super::raw::{
    RawCli, RawConfig, RawDeadlines, RawEventLoop, RawGate, RawHat, RawHatBackend, RawPrice,
};
use super::resolved::{
    AgentBackend, AgentConfig, CoreConfig, CustomBackend, DEFAULT_COMPLETION_PROMISE,
    DEFAULT_GATE_TIMEOUT, DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_RUNTIME, DEFAULT_PROMPT_EVENTS_MAX_BYTES, DEFAULT_RATE_LIMIT_POLICY,
    DEFAULT_RATE_LIMIT_WAIT, DEFAULT_SCRATCHPAD, DEFAULT_SPECS_DIR, DEFAULT_TASKS_ENABLED,
    DEFAULT_TRANSCRIPTS_ENABLED, DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN, Deadlines, GateConfig,
    HatBackend, HatConfig, LoopConfig, ModelPricing, Prompt, PromptSource, RateLimitConfig,
    ResolvedConfig, TasksConfig, TranscriptsConfig,
};
use crate::topic::TASK_START;
use crate::trigger::{Rank, overlap, rank};

/// What resolution needs to know about the surroundings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveEnv {
    /// The working directory: relative paths are read from here.
    pub cwd: PathBuf,
    /// The prompt file to read when none is configured, if it exists (relative to
    /// `cwd` unless absolute).
    pub default_prompt_file: PathBuf,
    /// The config files that were read, lowest layer first (reported in the result).
    pub sources: Vec<PathBuf>,
}

/// A resolved configuration and what it ignores.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub config: ResolvedConfig,
    pub warnings: Vec<ConfigWarning>,
}

/// Resolves the merged layers (see [`super::merge`]).
pub fn resolve(raw: RawConfig, env: &ResolveEnv) -> Result<Resolved, ConfigErrors> {
    let mut r = Resolver {
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let deadlines = deadlines(&Deadlines::default(), &raw.cli.deadlines);
    let names_custom = |b: &RawHatBackend| matches!(b, RawHatBackend::Named(BackendKind::Custom));
    let fallbacks = raw
        .hats
        .iter()
        .filter_map(|h| h.fallback.as_ref())
        .chain(&raw.cli.fallback)
        .flat_map(|list| &list.value);
    let hat_names_custom = raw
        .hats
        .iter()
        .filter_map(|h| h.backend.as_ref())
        .chain(fallbacks)
        .any(|b| names_custom(&b.value));
    let backend = r.agent_backend(&raw.cli, hat_names_custom);
    let agent = AgentConfig {
        backend,
        args: raw.cli.args.clone().map(|a| a.value).unwrap_or_default(),
        deadlines,
        pty: raw.cli.pty.as_ref().is_some_and(|p| p.value),
        steering: raw.cli.steering.as_ref().is_some_and(|s| s.value),
    };
    let backend_priority = raw.cli.backend_priority.clone().map_or_else(
        || DEFAULT_PRIORITY.to_vec(),
        |list| list.value.into_iter().map(|k| k.value).collect(),
    );
    // Read before the event loop's keys are taken apart: it needs their origins.
    let topology = super::topology::check(&raw);
    let event_loop = r.event_loop(raw.event_loop, env);
    let core = CoreConfig {
        scratchpad: match raw.core.scratchpad.enabled.map(|e| e.value) {
            Some(false) => None,
            Some(true) | None => Some(
                raw.core
                    .scratchpad
                    .path
                    .map_or_else(|| PathBuf::from(DEFAULT_SCRATCHPAD), |p| p.value),
            ),
        },
        guardrails: raw.core.guardrails.map(|g| g.value).unwrap_or_default(),
        specs_dir: raw
            .core
            .specs_dir
            .map_or_else(|| PathBuf::from(DEFAULT_SPECS_DIR), |p| p.value),
    };
    r.check_triggers(&raw.hats);
    r.errors.extend(topology.errors);
    r.warnings.extend(topology.warnings);
    r.errors
        .extend(super::stdin_on_pty::check(&raw.cli, &raw.hats));
    r.warnings
        .extend(super::unused_fallback::check(&raw.cli, &raw.hats));
    let fallback = r
        .fallback(raw.cli.fallback.clone(), &raw.cli)
        .unwrap_or_default();
    let hats: Vec<HatConfig> = raw
        .hats
        .into_iter()
        .map(|hat| r.hat(hat, &raw.cli, &agent))
        .collect();
    let pricing = raw.pricing.into_iter().map(model_pricing).collect();
    let gates = r.gates(raw.gates, &event_loop.completion_promise, &hats);
    if !r.errors.is_empty() {
        return Err(ConfigErrors(r.errors));
    }
    Ok(Resolved {
        config: ResolvedConfig {
            agent,
            backend_priority,
            event_loop,
            core,
            hats,
            pricing,
            gates,
            rate_limits: RateLimitConfig {
                policy: raw
                    .cli
                    .on_rate_limit
                    .map_or(DEFAULT_RATE_LIMIT_POLICY, |p| p.value),
                wait: raw
                    .cli
                    .rate_limit_wait_seconds
                    .map_or(DEFAULT_RATE_LIMIT_WAIT, |s| Duration::from_secs(s.value)),
                fallback,
            },
            tasks: TasksConfig {
                enabled: raw.tasks.enabled.map_or(DEFAULT_TASKS_ENABLED, |e| e.value),
            },
            memories: super::memory_config::memories(raw.memories),
            skills: super::memory_config::skills(raw.skills),
            transcripts: TranscriptsConfig {
                enabled: raw
                    .transcripts
                    .enabled
                    .map_or(DEFAULT_TRANSCRIPTS_ENABLED, |e| e.value),
                max_bytes_per_run: raw
                    .transcripts
                    .max_bytes_per_run
                    .map_or(DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN, |n| n.value),
            },
            sources: env.sources.clone(),
            hooks: raw.hooks.map(|h| h.value).unwrap_or_default(),
        },
        warnings: r.warnings,
    })
}

fn deadlines(base: &Deadlines, raw: &RawDeadlines) -> Deadlines {
    let secs = |v: &Option<Spanned<u64>>, default: Duration| {
        v.as_ref().map_or(default, |s| Duration::from_secs(s.value))
    };
    Deadlines {
        startup: secs(&raw.startup_timeout_seconds, base.startup),
        idle: secs(&raw.idle_timeout_seconds, base.idle),
        iteration: secs(&raw.iteration_timeout_seconds, base.iteration),
        exit_grace: secs(&raw.exit_grace_seconds, base.exit_grace),
    }
}

/// A hat's `instructions` with its `extra_instructions` after them, each a paragraph of
/// its own (after a blank line), as ralph-orchestrator appends them. Without extras the
/// instructions are kept exactly as written.
fn with_extra(instructions: String, extra: Vec<String>) -> String {
    if extra.is_empty() {
        return instructions;
    }
    let paragraphs = std::iter::once(instructions.as_str())
        .chain(extra.iter().map(String::as_str))
        .map(str::trim_end)
        .filter(|p| !p.trim().is_empty());
    let mut text = paragraphs.collect::<Vec<_>>().join("\n\n");
    text.push('\n');
    text
}

struct Resolver {
    errors: Vec<ConfigError>,
    warnings: Vec<ConfigWarning>,
}

impl Resolver {
    fn error(&mut self, origin: Origin, kind: ConfigErrorKind) {
        self.errors.push(ConfigError::new(origin, kind));
    }

    fn agent_backend(&mut self, cli: &RawCli, hat_names_custom: bool) -> AgentBackend {
        let choice = cli
            .backend
            .as_ref()
            .map_or(BackendChoice::Auto, |b| b.value);
        let is_custom = choice == BackendChoice::Backend(BackendKind::Custom);
        if !is_custom && !hat_names_custom {
            self.warn_custom_only(cli, choice);
        }
        match choice {
            BackendChoice::Auto => {
                if let Some(command) = &cli.command {
                    self.error(
                        command.origin.clone(),
                        ConfigErrorKind::CommandWithAutoBackend,
                    );
                }
                AgentBackend::Auto
            }
            BackendChoice::Backend(BackendKind::Custom) => match self.cli_custom(cli) {
                Some(custom) => AgentBackend::Custom(custom),
                None => {
                    let origin = cli
                        .backend
                        .as_ref()
                        .map_or(Origin::Default, |b| b.origin.clone());
                    self.error(
                        origin,
                        ConfigErrorKind::CustomWithoutCommand { in_hat: false },
                    );
                    AgentBackend::Auto
                }
            },
            BackendChoice::Backend(kind) => AgentBackend::Builtin {
                kind,
                command: cli.command.as_ref().map(|c| c.value.clone()),
            },
        }
    }

    fn warn_custom_only(&mut self, cli: &RawCli, choice: BackendChoice) {
        let keys = [
            (
                "cli.prompt_mode",
                cli.prompt_mode.as_ref().map(|v| &v.origin),
            ),
            (
                "cli.prompt_flag",
                cli.prompt_flag.as_ref().map(|v| &v.origin),
            ),
            (
                "cli.output_format",
                cli.output_format.as_ref().map(|v| &v.origin),
            ),
        ];
        for (key, origin) in keys {
            if let Some(origin) = origin {
                self.warnings.push(ConfigWarning {
                    origin: origin.clone(),
                    kind: ConfigWarningKind::OnlyForCustom {
                        key: key.to_owned(),
                        backend: choice.name().to_owned(),
                    },
                });
            }
        }
    }

    /// The custom backend `cli` describes, if it names a command.
    fn cli_custom(&self, cli: &RawCli) -> Option<CustomBackend> {
        Some(CustomBackend {
            command: cli.command.as_ref()?.value.clone(),
            prompt_mode: cli
                .prompt_mode
                .as_ref()
                .map_or(PromptMode::Arg, |m| m.value),
            prompt_flag: cli.prompt_flag.as_ref().map(|f| f.value.clone()),
            output_format: cli
                .output_format
                .as_ref()
                .map_or(StreamFormat::Text, |f| f.value),
        })
    }

    fn event_loop(&mut self, el: RawEventLoop, env: &ResolveEnv) -> LoopConfig {
        let prompt = match (el.prompt, el.prompt_file) {
            (Some(text), _) => Some(Prompt {
                text: text.value,
                source: PromptSource::Inline,
            }),
            (None, Some(file)) => match read_prompt(&env.cwd, &file.value) {
                Ok(text) => Some(Prompt {
                    text,
                    source: PromptSource::File(file.value),
                }),
                Err(source) => {
                    self.error(
                        file.origin,
                        ConfigErrorKind::PromptFile {
                            path: file.value,
                            source,
                        },
                    );
                    None
                }
            },
            // The default file is optional: without it there is simply no prompt yet
            // (`ralph run` asks for one).
            (None, None) => match read_default_prompt(&env.cwd, &env.default_prompt_file) {
                Ok(text) => text.map(|text| Prompt {
                    text,
                    source: PromptSource::File(env.default_prompt_file.clone()),
                }),
                Err(error) => {
                    self.errors.push(*error);
                    None
                }
            },
        };
        LoopConfig {
            prompt,
            completion_promise: el
                .completion_promise
                .map_or_else(|| DEFAULT_COMPLETION_PROMISE.to_owned(), |p| p.value),
            max_iterations: el
                .max_iterations
                .map_or(DEFAULT_MAX_ITERATIONS, |n| n.value),
            max_runtime: el
                .max_runtime_seconds
                .map_or(DEFAULT_MAX_RUNTIME, |s| Duration::from_secs(s.value)),
            max_cost_usd: el.max_cost_usd.map(|c| c.value),
            max_consecutive_failures: el
                .max_consecutive_failures
                .map_or(DEFAULT_MAX_CONSECUTIVE_FAILURES, |n| n.value),
            starting_event: el
                .starting_event
                .map_or_else(|| TASK_START.to_owned(), |t| t.value),
            required_events: el
                .required_events
                .map(|list| list.value.into_iter().map(|t| t.value).collect())
                .unwrap_or_default(),
            prompt_events_max_bytes: el
                .prompt_events_max_bytes
                .map_or(DEFAULT_PROMPT_EVENTS_MAX_BYTES, |n| n.value),
        }
    }

    /// The gates, with `before` defaulted to the promise; each guarded topic must be one
    /// something can publish (the promise, or a topic a hat publishes), or the gate
    /// would never run and the user would believe the event checked.
    fn gates(&mut self, raw: Vec<RawGate>, promise: &str, hats: &[HatConfig]) -> Vec<GateConfig> {
        let mut publishable: Vec<String> = hats
            .iter()
            .flat_map(|h| h.publishes.iter().chain(&h.default_publishes))
            .filter(|t| *t != promise)
            .cloned()
            .collect();
        publishable.sort();
        publishable.dedup();
        raw.into_iter()
            .map(|gate| {
                let before = match gate.before {
                    Some(list) => list
                        .value
                        .into_iter()
                        .map(|topic| {
                            if topic.value != promise && !publishable.contains(&topic.value) {
                                let kind = ConfigErrorKind::UnguardedTopic {
                                    gate: gate.name.value.clone(),
                                    topic: topic.value.clone(),
                                    promise: promise.to_owned(),
                                    publishable: publishable.clone(),
                                };
                                self.error(topic.origin, kind);
                            }
                            topic.value
                        })
                        .collect(),
                    None => vec![promise.to_owned()],
                };
                GateConfig {
                    name: gate.name.value,
                    // A gate without a command was refused while decoding.
                    run: gate
                        .run
                        .map_or_else(|| ralph_types::Invocation::Argv(Vec::new()), |r| r.value),
                    before,
                    timeout: gate
                        .timeout_seconds
                        .map_or(DEFAULT_GATE_TIMEOUT, |t| Duration::from_secs(t.value)),
                }
            })
            .collect()
    }

    /// Each trigger routes to one hat: the second hat to claim a topic is the error, and
    /// so is a segment pattern that could take a topic another hat's pattern takes (an
    /// exact trigger beats a pattern, so it may sit under one).
    fn check_triggers(&mut self, hats: &[RawHat]) {
        let mut claimed: Vec<(&str, &str, &Origin)> = Vec::new();
        for hat in hats {
            for topic in hat.triggers.iter().flat_map(|t| &t.value) {
                let overlapping = (rank(&topic.value) == Rank::Segments)
                    .then(|| {
                        claimed.iter().find(|(t, h, _)| {
                            *h != hat.id.value
                                && rank(t) == Rank::Segments
                                && overlap(t, &topic.value)
                        })
                    })
                    .flatten();
                if let Some((first_pattern, first_hat, first)) = overlapping
                    && *first_pattern != topic.value
                {
                    let kind = ConfigErrorKind::OverlappingTriggers {
                        pattern: topic.value.clone(),
                        hat: hat.id.value.clone(),
                        first_pattern: (*first_pattern).to_owned(),
                        first_hat: (*first_hat).to_owned(),
                        first: (*first).clone(),
                    };
                    self.error(topic.origin.clone(), kind);
                    continue;
                }
                match claimed.iter().find(|(t, _, _)| *t == topic.value) {
                    Some((_, first_hat, first)) => {
                        let kind = ConfigErrorKind::DuplicateTrigger {
                            topic: topic.value.clone(),
                            hat: hat.id.value.clone(),
                            first_hat: (*first_hat).to_owned(),
                            first: (*first).clone(),
                        };
                        self.error(topic.origin.clone(), kind);
                    }
                    None => claimed.push((&topic.value, &hat.id.value, &topic.origin)),
                }
            }
        }
    }

    fn hat(&mut self, hat: RawHat, cli: &RawCli, agent: &AgentConfig) -> HatConfig {
        // Needing a terminal is a fact about the program, like its location: a hat that
        // runs `cli.backend`'s program inherits `cli.pty`, a hat with another agent does not.
        let cli_kind = cli.backend.as_ref().map(|b| b.value);
        let runs_cli_program = match hat.backend.as_ref().map(|b| &b.value) {
            None => true,
            Some(RawHatBackend::Named(kind)) => cli_kind == Some(BackendChoice::Backend(*kind)),
            Some(RawHatBackend::Typed { kind, .. }) => {
                cli_kind == Some(BackendChoice::Backend(kind.value))
            }
            Some(RawHatBackend::Command { .. }) => false,
        };
        let pty = hat.pty.map_or(runs_cli_program && agent.pty, |p| p.value);
        // A wish about the loop, not a fact about a program: every hat inherits it.
        let steering = hat.steering.map_or(agent.steering, |s| s.value);
        let backend = match hat.backend {
            None => None,
            Some(b) => self.hat_backend(b, cli),
        };
        let fallback = self.fallback(hat.fallback, cli);
        let topics = |list: Option<super::raw::SpannedList<String>>| {
            list.map(|l| l.value.into_iter().map(|t| t.value).collect())
                .unwrap_or_default()
        };
        HatConfig {
            name: hat.name.map_or_else(|| hat.id.value.clone(), |n| n.value),
            id: hat.id.value,
            description: hat.description.map(|d| d.value).unwrap_or_default(),
            triggers: topics(hat.triggers),
            publishes: topics(hat.publishes),
            instructions: with_extra(
                hat.instructions.map(|i| i.value).unwrap_or_default(),
                hat.extra_instructions.map(|e| e.value).unwrap_or_default(),
            ),
            backend,
            args: hat.args.map(|a| a.value).unwrap_or_default(),
            deadlines: deadlines(&agent.deadlines, &hat.deadlines),
            pty,
            steering,
            default_publishes: hat.default_publishes.map(|t| t.value),
            max_activations: hat.max_activations.map(|n| n.value),
            on_rate_limit: hat.on_rate_limit.map(|p| p.value),
            fallback,
        }
    }

    /// A `fallback` list, each backend resolved as a hat's is (`None` when not given).
    fn fallback(
        &mut self,
        list: Option<super::raw::SpannedList<RawHatBackend>>,
        cli: &RawCli,
    ) -> Option<Vec<HatBackend>> {
        let list = list?.value;
        Some(
            list.into_iter()
                .filter_map(|b| self.hat_backend(b, cli))
                .collect(),
        )
    }

    fn hat_backend(&mut self, backend: Spanned<RawHatBackend>, cli: &RawCli) -> Option<HatBackend> {
        let args = |a: Option<Spanned<Vec<String>>>| a.map(|a| a.value).unwrap_or_default();
        // The program's location is a fact about the machine: a hat naming the same
        // backend as `cli.backend` runs the same binary.
        let is_cli_backend = |kind: BackendKind| {
            cli.backend.as_ref().map(|b| b.value) == Some(BackendChoice::Backend(kind))
        };
        let same_binary = |kind: BackendKind| {
            is_cli_backend(kind)
                .then(|| cli.command.as_ref().map(|c| c.value.clone()))
                .flatten()
        };
        // A hat that only names the backend `cli` already runs means that agent as `cli`
        // sets it up (`--provider`, `--model`): dropping `cli.args` there lost them
        // without a word. A hat that gives the backend arguments of its own
        // (`{type: NAME, args: [...]}`) says exactly what it runs.
        let named_args = |kind: BackendKind| match is_cli_backend(kind) {
            true => args(cli.args.clone()),
            false => Vec::new(),
        };
        match backend.value {
            RawHatBackend::Named(BackendKind::Custom) => match self.cli_custom(cli) {
                Some(custom) => Some(HatBackend::Custom {
                    backend: custom,
                    args: named_args(BackendKind::Custom),
                }),
                None => {
                    self.error(
                        backend.origin,
                        ConfigErrorKind::CustomWithoutCommand { in_hat: true },
                    );
                    None
                }
            },
            RawHatBackend::Named(kind) => Some(HatBackend::Builtin {
                kind,
                command: same_binary(kind),
                args: named_args(kind),
            }),
            RawHatBackend::Typed { kind, args: a } => Some(HatBackend::Builtin {
                kind: kind.value,
                command: same_binary(kind.value),
                args: args(a),
            }),
            RawHatBackend::Command {
                command,
                args: a,
                prompt_mode,
                prompt_flag,
                output_format,
            } => Some(HatBackend::Custom {
                backend: CustomBackend {
                    command: command.value,
                    prompt_mode: prompt_mode.map_or(PromptMode::Arg, |m| m.value),
                    prompt_flag: prompt_flag.map(|f| f.value),
                    output_format: output_format.map_or(StreamFormat::Text, |f| f.value),
                },
                args: args(a),
            }),
        }
    }
}

/// A price as the table takes it: the cache prices default to the input price.
pub(crate) fn model_pricing(raw: RawPrice) -> ModelPricing {
    let input = raw.input.value;
    ModelPricing {
        model: raw.model.value.trim().to_owned(),
        price: ModelPrice {
            input,
            output: raw.output.value,
            cache_read: raw.cache_read.map_or(input, |p| p.value),
            cache_write: raw.cache_write.map_or(input, |p| p.value),
        },
    }
}

/// A prompt file: a regular file (a link to one is fine) of at most
/// [`MAX_PROMPT_FILE_BYTES`](crate::fsafe::MAX_PROMPT_FILE_BYTES); a FIFO or a device is
/// refused instead of waited on or read without end.
pub(super) fn read_prompt(cwd: &Path, path: &Path) -> io::Result<String> {
    crate::fsafe::read_to_string(
        &cwd.join(path),
        crate::fsafe::Links::Follow,
        crate::fsafe::MAX_PROMPT_FILE_BYTES,
        "a prompt file",
    )
}
