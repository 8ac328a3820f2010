//! The environment variables ralph sets for the agents it starts: every `RALPH_*` name in
//! one place, so the loop that sets them, the supervisor, `ralph emit` that reads one
//! back and `docs/agents.md` that documents them agree. Set per agent run (a loop's gates
//! and hooks get the run-wide ones too, hooks all but [`EVENTS_FILE`]); the variables
//! of the user's environment pass through unchanged except `PATH`. [`CONFIG`] is the one
//! name here that ralph reads from the user's environment instead.

/// The absolute path of the running ralph binary. Set by `ralph run` for every agent, so
/// an agent whose shell resets `PATH` can still call `"$RALPH_BIN" emit ...`.
pub const BIN: &str = "RALPH_BIN";
/// The run's event inbox (`.ralph/runs/<id>/inbox.jsonl`). Set by `ralph run` for every
/// agent; `ralph emit` appends to it.
pub const EVENTS_FILE: &str = "RALPH_EVENTS_FILE";
/// The id of the run (the name of its directory under `.ralph/runs/`). Set by `ralph run`
/// for every agent, gate and hook.
pub const RUN_ID: &str = "RALPH_RUN_ID";
/// The iteration's number, from 1. Set by `ralph run` for each iteration's agent, its
/// gates and its `*.iteration.start` hooks.
pub const ITERATION: &str = "RALPH_ITERATION";
/// The id of the hat the iteration runs. Set by `ralph run` for each iteration's agent,
/// its gates and its `*.iteration.start` hooks.
pub const HAT: &str = "RALPH_HAT";
/// The workspace the loop runs in (absolute). Set by `ralph run` for every agent, so
/// `ralph tools …` finds the loop's files even from a subdirectory.
pub const WORKSPACE: &str = "RALPH_WORKSPACE";
/// The same as [`WORKSPACE`], under ralph-orchestrator's name, kept for its prompts and
/// scripts (`cd "$RALPH_WORKSPACE_ROOT"`). Set wherever [`WORKSPACE`] is.
pub const WORKSPACE_ROOT: &str = "RALPH_WORKSPACE_ROOT";
/// The same as [`RUN_ID`], under ralph-orchestrator's name (its tasks' `loop_id` came
/// from it, as ours come from the run id), kept for its prompts and scripts and its
/// hooks'. Set wherever [`RUN_ID`] is (agents, gates and hooks of a loop).
pub const LOOP_ID: &str = "RALPH_LOOP_ID";
/// The name of the worktree loop (`ralph run --worktree=NAME`) the run belongs to, so a
/// project can derive ports or database names per loop. Set by `ralph run` for every
/// agent, gate and hook of a loop that runs in `.ralph/worktrees/<name>`; absent otherwise.
pub const WORKTREE: &str = "RALPH_WORKTREE";
/// The run's completion promise (`event_loop.completion_promise`, `LOOP_COMPLETE` unless
/// configured). Set by `ralph run` for every agent, so that `ralph emit` can say when a
/// topic surely meant the promise but is not it (`loop_complete`).
pub const COMPLETION_PROMISE: &str = "RALPH_COMPLETION_PROMISE";
/// A token unique to one supervised process: `<owner>-<counter>`, where the owner is the
/// ralph process that started it ([`agent_run_owner`]). Set by the supervisor for every
/// process it starts (agents, gates, hooks, probes); ralph finds the process's descendants by
/// it, even those that left its process group, to stop them, and a later ralph finds
/// what a killed one left behind by its owner part.
pub const AGENT_RUN: &str = "RALPH_AGENT_RUN";

/// The config file every command that takes `-c/--config` reads when `-c` is not given
/// (an empty value counts as unset). Not set by ralph: read from the user's environment,
/// as ralph-orchestrator reads it, so CI jobs that choose their config this way keep
/// working after the switch.
pub const CONFIG: &str = "RALPH_CONFIG";

/// The owner part of [`AGENT_RUN`] tokens: the ralph process's pid and start time (clock
/// ticks since boot, `/proc/<pid>/stat` field 22), which together name one process of
/// one boot even after its pid is reused.
pub fn agent_run_owner(ralph: crate::ProcessIdentity) -> String {
    format!("{}-{}", ralph.pid, ralph.start_ticks)
}

/// Every variable above, in the order `docs/agents.md` lists them.
pub const ALL: [&str; 11] = [
    BIN,
    EVENTS_FILE,
    RUN_ID,
    WORKSPACE,
    WORKSPACE_ROOT,
    LOOP_ID,
    WORKTREE,
    COMPLETION_PROMISE,
    ITERATION,
    HAT,
    AGENT_RUN,
];

#[cfg(test)]
#[path = "env_tests.rs"]
mod tests;
