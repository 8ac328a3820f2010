//! `gates:`: a list of checks, each a mapping of [`Section::Gate`]'s keys. The name and
//! the command are required and read here; the other keys as the key table says.
//! Checks that need the whole configuration (which events a gate may guard) wait for
//! `resolve.rs`.

use ralph_types::Invocation;
use saphyr::{Scalar, YamlData};

use super::describe::{describe, expected};
use super::error::{ConfigError, ConfigErrorKind};
use super::key::{Read, Section};
use super::node::{Decoder, Field, Node};
use super::origin::Spanned;
use super::raw::RawGate;

const NAME: &str = "name";
const RUN: &str = "run";

pub(crate) fn decode_gates(dec: &mut Decoder, field: &Field<'_>) -> Vec<RawGate> {
    let YamlData::Sequence(items) = &field.value.data else {
        dec.error(
            field.value,
            ConfigErrorKind::WrongType {
                key: field.path.clone(),
                expected: expected::GATE_LIST,
                found: describe(field.value),
                hint: None,
            },
        );
        return Vec::new();
    };
    let mut gates: Vec<RawGate> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let Some(gate) = decode_gate(dec, &format!("{}[{index}]", field.path), item) else {
            continue;
        };
        if let Some(first) = gates.iter().find(|g| g.name.value == gate.name.value) {
            let kind = ConfigErrorKind::DuplicateGate {
                name: gate.name.value.clone(),
                first: first.name.origin.clone(),
            };
            dec.errors.push(ConfigError::new(gate.name.origin, kind));
            continue;
        }
        gates.push(gate);
    }
    gates
}

fn decode_gate(dec: &mut Decoder, path: &str, node: &Node<'_>) -> Option<RawGate> {
    let mut s = dec.section(node, &Section::Gate.schema(path))?;
    let name_field = s.take(NAME);
    let run_field = s.take(RUN);
    let mut gate = RawGate {
        name: Spanned::new(String::new(), dec.origin(node)),
        run: None,
        before: None,
        timeout_seconds: None,
    };
    for key in Section::Gate.keys() {
        if let (Read::Gate(read), Some(f)) = (key.read, s.take(key.name)) {
            read(dec, &f, &mut gate);
        }
    }
    s.finish();
    let missing = |dec: &mut Decoder, key: &str, why| {
        dec.error(
            node,
            ConfigErrorKind::MissingKey {
                key: format!("{path}.{key}"),
                why,
            },
        );
    };
    let Some(name_field) = name_field else {
        missing(dec, NAME, NAME_WHY);
        return None;
    };
    gate.name = gate_name(dec, &name_field)?;
    match run_field {
        Some(f) => gate.run = invocation(dec, &f),
        None => missing(dec, RUN, RUN_WHY),
    }
    gate.run.is_some().then_some(gate)
}

const NAME_WHY: &str = "name the gate (letters, digits, `-`, `_` and `.`): ralph shows the \
                        name and names the gate's log file after it";
const RUN_WHY: &str = "give the command that checks the work, such as `run: cargo test`";

/// A gate's name: it names a log file, so it is kept to characters that are safe in one.
fn gate_name(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<String>> {
    let name = dec.nonempty_string(field, NAME_WHY)?;
    let safe = name
        .value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.value.starts_with('.');
    if !safe {
        dec.error(
            field.value,
            ConfigErrorKind::OutOfRange {
                key: field.path.clone(),
                requirement: "letters, digits, `-`, `_` and `.` (not first)".to_owned(),
                found: describe(field.value),
            },
        );
        return None;
    }
    Some(name)
}

/// A command: a string (run by `sh -c`) or a non-empty list of strings (argv).
pub(crate) fn invocation(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<Invocation>> {
    let origin = dec.origin(field.value);
    let invocation = match &field.value.data {
        YamlData::Value(Scalar::String(_)) => Invocation::Shell(dec.string(field)?.value),
        YamlData::Sequence(_) => Invocation::Argv(dec.plain_strings(field)?.value),
        _ => {
            dec.error(
                field.value,
                ConfigErrorKind::WrongType {
                    key: field.path.clone(),
                    expected: expected::COMMAND,
                    found: describe(field.value),
                    hint: None,
                },
            );
            return None;
        }
    };
    if invocation.is_empty() {
        dec.error(
            field.value,
            ConfigErrorKind::Empty {
                key: field.path.clone(),
                why: "give the program to run (and its arguments)",
            },
        );
        return None;
    }
    Some(Spanned::new(invocation, origin))
}
