//! The errors and warnings a configuration can produce, written for the person who
//! has to fix the file: each names the place (`file:line:column`), what is wrong, and
//! what to write instead.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::origin::Origin;
use super::suggest::did_you_mean;
use crate::topic::TopicError;

/// One problem that stops ralph from using a configuration.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {kind}")]
pub struct ConfigError {
    /// Where the problem is.
    pub origin: Origin,
    /// What the problem is.
    pub kind: ConfigErrorKind,
}

impl ConfigError {
    pub(crate) fn new(origin: Origin, kind: ConfigErrorKind) -> Self {
        ConfigError { origin, kind }
    }

    /// The config file (or hats file, `role`) `file` could not be read (`source`). Text
    /// that is not UTF-8 is pointed at, line and column, as any other mistake in the file
    /// is.
    pub(crate) fn unreadable(file: &Path, role: FileRole, source: io::Error) -> Self {
        let file: Arc<Path> = Arc::from(file);
        let not_utf8 = source
            .get_ref()
            .and_then(|e| e.downcast_ref::<std::string::FromUtf8Error>());
        let Some(e) = not_utf8 else {
            return ConfigError::new(
                Origin::WholeFile(file),
                ConfigErrorKind::Read { role, source },
            );
        };
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // The bytes before are valid UTF-8 by definition; count as editors do, from 1.
        let before = String::from_utf8_lossy(valid);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ConfigError::new(
            Origin::File {
                path: file,
                line,
                column,
            },
            ConfigErrorKind::NotUtf8 {
                byte: e.as_bytes()[valid.len()],
            },
        )
    }
}

/// What a file ralph reads its configuration from is to it: a message names it so (a
/// hats file given with `-H` is no config file, and is not written like one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// `ralph.yml`, a `-c` file, the user's config.
    Config,
    /// A `-H` file.
    Hats,
}

impl FileRole {
    /// The file's kind, with its article: what `fsafe` names in a refusal.
    pub(crate) fn with_article(self) -> &'static str {
        match self {
            FileRole::Config => "a config file",
            FileRole::Hats => "a hats file",
        }
    }
}

impl fmt::Display for FileRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileRole::Config => "config file",
            FileRole::Hats => "hats file",
        })
    }
}

