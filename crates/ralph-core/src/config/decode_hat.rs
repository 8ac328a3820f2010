//! `hats:`: each hat's keys (read as the key table says), its description (which every
//! hat needs) and its backend in any of the three forms.

use ralph_types::BackendKind;
use saphyr::{Scalar, YamlData};

use super::choice::AUTO;
use super::describe::describe;
use super::error::{ConfigError, ConfigErrorKind, ConfigWarningKind};
use super::key::{Read, Section};
use super::node::{Decoder, Field, Node, join_path};
use super::origin::Spanned;
use super::raw::{RawHat, RawHatBackend, SpannedList};
use super::read::{self, backend_kind_node};
use crate::topic::{DEFAULT_HAT, validate_topic};

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
            } else if id.value == DEFAULT_HAT {
                dec.errors.push(ConfigError::new(
                    id.origin.clone(),
                    ConfigErrorKind::ReservedHatId {
                        id: id.value.clone(),
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
    let mut s = dec.section(value, &Section::Hat.schema(&path))?;
    let mut hat = RawHat::new(id);
    let mut description = None;
    for key in Section::Hat.keys() {
        let field = s.take(key.name);
        match (key.read, field) {
            (Read::Hat(read), Some(f)) => read(dec, &f, &mut hat),
            // The keys this section reads itself (see `Read::Own`).
            (Read::Own, f) if key.name == DESCRIPTION => description = Some(f),
            (Read::Own, Some(f)) if key.name == BACKEND => hat.backend = hat_backend(dec, &f),
            _ => {}
        }
    }
    s.finish();
    hat.description = self::description(dec, &hat.id, description.flatten());
    Some(hat)
}

const DESCRIPTION: &str = "description";
const BACKEND: &str = "backend";

/// The description every hat needs: the agent reads it to know which hat does what.
fn description(
    dec: &mut Decoder,
    id: &Spanned<String>,
    field: Option<Field<'_>>,
) -> Option<Spanned<String>> {
    let missing = ConfigErrorKind::MissingDescription {
        hat: id.value.clone(),
    };
    let Some(f) = field else {
        dec.errors
            .push(ConfigError::new(id.origin.clone(), missing));
        return None;
    };
    match dec.string(&f) {
        Some(d) if d.value.trim().is_empty() => {
            dec.error(f.value, missing);
            None
        }
        other => other,
    }
}

/// A backend in its three forms: a hat's `backend`, and each item of a `fallback` list.
pub(crate) fn hat_backend(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<RawHatBackend>> {
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
    let mut s = dec.section(field.value, &Section::HatBackend.schema(&field.path))?;
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
                prompt_mode: mode_field.and_then(|f| read::prompt_mode(dec, &f)),
                prompt_flag: flag_field
                    .and_then(|f| dec.nonempty_string(&f, read::PROMPT_FLAG_WHY)),
                output_format: format_field.and_then(|f| read::output_format(dec, &f)),
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

/// `fallback` (under `cli` and per hat): a list of backends, each in the forms of a hat's
/// `backend` (read by the same code).
pub(crate) fn fallback(dec: &mut Decoder, field: &Field<'_>) -> Option<SpannedList<RawHatBackend>> {
    let YamlData::Sequence(items) = &field.value.data else {
        dec.wrong_type(&field.path, field.value, FALLBACK_EXPECTED);
        return None;
    };
    let errors_before = dec.errors.len();
    let backends: Vec<_> = items
        .iter()
        .filter_map(|item| {
            if let YamlData::Value(Scalar::String(name)) = &item.data
                && name == AUTO
            {
                dec.error(
                    item,
                    ConfigErrorKind::HatBackend {
                        key: field.path.clone(),
                        problem: "cannot name `auto`: name the backend to fail over to",
                    },
                );
                return None;
            }
            let item_field = Field {
                path: field.path.clone(),
                key: item,
                value: item,
            };
            hat_backend(dec, &item_field)
        })
        .collect();
    (dec.errors.len() == errors_before).then(|| Spanned::new(backends, dec.origin(field.value)))
}

const FALLBACK_EXPECTED: &str = "a list of backends (names, or mappings with `type` or `command`)";
