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

/// Which signal asked ralph to stop: the message says how to insist in the same way.
#[derive(Clone, Copy, Debug)]
enum Which {
    Interrupt,
    Terminate,
    Hangup,
}

impl Which {
    fn again_hint(self) -> String {
        let window = DOUBLE_INTERRUPT_WINDOW.as_secs();
        match self {
            Which::Interrupt => {
                format!("press Ctrl-C again within {window}s to kill the agent now")
            }
            Which::Terminate => {
                format!("on SIGTERM; a second one within {window}s kills the agent now")
            }
            Which::Hangup => "the terminal went away".to_owned(),
        }
    }
}

/// Routes SIGINT, SIGTERM and SIGHUP to `controller` for the rest of the process. Call from
/// inside the runtime.
pub(crate) fn install(controller: StopController) -> io::Result<()> {
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        loop {
            let which = tokio::select! {
                got = interrupt.recv() => got.map(|()| Which::Interrupt),
                got = terminate.recv() => got.map(|()| Which::Terminate),
                got = hangup.recv() => got.map(|()| Which::Hangup),
            };
            let Some(which) = which else { return };
            match controller.interrupt(Instant::now()) {
                StopLevel::Graceful => diagnostic(format_args!(
                    "stopping the agent and ending the loop ({})",
                    which.again_hint()
                )),
                StopLevel::Immediate => diagnostic(format_args!("killing the agent now")),
                StopLevel::None => {}
            }
        }
    });
    Ok(())
}
