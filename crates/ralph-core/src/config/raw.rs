//! The raw layer: one config source (a file, or the command line) as written, typed
//! and checked value by value, with every value's origin kept for later messages.
//!
//! Every field is optional: `None` means "this layer does not say", so layers can be
//! merged key by key ([`super::merge`]) before defaults are applied
//! ([`super::resolve`]).

use std::path::PathBuf;

use ralph_stream::StreamFormat;
use ralph_types::{BackendKind, Invocation};

use super::choice::{BackendChoice, PromptMode};
use super::memory_config::MemoryInject;
use super::origin::Spanned;
use crate::memory::MemoryType;

/// A list whose items each keep their origin (topics, backend names).
pub type SpannedList<T> = Spanned<Vec<Spanned<T>>>;

/// Layering: a later layer's value over an earlier one's ([`super::merge`]).
pub(crate) trait Layered {
    /// `self` with `over` on top: `over` wins wherever it says something.
    fn layer(self, over: Self) -> Self;
}

impl<T> Layered for Option<T> {
    fn layer(self, over: Self) -> Self {
        over.or(self)
    }
}

/// Declares a section's struct and layers it field by field, so a key added to a
/// section is merged without further code (keys that travel together across layers
/// are handled in [`super::merge`] before this).
macro_rules! layered {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $($(#[$field_meta:meta])* pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl Layered for $name {
            fn layer(self, over: Self) -> Self {
                $name {
                    $($field: self.$field.layer(over.$field),)*
                }
            }
        }
    };
}

layered! {
    /// One configuration layer, mirroring `ralph.yml`.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawConfig {
        pub cli: RawCli,
        pub event_loop: RawEventLoop,
        pub core: RawCore,
        /// Hats in file order.
        pub hats: Vec<RawHat>,
        /// `pricing:`, in file order.
        pub pricing: Vec<RawPrice>,
        /// `gates:`, in file order.
        pub gates: Vec<RawGate>,
        pub tasks: RawTasks,
        pub transcripts: RawTranscripts,
        /// `hooks:`, resolved within the section (a later layer's replaces it whole).
        pub hooks: Option<Spanned<crate::hooks::HooksConfig>>,
        pub memories: RawMemories,
        pub skills: RawSkills,
    }
}

layered! {
    /// `tasks:`.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawTasks {
        pub enabled: Option<Spanned<bool>>,
    }
}

layered! {
    /// `memories:`: what the prompt carries of `.ralph/agent/memories.md`.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawMemories {
        pub enabled: Option<Spanned<bool>>,
        pub inject: Option<Spanned<MemoryInject>>,
        /// Tokens; 0 means ralph's cap.
        pub budget: Option<Spanned<u32>>,
        pub filter: RawMemoryFilter,
    }
}

layered! {
    /// `memories.filter:`.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawMemoryFilter {
        pub types: Option<SpannedList<MemoryType>>,
        pub tags: Option<Spanned<Vec<String>>>,
        /// Days.
        pub recent: Option<Spanned<u32>>,
    }
}

layered! {
    /// `skills:`: where skills are found and what the configuration changes about them.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawSkills {
        pub enabled: Option<Spanned<bool>>,
        pub dirs: Option<Spanned<Vec<String>>>,
        /// Layered per skill name (`merge.rs`).
        pub overrides: Vec<RawSkillOverride>,
    }
}

/// `skills.overrides.<name>:`.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSkillOverride {
    pub name: Spanned<String>,
    pub enabled: Option<Spanned<bool>>,
    pub hats: Option<Spanned<Vec<String>>>,
    pub backends: Option<Spanned<Vec<String>>>,
    pub auto_inject: Option<Spanned<bool>>,
}

layered! {
    /// `cli:`: which agent to run and how.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawCli {
        pub backend: Option<Spanned<BackendChoice>>,
        /// The program to run: required for `custom`, a binary override otherwise.
        pub command: Option<Spanned<String>>,
        /// Extra arguments appended to the backend's command line.
        pub args: Option<Spanned<Vec<String>>>,
        pub prompt_mode: Option<Spanned<PromptMode>>,
        pub prompt_flag: Option<Spanned<String>>,
        pub output_format: Option<Spanned<StreamFormat>>,
        pub deadlines: RawDeadlines,
        /// Run the agent on a pseudo-terminal instead of pipes.
        pub pty: Option<Spanned<bool>>,
        /// Run agents that can take steering messages mid-turn so that they do.
        pub steering: Option<Spanned<bool>>,
        /// Auto-detection order.
        pub backend_priority: Option<SpannedList<BackendKind>>,
        pub on_rate_limit: Option<Spanned<super::resolved::RateLimitPolicy>>,
        pub rate_limit_wait_seconds: Option<Spanned<u64>>,
        /// `failover`'s backends, in order, each in a hat backend's forms.
        pub fallback: Option<SpannedList<RawHatBackend>>,
    }
}

layered! {
    /// The supervision deadlines, in seconds (under `cli:` and per hat).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawDeadlines {
        pub startup_timeout_seconds: Option<Spanned<u64>>,
        pub idle_timeout_seconds: Option<Spanned<u64>>,
        pub iteration_timeout_seconds: Option<Spanned<u64>>,
        pub exit_grace_seconds: Option<Spanned<u64>>,
    }
}

