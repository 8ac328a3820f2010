//! From a parsed YAML tree to a [`RawConfig`]: the top level, `cli`, `event_loop` and
//! `core` (hats live in [`super::decode_hat`], prices in [`super::decode_pricing`]).
//!
//! Each value is checked on its own here (type, range, topic syntax, known names);
//! checks that need several layers at once wait for [`super::resolve`].

use std::path::Path;
use std::sync::Arc;

use ralph_stream::StreamFormat;
use ralph_types::BackendKind;
use saphyr::{Scalar, YamlData};

use super::choice::{BackendChoice, PromptMode};
use super::decode_hat::decode_hats;
use super::decode_pricing::decode_pricing;
use super::error::{ConfigError, ConfigErrorKind, ConfigErrors, ConfigWarning};
use super::node::{Decoder, Field, Node, Schema, parse_document};
use super::origin::{Origin, Spanned};
use super::raw::{RawCli, RawConfig, RawCore, RawDeadlines, RawEventLoop, RawScratchpad};
use super::suggest::closest;
use super::unsupported;

/// A config file, checked value by value.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedLayer {
    /// What the file says.
    pub config: RawConfig,
    /// Upstream keys the file uses that ralph ignores (safely).
    pub warnings: Vec<ConfigWarning>,
}

/// Parses one config file's text. `file` is how messages name it; a relative
/// `prompt_file` inside is taken relative to `file`'s directory.
pub fn parse_layer(text: &str, file: &Path) -> Result<ParsedLayer, ConfigErrors> {
    let file: Arc<Path> = Arc::from(file);
    let Some(doc) = parse_document(text, &file)? else {
        return Ok(ParsedLayer {
            config: RawConfig::default(),
            warnings: Vec::new(),
        });
    };
    let mut dec = Decoder::new(file);
    let config = decode_top(&mut dec, &doc);
    // Read top to bottom, like the file.
    dec.errors.sort_by_key(|e| position(&e.origin));
    dec.warnings.sort_by_key(|w| position(&w.origin));
    if dec.errors.is_empty() {
        Ok(ParsedLayer {
            config,
            warnings: dec.warnings,
        })
    } else {
        Err(ConfigErrors(dec.errors))
    }
}

/// Line and column, for sorting messages the way the file reads.
fn position(origin: &Origin) -> (usize, usize) {
    match origin {
        Origin::File { line, column, .. } => (*line, *column),
        Origin::WholeFile(_) | Origin::CommandLine(_) | Origin::Default => (0, 0),
    }
}

const TOP_KEYS: &[&str] = &["cli", "event_loop", "core", "hats", "pricing"];
const CLI_KEYS: &[&str] = &[
    "backend",
    "command",
    "args",
    "prompt_mode",
    "prompt_flag",
    "output_format",
    "startup_timeout_seconds",
    "idle_timeout_seconds",
    "iteration_timeout_seconds",
    "exit_grace_seconds",
    "pty",
    "backend_priority",
];
const EVENT_LOOP_KEYS: &[&str] = &[
    "prompt",
    "prompt_file",
    "completion_promise",
    "max_iterations",
    "max_runtime_seconds",
    "max_cost_usd",
    "max_consecutive_failures",
    "starting_event",
    "required_events",
];
const CORE_KEYS: &[&str] = &["scratchpad", "guardrails", "specs_dir"];
/// Where each section's keys live, for cross-section suggestions.
const SECTIONS: &[(&str, &[&str])] = &[
    ("", TOP_KEYS),
    ("cli", CLI_KEYS),
    ("event_loop", EVENT_LOOP_KEYS),
    ("core", CORE_KEYS),
];
const SCRATCHPAD_KEYS: &[&str] = &["enabled", "path"];

/// The deadline keys, shared by `cli` and each hat.
pub(crate) const DEADLINE_KEYS: [&str; 4] = [
    "startup_timeout_seconds",
    "idle_timeout_seconds",
    "iteration_timeout_seconds",
    "exit_grace_seconds",
];

