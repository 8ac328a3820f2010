//! From a parsed YAML tree to a [`RawConfig`], walking the key table: each mapping's
//! keys are taken in table order and read as their entry says (hats are read in
//! [`super::decode_hat`], prices in [`super::decode_pricing`]).
//!
//! Each value is checked on its own here (type, range, topic syntax, known names);
//! checks that need several layers at once wait for [`super::resolve`].

use std::path::Path;
use std::sync::Arc;

use saphyr::{Scalar, YamlData};

use super::decode_gate::decode_gates;
use super::decode_hat::decode_hats;
use super::decode_memory::decode_skill_overrides;
use super::decode_pricing::decode_pricing;
use super::error::{ConfigError, ConfigErrorKind, ConfigErrors, ConfigWarning};
use super::hooks::decode_hooks;
use super::key::{Read, Section};
use super::node::{Decoder, Field, Node, parse_document};
use super::origin::{Origin, Spanned};
use super::raw::{RawConfig, RawScratchpad};
use super::read;

/// A config file, checked value by value.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedLayer {
    /// What the file says.
    pub config: RawConfig,
    /// Upstream keys the file uses that ralph ignores (safely).
    pub warnings: Vec<ConfigWarning>,
    /// The top-level keys ralph reads that the file sets (not null), where each is
    /// written, in the file's order: a hats file reports those it ignores by them.
    pub top_keys: Vec<(&'static str, Origin)>,
}

/// Parses one config file's text. `file` is how messages name it; a relative
/// `prompt_file` inside is taken relative to `file`'s directory.
pub fn parse_layer(text: &str, file: &Path) -> Result<ParsedLayer, ConfigErrors> {
    let file: Arc<Path> = Arc::from(file);
    let Some(doc) = parse_document(text, &file)? else {
        return Ok(ParsedLayer {
            config: RawConfig::default(),
            warnings: Vec::new(),
            top_keys: Vec::new(),
        });
    };
    let mut dec = Decoder::new(file, text);
    let config = decode_top(&mut dec, &doc);
    // Read top to bottom, like the file.
    dec.errors.sort_by_key(|e| position(&e.origin));
    dec.warnings.sort_by_key(|w| position(&w.origin));
    if dec.errors.is_empty() {
        dec.top_keys.sort_by_key(|(_, origin)| position(origin));
        Ok(ParsedLayer {
            config,
            warnings: dec.warnings,
            top_keys: dec.top_keys,
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
    let mut config = RawConfig::default();
    decode_keys(dec, doc, "", Section::Top, &mut config);
    let el = &config.event_loop;
    if let (Some(prompt), Some(file)) = (&el.prompt, &el.prompt_file) {
        dec.errors.push(prompt_conflict(prompt, file));
    }
    config
}

/// Reads a mapping of `section`'s keys at `path` into `config`, each key as its entry in
/// the key table says.
fn decode_keys(
    dec: &mut Decoder,
    node: &Node<'_>,
    path: &str,
    section: Section,
    config: &mut RawConfig,
) {
    let Some(mut mapping) = dec.section(node, &section.schema(path)) else {
        return;
    };
    for key in section.keys() {
        let Some(field) = mapping.take(key.name) else {
            continue;
        };
        if section == Section::Top {
            let origin = dec.origin(field.key);
            dec.top_keys.push((key.name, origin));
        }
        match key.read {
            Read::Layer(read) => read(dec, &field, config),
            Read::Keys => {
                if let Some(opened) = Section::opened_by(key) {
                    decode_keys(dec, field.value, &field.path, opened, config);
                }
            }
            Read::Scratchpad => scratchpad(dec, &field, config),
            Read::Hats => config.hats = decode_hats(dec, &field),
            Read::Prices => config.pricing = decode_pricing(dec, &field),
            Read::Gates => config.gates = decode_gates(dec, &field),
            Read::Hooks => config.hooks = decode_hooks(dec, &field),
            Read::SkillOverrides => config.skills.overrides = decode_skill_overrides(dec, &field),
            // Hat, gate and price keys live in their own sections (`decode_hat.rs`,
            // `decode_gate.rs`, `decode_pricing.rs`); the table's tests keep them there.
            Read::Hat(_) | Read::Gate(_) | Read::Own => {}
        }
    }
    mapping.finish();
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

/// `core.scratchpad`: a path alone means `{enabled: true, path: PATH}`.
fn scratchpad(dec: &mut Decoder, field: &Field<'_>, config: &mut RawConfig) {
    if let YamlData::Value(Scalar::String(_)) = field.value.data {
        let path = dec.path(field, read::SCRATCHPAD_WHY);
        let enabled = path.as_ref().map(|p| Spanned::new(true, p.origin.clone()));
        config.core.scratchpad = RawScratchpad { enabled, path };
        return;
    }
    decode_keys(dec, field.value, &field.path, Section::Scratchpad, config);
}
