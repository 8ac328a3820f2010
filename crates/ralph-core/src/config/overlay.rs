//! The hats overlay (`ralph run -H builtin:NAME` or `-H path/to/hats.yml`): a workflow's
//! hats over the project's own `ralph.yml`, as ralph-orchestrator's `-H` does.
//!
//! A hats file is parsed by the same decoder as any config file (same checks, same
//! `file:line:column` errors; a built-in preset is shown as `builtin:NAME`). It brings
//! the workflow: the hats, and the keys that only make sense with them:
//! `event_loop.starting_event`, `event_loop.required_events` (both name the hats'
//! topics) and `event_loop.completion_promise`, plus `gates:` (a gate's `before` names
//! the hats' topics). ralph-orchestrator's `name`, `description` and `events` are
//! accepted too. Everything else belongs to the project (the agent, the limits, the
//! task) and is ignored with one warning, so a ralph-orchestrator preset file still runs.
//!
//! The overlay replaces the project's hats, starting event and required events whole
//! (they describe one topology: mixing two would route topics to hats that never see
//! them), keeps the project's completion promise unless it names one, and adds its gates
//! to the project's (per name, as layers do). Unlike ralph-orchestrator, whose allow-list
//! drops `required_events`, a preset's required events are kept.
//!
//! A built-in preset's hats finish with [`PRESET_PROMISE`]; in a preset that topic stands
//! for the run's completion promise, whatever the project or `--completion-promise` makes
//! it ([`preset_promise`]). Otherwise a preset used with a project whose promise is
//! `ALL_DONE` would tell its last hat to emit a topic that ends nothing, and the run would
//! go on to its iteration limit.

use std::io;
use std::path::{Path, PathBuf};

use super::decode::parse_layer;
use super::error::{ConfigError, ConfigErrors, ConfigWarning, ConfigWarningKind, FileRole};
use super::origin::Origin;
use super::preset::{BUILTIN_PREFIX, Preset, UnknownPreset, preset};
use super::raw::{Layered, RawConfig, RawEventLoop};
use super::resolved::DEFAULT_COMPLETION_PROMISE;

/// The topic the built-in presets' hats publish to finish (in `publishes`, and in their
/// gate suggestions' `before`): a stand-in for the run's completion promise.
pub(crate) const PRESET_PROMISE: &str = DEFAULT_COMPLETION_PROMISE;

/// Where `-H` takes the hats from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HatsSource {
    /// `builtin:NAME`.
    Builtin(&'static Preset),
    /// A YAML file, relative to the working directory.
    File(PathBuf),
}

impl HatsSource {
    /// `builtin:NAME` (which must be a preset), else a file path.
    pub fn parse(arg: &str) -> Result<HatsSource, UnknownPreset> {
        match arg.strip_prefix(BUILTIN_PREFIX) {
            Some(name) => preset(name).map(HatsSource::Builtin),
            None => Ok(HatsSource::File(PathBuf::from(arg))),
        }
    }

    /// How messages and `--dry-run` name it.
    pub fn shown(&self) -> PathBuf {
        match self {
            HatsSource::Builtin(p) => PathBuf::from(format!("{BUILTIN_PREFIX}{}", p.name)),
            HatsSource::File(path) => path.clone(),
        }
    }
}

/// The overlay read from `source`, with what ralph ignores in it.
pub(crate) struct Overlay {
    pub(crate) layer: RawConfig,
    pub(crate) warnings: Vec<ConfigWarning>,
}

