//! Every `ralph.yml` key, declared once (as ripgrep's `flags/defs.rs` declares each
//! flag once): where it may appear, its type, its default, one line for users, and how
//! `ralph init` writes it.
//!
//! From this table come the keys each mapping accepts (unknown keys are errors, with
//! "did you mean" drawn from the same lists), the `ralph init` template
//! ([`super::init_template`]) and the configuration reference `docs/config.md`
//! ([`reference()`]). The decoder must read every key declared here: a declared key it
//! never takes trips a debug assertion (`Section::finish`), which the `every_key.yml`
//! fixture exercises.

use std::time::Duration;

use ralph_agent::BackendKind;
use saphyr::Yaml;

use super::choice::{AUTO, BackendChoice, PromptMode};
use super::resolved::{
    DEFAULT_COMPLETION_PROMISE, DEFAULT_EXIT_GRACE, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_ITERATION_TIMEOUT, DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_RUNTIME, DEFAULT_PROMPT_FILE, DEFAULT_SCRATCHPAD, DEFAULT_SPECS_DIR,
    DEFAULT_STARTUP_TIMEOUT, HatBackend, HatConfig, ModelPricing, ResolvedConfig,
};
use crate::topic::TASK_START;

mod table;

pub use table::{EXAMPLE_HATS, KEYS};

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
}

impl Section {
    /// Every section, in the order the reference documents them.
    pub const ALL: [Section; 8] = [
        Section::Top,
        Section::Cli,
        Section::EventLoop,
        Section::Core,
        Section::Scratchpad,
        Section::Hat,
        Section::HatBackend,
        Section::Price,
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
        }
    }

    /// The keys of this section, in declaration order.
    pub fn keys(self) -> impl Iterator<Item = &'static Key> {
        KEYS.iter().filter(move |k| k.section == self)
    }

    /// The names of this section's keys, for "expected one of" and suggestions.
    pub fn names(self) -> Vec<&'static str> {
        self.keys().map(|k| k.name).collect()
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
}

impl Key {
    /// The dotted path (`event_loop.max_iterations`, `hats.<id>.pty`).
    pub fn path(&self) -> String {
        super::node::join_path(self.section.path(), self.name)
    }

    /// The keys of the section this key opens (empty for a plain value).
    pub fn children(&self) -> Vec<&'static Key> {
        Section::opened_by(self).map_or_else(Vec::new, |s| s.keys().collect())
    }
}

/// What a key accepts, as the reference describes it.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    /// A mapping of the keys declared under it.
    Mapping,
    /// A mapping from names the user chooses (hat ids, model names) to mappings.
    NamedMappings(&'static str),
    /// `true` or `false`.
    Bool,
    /// A whole number, at least 1.
    Count,
    /// A whole number of seconds, at least 1.
    Seconds,
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
}

impl Type {
    /// How the reference describes the type.
    pub fn describe(self) -> String {
        match self {
            Type::Mapping => "mapping".to_owned(),
            Type::NamedMappings(name) => format!("mapping of {name} to mappings"),
            Type::Bool => "`true` or `false`".to_owned(),
            Type::Count => "whole number ≥ 1".to_owned(),
            Type::Seconds => "seconds (whole number ≥ 1)".to_owned(),
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
            Type::BackendList => "list of backend names".to_owned(),
            Type::PathOrMapping => "path, or mapping".to_owned(),
            Type::BackendOrMapping => "backend name, or mapping".to_owned(),
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
    /// A key of the top level, `cli`, `event_loop` or `core`.
    Config(fn(&ResolvedConfig) -> Option<Yaml<'static>>),
    /// A key of a hat.
    Hat(fn(&HatConfig) -> Option<Yaml<'static>>),
    /// A key of a hat's backend.
    Backend(fn(&HatBackend) -> Option<Yaml<'static>>),
    /// A key of a price.
    Price(fn(&ModelPricing) -> Option<Yaml<'static>>),
}

/// The backend names `cli.backend` accepts.
fn backend_choices() -> Vec<&'static str> {
    BackendChoice::names().collect()
}

/// The backends a hat's `type` accepts: `auto` and `custom` need more than a name.
fn builtin_backends() -> Vec<&'static str> {
    BackendKind::ALL
        .into_iter()
        .filter(|k| *k != BackendKind::Custom)
        .map(BackendKind::name)
        .collect()
}

fn prompt_modes() -> Vec<&'static str> {
    PromptMode::ALL.map(PromptMode::name).to_vec()
}

fn output_formats() -> Vec<&'static str> {
    ralph_stream::StreamFormat::ALL
        .map(ralph_stream::StreamFormat::name)
        .to_vec()
}

/// The deadline keys, shared by `cli` and each hat (read by one reader).
pub(crate) const STARTUP_TIMEOUT: &str = "startup_timeout_seconds";
pub(crate) const IDLE_TIMEOUT: &str = "idle_timeout_seconds";
pub(crate) const ITERATION_TIMEOUT: &str = "iteration_timeout_seconds";
pub(crate) const EXIT_GRACE: &str = "exit_grace_seconds";

/// The configuration reference (`docs/config.md`), generated from [`KEYS`].
pub fn reference() -> String {
    let mut out = String::from(REFERENCE_HEADER);
    for section in Section::ALL {
        let keys: Vec<_> = section.keys().collect();
        let heading = match section {
            Section::Top => "Top level".to_owned(),
            other => format!("`{}`", other.path()),
        };
        out.push_str(&format!(
            "\n## {heading}\n\n| Key | Type | Default | What it does |\n|---|---|---|---|\n"
        ));
        for key in keys {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                key.path(),
                key.ty.describe(),
                key.default.describe(),
                key.doc.replace('|', "\\|"),
            ));
        }
    }
    out
}

