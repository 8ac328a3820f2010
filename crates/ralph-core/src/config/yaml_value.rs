//! Building the YAML values `--dry-run` writes (see [`super::keys::Dump`]).

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use saphyr::{Mapping, Scalar, Yaml};

/// An ordered mapping under construction.
#[derive(Default)]
pub(crate) struct Map(Mapping<'static>);

impl Map {
    pub(crate) fn entry(&mut self, key: &'static str, value: Yaml<'static>) {
        self.0.insert(string(key), value);
    }

    pub(crate) fn entry_owned(&mut self, key: String, value: Yaml<'static>) {
        self.0
            .insert(Yaml::Value(Scalar::String(Cow::Owned(key))), value);
    }

    pub(crate) fn opt(&mut self, key: &'static str, value: Option<Yaml<'static>>) {
        if let Some(v) = value {
            self.entry(key, v);
        }
    }

    pub(crate) fn into_yaml(self) -> Yaml<'static> {
        Yaml::Mapping(self.0)
    }
}

pub(crate) fn string(s: &str) -> Yaml<'static> {
    Yaml::Value(Scalar::String(Cow::Owned(s.to_owned())))
}

pub(crate) fn strings(items: &[String]) -> Yaml<'static> {
    Yaml::Sequence(items.iter().map(|s| string(s)).collect())
}

pub(crate) fn path_value(path: &Path) -> Yaml<'static> {
    string(&path.display().to_string())
}

pub(crate) fn number(n: f64) -> Yaml<'static> {
    Yaml::Value(Scalar::FloatingPoint(n.into()))
}

pub(crate) fn int(n: i64) -> Yaml<'static> {
    Yaml::Value(Scalar::Integer(n))
}

pub(crate) fn boolean(b: bool) -> Yaml<'static> {
    Yaml::Value(Scalar::Boolean(b))
}

pub(crate) fn seconds(d: Duration) -> Yaml<'static> {
    // Durations here come from whole seconds in the config, which fit in an i64.
    int(i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A command as written: a string, or a list of words.
pub(crate) fn invocation(command: &ralph_types::Invocation) -> Yaml<'static> {
    match command {
        ralph_types::Invocation::Shell(line) => string(line),
        ralph_types::Invocation::Argv(argv) => strings(argv),
    }
}
