//! The resolved configuration: every layer merged, every default applied, values in
//! the types the loop uses (`Duration`, [`BackendKind`], the prompt's text).
//!
//! Like ripgrep's "low args / high args": the raw layers say what was written; this
//! says what ralph will do. Nothing here is optional unless the behaviour itself is
//! ("no cost limit", "no scratchpad").

use std::path::PathBuf;
use std::time::Duration;

use ralph_stream::{ModelPrice, PriceTable, StreamFormat};
use ralph_types::BackendKind;

use super::choice::PromptMode;
pub use super::memory_config::{
    DEFAULT_MEMORY_BUDGET, MEMORY_BUDGET_CAP, MemoriesConfig, MemoryFilter, MemoryInject,
    SkillOverride, SkillsConfig,
};
// The deadlines and their defaults are shared with the supervisor: defined once, in
// ralph-types.
pub use ralph_types::{
    DEFAULT_EXIT_GRACE, DEFAULT_IDLE_TIMEOUT, DEFAULT_ITERATION_TIMEOUT, DEFAULT_STARTUP_TIMEOUT,
    Deadlines,
};

/// Default for `event_loop.completion_promise`.
pub const DEFAULT_COMPLETION_PROMISE: &str = "LOOP_COMPLETE";
/// Default for `event_loop.max_iterations`.
pub const DEFAULT_MAX_ITERATIONS: u32 = 100;
/// Default for `event_loop.max_runtime_seconds` (upstream's default too).
pub const DEFAULT_MAX_RUNTIME: Duration = Duration::from_secs(4 * 60 * 60);
/// Default for `event_loop.max_consecutive_failures`.
pub const DEFAULT_MAX_CONSECUTIVE_FAILURES: u32 = 5;
/// Default for `event_loop.prompt_events_max_bytes`: 1 MiB of events is far more than
/// an agent reads with care, and keeps a flood of events (thousands of large payloads)
/// from making a prompt of hundreds of megabytes.
pub const DEFAULT_PROMPT_EVENTS_MAX_BYTES: u32 = 1024 * 1024;
/// Default for `core.scratchpad`.
pub const DEFAULT_SCRATCHPAD: &str = ".ralph/agent/scratchpad.md";
/// Default for a gate's `timeout_seconds`: long enough for a real test suite, short
/// enough that a hung one does not eat the run.
pub const DEFAULT_GATE_TIMEOUT: Duration = Duration::from_secs(600);
/// Default for `core.specs_dir`.
pub const DEFAULT_SPECS_DIR: &str = ".ralph/specs/";
/// The prompt file read when no prompt is configured, if it exists (next to the
/// project config, or in the working directory).
pub const DEFAULT_PROMPT_FILE: &str = "PROMPT.md";
/// Everything a run needs to know from configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedConfig {
    /// The agent run when no hat names its own backend.
    pub agent: AgentConfig,
    /// The order `auto` probes backends in.
    pub backend_priority: Vec<BackendKind>,
    pub event_loop: LoopConfig,
    pub core: CoreConfig,
    /// Hats, lowest layer first, each in file order.
    pub hats: Vec<HatConfig>,
    /// The prices of `pricing:`, which override and extend the built-in table
    /// ([`ResolvedConfig::price_table`]), lowest layer first.
    pub pricing: Vec<ModelPricing>,
    /// `gates:`, lowest layer first, each in file order.
    pub gates: Vec<GateConfig>,
    pub tasks: TasksConfig,
    pub rate_limits: RateLimitConfig,
    pub memories: MemoriesConfig,
    pub skills: SkillsConfig,
    pub transcripts: TranscriptsConfig,
    /// The config files that were read, lowest layer first.
    pub sources: Vec<PathBuf>,
    /// `hooks:` (disabled and empty when absent).
    pub hooks: crate::hooks::HooksConfig,
}

/// What the loop does when an agent's run ends on a provider's rate or usage limit
/// (`cli.on_rate_limit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateLimitPolicy {
    /// Wait until the limit resets (or a backoff), then run the iteration again.
    Wait,
    /// Run the iteration again on the next backend of `fallback` that is not limited;
    /// back to the primary once its limit has reset; wait when every one is limited.
    Failover,
    /// Count it as a failed iteration.
    Fail,
}

impl RateLimitPolicy {
    pub const ALL: [RateLimitPolicy; 3] = [
        RateLimitPolicy::Wait,
        RateLimitPolicy::Failover,
        RateLimitPolicy::Fail,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RateLimitPolicy::Wait => "wait",
            RateLimitPolicy::Failover => "failover",
            RateLimitPolicy::Fail => "fail",
        }
    }
}

/// `cli.on_rate_limit`, `cli.rate_limit_wait_seconds` and `cli.fallback`.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimitConfig {
    pub policy: RateLimitPolicy,
    /// The first wait when the agent gives no reset time; it doubles with each limit in a
    /// row, up to [`MAX_RATE_LIMIT_WAIT`].
    pub wait: Duration,
    /// The backends `failover` runs, in order, when the primary is limited (in the forms
    /// of a hat's `backend`).
    pub fallback: Vec<HatBackend>,
}

