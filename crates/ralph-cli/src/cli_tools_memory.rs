//! `ralph tools memory`'s arguments.

use clap::{Subcommand, ValueEnum};
use ralph_core::memory::MemoryType;

use crate::cli_memory_type::MemoryTypeParser;
use crate::cli_tools::ToolOptions;

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryArgs {
    #[command(subcommand)]
    pub(crate) command: MemoryCommand,
    #[command(flatten)]
    pub(crate) options: ToolOptions,
}

#[derive(Debug, Subcommand)]
pub(crate) enum MemoryCommand {
    /// Store a new memory (at the top of its type's section).
    Add(MemoryAddArgs),
    /// List the memories, in file order.
    List(MemoryListArgs),
    /// Show one memory.
    Show(MemoryShowArgs),
    /// Delete one memory.
    Delete(MemoryIdArgs),
    /// Find memories whose text or tags contain QUERY (ignoring case).
    Search(MemorySearchArgs),
    /// Print the most relevant memories as the prompt carries them (newest first),
    /// within a budget.
    Prime(MemoryPrimeArgs),
    /// Create an empty memories file.
    Init(MemoryInitArgs),
}

/// How a list of memories is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MemoryFormat {
    /// A table for people.
    Table,
    /// A JSON array (one object for `show` and `add`).
    Json,
    /// The memories file's own layout.
    Markdown,
    /// Only the ids, one a line.
    Quiet,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryAddArgs {
    /// The lesson: a line or two.
    pub(crate) content: String,
    /// Its type (any case).
    #[arg(short = 't', long = "type", value_parser = MemoryTypeParser, default_value = "pattern")]
    pub(crate) memory_type: MemoryType,
    /// Comma-separated tags.
    #[arg(long, value_name = "A,B")]
    pub(crate) tags: Option<String>,
    #[arg(long, value_enum, default_value_t = MemoryFormat::Table)]
    pub(crate) format: MemoryFormat,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryListArgs {
    /// Only memories of this type (any case).
    #[arg(short = 't', long = "type", value_parser = MemoryTypeParser)]
    pub(crate) memory_type: Option<MemoryType>,
    /// Only the last N.
    #[arg(long, value_name = "N")]
    pub(crate) last: Option<usize>,
    #[arg(long, value_enum, default_value_t = MemoryFormat::Table)]
    pub(crate) format: MemoryFormat,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryShowArgs {
    /// The memory's id (`mem-1795660762-7768`).
    pub(crate) id: String,
    #[arg(long, value_enum, default_value_t = MemoryFormat::Table)]
    pub(crate) format: MemoryFormat,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryIdArgs {
    /// The memory's id (`mem-1795660762-7768`).
    pub(crate) id: String,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemorySearchArgs {
    /// Words to look for in the text and tags; none matches every memory.
    pub(crate) query: Option<String>,
    /// Only memories of this type (any case).
    #[arg(short = 't', long = "type", value_parser = MemoryTypeParser)]
    pub(crate) memory_type: Option<MemoryType>,
    /// Only memories with one of these tags (comma-separated).
    #[arg(long, value_name = "A,B")]
    pub(crate) tags: Option<String>,
    /// Every match (without it, the first 10).
    #[arg(long)]
    pub(crate) all: bool,
    #[arg(long, value_enum, default_value_t = MemoryFormat::Table)]
    pub(crate) format: MemoryFormat,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryPrimeArgs {
    /// The most tokens to print (a token is counted as 4 characters, as
    /// ralph-orchestrator counts it), whole memories only (0 or none: no limit).
    #[arg(long, value_name = "N")]
    pub(crate) budget: Option<usize>,
    /// Only memories of these types (comma-separated, any case).
    #[arg(
        short = 't',
        long = "type",
        value_name = "TYPES",
        value_parser = MemoryTypeParser,
        value_delimiter = ','
    )]
    pub(crate) types: Vec<MemoryType>,
    /// Only memories with one of these tags (comma-separated).
    #[arg(long, value_name = "A,B")]
    pub(crate) tags: Option<String>,
    /// Only memories written in the last N days.
    #[arg(long, value_name = "N")]
    pub(crate) recent: Option<u32>,
    /// `markdown` (the default) or `json`.
    #[arg(long, value_enum, default_value_t = MemoryFormat::Markdown)]
    pub(crate) format: MemoryFormat,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MemoryInitArgs {
    /// Replace an existing file (its memories are lost).
    #[arg(long)]
    pub(crate) force: bool,
}
