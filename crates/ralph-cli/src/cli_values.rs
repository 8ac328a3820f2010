//! The flags whose values are a closed list ralph knows (backends, presets) but checks
//! in its own words: clap is told the list, so that `--help` shows it and the shells'
//! completions offer it instead of file names, while a value outside it is refused
//! with ralph's message (the names it takes, a "did you mean", a preset of
//! ralph-orchestrator explained), not clap's.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};
use ralph_core::config::{BackendChoice, PRESETS};

/// `-b/--backend NAME`: `auto` or a backend of the one list of agent names.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BackendParser;

impl TypedValueParser for BackendParser {
    type Value = BackendChoice;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<BackendChoice, clap::Error> {
        parse_backend.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(BackendChoice::names().map(PossibleValue::new)))
    }
}

fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    s.parse::<BackendChoice>().map_err(|e| e.to_string())
}

/// `ralph init --preset NAME`: any text is taken here, and `ralph init` says what is
/// wrong with a name that is no built-in preset (its did-you-mean, a preset of
/// ralph-orchestrator and what ralph does instead), which clap's own check could not.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PresetParser;

impl TypedValueParser for PresetParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            PRESETS
                .iter()
                .map(|p| PossibleValue::new(p.name).help(p.description)),
        ))
    }
}

#[cfg(test)]
#[path = "cli_values_tests.rs"]
mod tests;