/// Default for `cli.on_rate_limit`.
pub const DEFAULT_RATE_LIMIT_POLICY: RateLimitPolicy = RateLimitPolicy::Wait;
/// Default for `cli.rate_limit_wait_seconds`.
pub const DEFAULT_RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);
/// The longest backoff between attempts when no reset time is known (a reset time the
/// agent gives is waited for however far it is, within `max_runtime_seconds`).
pub const MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(30 * 60);

/// `tasks:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TasksConfig {
    /// The prompt shows the ready tasks and completion waits for the run's tasks.
    pub enabled: bool,
}

/// Default for `tasks.enabled` (ralph-orchestrator's too).
pub const DEFAULT_TASKS_ENABLED: bool = true;

/// `transcripts:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TranscriptsConfig {
    /// Each iteration keeps its prompt, raw output, stderr and command line.
    pub enabled: bool,
    /// The most bytes of compressed raw output a run keeps (the oldest go first).
    pub max_bytes_per_run: u32,
}

/// Default for `transcripts.enabled`: the transcript is what answers "what did
/// iteration 7 do" after the output scrolled away.
pub const DEFAULT_TRANSCRIPTS_ENABLED: bool = true;

/// Default for `transcripts.max_bytes_per_run`: 256 MiB. A 200 MB pi stream compresses
/// to a few MB, so this holds the raw output of a long run of ordinary iterations.
pub const DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN: u32 = 256 << 20;

/// A command ralph runs in the workspace after an iteration, before it believes one of
/// the events in `before`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateConfig {
    pub name: String,
    pub run: ralph_types::Invocation,
    /// The events that count only once this gate passes (the completion promise when
    /// the file names none).
    pub before: Vec<String>,
    pub timeout: Duration,
}

impl ResolvedConfig {
    /// The gates guarding `topic`, in declaration order.
    pub fn gates_before(&self, topic: &str) -> impl Iterator<Item = &GateConfig> {
        self.gates
            .iter()
            .filter(move |g| g.before.iter().any(|t| t == topic))
    }
}

impl ResolvedConfig {
    /// The built-in list prices with the configured ones on top.
    pub fn price_table(&self) -> PriceTable {
        PriceTable::builtin().with_entries(self.pricing.iter().map(|p| (p.model.as_str(), p.price)))
    }

    /// The agent to run for an iteration of `hat`.
    pub fn agent_for(&self, hat: &HatConfig) -> AgentConfig {
        let (backend, mut args) = match &hat.backend {
            None => (self.agent.backend.clone(), self.agent.args.clone()),
            Some(own) => own.agent_backend(),
        };
        args.extend(hat.args.iter().cloned());
        AgentConfig {
            backend,
            args,
            deadlines: hat.deadlines,
            pty: hat.pty,
            steering: hat.steering,
        }
    }

    /// What `hat` (the default hat for `None`) does when its agent hits a provider's
    /// limit: its own `on_rate_limit`, else `cli`'s.
    pub fn rate_limit_policy(&self, hat: Option<&HatConfig>) -> RateLimitPolicy {
        hat.and_then(|h| h.on_rate_limit)
            .unwrap_or(self.rate_limits.policy)
    }

    /// The backends `hat` (the default hat for `None`) fails over to: its own
    /// `fallback`, else `cli`'s.
    pub fn fallback_for<'a>(&'a self, hat: Option<&'a HatConfig>) -> &'a [HatBackend] {
        hat.and_then(|h| h.fallback.as_deref())
            .unwrap_or(&self.rate_limits.fallback)
    }

    /// The agent that runs `hat`'s iterations (the default hat's for `None`) on
    /// `fallback`: that backend with its own arguments (and the hat's `args`, which
    /// follow whichever backend the hat runs), under the hat's deadlines. A terminal is
    /// kept only for the same program as the primary's (needing one is a fact about the
    /// program).
    pub fn fallback_agent(&self, hat: Option<&HatConfig>, fallback: &HatBackend) -> AgentConfig {
        let primary = match hat {
            Some(hat) => self.agent_for(hat),
            None => self.agent.clone(),
        };
        let (backend, mut args) = fallback.agent_backend();
        args.extend(hat.iter().flat_map(|h| h.args.iter().cloned()));
        let same_program = backend == primary.backend;
        AgentConfig {
            backend,
            args,
            deadlines: primary.deadlines,
            pty: primary.pty && same_program,
            // Steering is the hat's wish, whichever backend serves it.
            steering: primary.steering,
        }
    }
}

impl HatBackend {
    /// The program this backend runs and its own arguments.
    fn agent_backend(&self) -> (AgentBackend, Vec<String>) {
        match self {
            HatBackend::Builtin {
                kind,
                command,
                args,
            } => (
                AgentBackend::Builtin {
                    kind: *kind,
                    command: command.clone(),
                },
                args.clone(),
            ),
            HatBackend::Custom { backend, args } => {
                (AgentBackend::Custom(backend.clone()), args.clone())
            }
        }
    }
}

