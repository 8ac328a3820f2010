//! `ralph tools skill`'s arguments.

use clap::Subcommand;

use crate::cli::TableArg;
use crate::cli_tools::ToolOptions;

#[derive(Debug, clap::Args)]
pub(crate) struct SkillArgs {
    #[command(subcommand)]
    pub(crate) command: SkillCommand,
    #[command(flatten)]
    pub(crate) options: ToolOptions,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SkillCommand {
    /// List the skills: name, description, file.
    List(SkillListArgs),
    /// Print a skill's instructions.
    Load(SkillLoadArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct SkillListArgs {
    /// `table` for people, `json` for programs (a JSON array).
    #[arg(long, value_enum, default_value_t = TableArg::Table)]
    pub(crate) format: TableArg,
}

#[derive(Debug, clap::Args)]
pub(crate) struct SkillLoadArgs {
    /// The skill's name, as `ralph tools skill list` shows it.
    pub(crate) name: String,
}
