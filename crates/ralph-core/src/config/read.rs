//! Readers of the values several sections share (counts, deadlines, backend names,
//! closed choices), used by [`super::decode`] and [`super::decode_hat`] alike.

use ralph_agent::BackendKind;
use ralph_stream::StreamFormat;
use saphyr::YamlData;

use super::choice::{BackendChoice, PromptMode};
use super::error::{ConfigError, ConfigErrorKind};
use super::keys::{EXIT_GRACE, IDLE_TIMEOUT, ITERATION_TIMEOUT, STARTUP_TIMEOUT};
use super::node::{Decoder, Field, Node};
use super::origin::Spanned;
use super::raw::RawDeadlines;
use super::suggest::closest;

/// Smallest count or number of seconds a limit or deadline accepts: zero would stop
/// the loop (or the agent) before it starts.
pub(crate) const MIN_LIMIT: u64 = 1;

/// A count (iterations, failures, activations): at least one, fits in `u32`.
pub(crate) fn count(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<u32>> {
    dec.uint(field, MIN_LIMIT, u64::from(u32::MAX))
        .map(|n| n.map(|v| u32::try_from(v).unwrap_or(u32::MAX)))
}

/// Reads the four deadline keys through `take` (a section's `take`).
pub(crate) fn deadlines<'a>(
    dec: &mut Decoder,
    take: &mut dyn FnMut(&str) -> Option<Field<'a>>,
) -> RawDeadlines {
    let [startup, idle, iteration, grace] =
        [STARTUP_TIMEOUT, IDLE_TIMEOUT, ITERATION_TIMEOUT, EXIT_GRACE]
            .map(|key| take(key).and_then(|f| dec.uint(&f, MIN_LIMIT, u64::MAX)));
    RawDeadlines {
        startup_timeout_seconds: startup,
        idle_timeout_seconds: idle,
        iteration_timeout_seconds: iteration,
        exit_grace_seconds: grace,
    }
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

/// `cli.backend_priority`: distinct built-in backends (`custom` cannot be detected).
pub(crate) fn backend_priority(
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