/// Which agent to run, with what, under which deadlines.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    pub backend: AgentBackend,
    /// Appended to the backend's own command line.
    pub args: Vec<String>,
    pub deadlines: Deadlines,
    /// Run on a pseudo-terminal (`cli.pty`, or the hat's `pty`) even when the backend
    /// works on pipes: for an agent that misbehaves without a terminal.
    pub pty: bool,
    /// Run the agent so that it takes steering messages during its turn where it can
    /// (`cli.steering`, or the hat's `steering`); other agents get them in the next
    /// iteration's prompt.
    pub steering: bool,
}

/// The agent program.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentBackend {
    /// The first backend of `backend_priority` found installed.
    Auto,
    /// A backend ralph knows (never [`BackendKind::Custom`]: that is [`Self::Custom`]).
    Builtin {
        kind: BackendKind,
        /// Replaces the backend's usual program name (`cli.command`).
        command: Option<String>,
    },
    /// Any program, described by the config.
    Custom(CustomBackend),
}

impl AgentBackend {
    /// The backend, or `None` for `auto` (decided at run time).
    pub fn kind(&self) -> Option<BackendKind> {
        match self {
            AgentBackend::Auto => None,
            AgentBackend::Builtin { kind, .. } => Some(*kind),
            AgentBackend::Custom(_) => Some(BackendKind::Custom),
        }
    }
}

/// A program ralph knows nothing about except what the config says.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomBackend {
    pub command: String,
    pub prompt_mode: PromptMode,
    /// Put before the prompt argument in [`PromptMode::Arg`] (`--prompt`).
    pub prompt_flag: Option<String>,
    /// How to read the program's output (plain text unless configured).
    pub output_format: StreamFormat,
}

/// The task, completion and limits.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopConfig {
    /// The task; `None` when nothing was configured and no default prompt file exists.
    pub prompt: Option<Prompt>,
    pub completion_promise: String,
    pub max_iterations: u32,
    pub max_runtime: Duration,
    /// No cost limit when `None`.
    pub max_cost_usd: Option<f64>,
    pub max_consecutive_failures: u32,
    /// The topic published to start a run.
    pub starting_event: String,
    /// Topics that must all have been seen before completion is accepted.
    pub required_events: Vec<String>,
    /// The most bytes of events one prompt carries (the rest are named by count).
    pub prompt_events_max_bytes: u32,
}

/// The task text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub source: PromptSource,
}

/// Where the task text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptSource {
    /// `event_loop.prompt` or `-p`.
    Inline,
    /// This file (relative to the working directory unless absolute).
    File(PathBuf),
}

/// Files and standing rules shared by every iteration. Paths are relative to the
/// workspace unless absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreConfig {
    /// `None` when the scratchpad is disabled.
    pub scratchpad: Option<PathBuf>,
    pub guardrails: Vec<String>,
    pub specs_dir: PathBuf,
}

/// One hat, ready to route and run.
#[derive(Debug, Clone, PartialEq)]
pub struct HatConfig {
    pub id: String,
    /// The display name (the id unless set).
    pub name: String,
    pub description: String,
    pub triggers: Vec<String>,
    pub publishes: Vec<String>,
    pub instructions: String,
    /// `None`: the hat runs the global agent ([`ResolvedConfig::agent`]).
    pub backend: Option<HatBackend>,
    /// The hat's `args`/`backend_args`, appended after the backend's arguments.
    pub args: Vec<String>,
    /// The global deadlines with this hat's overrides applied.
    pub deadlines: Deadlines,
    /// The hat's own `pty`; else `cli.pty` when the hat runs `cli.backend`'s program (no
    /// backend of its own, or the same one); else `false`.
    pub pty: bool,
    /// The hat's own `steering`, else `cli.steering`.
    pub steering: bool,
    pub default_publishes: Option<String>,
    pub max_activations: Option<u32>,
    /// The hat's own `on_rate_limit` (`None`: `cli`'s).
    pub on_rate_limit: Option<RateLimitPolicy>,
    /// The hat's own `fallback` (`None`: `cli`'s).
    pub fallback: Option<Vec<HatBackend>>,
}

/// A hat's own backend.
#[derive(Debug, Clone, PartialEq)]
pub enum HatBackend {
    /// `backend: pi` or `backend: {type: pi, args: [...]}`.
    Builtin {
        kind: BackendKind,
        /// `cli.command` when `cli.backend` is the same backend (the program's
        /// location is a fact about the machine, not about the hat).
        command: Option<String>,
        args: Vec<String>,
    },
    /// `backend: {command: ...}`, or `backend: custom` (the `cli` custom settings).
    Custom {
        backend: CustomBackend,
        args: Vec<String>,
    },
}

/// One model's price from `pricing:`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPricing {
    /// The model's name as written (the table matches it case-insensitively).
    pub model: String,
    pub price: ModelPrice,
}
