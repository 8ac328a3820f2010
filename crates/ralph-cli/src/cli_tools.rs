//! `ralph tools …`: the commands agents run to keep the loop's working memory (tasks,
//! memories, skills: the same commands, options and files as ralph-orchestrator's, so
//! its workflows run unchanged).

use std::path::PathBuf;

use clap::{ArgAction, ValueEnum};

use crate::cli::ColorArg;
use crate::cli_tools_memory::MemoryArgs;
use crate::cli_tools_skill::SkillArgs;

#[derive(Debug, clap::Args)]
pub(crate) struct ToolsArgs {
    #[command(subcommand)]
    pub(crate) tool: Tool,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Tool {
    /// Work items that outlive an iteration: add, start, close, list what is ready.
    ///
    /// Tasks live in .ralph/agent/tasks.jsonl (ralph-orchestrator's file). An id may be
    /// given whole or by its last digits (`921a`). With `tasks: {enabled: true}` in
    /// ralph.yml each prompt lists the ready tasks, and the loop cannot complete while a
    /// task of the run is open or in progress.
    ///
    /// Examples:
    ///   ralph tools task add "Write the parser" -p 2 -d "pi NDJSON"
    ///   ralph tools task add "Test it" --blocked-by 921a,887a
    ///   ralph tools task ensure "Docs" --key docs
    ///   ralph tools task ready
    ///   ralph tools task start 921a && ralph tools task close 921a
    ///   ralph tools task list --all --limit 20 --format json
    ///   ralph tools task ready --format quiet
    #[command(verbatim_doc_comment)]
    Task(TaskArgs),
    /// Keep lessons for later iterations in .ralph/agent/memories.md.
    ///
    /// Each memory is a line or two of text with a type (pattern, decision, fix,
    /// context) and tags. With `memories.inject: auto` (the default) each prompt carries
    /// the most relevant ones, within `memories.budget` tokens. The file is the one
    /// ralph-orchestrator reads and writes.
    ///
    /// Examples:
    ///   ralph tools memory add "Parsers take &[u8], not &str" -t pattern --tags parser
    ///   ralph tools memory search parser
    ///   ralph tools memory prime --budget 500 --recent 30
    ///   ralph tools memory list --format json | jq -r '.[].id'
    #[command(verbatim_doc_comment)]
    Memory(MemoryArgs),
    /// List and load skills: instructions for particular jobs.
    ///
    /// A skill is a directory with a SKILL.md (or a NAME.md) in one of `skills.dirs`;
    /// its front matter (`name:`, `description:`) names and describes it. Each prompt
    /// lists the skills; `load` prints one for the agent to read.
    ///
    /// Examples:
    ///   ralph tools skill list
    ///   ralph tools skill load release-notes
    #[command(verbatim_doc_comment)]
    Skill(SkillArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct TaskArgs {
    #[command(subcommand)]
    pub(crate) command: TaskCommand,
    #[command(flatten)]
    pub(crate) options: ToolOptions,
    /// `table` for people, `json` for programs, `quiet` for the ids alone.
    #[arg(long, global = true, value_enum, default_value_t = TaskFormat::Table)]
    pub(crate) format: TaskFormat,
}

/// How `ralph tools task` prints what it did or found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TaskFormat {
    /// Lines for people.
    Table,
    /// A JSON array for a list, one JSON object for a single task.
    Json,
    /// Only the ids, one a line (for `$(…)` and `xargs`).
    Quiet,
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum TaskCommand {
    /// Create a task.
    Add {
        title: String,
        #[command(flatten)]
        details: TaskDetails,
        #[command(flatten)]
        blockers: Blockers,
        /// A stable name, so `ensure` finds it again.
        #[arg(long)]
        key: Option<String>,
    },
    /// Create a task once: the task with KEY when there is one, else a new one.
    Ensure {
        title: String,
        #[arg(long)]
        key: String,
        #[command(flatten)]
        details: TaskDetails,
        #[command(flatten)]
        blockers: Blockers,
    },
    /// List tasks, in progress first, then by priority and age (closed and failed ones
    /// only with --all or -s).
    List(TaskListArgs),
    /// Open tasks whose blockers are done, most urgent first (inside a run, the run's
    /// own and those of no run, unless --all).
    Ready {
        /// Every run's ready tasks, not only this run's.
        #[arg(short = 'a', long)]
        all: bool,
    },
    /// Mark a task in progress.
    Start { id: String },
    /// Mark a task done.
    Close { id: String },
    /// Mark a task failed (given up on).
    Fail { id: String },
    /// Make a closed or failed task open again.
    Reopen { id: String },
    /// Show one task.
    Show { id: String },
}

#[derive(Debug, clap::Args)]
pub(crate) struct TaskListArgs {
    /// Only tasks with this status.
    #[arg(short = 's', long, value_enum, ignore_case = true)]
    pub(crate) status: Option<StatusArg>,
    /// Closed and failed tasks too.
    #[arg(short = 'a', long)]
    pub(crate) all: bool,
    /// Only tasks created or closed in the last N days.
    #[arg(short = 'd', long, value_name = "N")]
    pub(crate) days: Option<u32>,
    /// At most N tasks (the first N of the listed order).
    #[arg(short = 'l', long, value_name = "N")]
    pub(crate) limit: Option<usize>,
}

/// The tasks a new task waits for.
#[derive(Debug, clap::Args)]
pub(crate) struct Blockers {
    /// A task that must be done first; repeat the flag or separate ids with commas.
    // One value per occurrence: a title after `--blocked-by X` stays the title.
    #[arg(long = "blocked-by", value_name = "ID", value_delimiter = ',', num_args = 1,
          action = ArgAction::Append)]
    pub(crate) blocked_by: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct TaskDetails {
    /// 1 (most urgent) to 5.
    #[arg(short = 'p', long, default_value_t = ralph_core::tasks::DEFAULT_PRIORITY,
          value_parser = clap::value_parser!(u8).range(1..=5))]
    pub(crate) priority: u8,
    /// What is to be done, in more words.
    #[arg(short = 'd', long)]
    pub(crate) description: Option<String>,
}

/// A task status, as the command line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum StatusArg {
    Open,
    #[value(name = "in_progress", aliases = ["in-progress", "inprogress"])]
    InProgress,
    Closed,
    Failed,
}

/// The options every `ralph tools` command takes, as ralph-orchestrator's do (`-H`,
/// `-v` and `--color` are accepted for its scripts and change nothing).
#[derive(Debug, clap::Args)]
pub(crate) struct ToolOptions {
    /// The workspace (default: $RALPH_WORKSPACE, which `ralph run` sets for agents, else
    /// the nearest directory from here up that has a `.ralph/`, else the current
    /// directory).
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) root: Option<PathBuf>,
    /// Read this config file instead of the workspace's ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", env = ralph_types::env::CONFIG, global = true)]
    pub(crate) config: Option<PathBuf>,
    /// Accepted for ralph-orchestrator's scripts; ignored.
    #[arg(
        short = 'H',
        long = "hats",
        value_name = "SOURCE",
        global = true,
        hide = true
    )]
    pub(crate) hats: Option<String>,
    /// Accepted for ralph-orchestrator's scripts; ignored.
    #[arg(short = 'v', long, global = true, hide = true)]
    pub(crate) verbose: bool,
    /// Accepted for ralph-orchestrator's scripts; ralph's tool output has no colors.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, global = true, hide = true)]
    pub(crate) color: ColorArg,
}

#[cfg(test)]
#[path = "cli_tools_tests.rs"]
mod tests;
