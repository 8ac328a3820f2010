//! `hooks:`: ralph-orchestrator's lifecycle hooks section, read unchanged.
//!
//! ```yaml
//! hooks:
//!   enabled: true
//!   defaults: {timeout_seconds: 30, max_output_bytes: 8192, suspend_mode: wait_for_resume}
//!   events:
//!     pre.loop.start:
//!       - {name: env-guard, command: ["./scripts/env-guard.sh"], on_error: block}
//! ```
//!
//! The section's defaults apply within the section, so a layer's hooks are resolved as
//! they are read and a later layer's `hooks:` replaces an earlier one whole. Hooks on
//! phases ralph does not reach yet load with a warning; hooks in a section without
//! `enabled: true` load with a warning that none runs.

use saphyr::{Scalar, Yaml, YamlData};

use super::error::{ConfigError, ConfigErrorKind, ConfigWarningKind};
use super::key::Section;
use super::node::{Decoder, Field, Node, join_path};
use super::origin::Spanned;
use super::read;
use super::suggest::closest;
use super::yaml_value::{Map, boolean, int, path_value, seconds, string, strings};
use crate::hooks::spec::{HookDefaults, MAX_HOOK_OUTPUT_BYTES, MUTATE_FORMAT_JSON};
use crate::hooks::{HookPhase, HookSpec, HooksConfig, OnError, SuspendMode};
use ralph_types::Invocation;
use std::time::Duration;

/// The example hooks shown (commented out) in the `ralph init` template: the shape of
/// ralph-orchestrator's `examples/hooks/minimal`. Tests check that, uncommented, it loads.
pub const EXAMPLE_HOOKS: &str = "\
hooks:
  enabled: true
  defaults: {timeout_seconds: 30, max_output_bytes: 8192, suspend_mode: wait_for_resume}
  events:
    pre.loop.start:
      - {name: env-guard, command: [./scripts/env-guard.sh], on_error: block}
    post.loop.complete:
      - {name: notify, command: [./scripts/notify.sh], on_error: warn}
";

/// What an empty `command` is told.
const COMMAND_WHY: &str =
    "give the program and its arguments as a list, or a shell command line as a string";
/// What a hook without a name is told.
const NAME_WHY: &str = "the name identifies the hook in ralph's output and logs";
/// What a hook without `on_error` is told.
const ON_ERROR_WHY: &str =
    "say what a failure does: `warn` (go on), `block` (stop the loop) or `suspend` (wait)";
/// What an empty `cwd` is told.
const CWD_WHY: &str = "name a directory relative to the workspace, or remove the key";
/// The expected form of `command`.
const STRING_OR_LIST: &str = "a string or a list of strings";
/// The expected form of a phase's hooks.
const HOOK_LIST: &str = "a list of hooks";

pub(crate) fn on_errors() -> Vec<&'static str> {
    OnError::ALL.map(OnError::name).to_vec()
}

pub(crate) fn suspend_modes() -> Vec<&'static str> {
    SuspendMode::ALL.map(SuspendMode::name).to_vec()
}

pub(crate) fn mutate_formats() -> Vec<&'static str> {
    vec![MUTATE_FORMAT_JSON]
}

