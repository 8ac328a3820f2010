//! What a `ralph.yml` key is made of (as ripgrep's `flags/defs.rs` makes each flag one
//! unit): where it may appear, its type, its default, one line for users, how
//! `ralph init` writes it, how the decoder reads it and how `--dry-run` dumps it. The
//! keys themselves are declared in [`super::all_keys`] (`keys.rs`).

use std::time::Duration;

use saphyr::Yaml;

use super::choice::{AUTO, BackendChoice, PromptMode};
use super::node::{Decoder, Field};
use super::raw::{RawConfig, RawGate, RawHat};
use super::read::MAX_SECONDS;
use super::resolved::{
    DEFAULT_COMPLETION_PROMISE, DEFAULT_EXIT_GRACE, DEFAULT_GATE_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_ITERATION_TIMEOUT, DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_RUNTIME, DEFAULT_PROMPT_FILE, DEFAULT_SCRATCHPAD, DEFAULT_SPECS_DIR,
    DEFAULT_STARTUP_TIMEOUT, GateConfig, HatBackend, HatConfig, ModelPricing, ResolvedConfig,
    SkillOverride,
};
use crate::topic::TASK_START;

/// A mapping of `ralph.yml` that holds keys, named by its dotted path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The top level of the file.
    Top,
    /// `cli:`.
    Cli,
    /// `event_loop:`.
    EventLoop,
    /// `core:`.
    Core,
    /// `core.scratchpad:` (mapping form).
    Scratchpad,
    /// `hats.<id>:`.
    Hat,
    /// `hats.<id>.backend:` (mapping form).
    HatBackend,
    /// `pricing.<model>:`.
    Price,
    /// One entry of the `gates:` list.
    Gate,
    /// `tasks:`.
    Tasks,
    /// `transcripts:`.
    Transcripts,
    /// `hooks:`.
    Hooks,
    /// `hooks.defaults:`.
    HookDefaults,
    /// One hook, an item of `hooks.events.<phase>:`.
    Hook,
    /// A hook's `mutate:`.
    HookMutate,
    /// `memories:`.
    Memories,
    /// `memories.filter:`.
    MemoryFilter,
    /// `skills:`.
    Skills,
    /// `skills.overrides.<name>:`.
    SkillOverride,
}

impl Section {
    /// Every section, in the order the reference documents them.
    pub const ALL: [Section; 19] = [
        Section::Top,
        Section::Cli,
        Section::EventLoop,
        Section::Core,
        Section::Scratchpad,
        Section::Hat,
        Section::HatBackend,
        Section::Price,
        Section::Gate,
        Section::Tasks,
        Section::Transcripts,
        Section::Hooks,
        Section::HookDefaults,
        Section::Hook,
        Section::HookMutate,
        Section::Memories,
        Section::MemoryFilter,
        Section::Skills,
        Section::SkillOverride,
    ];

    /// The dotted path, with `<id>` and `<model>` for the names users choose.
    pub fn path(self) -> &'static str {
        match self {
            Section::Top => "",
            Section::Cli => "cli",
            Section::EventLoop => "event_loop",
            Section::Core => "core",
            Section::Scratchpad => "core.scratchpad",
            Section::Hat => "hats.<id>",
            Section::HatBackend => "hats.<id>.backend",
            Section::Price => "pricing.<model>",
            Section::Gate => "gates[]",
            Section::Tasks => "tasks",
            Section::Transcripts => "transcripts",
            Section::Hooks => "hooks",
            Section::HookDefaults => "hooks.defaults",
            Section::Hook => "hooks.events.<phase>[]",
            Section::HookMutate => "hooks.events.<phase>[].mutate",
            Section::Memories => "memories",
            Section::MemoryFilter => "memories.filter",
            Section::Skills => "skills",
            Section::SkillOverride => "skills.overrides.<name>",
        }
    }

    /// Whether a key misplaced in this section is looked for in the others that share
    /// this property (`max_iterations` under `cli` suggests `event_loop.max_iterations`).
    /// Hats, backends, prices and the scratchpad have keys of their own only.
    pub(crate) fn suggests_across(self) -> bool {
        matches!(
            self,
            Section::Top | Section::Cli | Section::EventLoop | Section::Core
        )
    }

    /// The section a key opens (`cli` opens [`Section::Cli`]), if any.
    pub(crate) fn opened_by(key: &Key) -> Option<Section> {
        let path = key.path();
        Section::ALL.into_iter().find(|s| s.path() == path)
    }
}

