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
    /// Land on this branch instead of the one the loop was started from (for a base
    /// renamed or deleted since, or a loop started from a detached HEAD).
    #[arg(long, value_name = "BRANCH")]
    pub(crate) onto: Option<String>,
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
    /// Remove the worktree and the record but keep the branch (and its commits, which
    /// then need no landing first).
    #[arg(long)]
    pub(crate) keep_branch: bool,
}
