//! `hats:`: each hat's keys, its backend in any of the three forms, and the rules a
//! single hat must follow (a description, no reserved triggers).

use ralph_types::BackendKind;
use saphyr::{Scalar, YamlData};

use super::decode::{
    DEADLINE_KEYS, backend_kind_node, count, decode_deadlines, output_format, prompt_mode,
};
use super::describe::describe;
use super::error::{ConfigError, ConfigErrorKind, ConfigWarningKind};
use super::node::{Decoder, Field, Node, Schema, join_path};
use super::origin::Spanned;
use super::raw::{RawDeadlines, RawHat, RawHatBackend};
use super::unsupported;
use crate::topic::{RESERVED_TRIGGERS, validate_topic};

const HAT_KEYS: &[&str] = &[
    "name",
    "description",
    "triggers",
    "publishes",
    "instructions",
    "backend",
    "args",
    "backend_args",
    "default_publishes",
    "max_activations",
    DEADLINE_KEYS[0],
    DEADLINE_KEYS[1],
    DEADLINE_KEYS[2],
    DEADLINE_KEYS[3],
    "pty",
];

const HAT_BACKEND_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "prompt_mode",
    "prompt_flag",
    "output_format",
];

/// The keys of the `{command: ...}` form that mean nothing in the `{type: ...}` form.
const CUSTOM_ONLY_KEYS: [&str; 3] = ["prompt_mode", "prompt_flag", "output_format"];

const EXPECTED_BACKEND: &str = "a backend name or a mapping with `type` or `command`";

pub(crate) fn decode_hats(dec: &mut Decoder, field: &Field<'_>) -> Vec<RawHat> {
    let Some(entries) = dec.entries(field.value, &field.path) else {
        return Vec::new();
    };
    entries
        .into_iter()
        .filter_map(|(id, value)| {
            if let Err(reason) = validate_topic(&id.value) {
                dec.errors.push(ConfigError::new(
                    id.origin.clone(),
                    ConfigErrorKind::InvalidHatId {
                        id: id.value.clone(),
                        reason,
                    },
                ));
            }
            decode_hat(dec, id, &field.path, value)
        })
        .collect()
}

fn decode_hat(
    dec: &mut Decoder,
    id: Spanned<String>,
    parent: &str,
    value: &Node<'_>,
) -> Option<RawHat> {
    let path = join_path(parent, &id.value);
    let schema = Schema {
        path: &path,
        keys: HAT_KEYS,
        unsupported: unsupported::HAT,
        related: &[],
    };
    let mut s = dec.section(value, &schema)?;
    let name = s
        .take("name")
        .and_then(|f| dec.nonempty_string(&f, "name the hat, or remove the key to use its id"));
    let description = match s.take("description") {
        Some(f) => match dec.string(&f) {
            Some(d) if d.value.trim().is_empty() => {
                dec.error(
                    f.value,
                    ConfigErrorKind::MissingDescription {
                        hat: id.value.clone(),
                    },
                );
                None
            }
            other => other,
        },
        None => {
            dec.errors.push(ConfigError::new(
                id.origin.clone(),
                ConfigErrorKind::MissingDescription {
                    hat: id.value.clone(),
                },
            ));
            None
        }
    };
    let triggers = s.take("triggers").and_then(|f| dec.topics(&f));
    for topic in triggers.iter().flat_map(|t| &t.value) {
        if RESERVED_TRIGGERS.contains(&topic.value.as_str()) {
            dec.errors.push(ConfigError::new(
                topic.origin.clone(),
                ConfigErrorKind::ReservedTrigger {
                    hat: id.value.clone(),
                    topic: topic.value.clone(),
                },
            ));
        }
    }
    let publishes = s.take("publishes").and_then(|f| dec.topics(&f));
    let instructions = s.take("instructions").and_then(|f| dec.string(&f));
    let backend = s.take("backend").and_then(|f| hat_backend(dec, &f));
    let args = s.take("args").and_then(|f| dec.plain_strings(&f));
    let backend_args = s.take("backend_args").and_then(|f| dec.plain_strings(&f));
    let args = match (args, backend_args) {
        (Some(a), Some(b)) => {
            dec.errors.push(ConfigError::new(
                b.origin,
                ConfigErrorKind::Conflict {
                    key: format!("{path}.backend_args"),
                    other_key: format!("{path}.args"),
                    other: a.origin,
                },
            ));
            None
        }
        (a, b) => a.or(b),
    };
    let default_publishes = s.take("default_publishes").and_then(|f| dec.topic(&f));
    let max_activations = s.take("max_activations").and_then(|f| count(dec, &f));
    let deadlines: RawDeadlines = decode_deadlines(dec, &mut |key| s.take(key));
    let pty = s.take("pty").and_then(|f| dec.boolean(&f));
    s.finish();
    Some(RawHat {
        id,
        name,
        description,
        triggers,
        publishes,
        instructions,
        backend,
        args,
        default_publishes,
        max_activations,
        deadlines,
        pty,
    })
}

