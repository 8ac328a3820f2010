//! Which of the run record's caps on an agent's streamed output cut it: the notices that
//! say output was left out name it, so the user knows whether one iteration flooded or
//! the whole run reached what it records.

use serde::{Deserialize, Serialize};

/// Which of the record's caps on an agent's streamed output cut it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamCap {
    /// What the run records of one iteration (the only cap of older versions).
    #[default]
    Iteration,
    /// What the run records in all, over its iterations and `--continue` sessions; past
    /// it each iteration keeps only its start.
    Run,
}
