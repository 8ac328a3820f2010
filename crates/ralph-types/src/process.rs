//! One process, named so that a reused pid is not mistaken for it.

use serde::{Deserialize, Serialize};

/// A process as `/proc` shows it: its pid and its start time in clock ticks since boot
/// (`/proc/<pid>/stat` field 22). A pid is reused once its process is gone; the pair is
/// not, within one boot. The supervisor reads it; the store records it; the core decides
/// with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProcessIdentity {
    pub pid: i32,
    pub start_ticks: u64,
}
