//! The keys of a gate (see `keys.rs` for the table's form).

use super::key::defaults as d;
use super::key::{Dump, Init, Key, Read, Section, Type};
use super::keys::{key, value};
use super::read;
use super::yaml_value::{invocation, seconds, string, strings};

use super::key::Default::{Required, Unset};
use Section::Gate;

/// Not reformatted by rustfmt, so that each entry stays one compact unit.
#[rustfmt::skip]
pub(super) static GATE_KEYS: &[Key] = &[
    // gates[]
    key(Gate, "name", Type::NonEmptyText, Required,
        "The gate's name (letters, digits, `-`, `_`, `.`), shown in the view and naming its log \
         file.",
        Init::InExample,
        Dump::Gate(|g| Some(string(&g.name))),
        Read::Own),
    key(Gate, "run", Type::Command, Required,
        "The command; it passes when it exits 0.", Init::InExample,
        Dump::Gate(|g| Some(invocation(&g.run))),
        Read::Own),
    key(Gate, "before", Type::Topics, Unset("the completion promise"),
        "The events that count only once this gate passes: the completion promise or topics \
         hats publish. Gates guarding one event run in order, each only if the one before \
         passed.",
        Init::InExample,
        Dump::Gate(|g| Some(strings(&g.before))),
        Read::Gate(|dec, f, g| g.before = dec.topics(f))),
    key(Gate, "timeout_seconds", Type::Seconds, value(d::GATE_TIMEOUT),
        "Past this, the gate is stopped (its whole process group) and fails.", Init::InExample,
        Dump::Gate(|g| Some(seconds(g.timeout))),
        Read::Gate(|dec, f, g| g.timeout_seconds = read::seconds(dec, f))),
];
