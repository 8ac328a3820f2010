//! Configuration: `ralph.yml` and its layers, from text to the values a run uses.
//!
//! How it works, in three stages (ripgrep's low-level/high-level split):
//! 1. **Parse** each source on its own ([`parse_layer`], [`Overrides::into_layer`]):
//!    YAML is read with `saphyr`'s marked loader, so every value keeps its
//!    `file:line:column`; each value is type- and range-checked into a [`RawConfig`]
//!    where every key is optional. Unknown keys are errors (with "did you mean"),
//!    ralph-orchestrator keys ralph does not implement are reported (see
//!    `unsupported.rs` for when that is an error and when a warning). All problems of
//!    a file are collected, not just the first.
//! 2. **Merge** the layers ([`merge`]): built-in defaults, `~/.config/ralph/config.yml`,
//!    `ralph.yml` (or `-c FILE`), the command line; later layers win key by key.
//! 3. **Resolve** ([`resolve`]): apply defaults, check what needs all layers (a custom
//!    backend's command, two hats on one trigger), read the prompt file, and produce
//!    a [`ResolvedConfig`] with `Duration`s and backend kinds.
//!
//! [`load`] runs the three stages over the real files.
//!
//! Every key is declared once, in the table [`all_keys`] (`keys.rs`): its section, type,
//! default, doc line, how `ralph init` writes it, how the decoder reads it and how
//! `--dry-run` dumps it. The keys each mapping accepts, the "did you mean" suggestions,
//! decoding, the `ralph init` template ([`init_template`]), the `--dry-run` dump and the
//! configuration reference `docs/config.md` ([`reference()`]) all come from that table;
//! layering is derived field by field from the raw structs (`raw.rs`).

mod choice;
mod decode;
mod decode_gate;
mod decode_hat;
mod decode_memory;
mod decode_pricing;
mod default_prompt;
mod describe;
mod dump;
mod error;
mod hooks;
mod incumbent_presets;
pub mod key;
mod keys;
mod keys_gate;
mod keys_hat;
mod keys_hooks;
mod keys_memory;
mod keys_transcripts;
mod load;
mod memory_config;
mod merge;
mod node;
mod origin;
mod overlay;
mod override_hint;
mod overrides;
mod preset;
mod raw;
mod read;
mod reference;
mod resolve;
mod resolved;
mod source_hint;
mod stdin_on_pty;
mod suggest;
mod template;
mod topology;
mod unsupported;
mod unused_fallback;
mod yaml_value;

pub use choice::{AUTO, BackendChoice, PromptMode, UnknownBackendChoice};
pub use decode::{ParsedLayer, parse_layer};
pub use error::{
    ConfigError, ConfigErrorKind, ConfigErrors, ConfigWarning, ConfigWarningKind, FileRole,
};
pub use hooks::EXAMPLE_HOOKS;
pub use key::{Key, Section};
pub use keys::{EXAMPLE_GATES, EXAMPLE_HATS, all_keys};
pub use load::{
    LoadFailure, LoadOptions, PROJECT_CONFIG_FILE, load, load_detailed, load_pricing,
    user_config_path,
};
pub use merge::merge;
pub use origin::{Origin, Spanned};
pub use overlay::HatsSource;
pub use overrides::{Overrides, flag};
pub use preset::{
    BUILTIN_PREFIX, INCUMBENT_PRESETS, IncumbentPreset, PRESETS, Preset, UnknownPreset, preset,
};
pub use raw::{
    RawCli, RawConfig, RawCore, RawDeadlines, RawEventLoop, RawGate, RawHat, RawHatBackend,
    RawMemories, RawMemoryFilter, RawPrice, RawScratchpad, RawSkillOverride, RawSkills, RawTasks,
    RawTranscripts, SpannedList,
};
pub use reference::reference;
pub use resolve::{ResolveEnv, Resolved, resolve};
pub use resolved::{
    AgentBackend, AgentConfig, CoreConfig, CustomBackend, DEFAULT_COMPLETION_PROMISE,
    DEFAULT_EXIT_GRACE, DEFAULT_GATE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_ITERATION_TIMEOUT,
    DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_RUNTIME,
    DEFAULT_MEMORY_BUDGET, DEFAULT_PROMPT_EVENTS_MAX_BYTES, DEFAULT_PROMPT_FILE,
    DEFAULT_RATE_LIMIT_POLICY, DEFAULT_RATE_LIMIT_WAIT, DEFAULT_SCRATCHPAD, DEFAULT_SPECS_DIR,
    DEFAULT_STARTUP_TIMEOUT, DEFAULT_TASKS_ENABLED, DEFAULT_TRANSCRIPTS_ENABLED,
    DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN, Deadlines, GateConfig, HatBackend, HatConfig,
    LoopConfig, MAX_RATE_LIMIT_WAIT, MEMORY_BUDGET_CAP, MemoriesConfig, MemoryFilter, MemoryInject,
    ModelPricing, Prompt, PromptSource, RateLimitConfig, RateLimitPolicy, ResolvedConfig,
    SkillOverride, SkillsConfig, TasksConfig, TranscriptsConfig,
};
pub use template::{init_template, preset_template};
