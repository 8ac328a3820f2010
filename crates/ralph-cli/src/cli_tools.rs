//! `ralph tools …`: the commands agents call to keep the loop's working memory.

use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::ColorArg;
use crate::cli_tools_memory::MemoryArgs;
use crate::cli_tools_skill::SkillArgs;

#[derive(Debug, clap::Args)]
pub(crate) struct ToolsArgs {
    #[command(subcommand)]
    pub(crate) tool: Tool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Tool {
    /// Keep lessons for later iterations in .ralph/agent/memories.md.
    ///
    /// Each memory is a line or two of text with a type (pattern, decision, fix,
    /// context) and tags. With `memories.inject: auto` (the default) each prompt carries
    /// the most relevant ones, within `memories.budget` characters. The file is the one
    /// ralph-orchestrator reads and writes.
    ///
    /// Examples:
    ///   ralph tools memory add "Parsers take &[u8], not &str" -t pattern --tags parser
    ///   ralph tools memory search parser
    ///   ralph tools memory prime --budget 2000 --recent 30
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

/// The options every `ralph tools` command takes, as ralph-orchestrator's do (`-H`,
/// `-v` and `--color` are accepted for its scripts and change nothing).
#[derive(Debug, clap::Args)]
pub(crate) struct ToolOptions {
    /// The workspace (default: $RALPH_WORKSPACE, which `ralph run` sets for agents, else
    /// the current directory).
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) root: Option<PathBuf>,
    /// Read this config file instead of the workspace's ralph.yml.
    #[arg(short = 'c', long = "config", value_name = "FILE", global = true)]
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
