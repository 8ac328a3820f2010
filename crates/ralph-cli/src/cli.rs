//! The command-line interface: every command, flag and its help.

use std::path::PathBuf;

use clap::Parser;
use clap::Subcommand;
use clap::ValueEnum;
use ralph_core::config::{BackendChoice, HatsSource};

pub(crate) use crate::cli_inspect::InspectArgs;
use crate::cli_values::{BackendParser, PresetParser};

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
    /// JSON object (indented on a terminal, one line in a pipe), or with --events the
    /// normalized events as JSON lines (schema in docs/events.md), or with --view the run
    /// as it looked live, closed by its verdict line.
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
    /// must handle and its hat's instructions; it hands over with `ralph emit` and, in an
    /// iteration that succeeds, says the task is done with `ralph emit LOOP_COMPLETE` (the
    /// completion promise) as its last event, or by ending its final answer with a line
    /// that holds only the promise (the promise elsewhere in the answer, or from an
    /// iteration that failed, does not count, and ralph says so). The run keeps its files under .ralph/runs/<id>/ (inbox, history,
    /// state, summary.md).
    ///
    /// Exit codes: 0 completed, 1 failed (bad config, too many failed iterations), 2 a
    /// limit was reached (iterations, runtime, cost, stale loop), 130 interrupted.
    ///
    /// Examples:
    ///   ralph run -p "Make the test suite pass"
    ///   ralph run -P PROMPT.md -b claude --max-iterations 20 --max-cost 5
    ///   ralph run -H builtin:debug -p "tests/parse.rs::empty_input fails"
    ///   ralph run --continue --max-iterations 40
    ///   ralph run -q -p "Fix the lint warnings" && git commit -qam "Fix lint"
    ///   ralph run --output json | jq -c 'select(.type=="iteration_finished")'
    ///   ralph run --worktree=fix-parser -P tasks/fix-parser.md
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
    /// Write a commented ralph.yml in this directory.
    ///
    /// Every key is shown with its default and a comment; the file is checked before it
    /// is written. An existing file is kept unless --force is given. With --preset the
    /// file carries a built-in workflow's hats (docs/presets.md).
    ///
    /// Examples:
    ///   ralph init
    ///   ralph init --backend pi
    ///   ralph init --backend claude --force
    ///   ralph init -c ci/ralph.yml --backend codex
    ///   ralph init --list-presets
    ///   ralph init --preset code-assist --backend pi
    #[command(verbatim_doc_comment)]
    Init(InitArgs),
    /// Plan with the agent: an interactive session that ends with a spec to run.
    ///
    /// Starts the agent's own interactive mode (pi: `pi --no-session <prompt>`) in this
    /// terminal, with a prompt that has it ask about IDEA and write a spec under
    /// `core.specs_dir` (default .ralph/specs/). Then `ralph run -P <spec>` carries it
    /// out. The agent is the one ralph.yml names, or the first one installed.
    ///
    /// Examples:
    ///   ralph plan "a command that prunes old runs"
    ///   ralph plan -b pi
    ///   ralph plan --dry-run "dark mode"    # print the command line only
    #[command(verbatim_doc_comment)]
    Plan(PlanArgs),
    /// Check the setup: which agents are installed, their versions, the exact command
    /// line ralph would run, and whether the configuration is valid.
    ///
    /// Exits 1 when the configuration is broken or an agent it names is not installed.
    ///
    /// Examples:
    ///   ralph doctor
    ///   ralph doctor --format json | jq '.backends[] | select(.installed) | .name'
    ///   ralph doctor -c ci/ralph.yml
    #[command(verbatim_doc_comment)]
    Doctor(DoctorArgs),
    /// Show the current (or last) run's iterations and the events they emitted.
    ///
    /// One row per event (an iteration that produced none gets a row of its own):
    /// when, which iteration and hat, how it went, who published it (the agent; ralph
    /// itself: task.resume, <hat>.exhausted, gate.failed; the hat's default; a person),
    /// the topic (marked when a gate withheld it) and its payload. Events emitted by an
    /// iteration still running are shown too.
    ///
    /// Examples:
    ///   ralph events
    ///   ralph events --last 5
    ///   ralph events --topic 'review.*'
    ///   ralph events --format json | jq -r .topic
    #[command(verbatim_doc_comment)]
    Events(EventsArgs),
    /// List the workspace's runs, newest first, or prune the old ones.
    ///
    /// One row per run: its id, when it started, how long it took, how it ended
    /// (`running` while a loop runs it, `unfinished` when its ralph was killed), its
    /// iterations, cost, tokens and the iterations of each hat. Each run's files are in
    /// .ralph/runs/<id>/; `ralph inspect --run ID --iteration N` reads an iteration's
    /// transcript, `ralph events --run ID` its events.
    ///
    /// Examples:
    ///   ralph runs
    ///   ralph runs --format json | jq -r 'select(.outcome=="completed") | .id'
    ///   ralph runs prune --keep 5
    ///   ralph runs land fix-parser --check 'cargo test'
    ///   ralph runs rm fix-parser
    ///
    /// In a checkout with worktree loops (`ralph run --worktree`), a second table lists
    /// them: name, branch, status, exit code, iterations, cost, commits ahead of the
    /// base, and the host and pid of a loop that is alive.
    #[command(verbatim_doc_comment)]
    Runs(RunsArgs),
    /// Run the configured gates now, as `ralph run` runs them after an iteration.
    ///
    /// Each gate (or only those named) runs in the workspace under its timeout, in the
    /// order ralph.yml lists them, with the same view as a run; every one runs, even
    /// after one fails. Output goes to .ralph/gates/<name>.log. Exits 0 when all pass,
    /// 1 otherwise. Useful in CI and to test a gate before a loop depends on it.
    ///
    /// Examples:
    ///   ralph gates
    ///   ralph gates tests lint
    ///   ralph gates --output json | jq -c 'select(.type=="gate_finished")'
    #[command(verbatim_doc_comment)]
    Gates(GatesArgs),
    /// The agent's working memory: `ralph tools task|memory|skill …`.
    ///
    /// Commands an agent runs (through its shell) to keep what outlives one iteration;
    /// the same commands and files as ralph-orchestrator's `ralph tools`.
    #[command(verbatim_doc_comment)]
    Tools(crate::cli_tools::ToolsArgs),
    /// Print a shell completion script.
    ///
    /// Examples:
    ///   ralph completions bash > ~/.local/share/bash-completion/completions/ralph
    ///   ralph completions zsh > "${fpath[1]}/_ralph"
    ///   ralph completions fish > ~/.config/fish/completions/ralph.fish
    #[command(verbatim_doc_comment)]
    Completions(CompletionsArgs),
    /// Check the lifecycle hooks (`hooks:` in ralph.yml), or let a loop a hook suspended
    /// go on.
    ///
    /// `validate` checks the section and that each hook's command exists and can be run;
    /// it exits 1 when one cannot. `resume` ends the wait of a loop held by an
    /// `on_error: suspend` hook in this workspace; it exits 1 when no loop waits.
    ///
    /// Examples:
    ///   ralph hooks validate
    ///   ralph hooks validate -c ci/ralph.yml --format json
    ///   ralph hooks resume
    #[command(verbatim_doc_comment)]
    Hooks(HooksArgs),
    /// Watch a run full-screen from another terminal: iterations, transcripts, search.
    ///
    /// Follows the run's .ralph/runs/<id>/run-events.jsonl as the loop writes it (the
    /// workspace's current run by default), or browses a finished run. Only reads: the loop
    /// never waits for it, and `q` leaves it running. `?` lists the keys.
    ///
    /// Examples:
    ///   ralph watch
    ///   ralph watch 20260101T120000Z
    #[command(verbatim_doc_comment)]
    Watch(WatchArgs),
    /// Guide the running loop: a message for its agent, now or in the next prompt.
    ///
    /// Run it in the workspace (any directory inside it) while `ralph run` works. The
    /// message goes into the running agent's turn when its backend takes messages then,
    /// otherwise into the next iteration's prompt, under its own heading; it prints where
    /// it went (`queued for iteration 3`). Every message is kept in the run's
    /// steering.jsonl. Exits 1 when no loop runs, or when the loop did not answer.
    ///
    /// Examples:
    ///   ralph steer "the parser already exists in src/parse.rs; reuse it"
    ///   ralph steer --next "after this, write the docs"
    #[command(verbatim_doc_comment)]
    Steer(SteerArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// The agent: a backend name, or `auto` for the first one installed.
    #[arg(short = 'b', long, value_name = "NAME", value_parser = BackendParser, default_value = "auto")]
    pub(crate) backend: BackendChoice,
    /// Overwrite an existing file.
    #[arg(long)]
    pub(crate) force: bool,
    /// Write this file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
    /// Write the workflow of this built-in preset (its hats and their events).
    #[arg(long, value_name = "NAME", value_parser = PresetParser)]
    pub(crate) preset: Option<String>,
    /// Print the built-in presets, one a line (name, then what it is for), and exit.
    // Not in conflict with `config`: that may come from `$RALPH_CONFIG`, which a
    // listing has no reason to refuse.
    #[arg(long, conflicts_with_all = ["preset", "force"])]
    pub(crate) list_presets: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct PlanArgs {
    /// What to build or change, in a few words (the agent asks about the rest).
    // Not `trailing_var_arg`: with it every word after the idea's first went into the idea,
    // so `ralph plan "dark mode" -b pi` planned "dark mode -b pi" with the default agent.
    // Without it the idea's words and the flags mix in any order, and a word that looks
    // like a flag but is none is refused (the idea in quotes takes it).
    #[arg(value_name = "IDEA")]
    pub(crate) idea: Vec<String>,
    /// The agent: a backend name, or `auto` for the first one installed.
    #[arg(short = 'b', long, value_name = "NAME", value_parser = BackendParser)]
    pub(crate) backend: Option<BackendChoice>,
    /// Read this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
    /// Print the agent's command line instead of starting it.
    #[arg(long)]
    pub(crate) dry_run: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct DoctorArgs {
    /// `text` for people, `json` for programs (one JSON object).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub(crate) format: FormatArg,
    /// Check this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
    /// Check it with these hats (`builtin:NAME` or a YAML file), as `ralph run -H` would
    /// use them.
    #[arg(short = 'H', long = "hats", value_name = "HATS", value_parser = parse_hats)]
    pub(crate) hats: Option<HatsSource>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct EventsArgs {
    /// Show this run instead of the current one: an id from `ralph runs`, or `last`.
    #[arg(long, value_name = "ID")]
    pub(crate) run: Option<String>,
    /// Only the last N rows.
    #[arg(long, value_name = "N")]
    pub(crate) last: Option<usize>,
    /// Only events of this topic; `*` matches any characters (`review.*`).
    #[arg(long, value_name = "TOPIC")]
    pub(crate) topic: Option<String>,
    /// `table` for people, `json` for programs (one JSON object per line).
    #[arg(long, value_enum, default_value_t = TableArg::Table)]
    pub(crate) format: TableArg,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RunsArgs {
    #[command(subcommand)]
    pub(crate) command: Option<RunsCommand>,
    /// `table` for people, `json` for programs (one JSON object per run).
    #[arg(long, value_enum, default_value_t = TableArg::Table)]
    pub(crate) format: TableArg,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum RunsCommand {
    /// Delete all runs but the newest N (the current run is always kept).
    Prune(PruneArgs),
    /// Land a worktree loop: rebase its branch onto its base, check it, fast-forward the
    /// base. Exits 1 (keeping the branch) on a conflict or a failed check.
    Land(crate::cli_runs::LandArgs),
    /// Remove a worktree loop's worktree and branch.
    Rm(crate::cli_runs::RmArgs),
}

/// Runs `ralph runs prune` keeps when not told.
pub(crate) const DEFAULT_KEEP_RUNS: usize = 10;

#[derive(Debug, clap::Args)]
pub(crate) struct PruneArgs {
    /// How many of the newest runs to keep.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_KEEP_RUNS)]
    pub(crate) keep: usize,
}

#[derive(Debug, clap::Args)]
pub(crate) struct HooksArgs {
    #[command(subcommand)]
    pub(crate) command: HooksCommand,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum HooksCommand {
    /// Check the `hooks:` section and that each hook's command can start.
    Validate(HooksValidateArgs),
    /// Let the loop a suspending hook holds in this workspace go on.
    Resume,
}

#[derive(Debug, clap::Args)]
pub(crate) struct HooksValidateArgs {
    /// `text` for people, `json` for programs (one JSON object per hook).
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    pub(crate) format: FormatArg,
    /// Check this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// Output for people or programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FormatArg {
    Text,
    Json,
}

/// A table for people, or JSON lines for programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TableArg {
    Table,
    Json,
}

#[derive(Clone, Debug, clap::Args)]
pub(crate) struct RunArgs {
    /// The task, as text.
    #[arg(short = 'p', long, value_name = "TEXT")]
    pub(crate) prompt: Option<String>,
    /// The task, from a file.
    #[arg(short = 'P', long, value_name = "FILE")]
    pub(crate) prompt_file: Option<PathBuf>,
    /// Read this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
    /// Use these hats instead of the config's: `builtin:NAME` (a preset, see `ralph init
    /// --list-presets`) or a YAML file; the rest still comes from ralph.yml.
    // The value's name has no colon: zsh's completion spec would end a field there.
    #[arg(short = 'H', long = "hats", value_name = "HATS", value_parser = parse_hats)]
    pub(crate) hats: Option<HatsSource>,
    /// The agent: a backend name, or `auto` for the first one installed.
    #[arg(short = 'b', long, value_name = "NAME", value_parser = BackendParser)]
    pub(crate) backend: Option<BackendChoice>,
    /// Stop after this many iterations.
    #[arg(long, value_name = "N")]
    pub(crate) max_iterations: Option<u32>,
    /// Stop once the agents have reported this much cost, in US dollars.
    #[arg(long, value_name = "USD")]
    pub(crate) max_cost: Option<f64>,
    /// Stop after this many seconds (the agent, gate or hook running then is stopped too).
    #[arg(long, value_name = "SECONDS")]
    pub(crate) max_runtime: Option<u64>,
    /// The topic that says the task is done (default LOOP_COMPLETE).
    #[arg(long, value_name = "TOPIC")]
    pub(crate) completion_promise: Option<String>,
    /// Print the resolved configuration (YAML) and exit without running anything.
    // Not with `--output`: its JSON lines are run events (docs/run-events.schema.json),
    // and a YAML dump on a stdout promised to hold only those would break its reader.
    #[arg(long, conflicts_with = "output")]
    pub(crate) dry_run: bool,
    /// Run no gates: the events they guard are believed as the agent publishes them.
    #[arg(long)]
    pub(crate) no_gates: bool,
    /// Resume the last run: its iteration count, cost, runtime and pending events, and
    /// what its command line gave (--max-iterations, --max-cost, --max-runtime,
    /// --completion-promise, -b, -H) unless given again.
    #[arg(long = "continue")]
    pub(crate) resume: bool,
    /// `text` for people, `json` for programs (JSON lines on stdout, schema in
    /// docs/run-events.md).
    #[arg(long, value_enum, default_value_t = OutputArg::Text)]
    pub(crate) output: OutputArg,
    /// Print only why the loop stopped, its totals and where summary.md is.
    #[arg(short, long, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Also show the agent's thinking, its tools' output and its non-JSON lines.
    #[arg(short, long)]
    pub(crate) verbose: bool,
    /// When to use colors (`auto`: when stdout is a terminal and `NO_COLOR` is not set).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
    /// Show the run full-screen: iterations, transcripts, search, export (`?` for keys;
    /// `q` asks, then stops the loop as Ctrl-C does).
    #[arg(long, conflicts_with_all = ["output", "quiet", "verbose"])]
    pub(crate) tui: bool,
    /// Run in a new git worktree, .ralph/worktrees/NAME on branch ralph/NAME (NAME made
    /// from the task when not given), with its own .ralph/; see `ralph runs`.
    #[arg(long, value_name = "NAME", num_args = 0..=1, require_equals = true,
          default_missing_value = "", conflicts_with_all = ["resume", "dry_run"])]
    pub(crate) worktree: Option<String>,
    /// With --worktree: the branch or commit to start from and land on (default HEAD).
    #[arg(long, value_name = "REF", requires = "worktree")]
    pub(crate) base: Option<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// The run: its id under .ralph/runs/, or its directory (default: the current run).
    #[arg(value_name = "RUN")]
    pub(crate) run: Option<String>,
    /// When to use colors (`auto`: when stdout is a terminal and `NO_COLOR` is not set).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
}

#[derive(Debug, clap::Args)]
pub(crate) struct SteerArgs {
    /// What to tell the agent.
    #[arg(allow_hyphen_values = true)]
    pub(crate) message: String,
    /// Wait for the next iteration's prompt even when the running agent could take it now.
    #[arg(long)]
    pub(crate) next: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct GatesArgs {
    /// The gates to run (all when none is named).
    #[arg(value_name = "NAME")]
    pub(crate) names: Vec<String>,
    /// Read this config file instead of ./ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG)]
    pub(crate) config: Option<PathBuf>,
    /// `text` for people, `json` for programs (`gate_started`/`gate_finished` lines, as in
    /// docs/run-events.md).
    #[arg(long, value_enum, default_value_t = OutputArg::Text)]
    pub(crate) output: OutputArg,
    /// When to use colors (`auto`: when stdout is a terminal and `NO_COLOR` is not set).
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
}

/// How `ralph run` reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutputArg {
    Text,
    Json,
}

fn parse_hats(s: &str) -> Result<HatsSource, String> {
    HatsSource::parse(s).map_err(|e| e.to_string())
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

    /// Whether stdout gets colors: `auto` asks the environment (`NO_COLOR`,
    /// `CLICOLOR_FORCE`, `TERM`) and whether stdout is a terminal.
    pub(crate) fn for_stdout(self) -> bool {
        match self {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
            }
        }
    }
}

#[cfg(test)]
#[path = "cli_readme_tests.rs"]
mod readme_tests;
