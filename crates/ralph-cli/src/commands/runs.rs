//! `ralph runs [--format table|json]`: the workspace's runs, newest first, from each
//! run's saved state and history; `ralph runs prune [--keep N]` deletes the older ones.
//! Also where the other commands find a run by id (`--run ID|last`).

use std::io::Write;

use ralph_core::machine::LoopState;
use ralph_core::run_event::format_usd;
use ralph_core::store::{RalphDir, RunDir, StoreError};
use ralph_core::time_text::Civil;
use ralph_core::token_count::TokenCount;
use serde::Serialize;

use super::runs_hats::{self, HatCount};
use super::worktree;
use crate::cli::{RunsArgs, RunsCommand};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::output::print_rows;
use crate::view::table::text_table;
use crate::view::term::clock;

/// What `--run` takes for the workspace's current (or last) run.
pub(crate) const LAST: &str = "last";

/// The outcome of the run a loop is running now.
const RUNNING: &str = "running";
/// The outcome of a run that stopped without saying why (its ralph was killed).
const UNFINISHED: &str = "unfinished";

/// One run: what `--format json` prints per line (docs/cli.md).
#[derive(Debug, Serialize)]
struct Row {
    id: String,
    /// When its first iteration started, in Unix milliseconds (`null` before one did).
    started_at_ms: Option<u64>,
    /// When its last iteration ended, once the run has ended.
    ended_at_ms: Option<u64>,
    /// Why it stopped (`completed`, `max_iterations`, ...), `running` or `unfinished`.
    outcome: String,
    iterations: u32,
    /// The time it has run, over every session, as `max_runtime_seconds` counts it (a
    /// run goes on from here on `--continue`): the GitHub Action reads it to give each
    /// job its `max-runtime` anew.
    runtime_ms: u64,
    /// What the run cost, as far as its agents reported; `null` when none of its
    /// iterations' costs is known (summary.md's "unknown").
    cost_usd: Option<f64>,
    /// False when some iteration's cost is unknown: `cost_usd` is then a lower bound (or
    /// `null`), never a claim that the run was free.
    cost_complete: bool,
    /// True when some iteration's cost is ralph's estimate: `cost_usd` is then one too.
    cost_estimated: bool,
    tokens: u64,
    /// False when some iteration's agent counted no tokens (Copilot): `tokens` is then
    /// a lower bound, or nothing anyone counted when it is 0.
    tokens_complete: bool,
    /// The hats that ran, with how many iterations each, the most first.
    hats: Vec<HatCount>,
}

pub(crate) fn run(args: &RunsArgs) -> Result<CommandOutcome, CliError> {
    let cwd = super::enclosing_workspace()?;
    let dir = RalphDir::in_workspace(&cwd);
    match &args.command {
        Some(RunsCommand::Prune(prune)) => return self::prune(&dir, prune.keep),
        Some(RunsCommand::Land(land)) => return super::worktree::land::land(&cwd, land),
        Some(RunsCommand::Rm(rm)) => return super::worktree::rm::rm(&cwd, rm),
        None => {}
    }
    let runs = dir
        .runs()
        .map_err(|e| CliError::io("list the runs in", dir.path(), e))?;
    let running = running_run(&dir);
    let rows: Vec<Row> = runs
        .iter()
        .map(|r| row(r, running.as_deref() == Some(r.id())))
        .collect();
    // The workspace's own runs are shown whatever git says of the worktree loops.
    let typed_in = super::working_directory()?;
    let worktrees = worktree::list::rows(&cwd, &typed_in).unwrap_or_else(|e| {
        diagnostic(format_args!(
            "warning: the worktree loops cannot be listed: {e}"
        ));
        Vec::new()
    });
    if worktrees.is_empty() {
        print_rows(&rows, args.format, table)?;
    } else {
        // Worktree loops after the workspace's own runs: a second table, or JSON lines
        // told apart by their `worktree` key.
        print_rows(&rows, args.format, |rows| match rows.is_empty() {
            true => String::new(),
            false => table(rows) + "\n",
        })?;
        print_rows(&worktrees, args.format, worktree::list::table)?;
    }
    Ok(CommandOutcome::Success)
}

/// The id of the run a loop is running now, if one is.
pub(crate) fn running_run(dir: &RalphDir) -> Option<String> {
    if !dir.loop_running().unwrap_or(false) {
        return None;
    }
    dir.current_run().ok().flatten().map(|r| r.id().to_owned())
}

