//! From a parsed YAML tree to a [`RawConfig`]: the top level, `cli`, `event_loop` and
//! `core` (hats live in [`super::decode_hat`], prices in [`super::decode_pricing`]).
//!
//! Each value is checked on its own here (type, range, topic syntax, known names);
//! checks that need several layers at once wait for [`super::resolve`].

use std::path::Path;
use std::sync::Arc;

use saphyr::{Scalar, YamlData};

use super::decode_hat::decode_hats;
use super::decode_pricing::decode_pricing;
use super::error::{ConfigError, ConfigErrorKind, ConfigErrors, ConfigWarning};
use super::keys::Section;
use super::node::{Decoder, Field, Node, Schema, parse_document};
use super::origin::{Origin, Spanned};
use super::raw::{RawCli, RawConfig, RawCore, RawEventLoop, RawScratchpad};
use super::read;

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

fn decode_top(dec: &mut Decoder, doc: &Node<'_>) -> RawConfig {
    let schema = Schema {
        path: "",
        keys: Section::Top,
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
        keys: Section::Cli,
    };
    let mut cli = RawCli::default();
    let Some(mut s) = dec.section(field.value, &schema) else {
        return cli;
    };
    cli.backend = s
        .take("backend")
        .and_then(|f| read::backend_choice(dec, &f));
    cli.command = s
        .take("command")
        .and_then(|f| dec.nonempty_string(&f, "name the program to run, or remove the key"));
    cli.args = s.take("args").and_then(|f| dec.plain_strings(&f));
    cli.prompt_mode = s
        .take("prompt_mode")
        .and_then(|f| read::prompt_mode(dec, &f));
    cli.prompt_flag = s.take("prompt_flag").and_then(|f| {
        dec.nonempty_string(
            &f,
            "name the flag, or remove the key to pass the prompt as the last argument",
        )
    });
    cli.output_format = s
        .take("output_format")
        .and_then(|f| read::output_format(dec, &f));
    cli.deadlines = read::deadlines(dec, &mut |key| s.take(key));
    cli.pty = s.take("pty").and_then(|f| dec.boolean(&f));
    cli.backend_priority = s
        .take("backend_priority")
        .and_then(|f| read::backend_priority(dec, &f));
    s.finish();
    cli
}

fn decode_event_loop(dec: &mut Decoder, field: &Field<'_>) -> RawEventLoop {
    let schema = Schema {
        path: &field.path,
        keys: Section::EventLoop,
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
    el.max_iterations = s.take("max_iterations").and_then(|f| read::count(dec, &f));
    el.max_runtime_seconds = s
        .take("max_runtime_seconds")
        .and_then(|f| dec.uint(&f, read::MIN_LIMIT, u64::MAX));
    el.max_cost_usd = s.take("max_cost_usd").and_then(|f| dec.positive_number(&f));
    el.max_consecutive_failures = s
        .take("max_consecutive_failures")
        .and_then(|f| read::count(dec, &f));
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

fn decode_core(dec: &mut Decoder, field: &Field<'_>) -> RawCore {
    let schema = Schema {
        path: &field.path,
        keys: Section::Core,
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
        keys: Section::Scratchpad,
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
