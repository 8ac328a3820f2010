//! The arguments of `ralph inspect` (see `commands/inspect.rs`), and the agent value
//! that names a stream format.

use std::path::PathBuf;

use clap::ValueEnum;
use clap::builder::PossibleValue;
use ralph_core::config::AUTO;
use ralph_stream::StreamFormat;

use crate::cli::ColorArg;

#[derive(Debug, clap::Args)]
pub(crate) struct InspectArgs {
    /// Which agent wrote the stream; `auto` recognises it from the first events.
    #[arg(long, value_enum, default_value_t = AgentArg::AUTO)]
    pub(crate) agent: AgentArg,
    /// Print the normalized events as JSON lines instead of the summary.
    #[arg(long, conflicts_with = "view")]
    pub(crate) events: bool,
    /// Show the run as a person would have seen it live (text, tool calls, failures).
    #[arg(long)]
    pub(crate) view: bool,
    /// With --view: also show thinking, tool output and non-JSON lines.
    #[arg(short, long, requires = "view")]
    pub(crate) verbose: bool,
    /// With --view: when to use colors (`NO_COLOR` is honoured for `auto`).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
    /// The model the agent was asked to use, to estimate the cost of a stream that counts
    /// tokens but names no model and reports no cost (Codex).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// Read prices (`pricing:`) from this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
    /// Read an iteration's kept transcript of this run instead of a file: an id from
    /// `ralph runs`, or `last`.
    #[arg(
        long,
        value_name = "ID",
        requires = "iteration",
        conflicts_with = "file"
    )]
    pub(crate) run: Option<String>,
    /// With --run: the iteration whose transcript to read (its latest attempt, unless
    /// --attempt); with ralph's `--output json` capture: the iteration whose agent events
    /// to read (all by default).
    #[arg(long, value_name = "N")]
    pub(crate) iteration: Option<u32>,
    /// With --iteration: which attempt at it to read, counting from 1 (an attempt that hit
    /// a rate limit ran again as the next, under the same iteration number). By default
    /// the latest with --run, and every attempt with a capture.
    #[arg(
        long,
        value_name = "K",
        requires = "iteration",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub(crate) attempt: Option<u32>,
    /// The captured stream (an agent's stdout, a transcript's `stdout.zst`, or ralph's
    /// `--output json`); `-` or nothing reads stdin.
    pub(crate) file: Option<PathBuf>,
}

/// An agent stream format, or `auto`. Its values are the formats' names (ralph-types'
/// agent table) after `auto`, so a new format is a new value here without an edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AgentArg(Option<StreamFormat>);

impl AgentArg {
    /// Recognise the format from the first events.
    pub(crate) const AUTO: AgentArg = AgentArg(None);

    /// `auto`, then every format in [`StreamFormat::ALL`]'s order.
    const VALUES: [AgentArg; StreamFormat::ALL.len() + 1] = {
        let mut values = [AgentArg::AUTO; StreamFormat::ALL.len() + 1];
        let mut i = 0;
        while i < StreamFormat::ALL.len() {
            values[i + 1] = AgentArg(Some(StreamFormat::ALL[i]));
            i += 1;
        }
        values
    };

    pub(crate) fn format(self) -> Option<StreamFormat> {
        self.0
    }
}

impl ValueEnum for AgentArg {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::VALUES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.map_or(AUTO, StreamFormat::name)))
    }
}

#[cfg(test)]
#[path = "cli_inspect_tests.rs"]
mod tests;