fn row(run: &RunDir, running: bool) -> Row {
    let mut row = Row {
        id: run.id().to_owned(),
        started_at_ms: None,
        ended_at_ms: None,
        outcome: if running { RUNNING } else { UNFINISHED }.to_owned(),
        iterations: 0,
        runtime_ms: 0,
        cost_usd: Some(0.0),
        cost_complete: true,
        cost_estimated: false,
        tokens: 0,
        tokens_complete: true,
        hats: Vec::new(),
    };
    let history = run.read_history().unwrap_or_default();
    // Before its first iteration ends, the run's record says when that one started.
    row.started_at_ms = match history.first() {
        Some(first) => Some(first.started_at_ms),
        None => run
            .first_iteration_start()
            .ok()
            .flatten()
            .map(|s| s.started_at_ms),
    };
    // The history is a workspace file: its numbers can be anything.
    let last_end = history
        .last()
        .map(|r| r.started_at_ms.saturating_add(r.duration_ms));
    match run.load() {
        Ok(saved) => {
            let state = saved.state;
            row.iterations = state.iterations;
            row.runtime_ms = state.runtime_ms;
            (row.cost_usd, row.cost_complete) = cost(&state);
            row.cost_estimated = state.spend.cost_estimated();
            row.tokens = state.spend.tokens.total();
            row.tokens_complete = state.spend.tokens_complete();
            row.hats = runs_hats::by_iterations(&state.hats, &history);
            if let Some(end) = &state.end {
                row.outcome = end.name().to_owned();
                row.ended_at_ms = last_end;
            }
        }
        Err(StoreError::NoRun(_)) => {}
        Err(e) => diagnostic(format_args!("warning: run {}: {e}", run.id())),
    }
    row
}

/// A run's cost as summary.md counts it ([`ralph_core::summary::known_cost`]): known, a
/// lower bound when some iterations reported none, or unknown (`None`) when none
/// reported any.
pub(crate) fn cost(state: &LoopState) -> (Option<f64>, bool) {
    ralph_core::summary::known_cost(
        state.spend.cost_usd,
        state.spend.unpriced_iterations,
        state.iterations,
    )
}

/// The `COST` cell, in the words of summary.md and the run's end line: `$0.0123`,
/// `at least $0.0123`, `unknown`; `~$0.0123` when some of it is ralph's estimate
/// (`estimated`).
pub(crate) fn cost_cell(cost_usd: Option<f64>, complete: bool, estimated: bool) -> String {
    let mark = if estimated { "~" } else { "" };
    match (cost_usd, complete) {
        (None, _) => "unknown".to_owned(),
        (Some(usd), true) => format!("{mark}{}", format_usd(usd)),
        (Some(usd), false) => format!("at least {mark}{}", format_usd(usd)),
    }
}

fn table(rows: &[Row]) -> String {
    if rows.is_empty() {
        return "no runs in this workspace: start one with `ralph run`\n".to_owned();
    }
    let header = [
        "RUN", "STARTED", "TOOK", "OUTCOME", "ITER", "COST", "TOKENS", "HATS",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            [
                r.id.clone(),
                r.started_at_ms.map_or_else(|| "—".to_owned(), utc),
                match (r.started_at_ms, r.ended_at_ms) {
                    (Some(start), Some(end)) => clock(end.saturating_sub(start)),
                    _ => "—".to_owned(),
                },
                r.outcome.clone(),
                r.iterations.to_string(),
                cost_cell(r.cost_usd, r.cost_complete, r.cost_estimated),
                TokenCount::of(r.tokens, r.tokens_complete).cell(|n| n.to_string()),
                runs_hats::cell(&r.hats),
            ]
        })
        .collect();
    text_table(header, cells, &[4, 5, 6])
}

/// `2026-11-26 10:15:00Z`.
fn utc(ms: u64) -> String {
    let c = Civil::of_unix_millis(ms);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// Deletes every run but the newest `keep` and the current one (the run a loop runs,
/// or `ralph run --continue` would resume).
fn prune(dir: &RalphDir, keep: usize) -> Result<CommandOutcome, CliError> {
    let runs = dir
        .runs()
        .map_err(|e| CliError::io("list the runs in", dir.path(), e))?;
    let current = dir.current_run().ok().flatten().map(|r| r.id().to_owned());
    let mut out = std::io::stdout().lock();
    let mut removed = 0usize;
    for run in runs.iter().skip(keep) {
        if current.as_deref() == Some(run.id()) {
            continue;
        }
        dir.remove_run(run)
            .map_err(|e| CliError::io("remove", run.path(), e))?;
        removed += 1;
        writeln!(out, "removed run {}", run.id()).map_err(CliError::write)?;
    }
    writeln!(
        out,
        "{removed} run(s) removed, {} kept",
        runs.len() - removed
    )
    .map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

/// The run `--run` names: an id from `ralph runs`, or `last` for the workspace's current
/// (or last) run.
pub(crate) fn find_run(dir: &RalphDir, id: &str) -> Result<RunDir, CliError> {
    let found = if id == LAST {
        dir.current_run()
            .map_err(|e| CliError::io("read the current run of", dir.path(), e))?
    } else {
        dir.run(id)
            .map_err(|e| CliError::io("find the run in", dir.path(), e))?
    };
    found.ok_or_else(|| CliError::UnknownRun {
        id: id.to_owned(),
        dir: dir.path().to_path_buf(),
    })
}

#[cfg(test)]
#[path = "runs_tests.rs"]
mod tests;