/// What is wrong. Keys are written as dotted paths (`hats.builder.triggers`).
#[derive(Debug, thiserror::Error)]
pub enum ConfigErrorKind {
    #[error("cannot read this {role}: {source}")]
    Read {
        /// Which file it is to ralph, as the message names it.
        role: FileRole,
        #[source]
        source: io::Error,
    },
    #[error(
        "the file is not UTF-8 text: byte 0x{byte:02X} here begins no UTF-8 character; save \
         the file as UTF-8"
    )]
    NotUtf8 { byte: u8 },
    #[error(
        "invalid YAML: {message} (check the indentation, brackets and quotes on this line and \
         the lines before it)"
    )]
    Syntax { message: String },
    #[error("{} twice in the same mapping: keep only one of them", .key.as_ref().map_or_else(|| "this key appears".to_owned(), |k| format!("`{k}` appears")))]
    DuplicateKey { key: Option<String> },
    #[error(
        "a config file must be a mapping of sections ({}), found {found}",
        quoted(.sections)
    )]
    NotAMapping {
        found: String,
        /// The top-level keys.
        sections: Vec<&'static str>,
    },
    #[error(
        "a config file holds one YAML document, this one holds {count}: remove the `---` \
         separators or split the file"
    )]
    MultipleDocuments { count: usize },
    #[error("mapping keys must be plain strings, found {found}")]
    NonStringKey { found: String },
    #[error("YAML merge keys (`<<`) are not supported {place}: write the keys out in full")]
    MergeKey { place: String },
    #[error("unknown key `{key}` {place}{}", unknown_key_help(.suggestion.as_deref(), .expected))]
    UnknownKey {
        key: String,
        /// `in `cli`` or `at the top level`.
        place: String,
        /// A close key of the same mapping, or the same key in another section.
        suggestion: Option<String>,
        expected: Vec<&'static str>,
    },
    #[error("`{key}` is not supported by ralph (yet): {why}")]
    Unsupported { key: String, why: &'static str },
    #[error("`{key}` expects {expected}, found {found}{}", hint_suffix(*.hint))]
    WrongType {
        key: String,
        expected: &'static str,
        found: String,
        hint: Option<&'static str>,
    },
    #[error("`{key}` must be {requirement}, found {found}")]
    OutOfRange {
        key: String,
        requirement: String,
        found: String,
    },
    #[error("`{key}` is empty: {why}")]
    Empty { key: String, why: &'static str },
    #[error(
        "unknown backend `{name}` in `{key}`{} (valid backends: {})",
        did_you_mean(*.suggestion), .allowed.join(", ")
    )]
    UnknownBackend {
        key: String,
        name: String,
        suggestion: Option<&'static str>,
        allowed: Vec<&'static str>,
    },
    #[error(
        "`{key}` must be one of {}, found `{value}`{}",
        .allowed.join(", "), did_you_mean(*.suggestion)
    )]
    InvalidChoice {
        key: String,
        value: String,
        suggestion: Option<&'static str>,
        allowed: Vec<&'static str>,
    },
    #[error("invalid topic `{topic}` in `{key}`: {}", topic_reason(.key, .reason))]
    InvalidTopic {
        key: String,
        topic: String,
        reason: TopicError,
    },
    #[error(
        "invalid environment variable name `{}` in `{key}`: {why}",
        .name.escape_debug()
    )]
    InvalidEnvName {
        key: String,
        name: String,
        why: &'static str,
    },
    #[error(
        "invalid hat id `{id}`: {reason}; hat ids become part of topics such as `<id>.exhausted`"
    )]
    InvalidHatId { id: String, reason: TopicError },
    #[error(
        "a hat cannot have the id `{id}`: ralph's own coordinator has it (it handles the \
         events no hat triggers on). Give this hat another id; its `name` may still read \
         `{id}`"
    )]
    ReservedHatId { id: String },
    #[error("`{key}` lists `{value}` twice: remove one")]
    Duplicate { key: String, value: String },
    #[error(
        "hat `{hat}` cannot trigger on `{topic}`: ralph publishes it itself to start or \
         resume a run. To start with this hat, set `event_loop.starting_event` to a topic \
         of your own (such as `work.start`) and trigger on that"
    )]
    ReservedTrigger { hat: String, topic: String },
    #[error(
        "hats `{first_hat}` and `{hat}` both trigger on `{topic}` (`{first_hat}` claims it \
         at {first}): each event must route to exactly one hat, so remove `{topic}` from \
         one of them"
    )]
    DuplicateTrigger {
        topic: String,
        hat: String,
        first_hat: String,
        first: Origin,
    },
    #[error(
        "hat `{hat}` triggers on `{topic}`, the completion promise: publishing the promise \
         ends the loop, so the hat would never run on it. Trigger on a topic of your own, or \
         set `event_loop.completion_promise` to another topic"
    )]
    TriggerIsPromise { hat: String, topic: String },
    #[error(
        "`event_loop.starting_event` and `event_loop.completion_promise` are both `{topic}`: \
         the run would start by handing the agent its own end signal. Give them different \
         topics"
    )]
    StartIsPromise { topic: String },
    #[error(
        "hats `{first_hat}` and `{hat}` have trigger patterns that can match the same topic \
         (`{pattern}` here, `{first_pattern}` at {first}): each event must route to exactly \
         one hat, so narrow one of the patterns, or list the topics instead"
    )]
    OverlappingTriggers {
        pattern: String,
        hat: String,
        first_pattern: String,
        first_hat: String,
        first: Origin,
    },
    #[error("two gates are named `{name}` (the first at {first}): give each gate its own name")]
    DuplicateGate { name: String, first: Origin },
    #[error(
        "gate `{gate}` guards `{topic}`, which nothing publishes: {}",
        gate_topics_help(.promise, .publishable)
    )]
    UnguardedTopic {
        gate: String,
        topic: String,
        promise: String,
        /// The topics hats publish (`publishes` and `default_publishes`).
        publishable: Vec<String>,
    },
    #[error("`{key}` is missing: {why}")]
    MissingKey { key: String, why: &'static str },
    #[error(
        "hat `{hat}` has no `description`: add one line saying what the hat does (the \
         agent reads it to know which hat handles what)"
    )]
    MissingDescription { hat: String },
    #[error("`{key}` and `{other_key}` are both set (`{other_key}` at {other}): keep only one")]
    Conflict {
        key: String,
        other_key: String,
        other: Origin,
    },
    #[error(
        "backend `custom` needs a command: set `cli.command` to the program to run (and \
         `cli.prompt_mode` to `arg` or `stdin`){}",
        if *.in_hat { ", or give this hat `backend: {command: ...}`" } else { "" }
    )]
    CustomWithoutCommand { in_hat: bool },
    #[error(
        "`cli.command` replaces the program of one backend, but `cli.backend` is `auto`: set \
         `cli.backend` to the backend this program is (or to `custom`)"
    )]
    CommandWithAutoBackend,
    #[error(
        "`prompt_mode: stdin` cannot work with `{pty_key}: true` (at {pty_at}): on a terminal \
         the agent's stdin is the terminal, so ralph has no way to write the prompt to it; \
         set `prompt_mode: arg` (and `prompt_flag` if the agent wants a flag before it), or \
         remove `{pty_key}`"
    )]
    StdinPromptOnPty { pty_key: String, pty_at: Origin },
    #[error("`{key}` {problem}")]
    HatBackend { key: String, problem: &'static str },
    #[error(
        "`custom` cannot be auto-detected: remove it from `cli.backend_priority` (set \
         `cli.backend: custom` to use it)"
    )]
    CustomInPriority,
    #[error(
        "cannot read the prompt file `{}`: {source}{}",
        .path.display(),
        prompt_file_hint(source)
    )]
    PromptFile {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The task file read when no task is given (`PROMPT.md`) is there, but cannot be read.
    #[error(
        "read as the task (no `-p`, `-P` or `event_loop.prompt` given), but {source}{}",
        // Not "create it": it is there, and no path was written to fix.
        if source.kind() == io::ErrorKind::InvalidData { ". Save it as UTF-8 text" } else { "" }
    )]
    DefaultPromptFile {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// What to do about a prompt file that could not be read, where `source` does not say
/// it already (a refusal of `fsafe` does).
fn prompt_file_hint(source: &io::Error) -> &'static str {
    if crate::fsafe::Refused::of(source).is_some() {
        return "";
    }
    match source.kind() {
        io::ErrorKind::NotFound => {
            ". Create it, or fix the path (a path in a config file is relative to that \
             file's directory)"
        }
        io::ErrorKind::InvalidData => ". Save it as UTF-8 text",
        _ => "",
    }
}