/// Smallest count or number of seconds a limit or deadline accepts: zero would stop
/// the loop (or the agent) before it starts.
const MIN_LIMIT: u64 = 1;

fn decode_top(dec: &mut Decoder, doc: &Node<'_>) -> RawConfig {
    let schema = Schema {
        path: "",
        keys: TOP_KEYS,
        unsupported: unsupported::TOP_LEVEL,
        related: SECTIONS,
    };
    let mut config = RawConfig::default();
    let Some(mut top) = dec.section(doc, &schema) else {
        return config;
    };
    if let Some(f) = top.take("cli") {
        config.cli = decode_cli(dec, &f);
    }
    if let Some(f) = top.take("event_loop") {
        config.event_loop = decode_event_loop(dec, &f);
    }
    if let Some(f) = top.take("core") {
        config.core = decode_core(dec, &f);
    }
    if let Some(f) = top.take("hats") {
        config.hats = decode_hats(dec, &f);
    }
    if let Some(f) = top.take("pricing") {
        config.pricing = decode_pricing(dec, &f);
    }
    top.finish();
    config
}

fn decode_cli(dec: &mut Decoder, field: &Field<'_>) -> RawCli {
    let schema = Schema {
        path: &field.path,
        keys: CLI_KEYS,
        unsupported: unsupported::CLI,
        related: SECTIONS,
    };
    let mut cli = RawCli::default();
    let Some(mut s) = dec.section(field.value, &schema) else {
        return cli;
    };
    cli.backend = s.take("backend").and_then(|f| backend_choice(dec, &f));
    cli.command = s
        .take("command")
        .and_then(|f| dec.nonempty_string(&f, "name the program to run, or remove the key"));
    cli.args = s.take("args").and_then(|f| dec.plain_strings(&f));
    cli.prompt_mode = s.take("prompt_mode").and_then(|f| prompt_mode(dec, &f));
    cli.prompt_flag = s.take("prompt_flag").and_then(|f| {
        dec.nonempty_string(
            &f,
            "name the flag, or remove the key to pass the prompt as the last argument",
        )
    });
    cli.output_format = s.take("output_format").and_then(|f| output_format(dec, &f));
    cli.deadlines = decode_deadlines(dec, &mut |key| s.take(key));
    cli.pty = s.take("pty").and_then(|f| dec.boolean(&f));
    cli.backend_priority = s
        .take("backend_priority")
        .and_then(|f| backend_priority(dec, &f));
    s.finish();
    cli
}

/// Reads the four deadline keys through `take` (a section's `take`).
pub(crate) fn decode_deadlines<'a>(
    dec: &mut Decoder,
    take: &mut dyn FnMut(&str) -> Option<Field<'a>>,
) -> RawDeadlines {
    let [startup, idle, iteration, grace] =
        DEADLINE_KEYS.map(|key| take(key).and_then(|f| dec.uint(&f, MIN_LIMIT, u64::MAX)));
    RawDeadlines {
        startup_timeout_seconds: startup,
        idle_timeout_seconds: idle,
        iteration_timeout_seconds: iteration,
        exit_grace_seconds: grace,
    }
}

