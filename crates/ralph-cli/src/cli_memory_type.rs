//! The one parser of a memory type on the command line (`-t fix`, `-t Fix`, `-t DECISION`).
//!
//! Every `-t` of `ralph tools memory` goes through it, so that `add`, `list`, `search` and
//! `prime` agree. Agents write the type the way they like; the incumbent accepted any case,
//! so ralph does too, through `MemoryType::from_name`. The help still lists the canonical
//! lowercase names.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use ralph_core::memory::MemoryType;

/// Parses a memory type, ignoring case; lists `pattern, decision, fix, context` in help.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MemoryTypeParser;

impl TypedValueParser for MemoryTypeParser {
    type Value = MemoryType;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<MemoryType, clap::Error> {
        let text = value.to_string_lossy();
        MemoryType::from_name(&text).ok_or_else(|| {
            // Clap's own layout of a bad value: "invalid value 'x' for '--type <TYPE>'"
            // and the possible values, so that it reads like every other bad argument.
            let mut err = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
            if let Some(arg) = arg {
                err.insert(
                    ContextKind::InvalidArg,
                    ContextValue::String(arg.to_string()),
                );
            }
            err.insert(
                ContextKind::InvalidValue,
                ContextValue::String(text.into_owned()),
            );
            err.insert(
                ContextKind::ValidValue,
                ContextValue::Strings(MemoryType::ALL.map(|t| t.name().to_owned()).to_vec()),
            );
            err
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            MemoryType::ALL
                .into_iter()
                .map(|t| PossibleValue::new(t.name())),
        ))
    }
}

#[cfg(test)]
#[path = "cli_memory_type_tests.rs"]
mod tests;
