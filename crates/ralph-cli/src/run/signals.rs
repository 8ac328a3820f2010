//! Ctrl-C, SIGTERM and SIGHUP (the terminal went away). The first asks what runs (the
//! agent, a gate or a hook) to stop gracefully (SIGTERM to its process group, then
//! SIGKILL after the kill grace) and ends the loop once the summary is written; a second
//! within `DOUBLE_INTERRUPT_WINDOW` kills it at once. Requests are sticky, so a signal
//! between iterations stops the loop before the next agent starts. The message names
//! what is stopped ([`StopController::running`] marks it).

use std::io;
use std::time::Instant;

use ralph_agent::StopController;
use ralph_agent::supervise::DOUBLE_INTERRUPT_WINDOW;
use tokio::signal::unix::{SignalKind, signal};

use crate::diagnostic::diagnostic;
use crate::view::stopping::stop_message;

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
            Which::Interrupt => format!("press Ctrl-C again within {window}s to kill it now"),
            Which::Terminate => {
                format!("on SIGTERM; a second one within {window}s kills it now")
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
            let level = controller.interrupt(Instant::now());
            let what = controller.what_runs();
            if let Some(message) = stop_message(level, what, &which.again_hint()) {
                diagnostic(format_args!("{message}"));
            }
        }
    });
    Ok(())
}