pub(crate) fn decode_hooks(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<HooksConfig>> {
    let origin = dec.origin(field.key);
    let mut s = dec.section(field.value, &Section::Hooks.schema(&field.path))?;
    let enabled = s.take("enabled").and_then(|f| dec.boolean(&f));
    let defaults = s
        .take("defaults")
        .map_or_else(HookDefaults::default, |f| decode_defaults(dec, &f));
    let events = s
        .take("events")
        .map(|f| decode_events(dec, &f, &defaults))
        .unwrap_or_default();
    s.finish();
    let config = HooksConfig {
        enabled: enabled.as_ref().is_some_and(|e| e.value),
        defaults,
        events,
    };
    if !config.enabled && config.all().next().is_some() {
        dec.warn(
            field.key,
            ConfigWarningKind::HooksNotEnabled {
                key: join_path(&field.path, "enabled"),
            },
        );
    }
    Some(Spanned::new(config, origin))
}

fn decode_defaults(dec: &mut Decoder, field: &Field<'_>) -> HookDefaults {
    let mut d = HookDefaults::default();
    let Some(mut s) = dec.section(field.value, &Section::HookDefaults.schema(&field.path)) else {
        return d;
    };
    if let Some(t) = s
        .take("timeout_seconds")
        .and_then(|f| read::seconds(dec, &f))
    {
        d.timeout = Duration::from_secs(t.value);
    }
    if let Some(n) = s
        .take("max_output_bytes")
        .and_then(|f| output_bytes(dec, &f))
    {
        d.max_output_bytes = n;
    }
    if let Some(m) = s.take("suspend_mode").and_then(|f| suspend_mode(dec, &f)) {
        d.suspend_mode = m;
    }
    s.finish();
    d
}

fn output_bytes(dec: &mut Decoder, field: &Field<'_>) -> Option<u64> {
    dec.uint(field, 1, MAX_HOOK_OUTPUT_BYTES).map(|n| n.value)
}

fn suspend_mode(dec: &mut Decoder, field: &Field<'_>) -> Option<SuspendMode> {
    read::choice(dec, field, &SuspendMode::ALL, SuspendMode::name).map(|m| m.value)
}

fn decode_events(
    dec: &mut Decoder,
    field: &Field<'_>,
    defaults: &HookDefaults,
) -> Vec<(HookPhase, Vec<HookSpec>)> {
    let Some(entries) = dec.entries(field.value, &field.path) else {
        return Vec::new();
    };
    let mut events: Vec<(HookPhase, Vec<HookSpec>)> = Vec::new();
    for (name, value) in entries {
        let path = join_path(&field.path, &name.value);
        let Some(phase) = HookPhase::parse(&name.value) else {
            dec.errors.push(super::error::ConfigError::new(
                name.origin.clone(),
                ConfigErrorKind::UnknownKey {
                    suggestion: closest(&name.value, HookPhase::names())
                        .map(|s| join_path(&field.path, s)),
                    key: name.value,
                    place: format!("in `{}`", field.path),
                    expected: HookPhase::names(),
                },
            ));
            continue;
        };
        let hooks = match &value.data {
            YamlData::Sequence(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| decode_hook(dec, &format!("{path}[{i}]"), item, defaults))
                .collect(),
            YamlData::Value(Scalar::Null) => Vec::new(),
            _ => {
                dec.wrong_type(&path, value, HOOK_LIST);
                continue;
            }
        };
        if !phase.fires() && !hooks.is_empty() {
            dec.warnings.push(super::error::ConfigWarning {
                origin: name.origin.clone(),
                kind: ConfigWarningKind::HookPhaseNotFiring { key: path },
            });
        }
        events.push((phase, hooks));
    }
    events
}

fn decode_hook(
    dec: &mut Decoder,
    path: &str,
    node: &Node<'_>,
    defaults: &HookDefaults,
) -> Option<HookSpec> {
    let errors_before = dec.errors.len();
    let mut s = dec.section(node, &Section::Hook.schema(path))?;
    let required = |dec: &mut Decoder, key: &str, why: &'static str| {
        dec.error(
            node,
            ConfigErrorKind::MissingKey {
                key: join_path(path, key),
                why,
            },
        );
    };
    let name = match s.take("name") {
        Some(f) => dec.nonempty_string(&f, NAME_WHY).map(|n| n.value),
        None => {
            required(dec, "name", NAME_WHY);
            None
        }
    };
    let command = match s.take("command") {
        Some(f) => command(dec, &f),
        None => {
            required(dec, "command", COMMAND_WHY);
            None
        }
    };
    let cwd = s
        .take("cwd")
        .and_then(|f| dec.path(&f, CWD_WHY))
        .map(|p| p.value);
    let env = s.take("env").map(|f| env(dec, &f)).unwrap_or_default();
    let timeout = s
        .take("timeout_seconds")
        .and_then(|f| read::seconds(dec, &f))
        .map_or(defaults.timeout, |t| Duration::from_secs(t.value));
    let max_output_bytes = s
        .take("max_output_bytes")
        .and_then(|f| output_bytes(dec, &f))
        .unwrap_or(defaults.max_output_bytes);
    let on_error = match s.take("on_error") {
        Some(f) => read::choice(dec, &f, &OnError::ALL, OnError::name).map(|o| o.value),
        None => {
            required(dec, "on_error", ON_ERROR_WHY);
            None
        }
    };
    let suspend_mode = s
        .take("suspend_mode")
        .and_then(|f| suspend_mode(dec, &f))
        .unwrap_or(defaults.suspend_mode);
    let mutate = s.take("mutate").is_some_and(|f| mutate(dec, &f));
    s.finish();
    if dec.errors.len() > errors_before {
        return None;
    }
    Some(HookSpec {
        name: name?,
        command: command?,
        cwd,
        env,
        timeout,
        max_output_bytes,
        on_error: on_error?,
        suspend_mode,
        mutate,
    })
}

/// A string (run by `sh -c`) or a non-empty list whose first item names the program.
fn command(dec: &mut Decoder, field: &Field<'_>) -> Option<Invocation> {
    match &field.value.data {
        YamlData::Value(Scalar::String(_)) => dec
            .nonempty_string(field, COMMAND_WHY)
            .map(|s| Invocation::Shell(s.value)),
        YamlData::Sequence(_) => {
            let argv = dec.plain_strings(field)?.value;
            if argv.first().is_none_or(|p| p.trim().is_empty()) {
                dec.error(
                    field.value,
                    ConfigErrorKind::Empty {
                        key: field.path.clone(),
                        why: COMMAND_WHY,
                    },
                );
                return None;
            }
            Some(Invocation::Argv(argv))
        }
        _ => {
            dec.wrong_type(&field.path, field.value, STRING_OR_LIST);
            None
        }
    }
}

