//! What `ralph runs` shows of the worktree loops, read from each worktree's own run and
//! lock, the main checkout's record and git.

use std::path::Path;

use ralph_core::store::{HeldBy, LoopView, RalphDir, WorktreeRecord};
use serde::Serialize;

use super::Repo;
use crate::commands::runs::{cost, cost_cell};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::view::table::text_table;

/// One worktree loop: what `ralph runs --format json` prints per line after the runs
/// (told apart by its `worktree` key; docs/cli.md).
#[derive(Debug, Serialize)]
pub(crate) struct WorktreeRow {
    pub(crate) worktree: String,
    pub(crate) branch: String,
    /// The worktree's directory: relative to the working directory when inside it (`.`
    /// at its top), else absolute.
    pub(crate) path: String,
    /// The base it was started from and lands on (a branch, or a commit).
    pub(crate) base: String,
    /// running, landing, removing, completed, failed, limit, interrupted, landed,
    /// needs-rebase, check-failed.
    pub(crate) status: &'static str,
    /// The exit code its `ralph run` had (or has, once it ends); `null` while it runs or
    /// before its run ended.
    pub(crate) exit_code: Option<u8>,
    pub(crate) run_id: Option<String>,
    pub(crate) iterations: u32,
    /// What its run cost as far as its agents reported, counted as `ralph runs` counts a
    /// run's: `null` when no iteration's cost is known, never a made-up `0`.
    pub(crate) cost_usd: Option<f64>,
    /// False when some iteration's cost is unknown (`cost_usd` is then a lower bound).
    pub(crate) cost_complete: bool,
    /// True when some iteration's cost is ralph's estimate (`cost_usd` is then one too).
    pub(crate) cost_estimated: bool,
    /// Commits on the branch that the base does not have (`null` when git cannot say).
    pub(crate) ahead: Option<u32>,
    /// Whether its loop holds the worktree's lock now (not `ralph runs land` or `rm`).
    pub(crate) alive: bool,
    /// The machine and process holding the worktree's lock: the live loop, or the
    /// landing or removal at work (`status` says which); the table's `HELD BY`.
    pub(crate) host: Option<String>,
    pub(crate) pid: Option<u32>,
}

/// Every worktree loop of the repository `workspace` is in (none outside of one), their
/// paths shown from `typed_in`, the directory `ralph runs` was typed in: in a
/// subdirectory, a path relative to the workspace would name nothing.
pub(crate) fn rows(workspace: &Path, typed_in: &Path) -> Result<Vec<WorktreeRow>, CliError> {
    let Some(repo) = Repo::find(workspace)? else {
        return Ok(Vec::new());
    };
    let names = repo
        .records
        .names()
        .map_err(|e| CliError::io("list the worktree loops in", repo.records.path(), e))?;
    let host = nix::unistd::gethostname()
        .ok()
        .map(|h| h.to_string_lossy().into_owned());
    let mut rows = Vec::new();
    for name in &names {
        // A damaged record hides only its own row.
        match repo.record(name) {
            Ok(record) => rows.push(row(&repo, &record, typed_in, host.as_deref())),
            Err(e) => diagnostic(format_args!("warning: worktree loop `{name}`: {e}")),
        }
    }
    Ok(rows)
}

fn row(repo: &Repo, record: &WorktreeRecord, cwd: &Path, host: Option<&str>) -> WorktreeRow {
    let path = &record.path;
    let own = RalphDir::in_workspace(path);
    let held = own.held_by().unwrap_or(None);
    let alive = held == Some(HeldBy::Loop);
    let run = own.current_run().ok().flatten();
    let saved = run.as_ref().and_then(|r| r.load().ok());
    let end = saved.as_ref().and_then(|s| s.state.end.as_ref());
    let head = repo.head(&record.branch).ok().flatten();
    // A running loop that has not saved a state yet has run nothing: it cost nothing so
    // far. One not running with no state to read may have run and cost anything: its
    // worktree or `.ralph/` is gone (a `git clean -fdx`, an agent's `rm -rf`), so what it
    // cost is unknown, never a made-up 0.
    let (cost_usd, cost_complete) = match (&saved, alive) {
        (Some(s), _) => cost(&s.state),
        (None, true) => (Some(0.0), true),
        (None, false) => (None, false),
    };
    let status = record.status(LoopView {
        held,
        has_run: run.is_some(),
        end,
        head: head.as_deref(),
    });
    WorktreeRow {
        worktree: record.name.clone(),
        branch: record.branch.clone(),
        path: crate::run::display_path(path, cwd),
        base: record.base_name().to_owned(),
        status: status.name(),
        exit_code: match alive {
            true => None,
            false => {
                end.map(|e| crate::exit::number(crate::exit::CommandOutcome::of_loop(e.class())))
            }
        },
        run_id: run.map(|r| r.id().to_owned()),
        iterations: saved.as_ref().map_or(0, |s| s.state.iterations),
        cost_usd,
        cost_complete,
        cost_estimated: saved
            .as_ref()
            .is_some_and(|s| s.state.spend.cost_estimated()),
        ahead: repo.ahead(record).ok().flatten(),
        alive,
        // The holder's own host, as it wrote it (a shared volume's loop on another
        // machine); this one's for a file written before ralph recorded it.
        host: held
            .and((own.lock_holder().and_then(|h| h.host)).or_else(|| host.map(str::to_owned))),
        pid: held.and_then(|_| own.holder_pid()),
    }
}

/// The worktree loops as a table.
pub(crate) fn table(rows: &[WorktreeRow]) -> String {
    // `HELD BY`, not whether the loop is alive: during a landing or a removal the
    // command's process holds the worktree (`STATUS` says which), and a `no` there read
    // as "nothing is at work on it", free to continue or remove.
    let header = [
        "WORKTREE", "BRANCH", "STATUS", "EXIT", "ITER", "COST", "AHEAD", "HELD BY", "PATH",
    ];
    let dash = || "—".to_owned();
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            [
                r.worktree.clone(),
                r.branch.clone(),
                r.status.to_owned(),
                r.exit_code.map_or_else(dash, |c| c.to_string()),
                r.iterations.to_string(),
                cost_cell(r.cost_usd, r.cost_complete, r.cost_estimated),
                r.ahead.map_or_else(dash, |n| n.to_string()),
                holder_cell(r.host.as_deref(), r.pid),
                r.path.clone(),
            ]
        })
        .collect();
    text_table(header, cells, &[3, 4, 5, 6])
}

/// The `HELD BY` cell: the host and pid of what holds the worktree's lock (its loop, or
/// `ralph runs land` or `rm`), `?` for what is not known (a pid from another host);
/// `—` when nothing holds it (the row names neither).
fn holder_cell(host: Option<&str>, pid: Option<u32>) -> String {
    match (host, pid) {
        (None, None) => "—".to_owned(),
        (host, pid) => format!(
            "{}:{}",
            host.unwrap_or("?"),
            pid.map_or_else(|| "?".to_owned(), |p| p.to_string())
        ),
    }
}
