//! The readers the key table's entries use for their values (counts, seconds, backend
//! names, closed choices, topics with rules of their own), beyond the plain ones of
//! [`super::node::Decoder`].

use std::path::PathBuf;

use ralph_stream::StreamFormat;
use ralph_types::BackendKind;
use saphyr::{Scalar, YamlData};

use super::choice::{BackendChoice, PromptMode};
use super::error::{ConfigError, ConfigErrorKind};
use super::node::{Decoder, Field, Node};
use super::origin::Spanned;
use super::raw::SpannedList;
use super::suggest::closest;
use crate::topic::RESERVED_TRIGGERS;

/// Smallest count or number of seconds a limit or deadline accepts: zero would stop
/// the loop (or the agent) before it starts.
pub(crate) const MIN_LIMIT: u64 = 1;

/// Largest number of seconds a limit or deadline accepts: a year (365 days). A longer
/// deadline means none, and a clock cannot hold every `u64` of seconds: past this, the
/// moment a deadline falls on could overflow it.
pub(crate) const MAX_SECONDS: u64 = 365 * 24 * 60 * 60;

/// A count (iterations, failures, activations): at least one, fits in `u32`.
pub(crate) fn count(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<u32>> {
    dec.uint(field, MIN_LIMIT, u64::from(u32::MAX))
        .map(|n| n.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
}

/// A number of seconds (a deadline, the runtime limit): at least one, at most a year.
pub(crate) fn seconds(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<u64>> {
    dec.uint(field, MIN_LIMIT, MAX_SECONDS)
}

/// What an empty `command` is told.
pub(crate) const COMMAND_WHY: &str = "name the program to run, or remove the key";
/// What an empty `prompt_flag` is told.
pub(crate) const PROMPT_FLAG_WHY: &str =
    "name the flag, or remove the key to pass the prompt as the last argument";
/// What an empty `event_loop.prompt` is told.
pub(crate) const PROMPT_WHY: &str = "write the task, or remove the key";
/// What an empty `core.specs_dir` is told.
pub(crate) const SPECS_DIR_WHY: &str = "name the directory, or remove the key";
/// What an empty hat `name` is told.
pub(crate) const HAT_NAME_WHY: &str = "name the hat, or remove the key to use its id";
/// What an empty scratchpad path is told.
pub(crate) const SCRATCHPAD_WHY: &str = "name the file, or remove the key";

/// `event_loop.prompt_file`, joined to the directory of the file that names it.
pub(crate) fn prompt_file(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<PathBuf>> {
    dec.path(field, "name the file holding the task, or remove the key")
        .map(|p| {
            let base = p.origin.base_dir().unwrap_or_default();
            p.map(|path| base.join(path))
        })
}

/// A completion promise is emitted as a topic (`ralph emit LOOP_COMPLETE`), so it
/// must be one.
pub(crate) fn completion_promise(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<String>> {
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

/// A hat's `triggers`: topics or patterns (`crate::trigger`), none of them a topic ralph
/// publishes itself.
pub(crate) fn triggers(
    dec: &mut Decoder,
    field: &Field<'_>,
    hat: &str,
) -> Option<SpannedList<String>> {
    let triggers = dec.topics_with(field, crate::trigger::validate_trigger);
    for topic in triggers.iter().flat_map(|t| &t.value) {
        if RESERVED_TRIGGERS.contains(&topic.value.as_str()) {
            dec.errors.push(ConfigError::new(
                topic.origin.clone(),
                ConfigErrorKind::ReservedTrigger {
                    hat: hat.to_owned(),
                    topic: topic.value.clone(),
                },
            ));
        }
    }
    triggers
}

/// A hat's `backend_args`, the alias of its `args` (read before it): setting both is
/// an error, and neither is kept.
pub(crate) fn backend_args(
    dec: &mut Decoder,
    field: &Field<'_>,
    args: &mut Option<Spanned<Vec<String>>>,
) {
    let alias = dec.plain_strings(field);
    *args = match (args.take(), alias) {
        (Some(a), Some(b)) => {
            let hat = field
                .path
                .strip_suffix(".backend_args")
                .unwrap_or(&field.path);
            dec.errors.push(ConfigError::new(
                b.origin,
                ConfigErrorKind::Conflict {
                    key: field.path.clone(),
                    other_key: format!("{hat}.args"),
                    other: a.origin,
                },
            ));
            None
        }
        (a, b) => a.or(b),
    };
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

/// `cli.backend_priority`: one or more distinct built-in backends (`custom` cannot be
/// detected).
pub(crate) fn backend_priority(
    dec: &mut Decoder,
    field: &Field<'_>,
) -> Option<Spanned<Vec<Spanned<BackendKind>>>> {
    let YamlData::Sequence(items) = &field.value.data else {
        dec.plain_strings(field); // reports the type error
        return None;
    };
    if items.is_empty() {
        // `auto` would have nothing to try and fail at run time, without saying why.
        dec.error(
            field.value,
            ConfigErrorKind::Empty {
                key: field.path.clone(),
                why: "list the backends `auto` may pick, or leave the key out to try them all",
            },
        );
        return None;
    }
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
pub(crate) fn choice<T: Copy>(
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

/// `on_rate_limit` (under `cli` and per hat).
pub(crate) fn rate_limit_policy(
    dec: &mut Decoder,
    field: &Field<'_>,
) -> Option<Spanned<super::resolved::RateLimitPolicy>> {
    use super::resolved::RateLimitPolicy;
    choice(dec, field, &RateLimitPolicy::ALL, RateLimitPolicy::name)
}

pub(crate) fn prompt_mode(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<PromptMode>> {
    choice(dec, field, &PromptMode::ALL, PromptMode::name)
}

pub(crate) fn output_format(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<StreamFormat>> {
    choice(dec, field, &StreamFormat::ALL, StreamFormat::name)
}

/// A number of characters: a whole number, 0 or more.
pub(crate) fn tokens(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<u32>> {
    dec.uint(field, 0, u64::from(u32::MAX))
        .map(|n| n.map(|n| u32::try_from(n).unwrap_or(u32::MAX)))
}

/// A list of distinct names from a small closed set.
pub(crate) fn choice_list<T: Copy + PartialEq>(
    dec: &mut Decoder,
    field: &Field<'_>,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Option<SpannedList<T>> {
    let list = dec.strings(field)?;
    let errors_before = dec.errors.len();
    let allowed: Vec<&'static str> = all.iter().map(|v| name(*v)).collect();
    let mut values: Vec<Spanned<T>> = Vec::with_capacity(list.value.len());
    for item in list.value {
        match all.iter().copied().find(|v| name(*v) == item.value) {
            Some(v) if values.iter().any(|s| s.value == v) => {
                dec.errors.push(ConfigError::new(
                    item.origin,
                    ConfigErrorKind::Duplicate {
                        key: field.path.clone(),
                        value: item.value,
                    },
                ));
            }
            Some(v) => values.push(Spanned::new(v, item.origin)),
            None => dec.errors.push(ConfigError::new(
                item.origin,
                ConfigErrorKind::InvalidChoice {
                    key: field.path.clone(),
                    suggestion: closest(&item.value, allowed.iter().copied()),
                    value: item.value,
                    allowed: allowed.clone(),
                },
            )),
        }
    }
    (dec.errors.len() == errors_before).then(|| Spanned::new(values, list.origin))
}