/// Reads and checks the hats file (`read` reads a file's text).
pub(crate) fn read_overlay(
    source: &HatsSource,
    cwd: &Path,
    read: impl FnOnce(&Path) -> io::Result<String>,
) -> Result<Overlay, ConfigErrors> {
    let shown = source.shown();
    let text = match source {
        HatsSource::Builtin(p) => p.text.to_owned(),
        HatsSource::File(path) => read(&cwd.join(path))
            .map_err(|e| ConfigErrors(vec![ConfigError::unreadable(&shown, FileRole::Hats, e)]))?,
    };
    let parsed = parse_layer(&text, &shown)?;
    let mut warnings: Vec<ConfigWarning> = parsed
        .warnings
        .into_iter()
        .filter(|w| !is_overlay_key(&w.kind))
        .collect();
    let (layer, ignored) = keep_workflow(parsed.config, parsed.top_keys);
    if let Some((_, first)) = ignored.first() {
        let keys: Vec<String> = ignored
            .iter()
            .map(|(name, origin)| match origin {
                Origin::File { line, .. } => format!("{name} (line {line})"),
                _ => name.clone(),
            })
            .collect();
        warnings.push(ConfigWarning {
            origin: first.clone(),
            kind: ConfigWarningKind::IgnoredInHatsFile {
                keys: keys.join(", "),
            },
        });
    }
    Ok(Overlay { layer, warnings })
}

/// The top-level keys ralph-orchestrator's overlay carries that ralph's config file does
/// not (a hats file's name and description, its per-topic notes): expected here, so not
/// worth a warning each.
fn is_overlay_key(kind: &ConfigWarningKind) -> bool {
    matches!(kind, ConfigWarningKind::Unsupported { key, .. } if key == "name" || key == "description")
}

/// The workflow part of a hats file, and the top-level sections it sets that are not part
/// of it (`top_keys`: the file's, see [`super::decode::ParsedLayer`]), each where it is
/// written. Every section ralph reads counts, so one added to the config later is
/// reported by name too.
fn keep_workflow(
    mut rest: RawConfig,
    top_keys: Vec<(&'static str, Origin)>,
) -> (RawConfig, Vec<(String, Origin)>) {
    let el = &mut rest.event_loop;
    let kept = RawConfig {
        hats: std::mem::take(&mut rest.hats),
        gates: std::mem::take(&mut rest.gates),
        event_loop: RawEventLoop {
            starting_event: el.starting_event.take(),
            required_events: el.required_events.take(),
            completion_promise: el.completion_promise.take(),
            ..RawEventLoop::default()
        },
        ..RawConfig::default()
    };
    let other_loop_keys = rest.event_loop != RawEventLoop::default();
    let ignored = top_keys
        .into_iter()
        .filter_map(|(name, origin)| match name {
            "hats" | "gates" => None,
            "event_loop" => other_loop_keys.then(|| {
                (
                    "event_loop (other than the workflow's keys)".to_owned(),
                    origin,
                )
            }),
            _ => Some((name.to_owned(), origin)),
        })
        .collect();
    (kept, ignored)
}

/// A built-in preset's workflow (`overlay`) with its [`PRESET_PROMISE`] replaced by
/// `promise`, the run's completion promise, in the hats' `publishes` and
/// `default_publishes` and the gates' `before`: the prompt then tells the finishing hat
/// to emit the real promise, and its emit completes the run. Where the preset wrote it
/// stays its origin, so a message about the topic still points into the preset.
pub(crate) fn preset_promise(overlay: &mut RawConfig, promise: &str) {
    if promise == PRESET_PROMISE {
        return;
    }
    let stands_in = |topic: &mut super::origin::Spanned<String>| {
        if topic.value == PRESET_PROMISE {
            promise.clone_into(&mut topic.value);
        }
    };
    for hat in &mut overlay.hats {
        hat.publishes
            .iter_mut()
            .flat_map(|l| &mut l.value)
            .for_each(stands_in);
        hat.default_publishes.iter_mut().for_each(stands_in);
    }
    for gate in &mut overlay.gates {
        gate.before
            .iter_mut()
            .flat_map(|l| &mut l.value)
            .for_each(stands_in);
    }
}

/// `base` (the user's and project's files) with the workflow of `overlay` in place of
/// its own.
pub(crate) fn apply_overlay(mut base: RawConfig, overlay: RawConfig) -> RawConfig {
    base.hats = overlay.hats;
    base.event_loop.starting_event = overlay.event_loop.starting_event;
    base.event_loop.required_events = overlay.event_loop.required_events;
    base.event_loop.completion_promise = base
        .event_loop
        .completion_promise
        .layer(overlay.event_loop.completion_promise);
    base.gates = base.gates.layer(overlay.gates);
    base
}