fn decode_event_loop(dec: &mut Decoder, field: &Field<'_>) -> RawEventLoop {
    let schema = Schema {
        path: &field.path,
        keys: EVENT_LOOP_KEYS,
        unsupported: unsupported::EVENT_LOOP,
        related: SECTIONS,
    };
    let mut el = RawEventLoop::default();
    let Some(mut s) = dec.section(field.value, &schema) else {
        return el;
    };
    el.prompt = s
        .take("prompt")
        .and_then(|f| dec.nonempty_string(&f, "write the task, or remove the key"));
    el.prompt_file = s
        .take("prompt_file")
        .and_then(|f| dec.path(&f, "name the file holding the task, or remove the key"))
        .map(|p| {
            let base = p.origin.base_dir().unwrap_or_default();
            p.map(|path| base.join(path))
        });
    el.completion_promise = s
        .take("completion_promise")
        .and_then(|f| completion_promise(dec, &f));
    el.max_iterations = s.take("max_iterations").and_then(|f| count(dec, &f));
    el.max_runtime_seconds = s
        .take("max_runtime_seconds")
        .and_then(|f| dec.uint(&f, MIN_LIMIT, u64::MAX));
    el.max_cost_usd = s.take("max_cost_usd").and_then(|f| dec.positive_number(&f));
    el.max_consecutive_failures = s
        .take("max_consecutive_failures")
        .and_then(|f| count(dec, &f));
    el.starting_event = s.take("starting_event").and_then(|f| dec.topic(&f));
    el.required_events = s.take("required_events").and_then(|f| dec.topics(&f));
    s.finish();
    if let (Some(prompt), Some(file)) = (&el.prompt, &el.prompt_file) {
        dec.errors.push(prompt_conflict(prompt, file));
    }
    el
}

/// `prompt` and `prompt_file` in one layer: which one is meant is anyone's guess.
pub(crate) fn prompt_conflict<A, B>(prompt: &Spanned<A>, file: &Spanned<B>) -> ConfigError {
    // On the command line the keys are flags; in a file, dotted keys.
    let name = |origin: &Origin, key: &str| match origin {
        Origin::CommandLine(flag) => (*flag).to_owned(),
        Origin::File { .. } | Origin::WholeFile(_) | Origin::Default => key.to_owned(),
    };
    let key = name(&prompt.origin, "event_loop.prompt");
    let other_key = name(&file.origin, "event_loop.prompt_file");
    ConfigError::new(
        prompt.origin.clone(),
        ConfigErrorKind::Conflict {
            key,
            other_key,
            other: file.origin.clone(),
        },
    )
}