fn env(dec: &mut Decoder, field: &Field<'_>) -> Vec<(String, String)> {
    let Some(entries) = dec.entries(field.value, &field.path) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter_map(|(name, value)| {
            let path = join_path(&field.path, &name.value);
            let value = dec.string_node(&path, value);
            // Checked here, not when the hook runs: the OS would refuse a NUL (the hook
            // fails on every run), and a name with `=` would set another variable
            // (`A=B: x` sets `A` to `B=x`).
            if let Some(why) = env_name_problem(&name.value) {
                dec.errors.push(ConfigError::new(
                    name.origin,
                    ConfigErrorKind::InvalidEnvName {
                        key: field.path.clone(),
                        name: name.value,
                        why,
                    },
                ));
                return None;
            }
            let value = value?;
            if value.value.contains('\0') {
                dec.errors.push(ConfigError::new(
                    value.origin,
                    ConfigErrorKind::OutOfRange {
                        key: path,
                        requirement: "text without a NUL byte (no environment variable can hold \
                                      one)"
                            .to_owned(),
                        found: "a string with a NUL byte".to_owned(),
                    },
                ));
                return None;
            }
            Some((name.value, value.value))
        })
        .collect()
}

/// Why `name` cannot name an environment variable, if it cannot.
fn env_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("give the variable a name")
    } else if name.contains('=') {
        Some(
            "a name cannot contain `=` (the environment would take what follows it for the \
             value); rename it",
        )
    } else if name.contains('\0') {
        Some("a name cannot contain a NUL byte; rename it")
    } else {
        None
    }
}

/// `mutate: {enabled, format}`: whether the hook's answer is read.
fn mutate(dec: &mut Decoder, field: &Field<'_>) -> bool {
    let Some(mut s) = dec.section(field.value, &Section::HookMutate.schema(&field.path)) else {
        return false;
    };
    let enabled = s.take("enabled").and_then(|f| dec.boolean(&f));
    // One format exists; reading it still refuses a misspelt one.
    if let Some(f) = s.take("format") {
        read::choice(dec, &f, &[MUTATE_FORMAT_JSON], |n| n);
    }
    s.finish();
    enabled.is_some_and(|e| e.value)
}

/// The section as `--dry-run` writes it: every value resolved, so it reads back the
/// same (the section defaults are folded into each hook).
pub(crate) fn dump_hooks(config: &HooksConfig) -> Option<Yaml<'static>> {
    if config.events.is_empty() && !config.enabled {
        return None;
    }
    let mut events = Map::default();
    for (phase, hooks) in &config.events {
        let list = hooks.iter().map(dump_hook).collect();
        events.entry(phase.name(), Yaml::Sequence(list));
    }
    let d = &config.defaults;
    let mut defaults = Map::default();
    defaults.entry("timeout_seconds", seconds(d.timeout));
    defaults.entry("max_output_bytes", bytes(d.max_output_bytes));
    defaults.entry("suspend_mode", string(d.suspend_mode.name()));
    let mut out = Map::default();
    out.entry("enabled", boolean(config.enabled));
    out.entry("defaults", defaults.into_yaml());
    out.entry("events", events.into_yaml());
    Some(out.into_yaml())
}

fn dump_hook(hook: &HookSpec) -> Yaml<'static> {
    let mut m = Map::default();
    m.entry("name", string(&hook.name));
    m.entry(
        "command",
        match &hook.command {
            Invocation::Shell(line) => string(line),
            Invocation::Argv(argv) => strings(argv),
        },
    );
    m.opt("cwd", hook.cwd.as_deref().map(path_value));
    if !hook.env.is_empty() {
        let mut env = Map::default();
        for (k, v) in &hook.env {
            env.entry_owned(k.clone(), string(v));
        }
        m.entry("env", env.into_yaml());
    }
    m.entry("timeout_seconds", seconds(hook.timeout));
    m.entry("max_output_bytes", bytes(hook.max_output_bytes));
    m.entry("on_error", string(hook.on_error.name()));
    m.entry("suspend_mode", string(hook.suspend_mode.name()));
    let mut mutate = Map::default();
    mutate.entry("enabled", boolean(hook.mutate));
    mutate.entry("format", string(MUTATE_FORMAT_JSON));
    m.entry("mutate", mutate.into_yaml());
    m.into_yaml()
}

fn bytes(n: u64) -> Yaml<'static> {
    // Bounded by `MAX_HOOK_OUTPUT_BYTES` when read.
    int(i64::try_from(n).unwrap_or(i64::MAX))
}
