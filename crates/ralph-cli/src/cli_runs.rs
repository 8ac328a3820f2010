//! The arguments of `ralph runs land` and `ralph runs rm` (worktree loops; see
//! `commands/worktree/`).

#[derive(Debug, clap::Args)]
pub(crate) struct LandArgs {
    /// The worktree loop (its name in `ralph runs`).
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
    /// The check to run in the rebased worktree before the base moves (through `sh -c`;
    /// default: the gates of the worktree's ralph.yml).
    #[arg(long, value_name = "CMD")]
    pub(crate) check: Option<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RmArgs {
    /// The worktree loop (its name in `ralph runs`).
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
    /// Remove it even when its branch has commits its base does not, or its worktree
    /// changes not committed (a running loop is still refused: stop it first).
    #[arg(long)]
    pub(crate) force: bool,
}