fn hat_backend(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<RawHatBackend>> {
    let origin = dec.origin(field.value);
    match &field.value.data {
        YamlData::Value(Scalar::String(name)) if name == super::choice::AUTO => {
            dec.error(
                field.value,
                ConfigErrorKind::HatBackend {
                    key: field.path.clone(),
                    problem: "cannot be `auto`: remove it, and the hat runs `cli.backend`",
                },
            );
            None
        }
        YamlData::Value(Scalar::String(_)) => backend_kind_node(dec, &field.path, field.value)
            .map(|kind| Spanned::new(RawHatBackend::Named(kind.value), origin)),
        YamlData::Mapping(_) => backend_mapping(dec, field).map(|b| Spanned::new(b, origin)),
        _ => {
            dec.error(
                field.value,
                ConfigErrorKind::WrongType {
                    key: field.path.clone(),
                    expected: EXPECTED_BACKEND,
                    found: describe(field.value),
                    hint: None,
                },
            );
            None
        }
    }
}

fn backend_mapping(dec: &mut Decoder, field: &Field<'_>) -> Option<RawHatBackend> {
    let schema = Schema {
        path: &field.path,
        keys: HAT_BACKEND_KEYS,
        unsupported: unsupported::HAT_BACKEND,
        related: &[],
    };
    let mut s = dec.section(field.value, &schema)?;
    let type_field = s.take("type");
    let command_field = s.take("command");
    let args = s.take("args").and_then(|f| dec.plain_strings(&f));
    let mode_field = s.take("prompt_mode");
    let flag_field = s.take("prompt_flag");
    let format_field = s.take("output_format");
    s.finish();
    match (type_field, command_field) {
        (Some(t), Some(c)) => {
            let other = dec.origin(t.key);
            dec.error(
                c.key,
                ConfigErrorKind::Conflict {
                    key: c.path,
                    other_key: t.path,
                    other,
                },
            );
            None
        }
        (Some(t), None) => {
            for f in [&mode_field, &flag_field, &format_field]
                .into_iter()
                .flatten()
            {
                let backend = match &t.value.data {
                    YamlData::Value(Scalar::String(s)) => s.to_string(),
                    _ => describe(t.value),
                };
                debug_assert!(CUSTOM_ONLY_KEYS.iter().any(|k| f.path.ends_with(k)));
                dec.warn(
                    f.key,
                    ConfigWarningKind::OnlyForCustom {
                        key: f.path.clone(),
                        backend,
                    },
                );
            }
            let kind = backend_kind_node(dec, &t.path, t.value)?;
            if kind.value == BackendKind::Custom {
                dec.error(
                    t.value,
                    ConfigErrorKind::HatBackend {
                        key: t.path,
                        problem: "cannot be `custom`: a custom backend needs a program, so write \
                                  `backend: {command: my-agent, ...}` instead",
                    },
                );
                return None;
            }
            Some(RawHatBackend::Typed { kind, args })
        }
        (None, Some(c)) => {
            let command = dec.nonempty_string(&c, "name the program to run")?;
            Some(RawHatBackend::Command {
                command,
                args,
                prompt_mode: mode_field.and_then(|f| prompt_mode(dec, &f)),
                prompt_flag: flag_field.and_then(|f| {
                    dec.nonempty_string(
                        &f,
                        "name the flag, or remove the key to pass the prompt as the last argument",
                    )
                }),
                output_format: format_field.and_then(|f| output_format(dec, &f)),
            })
        }
        (None, None) => {
            dec.error(
                field.value,
                ConfigErrorKind::HatBackend {
                    key: field.path.clone(),
                    problem: "needs `type` (a backend name, such as `type: pi`) or `command` \
                              (the program of a custom backend)",
                },
            );
            None
        }
    }
}