const REFERENCE_HEADER: &str = "\
# Configuration reference

<!-- Generated from crates/ralph-core/src/config/keys/table.rs: do not edit by hand.
     Regenerate with `RALPH_BLESS=1 cargo test -p ralph-core --test config_reference`. -->

ralph reads its settings in layers, each overriding the one before key by key: built-in
defaults, the user file (`$XDG_CONFIG_HOME/ralph/config.yml`, else
`~/.config/ralph/config.yml`), the project file (`ralph.yml`, or `-c FILE`), then the
command line (`-b`, `-p`, `-P`, `--max-iterations`, `--max-runtime`, `--max-cost`,
`--completion-promise`). Every key is optional unless marked required. Unknown keys are
errors; keys of ralph-orchestrator that ralph does not implement are reported as errors or
warnings, depending on whether ignoring them would change what the loop does.
`ralph run --dry-run` prints the configuration a run would use; `ralph init` writes a
`ralph.yml` with every default.

Two groups of keys travel together across layers: a layer that sets `prompt` or
`prompt_file` replaces both, and a layer that switches `cli.backend` to another backend
drops the lower layers' `command`, `args`, `prompt_mode`, `prompt_flag`, `output_format`
and `pty`. Hats and prices are replaced whole, per hat id and per model.
";

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
    pub(crate) const PROMPT_FILE: &str = DEFAULT_PROMPT_FILE;
    pub(crate) const BACKENDS: fn() -> Vec<&'static str> = super::backend_choices;
    pub(crate) const BUILTIN_BACKENDS: fn() -> Vec<&'static str> = super::builtin_backends;
    pub(crate) const PROMPT_MODES: fn() -> Vec<&'static str> = super::prompt_modes;
    pub(crate) const OUTPUT_FORMATS: fn() -> Vec<&'static str> = super::output_formats;
    pub(crate) const ARG: Value = Value::Text("arg");
    pub(crate) const TEXT_FORMAT: Value = Value::Text("text");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_written_with_their_default_have_one() {
        let without: Vec<_> = KEYS
            .iter()
            .filter(|k| matches!(k.init, Init::Default) && !matches!(k.default, Default::Value(_)))
            .map(Key::path)
            .collect();
        assert_eq!(without, Vec::<String>::new());
    }

    #[test]
    fn no_key_is_declared_twice() {
        let mut paths: Vec<_> = KEYS.iter().map(Key::path).collect();
        let declared = paths.len();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), declared);
    }

    #[test]
    fn mappings_open_a_section_of_their_own() {
        // Every `Init::Keys` key has keys under it, and every section but the top one is
        // opened by a declared key (`hats` and `pricing` open theirs through an id).
        for key in KEYS.iter().filter(|k| matches!(k.init, Init::Keys)) {
            assert!(!key.children().is_empty(), "{}", key.path());
        }
        for section in Section::ALL {
            assert!(section.keys().next().is_some(), "{section:?} has no keys");
        }
    }

    #[test]
    fn each_dump_accessor_reads_the_part_its_section_describes() {
        for key in KEYS {
            let fits = match key.dump {
                Dump::Skip => true,
                Dump::Keys => Section::opened_by(key).is_some(),
                Dump::Hats => key.path() == "hats",
                Dump::Prices => key.path() == "pricing",
                Dump::Config(_) => matches!(
                    key.section,
                    Section::Top
                        | Section::Cli
                        | Section::EventLoop
                        | Section::Core
                        | Section::Scratchpad
                ),
                Dump::Hat(_) => key.section == Section::Hat,
                Dump::Backend(_) => key.section == Section::HatBackend,
                Dump::Price(_) => key.section == Section::Price,
            };
            assert!(fits, "{}", key.path());
        }
    }

    #[test]
    fn default_names_are_the_names_ralph_reads() {
        let text = |v: Value| v.yaml();
        assert_eq!(text(defaults::ARG), PromptMode::Arg.name());
        assert_eq!(
            text(defaults::TEXT_FORMAT),
            ralph_stream::StreamFormat::Text.name()
        );
    }
}
