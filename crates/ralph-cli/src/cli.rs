//! The command-line interface: every command, flag and its help.

use std::path::PathBuf;

use clap::Parser;
use clap::Subcommand;
use clap::ValueEnum;
use ralph_stream::StreamFormat;

/// ralph keeps an AI coding agent working in a loop until a task is verifiably done.
#[derive(Debug, Parser)]
#[command(name = "ralph", version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Summarize a captured agent stream: cost, tokens, turns, errors, final text.
    ///
    /// Reads what an agent CLI wrote on stdout (a file, or stdin with `-`) and prints one
    /// JSON object, or with --events the normalized events as JSON lines (schema in
    /// docs/events.md).
    ///
    /// Examples:
    ///   pi -p --mode json "fix the tests" </dev/null | tee run.jsonl | ralph inspect
    ///   ralph inspect --agent claude --events session.jsonl | jq 'select(.type=="tool_call_started")'
    ///   ralph inspect --view -v run.jsonl | less -R
    #[command(verbatim_doc_comment)]
    Inspect(InspectArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct InspectArgs {
    /// Which agent wrote the stream; `auto` recognises it from the first events.
    #[arg(long, value_enum, default_value_t = AgentArg::Auto)]
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
    /// The captured stream; `-` or nothing reads stdin.
    pub(crate) file: Option<PathBuf>,
}

/// An agent stream format, or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum AgentArg {
    Auto,
    Pi,
    Claude,
    Codex,
    Gemini,
    Opencode,
    Copilot,
    Text,
}

impl AgentArg {
    pub(crate) fn format(self) -> Option<StreamFormat> {
        match self {
            AgentArg::Auto => None,
            AgentArg::Pi => Some(StreamFormat::Pi),
            AgentArg::Claude => Some(StreamFormat::Claude),
            AgentArg::Codex => Some(StreamFormat::Codex),
            AgentArg::Gemini => Some(StreamFormat::Gemini),
            AgentArg::Opencode => Some(StreamFormat::Opencode),
            AgentArg::Copilot => Some(StreamFormat::Copilot),
            AgentArg::Text => Some(StreamFormat::Text),
        }
    }
}

/// When to color terminal output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorArg {
    /// When stdout is a terminal and `NO_COLOR` is not set.
    Auto,
    Always,
    Never,
}

impl ColorArg {
    pub(crate) fn choice(self) -> anstream::ColorChoice {
        match self {
            ColorArg::Auto => anstream::ColorChoice::Auto,
            ColorArg::Always => anstream::ColorChoice::Always,
            ColorArg::Never => anstream::ColorChoice::Never,
        }
    }
}