/// A completion promise is emitted as a topic (`ralph emit LOOP_COMPLETE`), so it
/// must be one.
fn completion_promise(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<String>> {
    if matches!(&field.value.data, YamlData::Value(Scalar::String(s)) if s.trim().is_empty()) {
        dec.error(
            field.value,
            ConfigErrorKind::Empty {
                key: field.path.clone(),
                why: EMPTY_PROMISE_WHY,
            },
        );
        return None;
    }
    dec.topic(field)
}

const EMPTY_PROMISE_WHY: &str =
    "the agent could never signal that the task is done; remove the key to use the default";

/// A count (iterations, failures, activations): at least one, fits in `u32`.
pub(crate) fn count(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<u32>> {
    dec.uint(field, MIN_LIMIT, u64::from(u32::MAX))
        .map(|n| n.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
}

fn decode_core(dec: &mut Decoder, field: &Field<'_>) -> RawCore {
    let schema = Schema {
        path: &field.path,
        keys: CORE_KEYS,
        unsupported: &[],
        related: SECTIONS,
    };
    let mut core = RawCore::default();
    let Some(mut s) = dec.section(field.value, &schema) else {
        return core;
    };
    if let Some(f) = s.take("scratchpad") {
        core.scratchpad = scratchpad(dec, &f);
    }
    core.guardrails = s.take("guardrails").and_then(|f| dec.plain_strings(&f));
    core.specs_dir = s
        .take("specs_dir")
        .and_then(|f| dec.path(&f, "name the directory, or remove the key"));
    s.finish();
    core
}

fn scratchpad(dec: &mut Decoder, field: &Field<'_>) -> RawScratchpad {
    const PATH_WHY: &str = "name the file, or remove the key";
    if let YamlData::Value(Scalar::String(_)) = field.value.data {
        let path = dec.path(field, PATH_WHY);
        let enabled = path.as_ref().map(|p| Spanned::new(true, p.origin.clone()));
        return RawScratchpad { enabled, path };
    }
    let schema = Schema {
        path: &field.path,
        keys: SCRATCHPAD_KEYS,
        unsupported: &[],
        related: &[],
    };
    let mut pad = RawScratchpad::default();
    let Some(mut s) = dec.section(field.value, &schema) else {
        return pad;
    };
    pad.enabled = s.take("enabled").and_then(|f| dec.boolean(&f));
    pad.path = s.take("path").and_then(|f| dec.path(&f, PATH_WHY));
    s.finish();
    pad
}

pub(crate) fn backend_choice(
    dec: &mut Decoder,
    field: &Field<'_>,
) -> Option<Spanned<BackendChoice>> {
    let name = dec.string(field)?;
    match name.value.parse::<BackendChoice>() {
        Ok(choice) => Some(Spanned::new(choice, name.origin)),
        Err(_) => {
            let allowed: Vec<_> = BackendChoice::names().collect();
            dec.errors.push(unknown_backend(&field.path, name, allowed));
            None
        }
    }
}

/// A backend a hat or the priority list names: `auto` makes no sense there.
pub(crate) fn backend_kind_node(
    dec: &mut Decoder,
    path: &str,
    node: &Node<'_>,
) -> Option<Spanned<BackendKind>> {
    let name = dec.string_node(path, node)?;
    match name.value.parse::<BackendKind>() {
        Ok(kind) => Some(Spanned::new(kind, name.origin)),
        Err(_) => {
            let allowed = BackendKind::ALL.map(BackendKind::name).to_vec();
            dec.errors.push(unknown_backend(path, name, allowed));
            None
        }
    }
}

fn unknown_backend(path: &str, name: Spanned<String>, allowed: Vec<&'static str>) -> ConfigError {
    ConfigError::new(
        name.origin,
        ConfigErrorKind::UnknownBackend {
            key: path.to_owned(),
            suggestion: closest(&name.value, allowed.iter().copied()),
            name: name.value,
            allowed,
        },
    )
}

fn backend_priority(
    dec: &mut Decoder,
    field: &Field<'_>,
) -> Option<Spanned<Vec<Spanned<BackendKind>>>> {
    let YamlData::Sequence(items) = &field.value.data else {
        dec.plain_strings(field); // reports the type error
        return None;
    };
    let errors_before = dec.errors.len();
    let mut kinds: Vec<Spanned<BackendKind>> = Vec::with_capacity(items.len());
    for item in items {
        let Some(kind) = backend_kind_node(dec, &field.path, item) else {
            continue;
        };
        if kind.value == BackendKind::Custom {
            dec.errors.push(ConfigError::new(
                kind.origin,
                ConfigErrorKind::CustomInPriority,
            ));
        } else if kinds.iter().any(|k| k.value == kind.value) {
            dec.errors.push(ConfigError::new(
                kind.origin,
                ConfigErrorKind::Duplicate {
                    key: field.path.clone(),
                    value: kind.value.name().to_owned(),
                },
            ));
        } else {
            kinds.push(kind);
        }
    }
    (dec.errors.len() == errors_before).then(|| Spanned::new(kinds, dec.origin(field.value)))
}

/// A value from a small closed set, spelled by name.
fn choice<T: Copy>(
    dec: &mut Decoder,
    field: &Field<'_>,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Option<Spanned<T>> {
    let value = dec.string(field)?;
    match all.iter().copied().find(|v| name(*v) == value.value) {
        Some(v) => Some(Spanned::new(v, value.origin)),
        None => {
            let allowed: Vec<_> = all.iter().map(|v| name(*v)).collect();
            dec.errors.push(ConfigError::new(
                value.origin,
                ConfigErrorKind::InvalidChoice {
                    key: field.path.clone(),
                    suggestion: closest(&value.value, allowed.iter().copied()),
                    value: value.value,
                    allowed,
                },
            ));
            None
        }
    }
}

pub(crate) fn prompt_mode(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<PromptMode>> {
    choice(dec, field, &PromptMode::ALL, PromptMode::name)
}

pub(crate) fn output_format(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<StreamFormat>> {
    choice(dec, field, &StreamFormat::ALL, StreamFormat::name)
}