/// Why a topic written under `key` is refused; a wildcard is answered for what the key
/// does, since what to write instead differs (one topic, or each topic of a list).
fn topic_reason(key: &str, reason: &TopicError) -> String {
    if *reason != TopicError::Wildcard {
        return reason.to_string();
    }
    // Triggers take patterns (`crate::trigger`): they never get here.
    let instead = if key.ends_with(".publishes") {
        "a hat publishes exact topics, not patterns: list each topic the hat may emit"
    } else if key.ends_with("required_events") {
        "required events are exact topics, not patterns: list each topic that must be \
         emitted before completion"
    } else if key.ends_with(".before") {
        "a gate guards exact topics, not patterns: list each topic the gate guards"
    } else if key.ends_with("starting_event") || key.ends_with("default_publishes") {
        "ralph publishes this topic itself, so it is one exact topic, not a pattern: name it"
    } else if key.contains("completion") {
        "the promise is one exact topic, not a pattern: name the topic the agent emits when \
         the task is done"
    } else {
        return reason.to_string();
    };
    instead.to_owned()
}

/// Keys as a message lists them: `` `a`, `b` ``.
fn quoted(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_key_help(suggestion: Option<&str>, expected: &[&str]) -> String {
    match suggestion {
        Some(_) => did_you_mean(suggestion),
        None => format!(" (expected one of: {})", expected.join(", ")),
    }
}

fn gate_topics_help(promise: &str, publishable: &[String]) -> String {
    if publishable.is_empty() {
        format!(
            "without hats a gate can only guard the completion promise `{promise}` (leave \
             `before` out for that)"
        )
    } else {
        format!(
            "a gate guards the completion promise `{promise}` or a topic a hat publishes ({})",
            publishable
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

fn hint_suffix(hint: Option<&str>) -> String {
    hint.map_or_else(String::new, |h| format!(": {h}"))
}

/// Every error found in a configuration (all files and the command line), in the
/// order they were found. Never empty.
#[derive(Debug)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

impl From<ConfigError> for ConfigErrors {
    fn from(error: ConfigError) -> Self {
        ConfigErrors(vec![error])
    }
}

/// Something ralph ignores on purpose and tells the user about, because running
/// without it is safe; or a workflow that runs, but not the way the file reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {kind}")]
pub struct ConfigWarning {
    /// Where the ignored setting is.
    pub origin: Origin,
    /// What is ignored and why.
    pub kind: ConfigWarningKind,
}

/// What is ignored, or what in the workflow does not do what it seems to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigWarningKind {
    #[error("`{key}` is not supported by ralph (yet) and is ignored: {why}")]
    Unsupported { key: String, why: &'static str },
    #[error(
        "`{key}` only applies to the custom backend and is ignored: `{backend}` receives \
         its prompt and writes its output its own way"
    )]
    OnlyForCustom { key: String, backend: String },
    #[error(
        "this is ralph-orchestrator's user config, which ralph does not read: move the \
         settings you need to {}",
        .expected.display()
    )]
    LegacyUserConfig { expected: PathBuf },
    #[error(
        "the hooks in `{key}` never run: ralph has no plan step or human-in-the-loop \
         channel yet, so it does not reach this phase"
    )]
    HookPhaseNotFiring { key: String },
    #[error("no hook runs unless `{key}` is `true`")]
    HooksNotEnabled { key: String },
    #[error(
        "hat `{hat}` has no triggers, so it never runs: list in `hats.{hat}.triggers` the \
         topics it handles, or remove the hat"
    )]
    HatWithoutTriggers { hat: String },
    #[error(
        "no hat triggers on the starting event `{topic}`, so ralph's coordinator takes the \
         first iteration: add `{topic}` to the `triggers` of the hat that should start, or \
         remove `event_loop.starting_event` if the coordinator is meant to start"
    )]
    StartGoesToCoordinator { topic: String },
    #[error(
        "hat `{hat}`'s trigger `{pattern}` does not take the starting event `{topic}`: ralph \
         hands its own start to its coordinator. To start with this hat, set \
         `event_loop.starting_event` to a topic of your own that the pattern takes"
    )]
    PatternSkipsStart {
        hat: String,
        pattern: String,
        topic: String,
    },
    #[error(
        "hat `{hat}`'s `default_publishes` is `{topic}`, which its `publishes` does not list: \
         the agent is told it emits other topics, yet ralph publishes `{topic}` for it. Add \
         `{topic}` to `hats.{hat}.publishes`, or make the default one of the topics listed"
    )]
    DefaultNotPublished { hat: String, topic: String },
    #[error(
        "`{key}` names `{topic}`, but this run's completion promise is `{promise}`: hat \
         `{hat}` is told to finish with `{topic}`, which ralph routes as an ordinary event, \
         so its emit never ends the run. Write `{promise}` there instead, or set \
         `event_loop.completion_promise` to `{topic}`"
    )]
    PublishesOtherPromise {
        hat: String,
        key: String,
        topic: String,
        promise: String,
    },
    #[error(
        "gate `{gate}`'s `before` names `{topic}`, but this run's completion promise is \
         `{promise}`: the gate never runs before the run completes, so completion goes \
         unchecked. Write `{promise}` there instead, or set `event_loop.completion_promise` \
         to `{topic}`"
    )]
    GateBeforeOtherPromise {
        gate: String,
        topic: String,
        promise: String,
    },
    #[error(
        "`{topic}` is required before completion, but no hat lists it in `publishes`: no \
         agent is told to emit it, so completion is refused until one does anyway. Add it to \
         the `publishes` of the hat that should emit it"
    )]
    RequiredNotPublished { topic: String },
    #[error(
        "a hats file (-H) brings hats and their workflow keys only: what it sets under \
         {keys} is ignored (the project's config decides that)"
    )]
    IgnoredInHatsFile { keys: String },
    #[error(
        "`{key}` is never used: only `on_rate_limit: failover` runs a fallback backend, and \
         `{policy_key}` is `{policy}` here. Set it to `failover` to switch agents on a rate \
         limit, or remove the list"
    )]
    FallbackWithoutFailover {
        key: String,
        policy_key: String,
        policy: &'static str,
    },
    #[error(
        "`cli.fallback` is never used: the hats that fail over on a rate limit ({hats}) each \
         have a `fallback` list of their own, which replaces it, and `cli.on_rate_limit` is \
         `{policy}` here, so ralph's own hat does not fail over either. Remove the list, or \
         remove a hat's own list for that hat to use it"
    )]
    FallbackHiddenByHats { hats: String, policy: &'static str },
}
