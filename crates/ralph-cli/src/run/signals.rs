//! Ctrl-C, SIGTERM and SIGHUP (the terminal went away). The first asks the current agent to stop gracefully (SIGTERM to
//! its process group, then SIGKILL after the kill grace) and ends the loop once the
//! summary is written; a second within `DOUBLE_INTERRUPT_WINDOW` kills the agent at
//! once. Requests are sticky, so a signal between iterations stops the loop before the
//! next agent starts.

use std::io;
use std::time::Instant;

use ralph_agent::supervise::DOUBLE_INTERRUPT_WINDOW;
use ralph_agent::{StopController, StopLevel};
use tokio::signal::unix::{SignalKind, signal};

use crate::diagnostic::diagnostic;

/// Routes SIGINT, SIGTERM and SIGHUP to `controller` for the rest of the process. Call from
/// inside the runtime.
pub(crate) fn install(controller: StopController) -> io::Result<()> {
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        loop {
            tokio::select! {
                got = interrupt.recv() => if got.is_none() { return },
                got = terminate.recv() => if got.is_none() { return },
                got = hangup.recv() => if got.is_none() { return },
            }
            match controller.interrupt(Instant::now()) {
                StopLevel::Graceful => diagnostic(format_args!(
                    "stopping the agent and ending the loop (press Ctrl-C again within {}s to \
                     kill the agent now)",
                    DOUBLE_INTERRUPT_WINDOW.as_secs()
                )),
                StopLevel::Immediate => diagnostic(format_args!("killing the agent now")),
                StopLevel::None => {}
            }
        }
    });
    Ok(())
}
