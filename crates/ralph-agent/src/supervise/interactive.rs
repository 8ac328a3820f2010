//! Interactive sessions (`ralph plan`): the agent takes over the user's terminal.
//!
//! Unlike headless runs, the child stays in ralph's process group and inherits stdin,
//! stdout and stderr, so it is the terminal's foreground job and Ctrl-C reaches it
//! directly. The caller should not treat Ctrl-C during the session as a loop interrupt.
//! Dropping the future kills the child.

use std::ffi::OsString;
use std::process::Stdio;

use super::child::child_status;
use super::outcome::{ChildStatus, SpawnFailure};
use super::own_children;

/// Runs `program args` in the foreground and waits for it. `Ok(None)` when its status
/// could not be collected.
pub async fn run_interactive(
    program: &OsString,
    args: &[OsString],
) -> Result<Option<ChildStatus>, SpawnFailure> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let pid_of = |child: &tokio::process::Child| child.id().and_then(|p| i32::try_from(p).ok());
    let mut child = own_children::start(|| command.spawn(), pid_of)
        .map_err(|e| SpawnFailure::new(program, &e))?;
    let pid = pid_of(&child);
    let status = child.wait().await.ok().and_then(|s| child_status(&s));
    if let Some(pid) = pid {
        own_children::reaped(pid);
    }
    Ok(status)
}