/// One key: everything ralph knows about it in one place.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// Where the key may appear.
    pub section: Section,
    /// The key as written in its mapping.
    pub name: &'static str,
    /// What it accepts.
    pub ty: Type,
    /// What ralph uses when no layer sets it.
    pub default: Default,
    /// One line for users: what the key does (its unit is in [`Type`]).
    pub doc: &'static str,
    /// How `ralph init` writes it.
    pub init: Init,
    /// How `--dry-run` writes the resolved value.
    pub dump: Dump,
    /// How the decoder reads it into a layer.
    pub(crate) read: Read,
}

/// How the decoder reads a key into a layer (`decode.rs` walks the table).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Read {
    /// A mapping whose keys are read in turn, each through its own entry.
    Keys,
    /// `core.scratchpad`: a path, or a mapping of its keys.
    Scratchpad,
    /// `hats`: each hat, through [`Section::Hat`]'s entries.
    Hats,
    /// `pricing`: each model's prices.
    Prices,
    /// `gates`: each gate, through [`Section::Gate`]'s entries.
    Gates,
    /// `skills.overrides`: each skill's override, through [`Section::SkillOverride`]'s
    /// entries.
    SkillOverrides,
    /// Read by its section's own code, together with other keys: a hat's `description`
    /// (which must be there) and `backend` (in three forms), a price's keys (two are
    /// required), a hat backend's keys (which form they make).
    Own,
    /// A value of the layer.
    Layer(fn(&mut Decoder, &Field<'_>, &mut RawConfig)),
    /// A value of the hat being read.
    Hat(fn(&mut Decoder, &Field<'_>, &mut RawHat)),
    /// A value of the gate being read.
    Gate(fn(&mut Decoder, &Field<'_>, &mut RawGate)),
    /// `hooks`: the whole section, in `hooks.rs`.
    Hooks,
}

/// What a key accepts, as the reference describes it.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    /// A mapping of the keys declared under it.
    Mapping,
    /// A mapping from names the user chooses (hat ids, model names) to mappings.
    NamedMappings(&'static str),
    /// A list of mappings of the keys declared under it.
    MappingList,
    /// A command: a string run by `sh -c`, or a list of the program and its arguments.
    Command,
    /// `true` or `false`.
    Bool,
    /// A whole number, at least 1.
    Count,
    /// A whole number of seconds, at least 1.
    Seconds,
    /// A whole number of tokens (of `memory::select::CHARS_PER_TOKEN` characters), 0 or
    /// more.
    Tokens,
    /// A list of distinct names from a fixed set.
    ChoiceList(fn() -> Vec<&'static str>),
    /// A number of US dollars greater than 0.
    Dollars,
    /// A number of US dollars per million tokens, 0 or more.
    PricePerMillion,
    /// Text.
    Text,
    /// Text that must not be empty.
    NonEmptyText,
    /// A file or directory path.
    Path,
    /// A list of strings.
    Strings,
    /// A topic (`word.word`).
    Topic,
    /// A list of distinct topics.
    Topics,
    /// One of a fixed set of names.
    Choice(fn() -> Vec<&'static str>),
    /// A list of distinct backend names.
    BackendList,
    /// A path, or a mapping of its own keys.
    PathOrMapping,
    /// A backend name, or a mapping of its own keys.
    BackendOrMapping,
    /// A list of backends, each a name or a mapping (as a hat's `backend`).
    BackendOrMappingList,
    /// A mapping of environment variable names to strings.
    EnvMap,
    /// A mapping of hook phases to lists of hooks.
    HookEvents,
}

impl Type {
    /// How the reference describes the type.
    pub fn describe(self) -> String {
        match self {
            Type::Mapping => "mapping".to_owned(),
            Type::NamedMappings(name) => format!("mapping of {name} to mappings"),
            Type::MappingList => "list of mappings".to_owned(),
            Type::Command => "string (run by `sh -c`), or list of strings (the program and its \
                              arguments)"
                .to_owned(),
            Type::Bool => "`true` or `false`".to_owned(),
            Type::Count => "whole number ≥ 1".to_owned(),
            Type::Seconds => format!("seconds (whole number, 1 to {MAX_SECONDS}: a year)"),
            Type::Tokens => "tokens (whole number ≥ 0)".to_owned(),
            Type::ChoiceList(names) => format!(
                "list of {}",
                names()
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Type::Dollars => "US dollars (number > 0)".to_owned(),
            Type::PricePerMillion => "US dollars per million tokens (number ≥ 0)".to_owned(),
            Type::Text => "string".to_owned(),
            Type::NonEmptyText => "non-empty string".to_owned(),
            Type::Path => "path".to_owned(),
            Type::Strings => "list of strings".to_owned(),
            Type::Topic => "topic".to_owned(),
            Type::Topics => "list of topics".to_owned(),
            Type::Choice(names) => names()
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            Type::BackendList => "non-empty list of backend names".to_owned(),
            Type::PathOrMapping => "path, or mapping".to_owned(),
            Type::BackendOrMapping => "backend name, or mapping".to_owned(),
            Type::BackendOrMappingList => {
                "list of backends (each a name, or a mapping as a hat's `backend`)".to_owned()
            }
            Type::EnvMap => "mapping of variable names to strings".to_owned(),
            Type::HookEvents => "mapping of phase names to lists of hooks".to_owned(),
        }
    }
}

/// A default value, in the form `ralph.yml` writes it.
#[derive(Debug, Clone, Copy)]
pub enum Value {
    Text(&'static str),
    Count(u32),
    Seconds(Duration),
    Bool(bool),
    /// `[]`.
    EmptyList,
    /// A list of names, computed (the built-in backends).
    Names(fn() -> Vec<&'static str>),
}

impl Value {
    /// The value as YAML on one line.
    pub fn yaml(self) -> String {
        match self {
            Value::Text(s) => s.to_owned(),
            Value::Count(n) => n.to_string(),
            Value::Seconds(d) => d.as_secs().to_string(),
            Value::Bool(b) => b.to_string(),
            Value::EmptyList => "[]".to_owned(),
            Value::Names(names) => format!("[{}]", names().join(", ")),
        }
    }
}

/// What ralph uses when no layer sets a key.
#[derive(Debug, Clone, Copy)]
pub enum Default {
    /// This value.
    Value(Value),
    /// No value: what leaving the key out means.
    Unset(&'static str),
    /// The key must be given.
    Required,
    /// A mapping: each of its keys has its own default.
    Keys,
}

impl Default {
    /// How the reference shows the default.
    pub fn describe(self) -> String {
        match self {
            Default::Value(v) => format!("`{}`", v.yaml()),
            Default::Unset(what) => what.to_owned(),
            Default::Required => "required".to_owned(),
            Default::Keys => "see its keys".to_owned(),
        }
    }
}

/// How `ralph init` writes a key.
#[derive(Debug, Clone, Copy)]
pub enum Init {
    /// With its default value.
    Default,
    /// The backend `ralph init --backend` was given.
    Backend,
    /// As a mapping of its own keys, each written by its own rule.
    Keys,
    /// With this value for the custom backend; commented out for the others.
    ForCustom(&'static str),
    /// Commented out, with this example value (it has no default to show).
    Example(&'static str),
    /// Commented out, as this example block (a mapping of the user's own names), after
    /// this note.
    Block {
        example: &'static str,
        note: &'static str,
    },
    /// Not written: it belongs to an entry of a [`Init::Block`] example.
    InExample,
}

/// How `ralph run --dry-run` writes a key's resolved value: an accessor from the part of
/// the resolved configuration the key's section describes to the YAML value, or `None`
/// to leave the key out (nothing configured, or it does not apply).
#[derive(Debug, Clone, Copy)]
pub enum Dump {
    /// Not written (an alias of another key).
    Skip,
    /// A mapping of the keys of the section it opens (left out when that section does
    /// not apply, such as a hat without a backend of its own).
    Keys,
    /// Each hat, by id, as a mapping of [`Section::Hat`]'s keys (left out with no hats).
    Hats,
    /// Each configured price, by model, as a mapping of [`Section::Price`]'s keys (left
    /// out when none is configured: the built-in table is not a setting).
    Prices,
    /// Each gate, in order, as a mapping of [`Section::Gate`]'s keys (left out with no
    /// gates).
    Gates,
    /// Each skill override, by name, as a mapping of [`Section::SkillOverride`]'s keys
    /// (left out with none).
    SkillOverrides,
    /// A key of the top level, `cli`, `event_loop` or `core`.
    Config(fn(&ResolvedConfig) -> Option<Yaml<'static>>),
    /// A key of a hat.
    Hat(fn(&HatConfig) -> Option<Yaml<'static>>),
    /// A key of a hat's backend.
    Backend(fn(&HatBackend) -> Option<Yaml<'static>>),
    /// A key of a price.
    Price(fn(&ModelPricing) -> Option<Yaml<'static>>),
    /// A key of a gate.
    Gate(fn(&GateConfig) -> Option<Yaml<'static>>),
    /// `hooks`: the whole section (each hook with its defaults folded in).
    Hooks,
    /// A key inside `hooks`, written by [`Dump::Hooks`].
    InHooks,
    /// A key of a skill override.
    SkillOverride(fn(&SkillOverride) -> Option<Yaml<'static>>),
}

/// The backend names `cli.backend` accepts.
fn backend_choices() -> Vec<&'static str> {
    BackendChoice::names().collect()
}

/// The backends a hat's `type` accepts: `auto` and `custom` need more than a name.
fn builtin_backends() -> Vec<&'static str> {
    BackendChoice::builtin_names().collect()
}

fn rate_limit_policies() -> Vec<&'static str> {
    super::resolved::RateLimitPolicy::ALL
        .map(super::resolved::RateLimitPolicy::name)
        .to_vec()
}

fn prompt_modes() -> Vec<&'static str> {
    PromptMode::ALL.map(PromptMode::name).to_vec()
}

fn output_formats() -> Vec<&'static str> {
    ralph_stream::StreamFormat::ALL
        .map(ralph_stream::StreamFormat::name)
        .to_vec()
}

/// The deadline keys, shared by `cli` and each hat.
pub(crate) const STARTUP_TIMEOUT: &str = "startup_timeout_seconds";
pub(crate) const IDLE_TIMEOUT: &str = "idle_timeout_seconds";
pub(crate) const ITERATION_TIMEOUT: &str = "iteration_timeout_seconds";
pub(crate) const EXIT_GRACE: &str = "exit_grace_seconds";

impl Key {
    /// The dotted path (`event_loop.max_iterations`, `hats.<id>.pty`).
    pub fn path(&self) -> String {
        super::node::join_path(self.section.path(), self.name)
    }
}

/// Values shared by the table's entries.
pub(crate) mod defaults {
    use super::*;

    pub(crate) const BACKEND: Value = Value::Text(AUTO);
    pub(crate) const STARTUP: Value = Value::Seconds(DEFAULT_STARTUP_TIMEOUT);
    pub(crate) const IDLE: Value = Value::Seconds(DEFAULT_IDLE_TIMEOUT);
    pub(crate) const ITERATION: Value = Value::Seconds(DEFAULT_ITERATION_TIMEOUT);
    pub(crate) const GRACE: Value = Value::Seconds(DEFAULT_EXIT_GRACE);
    pub(crate) const PROMISE: Value = Value::Text(DEFAULT_COMPLETION_PROMISE);
    pub(crate) const ITERATIONS: Value = Value::Count(DEFAULT_MAX_ITERATIONS);
    pub(crate) const RUNTIME: Value = Value::Seconds(DEFAULT_MAX_RUNTIME);
    pub(crate) const FAILURES: Value = Value::Count(DEFAULT_MAX_CONSECUTIVE_FAILURES);
    pub(crate) const STARTING_EVENT: Value = Value::Text(TASK_START);
    pub(crate) const SCRATCHPAD: Value = Value::Text(DEFAULT_SCRATCHPAD);
    pub(crate) const SPECS_DIR: Value = Value::Text(DEFAULT_SPECS_DIR);
    pub(crate) const GATE_TIMEOUT: Value = Value::Seconds(DEFAULT_GATE_TIMEOUT);
    pub(crate) const PROMPT_FILE: &str = DEFAULT_PROMPT_FILE;
    pub(crate) const BACKENDS: fn() -> Vec<&'static str> = super::backend_choices;
    pub(crate) const BUILTIN_BACKENDS: fn() -> Vec<&'static str> = super::builtin_backends;
    pub(crate) const PROMPT_MODES: fn() -> Vec<&'static str> = super::prompt_modes;
    pub(crate) const OUTPUT_FORMATS: fn() -> Vec<&'static str> = super::output_formats;
    pub(crate) const ARG: Value = Value::Text("arg");
    pub(crate) const RATE_LIMIT_POLICY: Value = Value::Text("wait");
    pub(crate) const RATE_LIMIT_WAIT: Value =
        Value::Seconds(super::super::resolved::DEFAULT_RATE_LIMIT_WAIT);
    pub(crate) const RATE_LIMIT_POLICIES: fn() -> Vec<&'static str> = super::rate_limit_policies;
    pub(crate) const TEXT_FORMAT: Value = Value::Text("text");
    pub(crate) const ON_ERRORS: fn() -> Vec<&'static str> = super::super::hooks::on_errors;
    pub(crate) const SUSPEND_MODES: fn() -> Vec<&'static str> = super::super::hooks::suspend_modes;
    pub(crate) const MUTATE_FORMATS: fn() -> Vec<&'static str> =
        super::super::hooks::mutate_formats;
}