layered! {
    /// `event_loop:`: the task, completion and limits.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawEventLoop {
        pub prompt: Option<Spanned<String>>,
        /// Already joined to the directory of the file that names it (or left relative to
        /// the working directory for the command line).
        pub prompt_file: Option<Spanned<PathBuf>>,
        pub completion_promise: Option<Spanned<String>>,
        pub max_iterations: Option<Spanned<u32>>,
        pub max_runtime_seconds: Option<Spanned<u64>>,
        pub max_cost_usd: Option<Spanned<f64>>,
        pub max_consecutive_failures: Option<Spanned<u32>>,
        pub starting_event: Option<Spanned<String>>,
        pub required_events: Option<SpannedList<String>>,
        pub prompt_events_max_bytes: Option<Spanned<u32>>,
    }
}

layered! {
    /// `core:`: files and standing rules shared by every iteration.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawCore {
        pub scratchpad: RawScratchpad,
        pub guardrails: Option<Spanned<Vec<String>>>,
        pub specs_dir: Option<Spanned<PathBuf>>,
    }
}

layered! {
    /// `core.scratchpad`, written either as a path or as `{enabled, path}` (a bare path
    /// means `enabled: true`).
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawScratchpad {
        pub enabled: Option<Spanned<bool>>,
        pub path: Option<Spanned<PathBuf>>,
    }
}

/// `hats.<id>:`: one role in a multi-hat workflow.
#[derive(Debug, Clone, PartialEq)]
pub struct RawHat {
    pub id: Spanned<String>,
    pub name: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub triggers: Option<SpannedList<String>>,
    pub publishes: Option<SpannedList<String>>,
    pub instructions: Option<Spanned<String>>,
    /// Paragraphs appended to `instructions` (ralph-orchestrator's key).
    pub extra_instructions: Option<Spanned<Vec<String>>>,
    pub backend: Option<Spanned<RawHatBackend>>,
    /// `args` or its alias `backend_args`: appended to whichever backend the hat runs.
    pub args: Option<Spanned<Vec<String>>>,
    pub default_publishes: Option<Spanned<String>>,
    pub max_activations: Option<Spanned<u32>>,
    pub deadlines: RawDeadlines,
    /// `pty`: overrides `cli.pty` for this hat's agent.
    pub pty: Option<Spanned<bool>>,
    /// Overrides `cli.on_rate_limit` for this hat.
    pub on_rate_limit: Option<Spanned<super::resolved::RateLimitPolicy>>,
    /// Overrides `cli.fallback` for this hat.
    pub fallback: Option<SpannedList<RawHatBackend>>,
    /// `steering`: overrides `cli.steering` for this hat's agent.
    pub steering: Option<Spanned<bool>>,
}

impl RawHat {
    /// A hat that sets nothing yet.
    pub(crate) fn new(id: Spanned<String>) -> Self {
        RawHat {
            id,
            name: None,
            description: None,
            triggers: None,
            publishes: None,
            instructions: None,
            extra_instructions: None,
            backend: None,
            args: None,
            default_publishes: None,
            max_activations: None,
            deadlines: RawDeadlines::default(),
            pty: None,
            on_rate_limit: None,
            fallback: None,
            steering: None,
        }
    }
}

/// `hats.<id>.backend`, in its three forms.
#[derive(Debug, Clone, PartialEq)]
pub enum RawHatBackend {
    /// `backend: pi`.
    Named(BackendKind),
    /// `backend: {type: pi, args: [...]}`.
    Typed {
        kind: Spanned<BackendKind>,
        args: Option<Spanned<Vec<String>>>,
    },
    /// `backend: {command: ./agent, args: [...], prompt_mode: stdin, ...}`.
    Command {
        command: Spanned<String>,
        args: Option<Spanned<Vec<String>>>,
        prompt_mode: Option<Spanned<PromptMode>>,
        prompt_flag: Option<Spanned<String>>,
        output_format: Option<Spanned<StreamFormat>>,
    },
}

/// `pricing.<model>:`: what one model costs, in US dollars per million tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct RawPrice {
    /// The model's name, as written.
    pub model: Spanned<String>,
    pub input: Spanned<f64>,
    pub output: Spanned<f64>,
    /// `None`: the input price.
    pub cache_read: Option<Spanned<f64>>,
    /// `None`: the input price.
    pub cache_write: Option<Spanned<f64>>,
}

/// One entry of `gates:`: a command ralph runs itself to check an event the agent
/// published.
#[derive(Debug, Clone, PartialEq)]
pub struct RawGate {
    /// Where the entry starts (errors about the whole gate point here).
    pub name: Spanned<String>,
    pub run: Option<Spanned<Invocation>>,
    pub before: Option<SpannedList<String>>,
    pub timeout_seconds: Option<Spanned<u64>>,
}

layered! {
    /// `transcripts:`.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RawTranscripts {
        pub enabled: Option<Spanned<bool>>,
        pub max_bytes_per_run: Option<Spanned<u32>>,
    }
}
