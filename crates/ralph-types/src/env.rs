//! The environment variables ralph sets for the agents it starts: every `RALPH_*` name in
//! one place, so the loop that sets them, the supervisor, `ralph emit` that reads one
//! back and `docs/agents.md` that documents them agree. Set per agent run; the variables
//! of the user's environment pass through unchanged except `PATH`.

/// The absolute path of the running ralph binary. Set by `ralph run` for every agent, so
/// an agent whose shell resets `PATH` can still call `"$RALPH_BIN" emit ...`.
pub const BIN: &str = "RALPH_BIN";
/// The run's event inbox (`.ralph/runs/<id>/events.jsonl`). Set by `ralph run` for every
/// agent; `ralph emit` appends to it.
pub const EVENTS_FILE: &str = "RALPH_EVENTS_FILE";
/// The id of the run (the name of its directory under `.ralph/runs/`). Set by `ralph run`
/// for every agent.
pub const RUN_ID: &str = "RALPH_RUN_ID";
/// The iteration's number, from 1. Set by `ralph run` for each iteration's agent.
pub const ITERATION: &str = "RALPH_ITERATION";
/// The id of the hat the iteration runs. Set by `ralph run` for each iteration's agent.
pub const HAT: &str = "RALPH_HAT";
/// The workspace an agent works in (absolute). `ralph tools …` acts on it when no
/// `--root` is given, so an agent that changed directory still reaches the loop's files.
pub const WORKSPACE: &str = "RALPH_WORKSPACE";
/// A token unique to one supervised process (`<ralph pid>-<counter>`). Set by the
/// supervisor for every process it starts (agents, version probes); ralph finds the
/// process's descendants by it, even those that left its process group, to stop them.
pub const AGENT_RUN: &str = "RALPH_AGENT_RUN";

/// Every variable above, in the order `docs/agents.md` lists them.
pub const ALL: [&str; 6] = [BIN, EVENTS_FILE, RUN_ID, ITERATION, HAT, AGENT_RUN];

#[cfg(test)]
#[path = "env_tests.rs"]
mod tests;
