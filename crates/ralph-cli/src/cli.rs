//! The command-line interface: every command, flag and its help.

use std::path::PathBuf;

use clap::Parser;
use clap::Subcommand;
use clap::ValueEnum;
use ralph_core::config::BackendChoice;
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
    ///   ralph inspect --model gpt-5 codex.jsonl
    ///
    /// Codex and Gemini CLI count tokens but report no cost: ralph estimates it from list
    /// prices, overridden by the `pricing:` of ~/.config/ralph/config.yml and ./ralph.yml.
    #[command(verbatim_doc_comment)]
    Inspect(InspectArgs),
    /// Run the loop: iterations of the agent, each with a fresh context, until the task
    /// is complete or a limit is reached.
    ///
    /// The task comes from -p, -P, or ralph.yml (`event_loop.prompt`/`prompt_file`, else
    /// PROMPT.md). Each iteration the agent gets the task, the scratchpad, the events it
    /// must handle and its hat's instructions; it hands over with `ralph emit` and says
    /// the task is done with `ralph emit LOOP_COMPLETE` (the completion promise). The run
    /// keeps its files under .ralph/runs/<id>/ (inbox, history, state, summary.md).
    ///
    /// Exit codes: 0 completed, 1 failed (bad config, too many failed iterations), 2 a
    /// limit was reached (iterations, runtime, cost, stale loop), 130 interrupted.
    ///
    /// Examples:
    ///   ralph run -p "Make the test suite pass"
    ///   ralph run -P PROMPT.md -b claude --max-iterations 20 --max-cost 5
    ///   ralph run --continue --max-iterations 40
    ///   ralph run --output json | jq -c 'select(.type=="iteration_finished")'
    #[command(verbatim_doc_comment)]
    Run(RunArgs),
    /// Publish an event to the running loop (agents call this).
    ///
    /// Appends one line to the run's event inbox: `$RALPH_EVENTS_FILE` (set for agents
    /// started by `ralph run`), else the current run under .ralph/.
    ///
    /// Examples:
    ///   ralph emit build.done "tests pass; added the --json flag"
    ///   ralph emit review.rejected --json '{"file": "src/cli.rs", "why": "no tests"}'
    ///   ralph emit LOOP_COMPLETE
    #[command(verbatim_doc_comment)]
    Emit(EmitArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The task, as text.
    #[arg(short = 'p', long, value_name = "TEXT")]
    pub(crate) prompt: Option<String>,
    /// The task, from a file.
    #[arg(short = 'P', long, value_name = "FILE")]
    pub(crate) prompt_file: Option<PathBuf>,
    /// Read this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// The agent: a backend name, or `auto` for the first one installed.
    #[arg(short = 'b', long, value_name = "NAME", value_parser = parse_backend)]
    pub(crate) backend: Option<BackendChoice>,
    /// Stop after this many iterations.
    #[arg(long, value_name = "N")]
    pub(crate) max_iterations: Option<u32>,
    /// Stop once the agents have reported this much cost, in US dollars.
    #[arg(long, value_name = "USD")]
    pub(crate) max_cost: Option<f64>,
    /// Stop after this many seconds (an iteration in progress is stopped too).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) max_runtime: Option<u64>,
    /// The topic that says the task is done (default LOOP_COMPLETE).
    #[arg(long, value_name = "TOPIC")]
    pub(crate) completion_promise: Option<String>,
    /// Print the resolved configuration and exit without running anything.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Resume the last run: its iteration count, cost, runtime and pending events.
    #[arg(long = "continue")]
    pub(crate) resume: bool,
    /// `text` for people, `json` for programs (JSON lines on stdout, schema in
    /// docs/run-events.md).
    #[arg(long, value_enum, default_value_t = OutputArg::Text)]
    pub(crate) output: OutputArg,
}

/// How `ralph run` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputArg {
    Text,
    Json,
}

fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    s.parse::<BackendChoice>().map_err(|e| e.to_string())
}

#[derive(Debug, clap::Args)]
pub(crate) struct EmitArgs {
    /// The event's topic, such as `build.done` (letters, digits, `_`, `-`, `.`).
    pub(crate) topic: String,
    /// What to tell the next hat: text, or JSON with --json.
    #[arg(allow_hyphen_values = true)]
    pub(crate) payload: Option<String>,
    /// The payload is JSON (checked, stored as JSON).
    #[arg(short = 'j', long)]
    pub(crate) json: bool,
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
    /// The model the agent was asked to use, to estimate the cost of a stream that counts
    /// tokens but names no model and reports no cost (Codex).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// Read prices (`pricing:`) from this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
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
